#!/usr/bin/env python3
"""native_timing.py: an attention kernel timed natively, in one Python
process, the way attnbench's adapter kit times it, so a run through the kit
can be compared with the same kernel called directly.

    python3 tools/native_timing.py --kernel fa4 --shapes 8x16x2048x128,4x16x4096x128 \
        --dtype bf16 --causal both --samples 100 --rounds 5 > native.json

Each shape B x H x S x D (H_kv = H, S_kv = S) gets Q, K, V in the kernel's
native layout ([B, S, H, D] for FlashAttention-4, [B, H, S, D] for PyTorch
SDPA), as many input sets as attnbench rotates through at that size
(src/core/shape.c ab_l2_rotation_sets: enough sets to cover twice the L2,
at most 256), taken in turn call after call. Timing is attnbench's "hot"
mode (kernels/gpu_harness.cu, adapters/attnbench_adapter.py time_torch):
CUDA events recorded between back-to-back calls, one event pair per sample,
after a spin kernel (torch.cuda._sleep) that keeps the GPU busy while the
block is enqueued. `--rounds` blocks of `--samples` samples follow `--warmup`
untimed calls. Output: one JSON object per shape and causal flag on stdout,
with every sample in ms and the median.
"""
import argparse
import json
import statistics
import sys

import torch


def rotation_sets(bytes_per_set, l2_bytes):
    """src/core/shape.c ab_l2_rotation_sets, for one set of Q, K, V, O."""
    if l2_bytes <= 0 or bytes_per_set >= 2.0 * l2_bytes:
        return 1
    sets = 2.0 * l2_bytes / bytes_per_set
    return 256 if sets >= 256.0 else int(sets) + 1


def kernel_call(name):
    """(layout, fn(q, k, v, causal, scale) -> O) for a kernel name."""
    if name == "fa4":
        from flash_attn.cute import flash_attn_func

        def fa4(q, k, v, causal, scale):
            out = flash_attn_func(q, k, v, softmax_scale=scale, causal=causal)
            return out[0] if isinstance(out, tuple) else out
        return "bshd", fa4
    if name in ("sdpa_cudnn", "sdpa_flash"):
        from torch.nn.attention import SDPBackend, sdpa_kernel
        backend = SDPBackend.CUDNN_ATTENTION if name == "sdpa_cudnn" else SDPBackend.FLASH_ATTENTION

        def sdpa(q, k, v, causal, scale):
            with sdpa_kernel(backend):
                return torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, is_causal=causal, scale=scale)
        return "bhsd", sdpa
    raise SystemExit("native_timing.py: unknown kernel %r (fa4, sdpa_cudnn, sdpa_flash)" % name)


def time_shape(fn, layout, B, H, S, D, dtype, causal, warmup, samples, rounds, seed):
    """Samples in ms (rounds * samples of them) of fn on rotating input sets."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    shape = (B, S, H, D) if layout == "bshd" else (B, H, S, D)
    elem = torch.finfo(dtype).bits // 8
    per_set = 4 * B * H * S * D * elem
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    nsets = rotation_sets(per_set, l2)
    sets = [tuple(torch.randn(shape, generator=g, device="cuda", dtype=torch.float32).to(dtype)
                  for _ in range(3)) for _ in range(nsets)]
    scale = D ** -0.5
    state = [0]

    def call():
        q, k, v = sets[state[0]]
        state[0] = (state[0] + 1) % nsets
        return fn(q, k, v, causal, scale)
    for _ in range(warmup):
        call()
    torch.cuda.synchronize()
    sleep = getattr(torch.cuda, "_sleep", None)
    ms = []
    for _ in range(rounds):
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(samples + 1)]
        if sleep is not None:
            sleep(20_000_000)  # ~10 ms at 2 GHz: the block is enqueued behind it
        ev[0].record()
        for i in range(samples):
            call()
            ev[i + 1].record()
        ev[samples].synchronize()
        ms += [ev[i].elapsed_time(ev[i + 1]) for i in range(samples)]
    return nsets, ms


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--shapes", required=True, help="BxHxSxD[,BxHxSxD...]")
    ap.add_argument("--dtype", default="bf16", choices=["bf16", "fp16"])
    ap.add_argument("--causal", default="both", choices=["false", "true", "both"])
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=42)
    a = ap.parse_args()
    layout, fn = kernel_call(a.kernel)
    dtype = torch.bfloat16 if a.dtype == "bf16" else torch.float16
    flags = {"false": [False], "true": [True], "both": [False, True]}[a.causal]
    for spec in a.shapes.split(","):
        try:
            B, H, S, D = (int(x) for x in spec.split("x"))
        except ValueError:
            raise SystemExit("native_timing.py: --shapes: %r is not BxHxSxD" % spec)
        for causal in flags:
            nsets, ms = time_shape(fn, layout, B, H, S, D, dtype, causal,
                                   a.warmup, a.samples, a.rounds, a.seed)
            print(json.dumps({"kernel": a.kernel, "B": B, "H": H, "S": S, "D": D,
                              "dtype": a.dtype, "causal": causal, "layout": layout,
                              "input_sets": nsets, "median_ms": statistics.median(ms),
                              "samples_ms": ms,
                              "gpu": torch.cuda.get_device_name(0)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
