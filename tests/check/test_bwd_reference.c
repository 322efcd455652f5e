/*
 * test_bwd_reference.c: the float64 backward reference (ab_reference_bwd)
 * against central finite differences of the float64 forward (the gradient check's
 * oracle). Independent source: the loss L = sum(O * dO) computed with
 * ab_reference_row (the forward oracle) and differentiated numerically,
 *     dL/dx ~ (L(x + h) - L(x - h)) / ((x + h) - (x - h)),  h = 2^-10,
 * the steps as float made them (x +- h is rounded where |x| > 1 - 2^-10),
 * for every element of Q, K and V, which agrees with the analytic gradient to O(h^2) ~ 1e-6 of the
 * gradient's scale (measured: at most 3e-7); tolerance 2e-6 absolute. Shapes: multi-head, GQA
 * (H = 4, H_kv = 2), MQA with S = 3 < S_kv = 7 and S = 6 > S_kv = 4
 * (rows that see no key), causal and not, D = 4 and 8. A deliberately
 * wrong gradient (dV without the causal mask) must differ.
 */
#include "data.h"
#include "reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

/* L = sum over every row of O . dO, O from the float64 forward oracle */
static double loss(const ab_shape *s, const float *q, const float *k, const float *v,
                   const float *dO)
{
    double *row = malloc(sizeof(double) * s->D), *scr = malloc(sizeof(double) * ab_shape_skv(s));
    double L = 0.0;
    for (size_t bh = 0; bh < (size_t)s->B * s->H; bh++)
        for (int i = 0; i < s->S; i++) {
            ab_reference_row(s, q, k, v, bh, i, row, scr);
            for (int d = 0; d < s->D; d++)
                L += row[d] * dO[(bh * s->S + i) * s->D + d];
        }
    free(row);
    free(scr);
    return L;
}

/* max |analytic - numeric| over the elements of x (n of them) */
static double fd_err(const ab_shape *s, float *q, float *k, float *v, const float *dO, float *x,
                     size_t n, const double *grad)
{
    const float h = 1.0f / 1024.0f;
    double worst = 0.0;
    for (size_t e = 0; e < n; e++) {
        const float x0 = x[e], xp = x0 + h, xm = x0 - h;
        x[e] = xp;
        const double lp = loss(s, q, k, v, dO);
        x[e] = xm;
        const double lm = loss(s, q, k, v, dO);
        x[e] = x0;
        /* over the steps float made: x0 +- h is rounded where |x0| > 1 -
         * 2^-10 (the float spacing doubles at 1), and dividing by 2h there
         * put errors of 2e-6 into dV, which is linear in V */
        const double num = (lp - lm) / ((double)xp - (double)xm), err = fabs(num - grad[e]);
        worst = err > worst || isnan(err) ? err : worst;
    }
    return worst;
}

static void one(int B, int H, int HK, int S, int SK, int D, int causal)
{
    ab_shape s = {B, H, S, D, causal, AB_FP32, HK, SK};
    const size_t nq = ab_shape_numel(&s), nkv = ab_shape_kv_numel(&s);
    float *q = malloc(nq * 4), *k = malloc(nkv * 4), *v = malloc(nkv * 4), *dO = malloc(nq * 4);
    float *junk = malloc(nq * 4 > nkv * 4 ? nq * 4 : nkv * 4);
    double *dq = malloc(nq * 8), *dk = malloc(nkv * 8), *dv = malloc(nkv * 8);
    ab_inputs_fill(&s, 17, q, k, v);
    ab_inputs_fill(&s, 18, dO, junk, junk); /* dO: random too (never zeros) */
    if (ab_reference_bwd(&s, q, k, v, dO, dq, dk, dv)) {
        printf("FAIL out of memory\n");
        failures++;
        goto done;
    }
    const double eq = fd_err(&s, q, k, v, dO, q, nq, dq);
    const double ek = fd_err(&s, q, k, v, dO, k, nkv, dk);
    const double ev = fd_err(&s, q, k, v, dO, v, nkv, dv);
    const int ok = eq <= 2e-6 && ek <= 2e-6 && ev <= 2e-6;
    failures += !ok;
    printf("B=%d H=%d H_kv=%d S=%d S_kv=%d D=%d causal=%d: max |analytic - numeric| dQ %.2e "
           "dK %.2e dV %.2e %s\n",
           B, H, HK, S, SK, D, causal, eq, ek, ev, ok ? "ok" : "FAIL");
    /* a wrong dV (the causal mask ignored) must be caught by the same check */
    if (causal && ok) {
        ab_shape nc = s;
        nc.causal = 0;
        double *dq2 = malloc(nq * 8), *dk2 = malloc(nkv * 8), *dv2 = malloc(nkv * 8);
        ab_reference_bwd(&nc, q, k, v, dO, dq2, dk2, dv2);
        const double bad = fd_err(&s, q, k, v, dO, v, nkv, dv2);
        if (!(bad > 2e-6)) {
            printf("FAIL: a dV without the causal mask passed (%.2e)\n", bad);
            failures++;
        }
        free(dq2), free(dk2), free(dv2);
    }
done:
    free(q), free(k), free(v), free(dO), free(junk), free(dq), free(dk), free(dv);
}

int main(void)
{
    for (int causal = 0; causal <= 1; causal++) {
        one(1, 2, 2, 5, 5, 4, causal);  /* multi-head */
        one(2, 4, 2, 4, 4, 8, causal);  /* GQA */
        one(1, 3, 1, 3, 7, 4, causal);  /* MQA, S < S_kv */
        one(1, 2, 1, 6, 4, 4, causal);  /* MQA, S > S_kv: causal rows with no key */
    }
    printf("%s\n", failures ? "FAIL" : "ok");
    return failures != 0;
}
