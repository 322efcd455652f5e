/*
 * check.c: the correctness check of check.h: which rows, the host
 * computation of the sums (float64 reference, plain same-precision
 * computation and its shadow), and the verdict under the tolerance rule.
 */
#include "check.h"
#include "data.h"
#include "reference.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double rounding_near(double x, double m, ab_dtype t);

/* FlashAttention's fwd_atol term for one value x, FlashAttention's 0.3
 * replaced by the output size m. */
double ab_check_rounding_near(double x, double m, ab_dtype t) { return rounding_near(x, m, t); }

static double rounding_near(double x, double m, ab_dtype t)
{
    float xr = ab_round_to((float)x, t);
    float a = ab_round_to(xr + (float)m, t);
    float b = ab_round_to(a - (float)m, t);
    return fabs((double)ab_round_to(b - xr, t));
}

double ab_check_atol_bound(ab_dtype t, double xmax)
{
    double m = 0;
    for (int i = -32768; i <= 32768; i++) {
        double a = rounding_near(xmax * i / 32768.0, 0.3, t);
        if (a > m)
            m = a;
    }
    m *= 2.0;
    return t == AB_FP32 && m < 1e-5 ? 1e-5 : m;
}

double ab_check_atol(ab_dtype t, double ref_atol, double m)
{
    double a = 2.0 * ref_atol;
    if (t == AB_FP32 && a < 1e-5)
        a = 1e-5;
    (void)m;
    return a;
}

/* rule (3)'s relative floor: half the dtype's unit roundoff (fp32: 1e-5). */
static double l2_floor(ab_dtype t)
{
    switch (t) {
    case AB_FP16:
        return ldexp(1.0, -12);
    case AB_BF16:
        return ldexp(1.0, -9);
    default:
        return 1e-5;
    }
}

double ab_check_escape(long rows_checked, long rows_total)
{
    if (rows_total <= 0 || rows_checked >= rows_total)
        return 0.0;
    return 1.0 - (double)rows_checked / (double)rows_total;
}

void ab_check_decide(const ab_check_sums *x, ab_dtype t, ab_check *out)
{
    const double m = x->ref_absmax;
    const double ref_l2 = sqrt(x->sq_ref);
    out->max_abs_err = x->max_err;
    out->mean_abs_err = x->elems ? x->sum_err / (double)x->elems : 0.0;
    out->rel_l2_err = ref_l2 > 0 ? sqrt(x->sq_err) / ref_l2 : sqrt(x->sq_err);
    out->plain_max_abs_err = x->plain_max;
    out->plain_rel_l2_err = ref_l2 > 0 ? sqrt(x->plain_sq) / ref_l2 : sqrt(x->plain_sq);
    out->ref_absmax = m;
    out->atol = ab_check_atol(t, x->ref_atol, m);
    out->tolerance = 2.0 * x->plain_max + out->atol;
    out->l2_tolerance = 2.0 * out->plain_rel_l2_err + l2_floor(t);
    out->disagreement = x->disagree;
    out->nonfinite = x->nonfinite;
    out->rows_checked = x->rows_checked;
    out->rows_total = x->rows_total;
    out->why[0] = '\0';
    if (x->nonfinite)
        snprintf(out->why, sizeof out->why, "%ld non-finite outputs", x->nonfinite);
    else if (!(x->max_err <= out->tolerance))
        snprintf(out->why, sizeof out->why, "max abs error %.3e > tolerance %.3e", x->max_err,
                 out->tolerance);
    else if (!(out->rel_l2_err <= out->l2_tolerance))
        snprintf(out->why, sizeof out->why, "relative L2 error %.3e > L2 tolerance %.3e",
                 out->rel_l2_err, out->l2_tolerance);
    else if (!(x->disagree <= 1e-9 * (1.0 + m)))
        snprintf(out->why, sizeof out->why,
                 "the two float64 references disagree by %.3e: the checker is broken",
                 x->disagree);
    else if (x->elems == 0)
        snprintf(out->why, sizeof out->why, "nothing compared");
    out->pass = out->why[0] == '\0';
}

size_t ab_check_rows_for(const ab_shape *s)
{
    /* keys per row on average: for S_kv != S or H_kv != H from the exact FLOP count */
    const double keys = ab_shape_kv_differs(s)
                            ? ab_attention_flops(s) / (4.0 * s->B * s->H * (double)s->S * s->D)
                        : s->causal ? 0.5 * (s->S + 1)
                                    : (double)s->S;
    const double slices = (double)s->B * s->H;
    const double full = slices * s->S * keys * s->D;
    if (full <= AB_CHECK_HOST_BUDGET)
        return 0;
    double per = AB_CHECK_HOST_BUDGET / (slices * keys * s->D);
    /* the always-checked rows come on top of the minimum */
    const double forced = 2.0 + 3.0 * (s->S / 64.0);
    if (per < AB_CHECK_MIN_ROWS + forced)
        per = AB_CHECK_MIN_ROWS + forced;
    return per >= s->S ? 0 : (size_t)per;
}

/* appends row i to rows[0..*n) unless out of range or already marked */
static void add_row(int i, int S, unsigned char *mark, int *rows, size_t *n)
{
    if (i >= 0 && i < S && !mark[i]) {
        mark[i] = 1;
        rows[(*n)++] = i;
    }
}

