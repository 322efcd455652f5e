/*
 * reference.c: the float64 oracle and the plain same-precision reference
 * (reference.h), plus the `cpu_reference` variant, which runs the oracle over
 * every row so it can be timed like any other variant.
 *
 * Idea: exact softmax attention in double, one query row at a time: scores,
 * row max, exp, sum, weighted sum of V. Source: the definition (Vaswani et
 * al. 2017, eq. 1). Measured speed: seconds, not milliseconds; it exists to
 * be right.
 */
#include "reference.h"
#include "data.h"
#include "entry_points.h"

#include <math.h>
#include <stdlib.h>

void ab_reference_row(const ab_shape *s, const float *q, const float *k, const float *v,
                      size_t bh, int i, double *out, double *scratch)
{
    const int S = s->S, D = s->D;
    const size_t base = bh * (size_t)S * (size_t)D, kvb = ab_kv_offset(s, bh);
    const float *qi = q + base + (size_t)i * D;
    const int L = ab_row_keys(s, i);
    const double scale = 1.0 / sqrt((double)D);
    double mx = -INFINITY;
    for (int d = 0; d < D; d++)
        out[d] = 0.0;
    if (L == 0) /* causal, S > S_kv: this row sees no key; O = 0 (FlashAttention) */
        return;
    for (int j = 0; j < L; j++) {
        const float *kj = k + kvb + (size_t)j * D;
        double acc = 0.0;
        for (int d = 0; d < D; d++)
            acc += (double)qi[d] * (double)kj[d];
        scratch[j] = acc * scale;
        if (scratch[j] > mx)
            mx = scratch[j];
    }
    double sum = 0.0;
    for (int j = 0; j < L; j++) {
        scratch[j] = exp(scratch[j] - mx);
        sum += scratch[j];
    }
    for (int j = 0; j < L; j++) {
        const float *vj = v + kvb + (size_t)j * D;
        const double p = scratch[j] / sum;
        for (int d = 0; d < D; d++)
            out[d] += p * (double)vj[d];
    }
}

/* One rounding step of the plain computation: to the dtype, to fp32, or
 * none (the shadow). Arithmetic is carried in double either way; a float
 * product or a sum of two floats is exact in double (or within the
 * double's own rounding), so rounding the double result to float is the
 * float operation up to double rounding, which is below what is measured. */
enum { R_DTYPE, R_F32 };
static double rnd(double x, int what, int exact, ab_dtype t)
{
    if (exact)
        return x;
    return what == R_F32 ? (double)(float)x : (double)ab_round_to((float)x, t);
}

/* The plain computation (reference.h); exact = 1 gives its shadow. */
static void plain_impl(const ab_shape *s, const float *q, const float *k, const float *v,
                       size_t bh, int i, int exact, double *out, double *scratch)
{
    const int S = s->S, D = s->D;
    const ab_dtype t = s->dtype;
    const size_t base = bh * (size_t)S * (size_t)D, kvb = ab_kv_offset(s, bh);
    const float *qi = q + base + (size_t)i * D;
    const int L = ab_row_keys(s, i);
    const double scale = rnd(1.0 / sqrt((double)D), R_DTYPE, exact, t);
    double mx = -INFINITY;
    if (L == 0) { /* a row that sees no key: O = 0 */
        for (int d = 0; d < D; d++)
            out[d] = 0.0;
        return;
    }
    for (int j = 0; j < L; j++) {
        const float *kj = k + kvb + (size_t)j * D;
        double acc = 0.0;
        for (int d = 0; d < D; d++) {
            const double qs = rnd(rnd((double)qi[d] * scale, R_F32, exact, t), R_DTYPE, exact, t);
            acc = rnd(acc + rnd(qs * (double)kj[d], R_F32, exact, t), R_F32, exact, t);
        }
        scratch[j] = rnd(acc, R_DTYPE, exact, t);
        if (scratch[j] > mx)
            mx = scratch[j];
    }
    double sum = 0.0;
    for (int j = 0; j < L; j++) {
        scratch[j] = exact ? exp(scratch[j] - mx) : (double)expf((float)(scratch[j] - mx));
        sum = rnd(sum + scratch[j], R_F32, exact, t);
    }
    for (int j = 0; j < L; j++)
        scratch[j] = rnd(rnd(scratch[j] / sum, R_F32, exact, t), R_DTYPE, exact, t);
    for (int d = 0; d < D; d++) {
        double acc = 0.0;
        for (int j = 0; j < L; j++)
            acc = rnd(acc + rnd(scratch[j] * (double)v[kvb + (size_t)j * D + d], R_F32, exact, t),
                      R_F32, exact, t);
        out[d] = rnd(acc, R_DTYPE, exact, t);
    }
}

