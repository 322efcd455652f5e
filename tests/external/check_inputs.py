#!/usr/bin/env python3
"""check_inputs.py: cross-check that the adapter kit's make_inputs
(numpy) produces bit for bit the Q, K, V that attnbench's native variants get
from kernels/data.c's ab_inputs_fill, for every dtype and a few seeds
(including 0 and ones above 2^32: the Philox key takes all 64 bits). It compiles a tiny C dumper against kernels/data.c and
src/core/shape.c (needs cc, GSL, numpy; no torch, no GPU). Not part of
`meson test` (python and numpy are not build requirements); run by hand:

    python3 tests/external/check_inputs.py [BUILD_DIR]

Exit status 0 when every comparison matches exactly.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "adapters"))
from attnbench_adapter import make_inputs  # noqa: E402  (torch_sdpa.py uses the same)

DUMPER = r"""
#include "data.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    ab_shape s = {atoi(argv[1]), atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), 0, AB_FP32};
    s.dtype = strcmp(argv[5], "fp16") == 0 ? AB_FP16 : strcmp(argv[5], "bf16") == 0 ? AB_BF16 : AB_FP32;
    unsigned long seed = strtoul(argv[6], NULL, 10);
    size_t n = ab_shape_numel(&s);
    float *b = malloc(3 * n * sizeof(float));
    if (!b || ab_inputs_fill(&s, seed, b, b + n, b + 2 * n)) return 1;
    fwrite(b, sizeof(float), 3 * n, stdout);
    return 0;
}
"""


def gsl_flags():
    """Compiler and linker flags for GSL: pkg-config's when it knows gsl."""
    try:
        r = subprocess.run(["pkg-config", "--cflags", "--libs", "gsl"], capture_output=True, text=True)
        if r.returncode == 0:
            return r.stdout.split()
    except OSError:
        pass
    return ["-lgsl", "-lgslcblas"]


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="attnbench-inputs-")
    os.makedirs(build, exist_ok=True)
    src = os.path.join(build, "dump_inputs.c")
    exe = os.path.join(build, "dump_inputs")
    with open(src, "w") as f:
        f.write(DUMPER)
    subprocess.run(["cc", "-std=c11", "-O2", "-I" + os.path.join(ROOT, "kernels"),
                    "-I" + os.path.join(ROOT, "src", "core"), src,
                    os.path.join(ROOT, "kernels", "data.c"), os.path.join(ROOT, "kernels", "philox.c"),
                    os.path.join(ROOT, "src", "core", "shape.c"),
                    "-o", exe] + gsl_flags() + ["-lm"], check=True)
    B, H, S, D = 2, 3, 17, 8
    bad = 0
    for dtype in ("fp16", "bf16", "fp32"):
        for seed in (42, 0, 1, 2 ** 32 + 5, 4294967295):
            raw = subprocess.run([exe, str(B), str(H), str(S), str(D), dtype, str(seed)],
                                 check=True, capture_output=True).stdout
            c = np.frombuffer(raw, dtype=np.float32).reshape(3, B, H, S, D)
            py = np.stack(make_inputs(B, H, S, D, dtype, seed))
            same = np.array_equal(c.view(np.uint32), py.view(np.uint32))
            bad += not same
            print("%-4s seed=%-10d %s (%d values, first Q %r)"
                  % (dtype, seed, "identical" if same else "DIFFERENT", c.size, float(c.flat[0])))
    print("all identical" if not bad else "%d comparison(s) differ" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
