/*
 * gpu_check.c: the GPU correctness suite. For one CUDA variant (argv[1]),
 * every supported (dtype, D in {64, 128}, causal) and FlashAttention's odd
 * sequence lengths S in {1, 17, 97, 113, 200, 1023, 1025, 2049} (from
 * flash-attention tests/test_flash_attn.py), with B=2, H=3 and fresh random
 * inputs per case, the output is poisoned with NaN, computed once, and
 * compared with the float64 reference under FlashAttention's tolerance rule
 * (kernels/check.h). Exit 0 when all pass, 1 on a failure, 77 (meson's
 * "skipped") when there is no CUDA device.
 *
 * Usage: gpu_check VARIANT [S...]
 *        gpu_check --time B,H,S,D,causal,dtype VARIANT...
 * The second form is a quick timing, not a test: per variant, 5 warm-up runs
 * then the median of 50 hot-mode samples (ab_gpu_time, AB_TIME_HOT) of that
 * shape, with TFLOP/s by ab_attention_flops.
 */
#include "check.h"
#include "data.h"
#include "gpu.h"
#include "registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int odd_lengths[] = {1, 17, 97, 113, 200, 1023, 1025, 2049};

static int check_case(const ab_variant *v, const ab_shape *s, unsigned long seed)
{
    char err[512], why[256];
    int rc = 1;
    size_t numel = ab_shape_numel(s), ws = 0;
    float *q = malloc(numel * sizeof *q), *k = malloc(numel * sizeof *k);
    float *vv = malloc(numel * sizeof *vv), *o = malloc(numel * sizeof *o);
    ab_gpu_bufs *b = NULL;
    void *ctx = NULL;
    int have_ctx = 0;
    ab_check c;

    if (ab_variant_supports(v, s, why, sizeof why)) {
        rc = 0; /* not a case for this variant */
        goto cleanup;
    }
    if (!q || !k || !vv || !o || ab_inputs_fill(s, seed, q, k, vv)) {
        fprintf(stderr, "out of host memory\n");
        goto cleanup;
    }
    if (ab_gpu_bufs_create(s, q, k, vv, &b, err, sizeof err) ||
        v->setup(s, &ctx, &ws, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", v->name, err);
        goto cleanup;
    }
    have_ctx = 1;
    if (ab_gpu_poison(b, err, sizeof err) || ab_gpu_run_once(v, ctx, b, err, sizeof err) ||
        ab_gpu_output(b, o, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", v->name, err);
        goto cleanup;
    }
    if (ab_check_output(s, q, k, vv, o, seed + 7, AB_CHECK_ROWS_PER_SLICE, &c)) {
        fprintf(stderr, "check: out of memory\n");
        goto cleanup;
    }
    printf("%-18s %s D=%-3d causal=%d S=%-5d max_err=%.3e tol=%.3e (plain %.3e) "
           "rel_l2=%.2e nonfinite=%ld %s\n",
           v->name, ab_dtype_name(s->dtype), s->D, s->causal, s->S, c.max_abs_err,
           c.tolerance, c.plain_max_abs_err, c.rel_l2_err, c.nonfinite,
           c.pass ? "ok" : "FAIL");
    rc = c.pass ? 0 : 1;
cleanup:
    if (have_ctx && v->teardown)
        v->teardown(ctx);
    ab_gpu_bufs_destroy(b);
    free(q);
    free(k);
    free(vv);
    free(o);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* gpu_check --time B,H,S,D,causal,dtype VARIANT...; 0, or 1 if any failed. */
static int time_variants(const char *shape, char **names, int nnames)
{
    enum { WARM = 5, SAMPLES = 50 };
    char err[512] = "out of host memory", dt[16];
    ab_shape s;
    int fails = 0;
    if (sscanf(shape, "%d,%d,%d,%d,%d,%15s", &s.B, &s.H, &s.S, &s.D, &s.causal, dt) != 6 ||
        ab_dtype_parse(dt, &s.dtype) || s.B < 1 || s.H < 1 || s.S < 1 || s.D < 1) {
        fprintf(stderr, "gpu_check --time: bad shape '%s' (want B,H,S,D,causal,dtype)\n", shape);
        return 2;
    }
    const size_t numel = ab_shape_numel(&s);
    float *q = malloc(numel * sizeof *q), *k = malloc(numel * sizeof *k);
    float *vv = malloc(numel * sizeof *vv);
    ab_gpu_bufs *b = NULL;
    if (!q || !k || !vv || ab_inputs_fill(&s, 1, q, k, vv) ||
        ab_gpu_bufs_create(&s, q, k, vv, &b, err, sizeof err)) {
        fprintf(stderr, "gpu_check --time: %s\n", err);
        free(q), free(k), free(vv);
        return 1;
    }
    for (int i = 0; i < nnames; i++) {
        const ab_variant *v = ab_variant_find(names[i]);
        double ms[SAMPLES], warm[WARM];
        size_t ws = 0;
        void *ctx = NULL;
        if (!v || ab_variant_supports(v, &s, err, sizeof err)) {
            printf("time %-18s skipped: %s\n", names[i], v ? err : "unknown variant");
            continue;
        }
        if (v->setup(&s, &ctx, &ws, err, sizeof err)) {
            printf("time %-18s setup failed: %s\n", v->name, err);
            fails++;
            continue;
        }
        if (ab_gpu_time(v, ctx, b, AB_TIME_HOT, 1, WARM, warm, err, sizeof err) ||
            ab_gpu_time(v, ctx, b, AB_TIME_HOT, 1, SAMPLES, ms, err, sizeof err)) {
            printf("time %-18s failed: %s\n", v->name, err);
            fails++;
        } else {
            qsort(ms, SAMPLES, sizeof ms[0], cmp_double);
            const double med = 0.5 * (ms[SAMPLES / 2 - 1] + ms[SAMPLES / 2]);
            printf("time %-18s B=%d H=%d S=%d D=%d causal=%d %s median %.4f ms "
                   "(min %.4f, max %.4f) %.2f TFLOP/s ws=%.1f MiB\n",
                   v->name, s.B, s.H, s.S, s.D, s.causal, dt, med, ms[0], ms[SAMPLES - 1],
                   ab_attention_flops(&s) / (med * 1e9), ws / 1048576.0);
        }
        if (v->teardown)
            v->teardown(ctx);
    }
    ab_gpu_bufs_destroy(b);
    free(q), free(k), free(vv);
    return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
    char err[256];
    ab_gpu_info g;
    if (argc < 2) {
        fprintf(stderr, "usage: gpu_check VARIANT [S...]\n");
        return 2;
    }
    if (strcmp(argv[1], "--time") == 0) {
        if (argc < 4) {
            fprintf(stderr, "usage: gpu_check --time B,H,S,D,causal,dtype VARIANT...\n");
            return 2;
        }
        if (ab_gpu_query(&g, err, sizeof err)) {
            printf("skipped: no CUDA device (%s)\n", err);
            return 77;
        }
        printf("timing on %s (sm_%d%d)\n", g.name, g.cc_major, g.cc_minor);
        return time_variants(argv[2], argv + 3, argc - 3);
    }
    const ab_variant *v = ab_variant_find(argv[1]);
    if (!v) {
        fprintf(stderr, "gpu_check: unknown variant '%s'\n", argv[1]);
        return 2;
    }
    if (ab_gpu_query(&g, err, sizeof err)) {
        printf("skipped: no CUDA device (%s)\n", err);
        return 77;
    }
    if (v->unavailable) {
        fprintf(stderr, "gpu_check: %s: %s\n", v->name, v->unavailable);
        return 1;
    }
    int lengths[16], nlen = 0;
    if (argc > 2)
        for (int i = 2; i < argc && nlen < 16; i++)
            lengths[nlen++] = atoi(argv[i]);
    else
        for (size_t i = 0; i < sizeof odd_lengths / sizeof odd_lengths[0]; i++)
            lengths[nlen++] = odd_lengths[i];

    printf("%s on %s (sm_%d%d)\n", v->name, g.name, g.cc_major, g.cc_minor);
    int failures = 0, cases = 0;
    unsigned long seed = 1000;
    const int dims[] = {64, 128};
    for (int t = 0; t < AB_NDTYPES; t++)
        for (int di = 0; di < 2; di++)
            for (int causal = 0; causal <= 1; causal++)
                for (int li = 0; li < nlen; li++) {
                    ab_shape s = {2, 3, lengths[li], dims[di], causal, (ab_dtype)t};
                    char why[256];
                    if (ab_variant_supports(v, &s, why, sizeof why))
                        continue;
                    cases++;
                    failures += check_case(v, &s, seed++);
                }
    printf("%s: %d cases, %d failed\n", v->name, cases, failures);
    return failures ? 1 : (cases ? 0 : 1);
}
