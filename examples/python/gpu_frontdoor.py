#!/usr/bin/env python3
"""gpu_frontdoor.py RUNG_LIBRARY DB FOLDER: the GPU runs of docs/own-kernel.md
(bring your own kernel), each one call of attnbench.compare (framework="torch",
device buffers shared through CUDA IPC):

1. PyTorch's SDPA (attnbench.torch_sdpa) against a FlashAttention-2
   forward written in Triton (adapters/examples/triton_flash.py), fp16,
   D = 64 and 128, causal and not; Triton's kernel is left out, and said
   so, where the triton package is missing.
2. The per-call cost of each route on one code, the built-in rung
   cuda_fa2_warps: built in, as a plugin (tests/plugin/rung_plugin.c, the
   library RUNG_LIBRARY), through an adapter process
   (adapters/examples/plugin_via_kit.py) and through attnbench.compare in
   this process (the same ctypes call), at the launch-bound B=1 H=1 S=128
   D=64 and at B=4 H=16 S=1024 D=64, hot and graph timing.

Everything is stored in DB; the reports go to FOLDER.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "adapters", "examples"))

import attnbench  # noqa: E402
import plugin_via_kit  # noqa: E402

rung, db, folder = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]

kernels = {"torch_sdpa": attnbench.torch_sdpa}
try:
    import triton  # noqa: F401
    import triton_flash
    kernels["triton_flash"] = triton_flash.attention
except ImportError as e:
    print("triton_flash left out: %s" % e)
import traceback  # noqa: E402


def part(f):
    """Runs one compare; a failure is printed and the next part still runs."""
    try:
        print(f())
    except Exception:
        traceback.print_exc()


part(lambda: attnbench.compare(kernels, shapes=[dict(B=4, H=16, S=2048, D=64), dict(B=4, H=16, S=2048, D=128)],
                      baseline="torch_sdpa", framework="torch", dtype="fp16", causal=[False, True],
                      rounds=12, round_size=5, warmup=10, name="frontdoor-sdpa-triton", db=db, verbose=True,
                      workdir=folder,
                      hypothesis="A FlashAttention-2 forward in Triton is slower than PyTorch's "
                                 "SDPA (FlashAttention-2 or cuDNN inside) at D = 64 and 128."))

kit = "%s %s %s plugin_fa2_warps" % (sys.executable,
                                     os.path.join(ROOT, "adapters", "examples", "plugin_via_kit.py"),
                                     rung)
for timing in ("hot", "graph"):
    part(lambda: attnbench.compare(
        {"cuda_fa2_warps": "cuda_fa2_warps", "plugin_fa2_warps": {"library": rung},
         "program": {"command": kit, "protocol": 2, "timeout": 300.0},
         "notebook": plugin_via_kit.make(rung, "plugin_fa2_warps")},
        shapes=[dict(B=1, H=1, S=128, D=64), dict(B=4, H=16, S=1024, D=64)],
        baseline="cuda_fa2_warps", framework="torch", dtype="fp16", rounds=12, round_size=5,
        warmup=10, timing=timing, name="route-overhead-gpu-" + timing, db=db, workdir=folder,
        verbose=True,
        hypothesis="One kernel (cuda_fa2_warps) costs the same per call built in, as a plugin, "
                   "from an adapter process and from attnbench.compare (%s timing)." % timing))
