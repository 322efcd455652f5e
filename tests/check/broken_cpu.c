/*
 * broken_cpu.c: a deliberately wrong CPU variant, linked only into
 * attnbench_check (tests/check/meson.build), never into attnbench: through
 * ab_test_variants (kernels/registry.h) the test program's experiments can
 * name `cpu_broken_scale`, attention with the softmax scale 1/D instead of
 * 1/sqrt(D); a run containing it must store it `failed`, with no samples,
 * and its report must say so (tests/check/cli_check.sh); and
 * `cpu_broken_dv`, whose backward's dV is 1% off.
 */
#include "entry_points.h"
#include "registry.h"

#include <math.h>
#include <stdlib.h>

static int broken_setup(const ab_shape *s, void **ctx, size_t *ws, char *err, size_t n)
{
    *ctx = NULL;
    *ws = 0;
    return 0;
}

/* Exact attention in double, but scores scaled by 1/D. */
static int broken_run(void *ctx, const ab_shape *s, const void *qv, const void *kv,
                      const void *vv, void *ov, void *stream)
{
    const float *q = qv, *k = kv, *v = vv;
    float *o = ov;
    const int S = s->S, D = s->D;
    double *w = malloc(sizeof(double) * (size_t)S);
    if (!w)
        return -1;
    for (size_t bh = 0; bh < (size_t)s->B * s->H; bh++)
        for (int i = 0; i < S; i++) {
            const size_t base = bh * (size_t)S * D;
            const int L = s->causal ? i + 1 : S;
            double mx = -INFINITY, tot = 0;
            for (int j = 0; j < L; j++) {
                double dot = 0;
                for (int d = 0; d < D; d++)
                    dot += (double)q[base + (size_t)i * D + d] * k[base + (size_t)j * D + d];
                w[j] = dot / D; /* the bug: 1/D, not 1/sqrt(D) */
                mx = w[j] > mx ? w[j] : mx;
            }
            for (int j = 0; j < L; j++)
                tot += w[j] = exp(w[j] - mx);
            for (int d = 0; d < D; d++) {
                double acc = 0;
                for (int j = 0; j < L; j++)
                    acc += w[j] / tot * v[base + (size_t)j * D + d];
                o[base + (size_t)i * D + d] = (float)acc;
            }
        }
    free(w);
    return 0;
}

static void broken_teardown(void *ctx) { (void)ctx; }

/* cpu_broken_dv: a right forward (cpu_flash's) and cpu_flash's
 * backward with dV 1% too large, the size of error a wrong rescaling of
 * the P^T dO accumulator leaves; the gradient check must fail it on dV
 * alone. */
static int broken_dv_bwd(void *ctx, const ab_shape *s, const void *q, const void *k,
                         const void *v, const void *o, const void *dout, const float *lse,
                         void *dq, void *dk, void *dv, void *stream)
{
    int rc = cpu_flash_run_bwd(ctx, s, q, k, v, o, dout, lse, dq, dk, dv, stream);
    float *x = dv;
    for (size_t i = 0; i < ab_shape_kv_numel(s); i++)
        x[i] *= 1.01f;
    return rc;
}

static const ab_variant broken[] = {
    {"cpu_broken_scale", "cpu", AB_DEV_CPU, AB_DT_ALL, {0},
     "TEST ONLY: softmax scale 1/D instead of 1/sqrt(D)", broken_setup, broken_run,
     broken_teardown, ab_attention_flops, NULL, 0, NULL},
    {"cpu_broken_dv", "cpu", AB_DEV_CPU, AB_DT(AB_FP32), {0},
     "TEST ONLY: cpu_flash with dV 1% too large in its backward", cpu_flash_setup, cpu_flash_run,
     cpu_flash_teardown, ab_attention_flops, NULL, AB_CAP_KV | AB_CAP_BWD_KV, broken_dv_bwd},
};

const ab_variant *ab_test_variants(size_t *n)
{
    *n = sizeof broken / sizeof broken[0];
    return broken;
}
