#!/usr/bin/env python3
"""sdpa_bshd_adapter.py: PyTorch SDPA behind a [B, S, H, D] function (the
kit's layout="bshd"), for tests/external/ipc_gpu.sh: its O passes the
check only if attnbench's transposes into and out of the adapter's layout
(kernels/gpu_ipc.cu) are right, K/V heads (H_kv < H) included. The
transposes here are inside the timed call: a test of the layout, not a
timing."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "adapters"))
import attnbench_adapter  # noqa: E402


def attention(q, k, v, causal, scale):
    """q [B, S, H, D], k and v [B, S_kv, H_kv, D] -> O [B, S, H, D]; S == S_kv."""
    import torch.nn.functional as F
    q, k, v = (x.transpose(1, 2) for x in (q, k, v))
    gqa = {"enable_gqa": True} if k.shape[1] != q.shape[1] else {}
    o = F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal), **gqa)
    return o.transpose(1, 2)


if __name__ == "__main__":
    attnbench_adapter.main(attention, framework="torch", env={"adapter": "sdpa_bshd"},
                           describe="sdpa_bshd", layout="bshd")
