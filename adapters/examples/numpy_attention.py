#!/usr/bin/env python3
"""numpy_attention.py: a numpy attention function measured by attnbench
through the adapter kit (adapters/attnbench_adapter.py), e.g.

    { name = "numpy_attention"; protocol = 2;
      command = "python3 adapters/examples/numpy_attention.py"; }

Everything but the function is the kit's: configuration, inputs, check
figures, warm-up, samples (host wall clock per call).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import attnbench_adapter  # noqa: E402


def attention(q, k, v, causal, scale):
    """softmax(q k^T scale [causal]) v in float32; q [B, H, S, D], k and v
    [B, H_kv, S_kv, D] (query head h reads K/V head h // (H / H_kv)); the
    causal mask aligned bottom-right (key j visible to row i iff
    j <= i + S_kv - S; a row that sees no key is 0)."""
    g = q.shape[1] // k.shape[1]
    if g > 1:
        k, v = np.repeat(k, g, axis=1), np.repeat(v, g, axis=1)
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * np.float32(scale)
    if causal:
        S, Skv = q.shape[2], k.shape[2]
        hidden = np.arange(Skv)[None, :] > np.arange(S)[:, None] + (Skv - S)
        s = np.where(hidden, -np.inf, s)
    with np.errstate(invalid="ignore"):
        p = np.exp(s - s.max(axis=-1, keepdims=True))
        return np.nan_to_num(np.matmul(p / p.sum(axis=-1, keepdims=True), v))


if __name__ == "__main__":
    attnbench_adapter.main(attention, framework="numpy", env={"adapter": "numpy_attention"})
