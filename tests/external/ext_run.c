/*
 * ext_run.c: a manual driver for src/run/external.c (not part of `meson test`):
 * runs one external variant for one configuration through ab_ext_measure,
 * exactly as attnbench will, and prints the outcome on one line: median /
 * min / max of the samples, the correctness figures with FlashAttention's
 * verdict (kernels/check.h: pass iff nonfinite == 0 and max_abs_err <=
 * 2 * plain_max_abs_err + atol, with the adapter's atol), then the env JSON,
 * or the error and the kept stderr. Used by tests/external/gpu_smoke.sh.
 * Usage: ext_run NAME TIMING B H S D CAUSAL DTYPE SAMPLES 'COMMAND'
 */
#include "external.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 11) {
        fprintf(stderr, "usage: %s NAME TIMING B H S D CAUSAL DTYPE SAMPLES 'COMMAND'\n", argv[0]);
        return 2;
    }
    ab_ext_request rq = {.name = argv[1], .timing_mode = argv[2], .B = atoi(argv[3]),
                         .H = atoi(argv[4]), .S = atoi(argv[5]), .D = atoi(argv[6]),
                         .causal = atoi(argv[7]), .dtype = argv[8], .samples = atoi(argv[9]),
                         .command = argv[10], .warmup = 10, .seed = 42, .graph_k = 10,
                         .timeout_s = 120, .workdir = NULL};
    ab_ext_result r;
    if (ab_ext_measure(&rq, &r) != 0) {
        printf("%s %s B=%d H=%d S=%d D=%d causal=%d %s: FAILED after %.1f s: %s\n--- stderr ---\n%s\n",
               rq.name, rq.timing_mode, rq.B, rq.H, rq.S, rq.D, rq.causal, rq.dtype, r.wall_s,
               r.error, r.stderr_text);
        ab_ext_result_free(&r);
        return 1;
    }
    qsort(r.ms, r.n, sizeof *r.ms, cmp);
    double med = r.n % 2 ? r.ms[r.n / 2] : 0.5 * (r.ms[r.n / 2 - 1] + r.ms[r.n / 2]);
    double flops = 4.0 * rq.B * rq.H * (double)rq.S * rq.S * rq.D / (rq.causal ? 2.0 : 1.0);
    double tol = 2.0 * r.plain_max_abs_err + (isnan(r.atol) ? 0.0 : r.atol);
    int pass = r.nonfinite == 0 && r.max_abs_err <= tol;
    printf("%-22s %-5s B=%d H=%d S=%d D=%d c=%d %s: median %.4f ms (min %.4f max %.4f, n=%zu) "
           "%.0f TFLOP/s | max_err %.3g plain %.3g atol %.3g tol %.3g rows %ld -> %s (%.1f s)\n",
           rq.name, rq.timing_mode, rq.B, rq.H, rq.S, rq.D, rq.causal, rq.dtype, med, r.ms[0],
           r.ms[r.n - 1], r.n, flops / (med * 1e-3) / 1e12, r.max_abs_err, r.plain_max_abs_err,
           r.atol, tol, r.rows_checked, pass ? "PASS" : "FAIL", r.wall_s);
    printf("  env %s\n", r.env_json);
    ab_ext_result_free(&r);
    return pass ? 0 : 1;
}
