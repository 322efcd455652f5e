#!/usr/bin/env python3
"""torch_sdpa.py: PyTorch's scaled_dot_product_attention as an attnbench
external variant, one SDPA backend per experiment row, e.g.

    { name = "torch_sdpa_flash"; command = "python3 adapters/torch_sdpa.py --backend flash"; }

It speaks protocol 1 and 2 of adapters/PROTOCOL.md, whichever
ATTNBENCH_PROTOCOL names. Protocol 1: the configuration arrives in
ATTNBENCH_* environment variables; it prints `sample <ms>` lines, one `check`
line, one `env` line (or an `error` line and exits 1). Protocol 2 (`protocol
= 2;` in the experiment): one process for the whole run, reading `config
...`, `take K` and `quit` requests on stdin; torch is imported and the CUDA
context made once, and its samples are taken inside attnbench's rounds. Inputs are attnbench's
own Q, K, V for the seed (kernels/data.h's Philox4x32-10 stream of cuRAND,
written out in numpy by the kit), rounded to the dtype exactly as kernels/data.c
does, uploaded in [B, H, S, D], the layout SDPA takes. Timing follows
kernels/gpu_harness.cu: warm-up calls, then CUDA events in the cold (2x L2
flush before each call), hot (back-to-back calls, an event between each) or
graph (graph_k calls captured in one CUDA graph, per call = replay / graph_k)
mode. Correctness figures are computed against a float64 reference and the
plain same-precision reference of kernels/reference.c, on the rows described
in PROTOCOL.md; attnbench applies the verdict.

Backends: flash, cudnn, efficient, math (torch.nn.attention.sdpa_kernel with
that one SDPBackend) or default (no restriction: PyTorch's own choice).
Measured (NVIDIA H200, torch 2.11.0+cu130, cuDNN 9.19, 2026-11-21, 50 samples,
medians cold/hot/graph, tests/external/gpu_smoke.sh): B=4 H=16 S=4096 D=128
fp16: flash 1.58/1.56/1.61 ms, cudnn 0.83/0.83/0.94, efficient 3.15/3.15/3.14,
math 21.7/21.7/21.7, default (picks cuDNN) 0.85/0.83/0.95; B=32 H=8 S=512
D=64 fp16: flash 0.073/0.071/0.068 ms, cudnn 0.050/0.049/0.047, efficient
0.148/0.148/0.145, math 1.21/1.21/1.19, default 0.050/0.049/0.048. All pass
the check; figures agree with kernels/check.c (check_figures.py).

Built on the adapter kit (adapters/attnbench_adapter.py): the inputs,
check figures, timing and both protocols are the kit's; this file only
chooses the SDPA backend. When attnbench offers ATTNBENCH_OUTPUT the kit
writes O there and attnbench checks it itself (PROTOCOL.md, "Correctness").
Requires torch (CUDA build) and numpy. Debugging: TORCH_SDPA_DUMP_O=PATH
writes the checked output O as raw float32 [B, H, S, D] to PATH
(tests/external/check_figures.py compares the figures with kernels/check.c's).
"""
import argparse
import contextlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attnbench_adapter  # noqa: E402

BACKENDS = ("flash", "cudnn", "efficient", "math", "default")


def backend_ctx(name):
    """A callable returning the sdpa_kernel context that restricts SDPA to
    one backend (or none, for default)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    b = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
         "efficient": SDPBackend.EFFICIENT_ATTENTION, "math": SDPBackend.MATH}.get(name)
    return (lambda: sdpa_kernel([b])) if b is not None else contextlib.nullcontext


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", choices=BACKENDS, default="default")
    args = ap.parse_args()

    def attention(q, k, v, causal, scale):
        """SDPA on [B, H, S, D] Q and [B, H_kv, S_kv, D] K, V: enable_gqa when
        H_kv < H; causal with S != S_kv aligned bottom-right (attnbench's
        rule) through torch's causal_lower_right bias; a decode step (S = 1)
        sees every key, so it needs no mask at all."""
        import torch.nn.functional as F
        S, Skv = q.shape[2], k.shape[2]
        gqa = {"enable_gqa": True} if k.shape[1] != q.shape[1] else {}
        if not causal or S == Skv or S == 1:
            return F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal) and S == Skv,
                                                  **gqa)
        from torch.nn.attention.bias import causal_lower_right
        return F.scaled_dot_product_attention(q, k, v, attn_mask=causal_lower_right(S, Skv),
                                              **gqa)

    def context():  # imported lazily: the kit reports a missing torch as an error line
        return backend_ctx(args.backend)()

    attnbench_adapter.main(attention, framework="torch", context=context,
                           env={"adapter": "torch_sdpa", "backend": args.backend},
                           describe="backend " + args.backend)


if __name__ == "__main__":
    main()
