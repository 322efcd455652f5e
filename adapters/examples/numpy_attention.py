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
    """softmax(q k^T scale [causal]) v in float32, [B, H, S, D]."""
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * np.float32(scale)
    if causal:
        S = q.shape[2]
        s = np.where(np.triu(np.ones((S, S), dtype=bool), 1), -np.inf, s)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return np.matmul(p / p.sum(axis=-1, keepdims=True), v)


if __name__ == "__main__":
    attnbench_adapter.main(attention, framework="numpy", env={"adapter": "numpy_attention"})
