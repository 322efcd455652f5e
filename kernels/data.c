/*
 * data.c: seeded random inputs and dtype rounding (see data.h for the exact
 * generator, which adapters reproduce).
 */
#include "data.h"

#include <gsl/gsl_rng.h>
#include <stdint.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

float ab_round_to(float x, ab_dtype t)
{
    switch (t) {
    case AB_FP16:
        return (float)(_Float16)x; /* IEEE binary16, round to nearest even */
    case AB_BF16: {
        uint32_t u;
        memcpy(&u, &x, sizeof u);
        if ((u & 0x7f800000u) != 0x7f800000u) /* finite: round to nearest even */
            u += 0x7fffu + ((u >> 16) & 1u);
        u &= 0xffff0000u;
        memcpy(&x, &u, sizeof x);
        return x;
    }
    case AB_FP32:
    default:
        return x;
    }
}

int ab_inputs_fill(const ab_shape *s, unsigned long seed, float *q, float *k, float *v)
{
    const size_t len[3] = {ab_shape_numel(s), ab_shape_kv_numel(s), ab_shape_kv_numel(s)};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r)
        return -1;
    gsl_rng_set(r, seed);
    float *dst[3] = {q, k, v};
    /* the draws in order (MT19937 is sequential), then the rounding, which
     * is elementwise, on every core: the same values as rounding each draw
     * as it is made (issue 11: the inputs were the largest share of a run's
     * wall time at B=4 H=16 S=4096 D=128, half of it the rounding) */
    for (int t = 0; t < 3; t++)
        for (size_t i = 0; i < len[t]; i++)
            dst[t][i] = (float)(2.0 * gsl_rng_uniform(r) - 1.0);
    gsl_rng_free(r);
    if (s->dtype != AB_FP32) {
        for (int t = 0; t < 3; t++) {
            float *x = dst[t];
            const long long nn = (long long)len[t];
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(omp_get_num_procs())
#endif
            for (long long i = 0; i < nn; i++)
                x[i] = ab_round_to(x[i], s->dtype);
        }
    }
    return 0;
}

int ab_dout_fill(const ab_shape *s, unsigned long seed, float *dout)
{
    const size_t n = ab_shape_numel(s);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r)
        return -1;
    gsl_rng_set(r, seed + 1);
    for (size_t i = 0; i < n; i++)
        dout[i] = ab_round_to((float)(2.0 * gsl_rng_uniform(r) - 1.0), s->dtype);
    gsl_rng_free(r);
    return 0;
}
