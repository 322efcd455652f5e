#!/usr/bin/env python3
"""sdpa_flash_time.py: PyTorch SDPA's flash backend (FlashAttention-2), timed
the way `gpu_check --time` times a variant, so the two can be compared from
one device run (a manual measurement helper, not a test).

Per shape: Q, K, V uniform on [-1, 1) in the dtype, layout [B, H, S, D];
5 warm-up calls, then 50 back-to-back calls with a CUDA event between each
(kernels/gpu_harness.cu's hot mode); prints the median, min, max in ms and
TFLOP/s by FlashAttention's count 4*B*H*S^2*D (halved for causal), in
gpu_check --time's line format.

Usage: python3 tests/gpu/sdpa_flash_time.py B,H,S,D,causal,dtype ...
"""
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

WARM, SAMPLES = 5, 50


def time_shape(spec):
    b, h, s, d, causal, dt = spec.split(",")
    b, h, s, d, causal = int(b), int(h), int(s), int(d), bool(int(causal))
    tdt = {"fp16": torch.float16, "bf16": torch.bfloat16}[dt]
    q, k, v = (torch.rand(b, h, s, d, device="cuda", dtype=torch.float32).mul_(2).sub_(1).to(tdt)
               for _ in range(3))
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        for _ in range(WARM):
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(SAMPLES + 1)]
        ev[0].record()
        for i in range(SAMPLES):
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            ev[i + 1].record()
        ev[SAMPLES].synchronize()
    ms = sorted(ev[i].elapsed_time(ev[i + 1]) for i in range(SAMPLES))
    med = statistics.median(ms)
    flops = 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)
    print("time %-18s B=%d H=%d S=%d D=%d causal=%d %s median %.4f ms (min %.4f, max %.4f) "
          "%.2f TFLOP/s" % ("torch_sdpa_flash", b, h, s, d, int(causal), dt, med, ms[0], ms[-1],
                            flops / (med * 1e9)), flush=True)


def main():
    print("torch %s on %s" % (torch.__version__, torch.cuda.get_device_name()), flush=True)
    for spec in sys.argv[1:]:
        time_shape(spec)


if __name__ == "__main__":
    main()
