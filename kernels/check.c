/*
 * check.c: the correctness check of check.h: row sampling, float64
 * reference, plain same-precision reference and FlashAttention's tolerance.
 */
#include "check.h"
#include "data.h"
#include "reference.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

/* FlashAttention's fwd_atol term for one reference value x. */
static double rounding_near_03(double x, ab_dtype t)
{
    float xr = ab_round_to((float)x, t);
    float a = ab_round_to(xr + 0.3f, t);
    float b = ab_round_to(a - 0.3f, t);
    return fabs((double)ab_round_to(b - xr, t));
}

double ab_check_atol_bound(ab_dtype t, double xmax)
{
    double m = 0;
    for (int i = -32768; i <= 32768; i++) {
        double a = rounding_near_03(xmax * i / 32768.0, t);
        if (a > m)
            m = a;
    }
    m *= 2.0;
    return t == AB_FP32 && m < 1e-5 ? 1e-5 : m;
}

int ab_check_output(const ab_shape *s, const float *q, const float *k, const float *v,
                    const float *o, unsigned long seed, size_t rows_per_slice,
                    ab_check *out)
{
    int rc = -1;
    const size_t numel = ab_shape_numel(s);
    const size_t slices = (size_t)s->B * (size_t)s->H;
    const size_t S = (size_t)s->S, D = (size_t)s->D;
    const size_t per = S <= rows_per_slice ? S : rows_per_slice;
    int *rows = NULL, *all = NULL;
    gsl_rng *r = NULL;

    *out = (ab_check){0};
    for (size_t i = 0; i < numel; i++)
        out->nonfinite += !isfinite(o[i]);

    rows = malloc(sizeof(int) * slices * per);
    all = malloc(sizeof(int) * S);
    r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rows || !all || !r)
        goto cleanup;
    gsl_rng_set(r, seed);
    for (size_t i = 0; i < S; i++)
        all[i] = (int)i;
    for (size_t bh = 0; bh < slices; bh++) {
        int *dst = rows + bh * per;
        if (per == S) {
            for (size_t i = 0; i < S; i++)
                dst[i] = (int)i;
        } else {
            /* per-1 rows from [0, S-1), then the last row */
            gsl_ran_choose(r, dst, per - 1, all, S - 1, sizeof(int));
            dst[per - 1] = (int)S - 1;
        }
    }

    double max_err = 0, sum_err = 0, sq_err = 0, sq_ref = 0, plain_max = 0, atol = 0;
    int alloc_fail = 0;
    const long nrows = (long)(slices * per);
#pragma omp parallel reduction(max : max_err, plain_max, atol) reduction(+ : sum_err, sq_err, sq_ref)
    {
        double *ref = malloc(sizeof(double) * (S + D));
        float *plain = malloc(sizeof(float) * (S + D));
        if (!ref || !plain) {
#pragma omp atomic write
            alloc_fail = 1;
        } else {
#pragma omp for schedule(dynamic, 4)
            for (long n = 0; n < nrows; n++) {
                const size_t bh = (size_t)n / per;
                const int i = rows[n];
                double *ref_row = ref + S;
                float *plain_row = plain + S;
                ab_reference_row(s, q, k, v, bh, i, ref_row, ref);
                ab_plain_row(s, q, k, v, bh, i, plain_row, plain);
                const float *oi = o + (bh * S + (size_t)i) * D;
                for (size_t d = 0; d < D; d++) {
                    double e = fabs((double)oi[d] - ref_row[d]);
                    if (!(e <= max_err)) /* NaN propagates as a failure below */
                        max_err = isnan(e) ? INFINITY : e;
                    sum_err += isfinite(e) ? e : 0;
                    sq_err += isfinite(e) ? e * e : 0;
                    sq_ref += ref_row[d] * ref_row[d];
                    double pe = fabs((double)plain_row[d] - ref_row[d]);
                    if (pe > plain_max)
                        plain_max = pe;
                    double a = rounding_near_03(ref_row[d], s->dtype);
                    if (a > atol)
                        atol = a;
                }
            }
        }
        free(ref);
        free(plain);
    }
    if (alloc_fail)
        goto cleanup;

    atol *= 2.0;
    if (s->dtype == AB_FP32 && atol < 1e-5)
        atol = 1e-5;
    out->max_abs_err = max_err;
    out->mean_abs_err = sum_err / (double)(nrows * (long)D);
    out->rel_l2_err = sq_ref > 0 ? sqrt(sq_err / sq_ref) : sqrt(sq_err);
    out->plain_max_abs_err = plain_max;
    out->atol = atol;
    out->tolerance = 2.0 * plain_max + atol;
    out->rows_checked = nrows;
    out->pass = out->nonfinite == 0 && max_err <= out->tolerance;
    rc = 0;
cleanup:
    gsl_rng_free(r);
    free(rows);
    free(all);
    return rc;
}
