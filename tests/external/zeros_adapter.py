#!/usr/bin/env python3
"""zeros_adapter.py: a deliberately wrong external variant for
tests/external/ipc_gpu.sh: through the kit (device buffers when offered,
layout given as argv[1], default bhsd) it returns O = 0, so attnbench's
check of its O must fail it."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "adapters"))
import attnbench_adapter  # noqa: E402


def attention(q, k, v, causal, scale):
    import torch
    return torch.zeros_like(q)


if __name__ == "__main__":
    attnbench_adapter.main(attention, framework="torch", env={"adapter": "zeros"},
                           describe="zeros", layout=sys.argv[1] if len(sys.argv) > 1 else "bhsd")
