#!/usr/bin/env python3
"""kit_rotation_gpu.py: on a GPU with PyTorch, the adapter kit's own inputs
(no ipc=: protocol 1, or ipc = false) rotate in hot timing as the native
harness's do (kernels/gpu_harness.cu): the timed calls of two blocks read
l2_rotation_sets(cfg, this GPU's L2) distinct Q, K, V allocations in turn,
carrying on from the first block into the second, and each copy holds the
checked call's values (so every timed call computes the checked output).
Before the kit rotated, every timed call read the one set the check used
(one distinct Q pointer). Exit 77 without torch, numpy or a CUDA device.
Usage: kit_rotation_gpu.py ADAPTERS_DIR
"""
import os
import sys

sys.path.insert(0, sys.argv[1])
try:
    import numpy  # noqa: F401
    import torch
except ImportError as e:
    print("skip: %s" % e)
    sys.exit(77)
if not torch.cuda.is_available():
    print("skip: no CUDA device visible to PyTorch")
    sys.exit(77)
import attnbench_adapter as kit  # noqa: E402

os.environ.pop("ATTNBENCH_OUTPUT", None)  # the kit's own check figures
seen = []


def attention(q, k, v, causal, scale):
    seen.append((q.data_ptr(), k.data_ptr(), v.data_ptr(),
                 tuple(float(x.float().sum()) for x in (q, k, v))))
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                            scale=scale)


cfg = kit.config_from_line("B=1 H=8 S=512 D=64 causal=1 dtype=bf16 warmup=2 seed=42 graph_k=10 "
                           "timing=hot")
l2 = torch.cuda.get_device_properties(0).L2_cache_size
want = kit.l2_rotation_sets(cfg, l2)
runner = kit.TorchRunner(attention)
call, check = runner.prepare(cfg, "kit_rotation_gpu")
del seen[:]
cfg["samples"] = want - 3
runner.time(call, cfg)
runner.time(call, cfg)
ptrs = [s[:3] for s in seen]
distinct = len(set(ptrs))
fails = 0
if want < 2:
    print("FAIL: this shape should need several sets on any GPU with an L2 (L2 %d bytes)" % l2)
    fails += 1
if distinct != want:
    print("FAIL: the timed calls read %d distinct input sets; the harness's rule gives %d "
          "(L2 %d bytes)" % (distinct, want, l2))
    fails += 1
# the rotation carries on: the calls' sets are periodic with period `want`
# across the two blocks (a block that started over would break the period at
# want - 3, where the second block begins)
if any(ptrs[i] != ptrs[i + want] for i in range(len(ptrs) - want)):
    print("FAIL: the second block did not carry on the rotation: %s"
          % [ptrs.index(p) for p in ptrs])
    fails += 1
if len(set(s[3] for s in seen)) != 1:
    print("FAIL: the input sets hold different values: %s" % sorted(set(s[3] for s in seen)))
    fails += 1
if fails:
    sys.exit(1)
print("ok: the kit's own inputs rotate over %d sets (L2 %.0f MiB), %d timed calls, carried on "
      "between blocks; check %s" % (want, l2 / 2**20, len(ptrs), kit.check_line(check)))
