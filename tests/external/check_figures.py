#!/usr/bin/env python3
"""check_figures.py: cross-check that adapters/torch_sdpa.py's correctness
figures (float64 reference, plain same-precision reference, atol) agree with
attnbench's own kernels/check.c on the very same output O. For each
configuration it runs the adapter with TORCH_SDPA_DUMP_O (S <= 64, so both
sides compare every row), compiles a tiny C program against kernels/check.c,
reference.c, data.c and shape.c that recomputes the figures on that O, and
compares: max_abs_err, mean_abs_err, rel_l2_err and atol within 1e-9
relative (same data, same float64 maths up to summation order), and
plain_max_abs_err within a factor 1.5 (the plain reference rounds to the
dtype after fp32 sums whose order differs between the C loops and the GPU
GEMM, so a one-ulp difference is expected). Needs a CUDA GPU with torch,
numpy, cc and GSL; not part of `meson test`. Run by hand:

    python3 tests/external/check_figures.py [BUILD_DIR] [--backend flash]

Exit status 0 when every configuration agrees.
"""
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

CHECKER = r"""
#include "check.h"
#include "data.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    ab_shape s = {atoi(argv[1]), atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), AB_FP32};
    s.dtype = strcmp(argv[6], "fp16") == 0 ? AB_FP16 : strcmp(argv[6], "bf16") == 0 ? AB_BF16 : AB_FP32;
    unsigned long seed = strtoul(argv[7], NULL, 10);
    size_t n = ab_shape_numel(&s);
    float *b = malloc(4 * n * sizeof(float));
    FILE *f = fopen(argv[8], "rb");
    if (!b || !f || fread(b + 3 * n, sizeof(float), n, f) != n) return 1;
    if (ab_inputs_fill(&s, seed, b, b + n, b + 2 * n)) return 1;
    ab_check c;
    if (ab_check_output(&s, b, b + n, b + 2 * n, b + 3 * n, seed, 64, &c)) return 1;
    printf("max_abs_err=%.17g mean_abs_err=%.17g rel_l2_err=%.17g plain_max_abs_err=%.17g "
           "nonfinite=%ld atol=%.17g rows_checked=%ld\n", c.max_abs_err, c.mean_abs_err,
           c.rel_l2_err, c.plain_max_abs_err, c.nonfinite, c.atol, c.rows_checked);
    return 0;
}
"""


def figures(line):
    return {k: float(v) for k, v in (t.split("=") for t in line.split()[1 if line.startswith("check") else 0:])}


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
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    backend = "flash"
    if "--backend" in sys.argv:
        backend = sys.argv[sys.argv.index("--backend") + 1]
        args = [a for a in args if a != backend]
    build = args[0] if args else tempfile.mkdtemp(prefix="attnbench-figures-")
    os.makedirs(build, exist_ok=True)
    src, exe = os.path.join(build, "check_figures.c"), os.path.join(build, "check_figures")
    with open(src, "w") as f:
        f.write(CHECKER)
    k = os.path.join(ROOT, "kernels")
    subprocess.run(["cc", "-std=c11", "-O2", "-D_GNU_SOURCE", "-I" + k, src]
                   + [os.path.join(k, x) for x in ("check.c", "reference.c", "data.c", "shape.c")]
                   + ["-o", exe] + gsl_flags() + ["-lm"], check=True)
    bad = 0
    for (B, H, S, D, causal, dtype) in [(2, 3, 64, 64, 0, "fp16"), (2, 3, 61, 128, 1, "fp16"),
                                        (1, 4, 64, 64, 1, "bf16"), (1, 2, 33, 64, 0, "bf16")]:
        dump = os.path.join(build, "o.bin")
        env = dict(os.environ, ATTNBENCH_PROTOCOL="1", ATTNBENCH_B=str(B), ATTNBENCH_H=str(H),
                   ATTNBENCH_S=str(S), ATTNBENCH_D=str(D), ATTNBENCH_CAUSAL=str(causal),
                   ATTNBENCH_DTYPE=dtype, ATTNBENCH_WARMUP="1", ATTNBENCH_SAMPLES="3",
                   ATTNBENCH_SEED="42", ATTNBENCH_TIMING="hot", ATTNBENCH_GRAPH_K="1",
                   TORCH_SDPA_DUMP_O=dump)
        r = subprocess.run([sys.executable, os.path.join(ROOT, "adapters", "torch_sdpa.py"),
                            "--backend", backend], env=env, capture_output=True, text=True)
        line = [l for l in r.stdout.splitlines() if l.startswith("check ")]
        if r.returncode != 0 or not line:
            print("adapter failed:", r.stdout, r.stderr[-2000:])
            bad += 1
            continue
        py = figures(line[0])
        c = figures(subprocess.run([exe, str(B), str(H), str(S), str(D), str(causal), dtype, "42", dump],
                                   check=True, capture_output=True, text=True).stdout)
        ok = True
        for key in ("max_abs_err", "mean_abs_err", "rel_l2_err", "atol", "nonfinite", "rows_checked"):
            if not math.isclose(py[key], c[key], rel_tol=1e-9, abs_tol=1e-15):
                ok = False
                print("  %s: adapter %.17g, kernels/check.c %.17g" % (key, py[key], c[key]))
        pr = py["plain_max_abs_err"] / c["plain_max_abs_err"] if c["plain_max_abs_err"] else 1.0
        if not (1 / 1.5 <= pr <= 1.5):
            ok = False
        bad += not ok
        print("%s B=%d H=%d S=%d D=%d causal=%d %s: max %.3g (C %.3g) plain %.3g (C %.3g) atol %.3g: %s"
              % (backend, B, H, S, D, causal, dtype, py["max_abs_err"], c["max_abs_err"],
                 py["plain_max_abs_err"], c["plain_max_abs_err"], py["atol"],
                 "agree" if ok else "DISAGREE"))
    print("all agree" if not bad else "%d configuration(s) disagree" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
