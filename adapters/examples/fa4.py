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
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import attnbench_adapter  # noqa: E402

_fn = None


def attention(q, k, v, causal, scale):
    """q [B, S, H, D], k and v [B, S_kv, H_kv, D] -> O [B, S, H, D]."""
    global _fn
    if _fn is None:
        try:
            from flash_attn.cute import flash_attn_func
        except ImportError as e:
            raise attnbench_adapter.AdapterError(
                "fa4: FlashAttention-4 (pip package flash-attn-4, module flash_attn.cute) "
                "is not installed here (%s)" % e)
        _fn = flash_attn_func
    out = _fn(q, k, v, softmax_scale=scale, causal=bool(causal))
    return out[0] if isinstance(out, tuple) else out  # (O, logsumexp) in some releases


if __name__ == "__main__":
    env = {"adapter": "fa4"}
    try:
        import importlib.metadata as md
        env["flash_attn_4"] = md.version("flash-attn-4")
    except Exception:
        pass
    attnbench_adapter.main(attention, framework="torch", env=env, describe="fa4", layout="bshd")
