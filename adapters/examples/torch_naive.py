#!/usr/bin/env python3
"""torch_naive.py: standard attention in three PyTorch calls, measured by
attnbench through the adapter kit on the GPU, e.g.

    { name = "torch_naive"; protocol = 2; timing = "graph";
      command = "python3 adapters/examples/torch_naive.py"; }
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import attnbench_adapter  # noqa: E402


def attention(q, k, v, causal, scale):
    """softmax(q k^T scale [causal]) v, scores in float32, O in q's dtype."""
    s = torch.matmul(q.float(), k.float().transpose(-1, -2)) * scale
    if causal:
        S = q.shape[2]
        s = s.masked_fill(torch.ones(S, S, dtype=torch.bool, device=q.device).triu(1),
                          float("-inf"))
    return torch.matmul(torch.softmax(s, dim=-1), v.float()).to(q.dtype)


if __name__ == "__main__":
    attnbench_adapter.main(attention, framework="torch", env={"adapter": "torch_naive"})
