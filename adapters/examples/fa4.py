#!/usr/bin/env python3
"""fa4.py: FlashAttention-4's forward (the flash-attn-4 package, CuTe DSL;
`flash_attn.cute.flash_attn_func`) measured by attnbench through the
adapter kit (issue 22), e.g.

    { name = "fa4"; protocol = 2; timing = "hot";
      command = "python3 adapters/examples/fa4.py"; }

The package wants [B, S, H, D] tensors; the kit hands over attnbench's
[B, H, S, D] ones, so Q, K, V are viewed transposed (no copy: the kernel
reads strided rows) and O is transposed back and made contiguous inside
the timed call. Where the package is not installed the adapter answers
with one error line saying so (the measurement is stored as an error with
that reason; nothing else in the run changes).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import attnbench_adapter  # noqa: E402

_fn = None


def attention(q, k, v, causal, scale):
    global _fn
    if _fn is None:
        try:
            from flash_attn.cute import flash_attn_func
        except ImportError as e:
            raise attnbench_adapter.AdapterError(
                "fa4: FlashAttention-4 (pip package flash-attn-4, module flash_attn.cute) "
                "is not installed here (%s)" % e)
        _fn = flash_attn_func
    out = _fn(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), softmax_scale=scale,
              causal=bool(causal))
    if isinstance(out, tuple):  # (O, logsumexp) in some releases
        out = out[0]
    return out.transpose(1, 2).contiguous()


if __name__ == "__main__":
    env = {"adapter": "fa4"}
    try:
        import importlib.metadata as md
        env["flash_attn_4"] = md.version("flash-attn-4")
    except Exception:
        pass
    attnbench_adapter.main(attention, framework="torch", env=env, describe="fa4")
