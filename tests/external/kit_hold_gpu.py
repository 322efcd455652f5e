#!/usr/bin/env python3
"""kit_hold_gpu.py: on a GPU with PyTorch, the adapter kit's launch hold
(adapters/attnbench_adapter.py, _Hold) takes the flag route (the stream
waits on mapped host memory, as kernels/gpu_harness.cu's hold does) and
holds what it should: PyTorch's SDPA forward at a launch-bound shape
(B=8 H=8 S=512 D=64 fp16, about 17 us of GPU work against ~50 us of Python
to enqueue a call) in hot blocks of 2.
  - held: the first and second samples of a block agree (median ratio at
    most 1.15) and the held median is below 0.75x the unheld one, the
    negative control (ATTNBENCH_HOLD=0: every sample waits on the host;
    on an H100, 2026-11-26: 0.031-0.034 ms unheld, 0.0166 held);
  - cheap: the wall time of a held block exceeds its samples by less than
    the sleep route's floor of 1 ms (flag: ~0.1 ms on that H100);
  - safe: a call that raises inside a held block leaves the stream
    released (a later synchronize returns); a function that waits on the
    GPU inside a held block (here float() of its output) does not hang:
    the watchdog releases it and the hold falls back to the sleep.
Exit 77 without torch or a CUDA device.
Usage: kit_hold_gpu.py ADAPTERS_DIR
"""
import os
import statistics
import sys
import time

sys.path.insert(0, sys.argv[1])
try:
    import torch
except ImportError as e:
    print("skip: %s" % e)
    sys.exit(77)
if not torch.cuda.is_available():
    print("skip: no CUDA device visible to PyTorch")
    sys.exit(77)
import attnbench_adapter as kit  # noqa: E402

os.environ.pop("ATTNBENCH_HOLD", None)
F = torch.nn.functional
q, k, v = (torch.randn(8, 8, 512, 64, device="cuda", dtype=torch.float16) for _ in range(3))


def call():
    return F.scaled_dot_product_attention(q, k, v)


for _ in range(10):
    call()
torch.cuda.synchronize()
cfg = {"samples": 2, "timing": "hot"}


def blocks(hold, n=60):
    firsts, seconds, over = [], [], []
    for i in range(n + 5):
        t = time.perf_counter()
        ms = kit.time_torch(torch, call, cfg, hold)
        wall = (time.perf_counter() - t) * 1e3
        if i >= 5:
            firsts.append(ms[0])
            seconds.append(ms[1])
            over.append(wall - sum(ms))
    return statistics.median(firsts), statistics.median(seconds), statistics.median(over)


held = kit._Hold(torch)
f, s, over = blocks(held)
os.environ["ATTNBENCH_HOLD"] = "0"
uf, us, _ = blocks(kit._Hold(torch))
os.environ.pop("ATTNBENCH_HOLD")
print("held: route %s, first %.4f second %.4f ms, %.3f ms a block beyond its samples; "
      "unheld: first %.4f second %.4f ms" % (held.route, f, s, over, uf, us))
fail = []
if held.route != "flag":
    fail.append("the hold took the %s route, not the flag" % held.route)
if f / s > 1.15:
    fail.append("held first / second sample %.3f > 1.15" % (f / s))
if s > 0.75 * us:
    fail.append("held median %.4f ms not below 0.75x the unheld %.4f ms" % (s, us))
if over >= 1.0:
    fail.append("a held block costs %.3f ms beyond its samples (>= 1 ms)" % over)


def boom():
    raise RuntimeError("the call fails")


try:
    kit.time_torch(torch, boom, cfg, held)
except RuntimeError:
    pass
t = time.perf_counter()
call()
torch.cuda.synchronize()  # hangs if the failed block left the stream waiting
print("after a failing call the stream ran again in %.3f ms" % ((time.perf_counter() - t) * 1e3))


def syncing():
    out = call()
    float(out.float().sum())  # waits on the GPU inside the block
    return out


t = time.perf_counter()
kit.time_torch(torch, syncing, cfg, held)  # hangs without the watchdog
print("a function that waits on the GPU inside the block: %.0f ms, route now %s"
      % ((time.perf_counter() - t) * 1e3, held.route))
if held.route != "sleep":
    fail.append("after a block the watchdog released, the route is %s, not sleep" % held.route)
kit.time_torch(torch, syncing, cfg, held)
if fail:
    print("FAIL: " + "; ".join(fail))
    sys.exit(1)
print("ok")
