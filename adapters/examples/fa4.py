#!/usr/bin/env python3
"""fa4.py: FlashAttention-4's forward (the flash-attn-4 package, CuTe DSL;
`flash_attn.cute.flash_attn_func`) measured by attnbench through the
adapter kit, e.g.

    { name = "fa4"; protocol = 2; timing = "hot"; layout = "bshd";
      command = "python3 adapters/examples/fa4.py"; }

The package takes and returns [B, S, H, D] tensors, so the adapter declares
layout="bshd" to the kit: attnbench (device buffers, PROTOCOL.md) or the
kit (its own inputs) prepares Q, K, V in that layout outside the timed
region and reads O back from it, so the timed call is the package's call
alone: no transposed views, no copy of O. (Until 2026-11 the kit handed
[B, H, S, D] tensors, viewed transposed, and O was made contiguous inside
the timed call: 7% slower than FlashAttention-4 called natively on an
H100.) Where the package is not installed the adapter answers with one
error line saying so (the measurement is stored as an error with that
reason; nothing else in the run changes).

Fixed cost. The package is imported once, right after the hello (the kit's
preload), so its import (CuTe DSL's compiler, seconds) overlaps attnbench's
work on the first configuration. FlashAttention-4 compiles a kernel the
first time a process calls it with a new specialisation (its in-process
cache `_flash_attn_fwd.compile_cache` is keyed by dtype, head dimension,
causal, grouped-query packing, tile sizes and the like, not by B or S:
interface.py), 1-2 s on an H200; this adapter says so on stderr, stored with
the measurement ("fa4: compiled ... ms"), so a report's fixed cost can be
told apart from the kernel. FA4's own on-disk cache
(FLASH_ATTENTION_CUTE_DSL_CACHE_ENABLED=1, FLASH_ATTENTION_CUTE_DSL_CACHE_DIR;
flash_attn/cute/cache_utils.py) is on unless the user sets it to 0: a later
process (the next run of an experiment) loads a kernel it compiled before
instead of compiling it again (the stderr line then shows milliseconds).
FA4 keys that cache by a fingerprint of its sources, CuTe DSL's and
tvm_ffi's versions and Python's, so an upgrade compiles afresh. The env
line records whether it was on; a report's first fixed cost of fa4 is the
compiles when it was off or cold.
"""
import os
import sys
import time

# FA4's on-disk kernel cache, read when flash_attn.cute is imported
os.environ.setdefault("FLASH_ATTENTION_CUTE_DSL_CACHE_ENABLED", "1")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import attnbench_adapter  # noqa: E402

_fn = None
_compiled = None   # FA4's in-process cache of compiled forward kernels (a dict), if found
_import_error = None


def load():
    """Imports flash_attn.cute (the kit's preload); an ImportError is kept
    and reported by the first configuration."""
    global _fn, _compiled, _import_error
    try:
        from flash_attn.cute import flash_attn_func
    except ImportError as e:
        _import_error = e
        return
    _fn = flash_attn_func
    try:
        from flash_attn.cute import interface
        _compiled = interface._flash_attn_fwd.compile_cache.cache
    except (ImportError, AttributeError):  # another release: no compile report
        _compiled = None


def attention(q, k, v, causal, scale):
    """q [B, S, H, D], k and v [B, S_kv, H_kv, D] -> O [B, S, H, D]."""
    if _fn is None:
        load()
        if _fn is None:
            raise attnbench_adapter.AdapterError(
                "fa4: FlashAttention-4 (pip package flash-attn-4, module flash_attn.cute) "
                "is not installed here (%s)" % _import_error)
    n = len(_compiled) if _compiled is not None else 0
    t0 = time.perf_counter()
    out = _fn(q, k, v, softmax_scale=scale, causal=bool(causal))
    if _compiled is not None and len(_compiled) != n:
        sys.stderr.write("fa4: compiled (or loaded from FA4's disk cache) a kernel for "
                         "B=%d S=%d H=%d D=%d %s causal=%d: %.0f ms, %d in this process\n"
                         % (q.shape[0], q.shape[1], q.shape[2], q.shape[3], q.dtype,
                            int(bool(causal)), 1e3 * (time.perf_counter() - t0), len(_compiled)))
    return out[0] if isinstance(out, tuple) else out  # (O, logsumexp) in some releases


if __name__ == "__main__":
    env = {"adapter": "fa4"}
    try:
        import importlib.metadata as md
        env["flash_attn_4"] = md.version("flash-attn-4")
    except Exception:
        pass
    env["fa4_disk_cache"] = os.environ.get("FLASH_ATTENTION_CUTE_DSL_CACHE_ENABLED", "0") == "1"
    attnbench_adapter.main(attention, framework="torch", env=env, describe="fa4", layout="bshd",
                           preload=load)
