#!/usr/bin/env python3
"""route_overhead.py LIBRARY [DB] [FOLDER]: what each route of docs/own-kernel.md
(bring your own kernel) costs per call on the CPU, measured on one code: the
built-in cpu_flash, and the same source compiled as a plugin
(tests/plugin/cpu_flash_plugin.c, variant plugin_cpu_flash; build folder
tests/plugin/libcpu_flash_plugin.so) reached three more ways in one run:

  plugin      the C-library route: attnbench dlopens LIBRARY (its worker
              process calls it);
  program     the any-program route: a protocol-2 adapter process
              (adapters/examples/plugin_via_kit.py, the kit, numpy arrays,
              ctypes);
  notebook    the Python route: attnbench.compare serving a function of
              this process (the same ctypes call) over relay.py.

A sample is one call's host wall clock in each route (the C routes clock
inside attnbench or its worker, the Python routes inside the kit), so each
route's median minus cpu_flash's is that route's per-call overhead. Two
shapes: launch-bound (B=1 H=1 S=16 D=16) and about a millisecond (B=1 H=2 S=128 D=64).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "adapters", "examples"))
os.environ.setdefault("OMP_NUM_THREADS", "1")  # this process's OpenMP, as threads = 1

import attnbench  # noqa: E402
import plugin_via_kit  # noqa: E402

lib = os.path.abspath(sys.argv[1])
db = sys.argv[2] if len(sys.argv) > 2 else "route-overhead.db"
folder = sys.argv[3] if len(sys.argv) > 3 else None
kit = "%s %s %s plugin_cpu_flash" % (sys.executable,
                                     os.path.join(ROOT, "adapters", "examples", "plugin_via_kit.py"),
                                     lib)
r = attnbench.compare(
    {"cpu_flash": "cpu_flash",
     "plugin_cpu_flash": {"library": lib},
     "program": {"command": kit, "protocol": 2, "timeout": 120.0},
     "notebook": plugin_via_kit.make_numpy(lib, "plugin_cpu_flash")},
    shapes=[dict(B=1, H=1, S=16, D=16), dict(B=1, H=2, S=128, D=64)], baseline="cpu_flash",
    framework="numpy", rounds=20, round_size=10, warmup=20, threads=1, name="route-overhead-cpu",
    hypothesis="The same C code (cpu_flash) costs the same per call built in and as a plugin, "
               "and a few microseconds more from Python (ctypes and the kit's timing loop), "
               "whether the Python runs in an adapter process or in the caller's process.",
    db=db, workdir=folder)
print(r)
for v in r.variants:
    c = v["config"]
    print("%-18s B=%d H=%d S=%d D=%d  median %.6g ms  CI [%.6g, %.6g]"
          % (v["variant"], c["B"], c["H"], c["S"], c["D"], v["median_ms"] or float("nan"),
             *(v["median_ci"] or (float("nan"),) * 2)))
