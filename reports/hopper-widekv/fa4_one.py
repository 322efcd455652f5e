#!/usr/bin/env python3
"""fa4_one.py B H S D CAUSAL DTYPE [N]: FlashAttention-4's forward
(flash_attn.cute.flash_attn_func, [B, S, H, D]) called N times (default 3)
at one shape on random inputs, for a profiler to pick one launch
(reports/hopper-widekv/call-b.sh); the first call compiles."""
import sys
import torch
from flash_attn.cute import flash_attn_func

B, H, S, D, causal = (int(x) for x in sys.argv[1:6])
dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[sys.argv[6]]
n = int(sys.argv[7]) if len(sys.argv) > 7 else 3
q, k, v = (torch.randn(B, S, H, D, device="cuda", dtype=dt) for _ in range(3))
for _ in range(n):
    flash_attn_func(q, k, v, causal=bool(causal))
torch.cuda.synchronize()