size_t ab_check_rows_select(int S, size_t per, void *rv, int *rows)
{
    gsl_rng *r = rv;
    size_t n = 0;
    if (per == 0 || per >= (size_t)S) {
        for (int i = 0; i < S; i++)
            rows[i] = i;
        return (size_t)S;
    }
    unsigned char *mark = calloc((size_t)S, 1);
    int *rest = malloc(sizeof(int) * (size_t)S);
    if (!mark || !rest) {
        free(mark);
        free(rest);
        return 0;
    }
    add_row(0, S, mark, rows, &n);
    add_row(S - 1, S, mark, rows, &n);
    for (int b = 64; b - 1 < S; b += 64) /* multiples of 128 are multiples of 64 */
        for (int d = -1; d <= 1; d++)
            add_row(b + d, S, mark, rows, &n);
    size_t nrest = 0;
    for (int i = 0; i < S; i++)
        if (!mark[i])
            rest[nrest++] = i;
    if (per > n && nrest > 0) {
        size_t want = per - n < nrest ? per - n : nrest;
        gsl_ran_choose(r, rows + n, want, rest, nrest, sizeof(int));
        n += want;
    }
    free(mark);
    free(rest);
    return n;
}

int ab_check_output(const ab_shape *s, const float *q, const float *k, const float *v,
                    const float *o, unsigned long seed, size_t rows_per_slice,
                    ab_check *out)
{
    int rc = -1;
    const size_t numel = ab_shape_numel(s);
    const size_t slices = (size_t)s->B * (size_t)s->H;
    const size_t S = (size_t)s->S, D = (size_t)s->D;
    const int sampled = rows_per_slice != 0 && rows_per_slice < S;
    int *rows = NULL;
    size_t *nrows_of = NULL;
    gsl_rng *r = NULL;
    ab_check_sums x;

    memset(out, 0, sizeof *out);
    memset(&x, 0, sizeof x);
    for (size_t i = 0; i < numel; i++)
        x.nonfinite += !isfinite(o[i]);

    rows = malloc(sizeof(int) * slices * S);
    nrows_of = malloc(sizeof(size_t) * slices);
    r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rows || !nrows_of || !r)
        goto cleanup;
    gsl_rng_set(r, seed);
    /* (bh, row) pairs, slice after slice, each slice's rows drawn afresh */
    size_t total = 0;
    for (size_t bh = 0; bh < slices; bh++) {
        size_t n = ab_check_rows_select((int)S, sampled ? rows_per_slice : 0, r, rows + total);
        if (n == 0)
            goto cleanup;
        nrows_of[bh] = n;
        total += n;
    }

    double max_err = 0, sum_err = 0, sq_err = 0, sq_ref = 0, plain_max = 0, plain_sq = 0;
    double absmax = 0, disagree = 0;
    int alloc_fail = 0;
    const long npairs = (long)total;
    /* first pass: everything but atol, which needs max |O_ref| */
    double *refs = malloc(sizeof(double) * total * D);
    if (!refs)
        goto cleanup;
    unsigned *slice_of = malloc(sizeof(unsigned) * total);
    if (!slice_of) {
        free(refs);
        goto cleanup;
    }
    for (size_t bh = 0, p = 0; bh < slices; bh++)
        for (size_t j = 0; j < nrows_of[bh]; j++)
            slice_of[p++] = (unsigned)bh;
#pragma omp parallel reduction(max : max_err, plain_max, absmax, disagree) reduction(+ : sum_err, sq_err, sq_ref, plain_sq)
    {
        const size_t SKV = (size_t)ab_shape_skv(s);
        double *buf = malloc(sizeof(double) * (SKV + 2 * D));
        if (!buf) {
#pragma omp atomic write
            alloc_fail = 1;
        } else {
#pragma omp for schedule(dynamic, 4)
            for (long n = 0; n < npairs; n++) {
                const size_t bh = slice_of[n];
                const int i = rows[n];
                double *ref_row = refs + (size_t)n * D;
                double *plain_row = buf + SKV, *shadow_row = buf + SKV + D;
                ab_reference_row(s, q, k, v, bh, i, ref_row, buf);
                ab_plain_row(s, q, k, v, bh, i, plain_row, shadow_row, buf);
                const float *oi = o + (bh * S + (size_t)i) * D;
                for (size_t d = 0; d < D; d++) {
                    double e = fabs((double)oi[d] - ref_row[d]);
                    if (!(e <= max_err)) /* NaN counts as an infinite error */
                        max_err = isnan(e) ? INFINITY : e;
                    sum_err += isfinite(e) ? e : 0;
                    sq_err += isfinite(e) ? e * e : 0;
                    sq_ref += ref_row[d] * ref_row[d];
                    double pe = fabs(plain_row[d] - shadow_row[d]);
                    if (pe > plain_max)
                        plain_max = pe;
                    plain_sq += pe * pe;
                    if (fabs(ref_row[d]) > absmax)
                        absmax = fabs(ref_row[d]);
                    double g = fabs(shadow_row[d] - ref_row[d]);
                    if (!(g <= disagree))
                        disagree = isnan(g) ? INFINITY : g;
                }
            }
        }
        free(buf);
    }
    free(slice_of);
    if (alloc_fail) {
        free(refs);
        goto cleanup;
    }
    double ref_atol = 0;
    for (size_t i = 0; i < total * D; i++) {
        double a = rounding_near(refs[i], absmax, s->dtype);
        if (a > ref_atol)
            ref_atol = a;
    }
    free(refs);

    x.max_err = max_err;
    x.sum_err = sum_err;
    x.sq_err = sq_err;
    x.sq_ref = sq_ref;
    x.plain_max = plain_max;
    x.plain_sq = plain_sq;
    x.ref_absmax = absmax;
    x.ref_atol = ref_atol;
    x.disagree = disagree;
    x.rows_checked = npairs;
    x.rows_total = (long)(slices * S);
    x.elems = npairs * (long)D;
    ab_check_decide(&x, s->dtype, out);
    out->seed = sampled ? seed : 0;
    rc = 0;
cleanup:
    gsl_rng_free(r);
    free(rows);
    free(nrows_of);
    return rc;
}