void ab_plain_row(const ab_shape *s, const float *q, const float *k, const float *v,
                  size_t bh, int i, double *out, double *shadow, double *scratch)
{
    plain_impl(s, q, k, v, bh, i, 0, out, scratch);
    plain_impl(s, q, k, v, bh, i, 1, shadow, scratch);
}

/* ---- the cpu_reference variant ---------------------------------------------- */

int cpu_reference_setup(const ab_shape *s, void **ctx, size_t *ws, char *err, size_t n)
{
    *ctx = NULL;
    *ws = 0;
    return 0;
}

int cpu_reference_run(void *ctx, const ab_shape *s, const void *q, const void *k,
                      const void *v, void *o, void *stream)
{
    const size_t slices = (size_t)s->B * (size_t)s->H;
    const long rows = (long)(slices * (size_t)s->S);
    int rc = 0;
#pragma omp parallel
    {
        const size_t skv = (size_t)ab_shape_skv(s);
        double *scratch = malloc(sizeof(double) * (skv + (size_t)s->D));
        if (!scratch) {
#pragma omp atomic write
            rc = -1;
        } else {
#pragma omp for schedule(static)
            for (long r = 0; r < rows; r++) {
                const size_t bh = (size_t)r / (size_t)s->S;
                const int i = (int)((size_t)r % (size_t)s->S);
                double *row = scratch + skv;
                ab_reference_row(s, q, k, v, bh, i, row, scratch);
                float *oi = (float *)o + (size_t)r * s->D;
                for (int d = 0; d < s->D; d++)
                    oi[d] = (float)row[d];
            }
            free(scratch);
        }
    }
    return rc;
}

void cpu_reference_teardown(void *ctx) { (void)ctx; }

/* cpu_reference's backward: ab_reference_bwd in float64 (the
 * oracle itself, lse and O unused: it recomputes P exactly), rounded to the
 * dtype. Allocates its double buffers per call (a CPU oracle, not a rival). */
int cpu_reference_run_bwd(void *ctx, const ab_shape *s, const void *q, const void *k,
                          const void *v, const void *o, const void *dout, const float *lse,
                          void *dq, void *dk, void *dv, void *stream)
{
    (void)ctx;
    (void)o;
    (void)lse;
    (void)stream;
    const size_t nq = ab_shape_numel(s), nkv = ab_shape_kv_numel(s);
    double *gq = malloc(sizeof(double) * (nq ? nq : 1));
    double *gk = malloc(sizeof(double) * (nkv ? nkv : 1));
    double *gv = malloc(sizeof(double) * (nkv ? nkv : 1));
    int rc = -1;
    if (gq && gk && gv && ab_reference_bwd(s, q, k, v, dout, gq, gk, gv) == 0) {
        for (size_t i = 0; i < nq; i++)
            ((float *)dq)[i] = ab_round_to((float)gq[i], s->dtype);
        for (size_t i = 0; i < nkv; i++) {
            ((float *)dk)[i] = ab_round_to((float)gk[i], s->dtype);
            ((float *)dv)[i] = ab_round_to((float)gv[i], s->dtype);
        }
        rc = 0;
    }
    free(gq);
    free(gk);
    free(gv);
    return rc;
}
