/*
 * check_bwd.c: the gradient check of check.h: a backward pass's
 * dQ, dK and dV each against the float64 reference under FlashAttention's
 * rule, with the tolerance set by the plain same-precision backward's own
 * rounding error (measured against its shadow, as for the forward output).
 * Source of the rule: FlashAttention's tests/test_flash_attn.py (dq, dk, dv
 * each within 2x the error of dq_pt, dk_pt, dv_pt plus an atol).
 */
#include "check.h"
#include "reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ab_grad_name(int i)
{
    static const char *const n[3] = {"dQ", "dK", "dV"};
    return i >= 0 && i < 3 ? n[i] : "?";
}

void ab_grad_sums(const float *g, const double *ref, const double *plain, const double *shadow,
                  size_t numel, ab_dtype t, ab_check_sums *x)
{
    memset(x, 0, sizeof *x);
    for (size_t i = 0; i < numel; i++) {
        const double r = ref[i], a = fabs(r);
        x->ref_absmax = a > x->ref_absmax ? a : x->ref_absmax;
        x->sq_ref += r * r;
        const double pe = fabs(plain[i] - shadow[i]);
        x->plain_max = pe > x->plain_max ? pe : x->plain_max;
        x->plain_sq += pe * pe;
        const double dis = fabs(shadow[i] - r);
        x->disagree = dis > x->disagree ? dis : x->disagree;
        if (!isfinite(g[i])) {
            x->nonfinite++;
            x->max_err = INFINITY;
            continue;
        }
        const double e = fabs((double)g[i] - r);
        x->max_err = e > x->max_err ? e : x->max_err;
        x->sum_err += e;
        x->sq_err += e * e;
    }
    /* FlashAttention's gradient atol (2 |fl(fl(g + 0.3) - 0.3) - g|) at the
     * gradient's size, with its 0.3 as a floor: a gradient that is exactly
     * zero (S = S_kv = 1: dS = P (dP - Delta) = 0) keeps a rounding-sized
     * allowance instead of a tolerance of 0 */
    const double m = x->ref_absmax > AB_GRAD_ATOL_FLOOR ? x->ref_absmax : AB_GRAD_ATOL_FLOOR;
    for (size_t i = 0; i < numel; i++) {
        const double a = ab_check_rounding_near(ref[i], m, t);
        x->ref_atol = a > x->ref_atol ? a : x->ref_atol;
    }
    x->elems = (long)numel;
    x->rows_checked = x->rows_total = (long)numel;
}

void ab_grad_check_decide(const ab_check_sums x[3], ab_dtype t, ab_grad_check *out)
{
    out->pass = 1;
    out->why[0] = '\0';
    for (int i = 0; i < 3; i++) {
        ab_check_decide(&x[i], t, &out->g[i]);
        if (!out->g[i].pass && out->pass) {
            out->pass = 0;
            snprintf(out->why, sizeof out->why, "%s: %s", ab_grad_name(i), out->g[i].why);
        }
    }
}

int ab_check_grads(const ab_shape *s, const float *q, const float *k, const float *v,
                   const float *dO, const float *dq, const float *dk, const float *dv,
                   ab_grad_check *out)
{
    const size_t n[3] = {ab_shape_numel(s), ab_shape_kv_numel(s), ab_shape_kv_numel(s)};
    const size_t all = n[0] + 2 * n[1];
    double *ref = malloc(sizeof(double) * all), *plain = malloc(sizeof(double) * all),
           *shadow = malloc(sizeof(double) * all);
    int rc = -1;
    if (!ref || !plain || !shadow)
        goto cleanup;
    double *r3[3] = {ref, ref + n[0], ref + n[0] + n[1]};
    double *p3[3] = {plain, plain + n[0], plain + n[0] + n[1]};
    double *s3[3] = {shadow, shadow + n[0], shadow + n[0] + n[1]};
    if (ab_reference_bwd(s, q, k, v, dO, r3[0], r3[1], r3[2]) ||
        ab_plain_bwd(s, q, k, v, dO, 1, p3[0], p3[1], p3[2]) ||
        ab_plain_bwd(s, q, k, v, dO, 0, s3[0], s3[1], s3[2]))
        goto cleanup;
    const float *g3[3] = {dq, dk, dv};
    ab_check_sums x[3];
    for (int i = 0; i < 3; i++)
        ab_grad_sums(g3[i], r3[i], p3[i], s3[i], n[i], s->dtype, &x[i]);
    ab_grad_check_decide(x, s->dtype, out);
    rc = 0;
cleanup:
    free(ref);
    free(plain);
    free(shadow);
    return rc;
}
