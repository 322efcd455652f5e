#!/usr/bin/env python3
"""triton_flash.py: a FlashAttention forward written in Triton, measured by
attnbench through the adapter kit, e.g.

    { name = "triton_flash"; protocol = 2; timing = "hot";
      command = "python3 adapters/examples/triton_flash.py"; }

The kernel is the FlashAttention-2 forward (Dao 2023, Algorithm 1) as one
Triton program per (query block of BM rows, b*h): Q's block stays in
registers, K and V blocks of BN keys stream past it, the softmax is kept
online (running max m, running sum l, O rescaled by exp2(m_old - m_new)),
scores in float32 in the base-2 domain (scale * log2 e folded in), causal
blocks above the diagonal never visited, any S (rows and keys past S
masked). Written for this project from the algorithm's description.
fp16 and bf16, D a power of two from 16 to 256; anything else is refused
on the protocol's error line, as is a missing Triton.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import attnbench_adapter  # noqa: E402

LOG2E = 1.4426950408889634


def build():
    """The jitted kernel and its launcher; imports triton lazily so that a
    missing package becomes one error line."""
    try:
        import torch
        import triton
        import triton.language as tl
    except ImportError as e:
        raise attnbench_adapter.AdapterError(
            "triton_flash: Triton is not installed here (%s)" % e)

    @triton.jit
    def fwd(Q, K, V, O, S, qk_scale, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
            CAUSAL: tl.constexpr):
        qb = tl.program_id(0)
        base = tl.program_id(1).to(tl.int64) * S * D  # [B, H, S, D] contiguous
        rows = qb * BM + tl.arange(0, BM)
        cols = tl.arange(0, D)
        q = tl.load(Q + base + rows[:, None] * D + cols[None, :], mask=rows[:, None] < S,
                    other=0.0)
        m = tl.full([BM], float("-inf"), tl.float32)
        l = tl.zeros([BM], tl.float32)
        acc = tl.zeros([BM, D], tl.float32)
        end = tl.minimum(S, (qb + 1) * BM) if CAUSAL else S
        for k0 in range(0, end, BN):
            keys = k0 + tl.arange(0, BN)
            kin = keys[:, None] < S
            k = tl.load(K + base + keys[:, None] * D + cols[None, :], mask=kin, other=0.0)
            s = tl.dot(q, tl.trans(k)) * qk_scale
            seen = keys[None, :] < S
            if CAUSAL:
                seen = seen & (keys[None, :] <= rows[:, None])
            s = tl.where(seen, s, float("-inf"))
            m_new = tl.maximum(m, tl.max(s, 1))
            alpha = tl.exp2(m - m_new)
            p = tl.exp2(s - m_new[:, None])
            l = l * alpha + tl.sum(p, 1)
            v = tl.load(V + base + keys[:, None] * D + cols[None, :], mask=kin, other=0.0)
            acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
            m = m_new
        out = acc / l[:, None]
        tl.store(O + base + rows[:, None] * D + cols[None, :], out.to(O.dtype.element_ty),
                 mask=rows[:, None] < S)

    def attention(q, k, v, causal, scale):
        B, H, S, D = q.shape
        if q.dtype not in (torch.float16, torch.bfloat16):
            raise attnbench_adapter.AdapterError("triton_flash: fp16 and bf16 only (got %s)"
                                                 % q.dtype)
        if D < 16 or D > 256 or D & (D - 1):
            raise attnbench_adapter.AdapterError(
                "triton_flash: D must be a power of two in [16, 256] (got %d)" % D)
        o = torch.empty_like(q)
        BM, BN = 128, 64 if D <= 128 else 32
        grid = (triton.cdiv(S, BM), B * H)
        fwd[grid](q, k, v, o, S, scale * LOG2E, D=D, BM=BM, BN=BN, CAUSAL=bool(causal),
                  num_warps=8 if D >= 128 else 4, num_stages=3 if D <= 128 else 2)
        return o

    return attention, {"adapter": "triton_flash", "triton": triton.__version__}


def attention(q, k, v, causal, scale):
    """The kit's entry: builds the kernel on the first call."""
    global _impl
    if _impl is None:
        _impl = build()[0]
    return _impl(q, k, v, causal, scale)


_impl = None

if __name__ == "__main__":
    env = {"adapter": "triton_flash"}
    try:
        import triton
        env["triton"] = triton.__version__
    except ImportError:
        pass
    attnbench_adapter.main(attention, framework="torch", env=env, describe="triton_flash")
