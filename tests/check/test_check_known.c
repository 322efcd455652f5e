/*
 * test_check_known.c: the output and gradient checks (kernels/check.h)
 * against answers known without the checker's own reference, for the
 * properties that a relative, signed or floorless variant of the rule
 * would get wrong while every other test still passed.
 *
 * Known answers used:
 *   - V constant along the keys (V[j][d] = c_d for every j): every softmax
 *     row sums to 1, so O[i][d] = c_d exactly, whatever Q and K are
 *     (causal or not). c_d are fp16 numbers, so O is exact in fp16.
 *   - the absolute rule: an element off by 64 where |O| is about 1000
 *     (64 units in the last place of fp16 at 512..1024, whose spacing is
 *     0.5) is far outside FlashAttention's tolerance (2x the plain
 *     computation's rounding error plus an atol of a few units in the last
 *     place), so the check fails it on the max-abs rule and reports the
 *     absolute error 64 (within one fp16 unit: the reference is float64).
 *   - max |O_ref| for an all-negative O is max |c_d| (not 0: a signed max).
 *   - the sampled check holds the last row of every slice (check.h): an
 *     output wrong only in row S - 1 fails under every seed, with S = 100
 *     (row 99 is no tile boundary) and 8 rows per slice.
 *   - a sampled check draws at least AB_CHECK_MIN_ROWS rows at random on top
 *     of the rows it always checks (check.h): the forced rows counted here
 *     by brute force (0, S - 1, and 64 j - 1, 64 j, 64 j + 1 below S), on a
 *     shape far over the host budget (B = H = 64, S = 4096, D = 128).
 *   - the gradient check's cross-check of its two float64 references: sums
 *     whose shadow computation (the plain backward without its dtype
 *     rounding) is 1e-3 away from the reference in one element report a
 *     disagreement of 1e-3 and fail as a broken checker, whatever the
 *     gradient itself (here exactly the reference).
 *   - S = S_kv = 1: softmax over one key is 1, so dQ = dK = 0 exactly and
 *     dV = dO. FlashAttention's gradient atol with its floor 0.3 in fp16 is
 *     2 |fl(fl(0 + 0.3) - 0.3)| = 2 x 819 x 2^-24 = 9.763e-5 (fp16(0.3) =
 *     0x34CD = 0.300048828125; minus 0.3f it is 4.8816e-5, the fp16
 *     subnormal 819 x 2^-24; Python's struct 'e' format, IEEE binary16,
 *     gives the same): a dQ of 1e-5 passes (within that atol and, as
 *     ||dQ_ref|| = 0, within the relative L2 rule's floor), one of 1e-2
 *     fails, and the atol reported is that number (not 0, as without the
 *     floor).
 */
#include "check.h"
#include "data.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define CHECK(c, ...)                                           \
    do {                                                        \
        if (!(c)) {                                             \
            fprintf(stderr, "FAIL line %d: ", __LINE__);        \
            fprintf(stderr, __VA_ARGS__);                       \
            fputc('\n', stderr);                                \
            failures++;                                         \
        }                                                       \
    } while (0)

/* Q, K uniform in [-1, 1), V[j][d] = c_d, O[i][d] = c_d; all fp16 values.
 * c_d uniform in [lo, hi). */
static void column_constant(const ab_shape *s, gsl_rng *r, double lo, double hi, float *q,
                            float *k, float *v, float *o)
{
    const size_t n = ab_shape_numel(s), D = (size_t)s->D;
    float *c = malloc(sizeof(float) * D);
    for (size_t d = 0; d < D; d++)
        c[d] = ab_round_to((float)(lo + (hi - lo) * gsl_rng_uniform(r)), s->dtype);
    for (size_t i = 0; i < n; i++) {
        q[i] = ab_round_to((float)(2 * gsl_rng_uniform(r) - 1), s->dtype);
        k[i] = ab_round_to((float)(2 * gsl_rng_uniform(r) - 1), s->dtype);
        v[i] = c[i % D];
        o[i] = c[i % D];
    }
    free(c);
}

static void absolute_rule(gsl_rng *r)
{
    for (int causal = 0; causal <= 1; causal++) {
        ab_shape s = {1, 2, 17, 64, causal, AB_FP16, 0, 0, AB_FWD};
        const size_t n = ab_shape_numel(&s);
        float *q = malloc(4 * n * sizeof(float)), *k = q + n, *v = k + n, *o = v + n;
        column_constant(&s, r, 512, 1024, q, k, v, o);
        ab_check c;
        CHECK(ab_check_output(&s, q, k, v, o, 1, 0, &c) == 0 && c.pass,
              "causal=%d: the exact output failed: %s", causal, c.why);
        const size_t at = n / 2 + 3;
        o[at] += 64.0f;
        CHECK(ab_check_output(&s, q, k, v, o, 1, 0, &c) == 0, "check");
        CHECK(!c.pass && strstr(c.why, "max abs error"),
              "causal=%d: an element off by 64 at |O| ~ 1000 passed (%s): the rule is not absolute",
              causal, c.why);
        CHECK(fabs(c.max_abs_err - 64.0) <= 0.5,
              "causal=%d: max abs error %.6g, want the absolute error 64", causal, c.max_abs_err);
        CHECK(c.tolerance < 64.0 && c.tolerance > 0,
              "causal=%d: tolerance %.6g (a few fp16 units at 1024 expected)", causal, c.tolerance);
        free(q);
    }
}

static void signed_max(gsl_rng *r)
{
    ab_shape s = {1, 1, 9, 32, 0, AB_FP16, 0, 0, AB_FWD};
    const size_t n = ab_shape_numel(&s);
    float *q = malloc(4 * n * sizeof(float)), *k = q + n, *v = k + n, *o = v + n;
    column_constant(&s, r, -1024, -512, q, k, v, o);
    double want = 0;
    for (int d = 0; d < s.D; d++)
        want = fabs(v[d]) > want ? fabs(v[d]) : want;
    ab_check c;
    CHECK(ab_check_output(&s, q, k, v, o, 1, 0, &c) == 0 && c.pass, "negative O failed: %s", c.why);
    CHECK(fabs(c.ref_absmax - want) <= 1e-9 * want,
          "max |O_ref| of an all-negative O: %.9g, want %.9g", c.ref_absmax, want);
    free(q);
}

static void last_row(gsl_rng *r)
{
    ab_shape s = {1, 2, 100, 16, 0, AB_FP32, 0, 0, AB_FWD};
    const size_t n = ab_shape_numel(&s), D = 16, S = 100;
    float *q = malloc(4 * n * sizeof(float)), *k = q + n, *v = k + n, *o = v + n;
    column_constant(&s, r, -2, 2, q, k, v, o);
    /* slice 1, row S - 1 holds row S - 2 of another output: every element off */
    for (size_t d = 0; d < D; d++)
        o[(1 * S + S - 1) * D + d] = -o[(1 * S + S - 1) * D + d] + 0.5f;
    int missed = 0;
    for (unsigned long seed = 1; seed <= 60; seed++) {
        ab_check c;
        if (ab_check_output(&s, q, k, v, o, seed, 8, &c) != 0 || c.pass)
            missed++;
        CHECK(c.rows_checked < (long)(2 * S), "seed %lu: not a sampled check", seed);
    }
    CHECK(missed == 0, "an output wrong only in the last row passed under %d of 60 seeds", missed);
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    int rows[100];
    for (unsigned long seed = 1; seed <= 60; seed++) {
        gsl_rng_set(g, seed);
        size_t m = ab_check_rows_select(100, 8, g, rows), has = 0;
        for (size_t i = 0; i < m; i++)
            has |= rows[i] == 99;
        CHECK(has, "seed %lu: row 99 of 100 not among the %zu sampled rows", seed, m);
    }
    gsl_rng_free(g);
    free(q);
}

static void random_rows_on_top(void)
{
    ab_shape s = {64, 64, 4096, 128, 0, AB_FP16, 0, 0, AB_FWD};
    const int S = s.S;
    size_t per = ab_check_rows_for(&s);
    unsigned char *forced = calloc((size_t)S, 1);
    int *rows = malloc(sizeof(int) * (size_t)S), nf = 0;
    forced[0] = forced[S - 1] = 1;
    for (int b = 64; b - 1 < S; b += 64)
        for (int d = -1; d <= 1; d++)
            if (b + d < S)
                forced[b + d] = 1;
    for (int i = 0; i < S; i++)
        nf += forced[i];
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 3);
    size_t n = ab_check_rows_select(S, per, g, rows), random = 0;
    for (size_t i = 0; i < n; i++)
        random += !forced[rows[i]];
    CHECK(per > 0 && per < (size_t)S, "rows per slice %zu: not a sampled check", per);
    CHECK(random >= AB_CHECK_MIN_ROWS,
          "%zu rows drawn at random beside the %d forced ones (rows per slice %zu), want >= %d",
          random, nf, per, AB_CHECK_MIN_ROWS);
    gsl_rng_free(g);
    free(rows);
    free(forced);
}

static void grad_cross_check(void)
{
    enum { N = 32 };
    float g[N];
    double ref[N], plain[N], shadow[N];
    for (int i = 0; i < N; i++) {
        ref[i] = 0.25 + 0.01 * i;
        g[i] = (float)ref[i];
        plain[i] = shadow[i] = ref[i];
    }
    shadow[7] += 1e-3;
    ab_check_sums x[3];
    for (int k = 0; k < 3; k++)
        ab_grad_sums(g, ref, plain, shadow, N, AB_FP32, &x[k]);
    CHECK(fabs(x[0].disagree - 1e-3) < 1e-12, "disagreement %.6g, want 1e-3", x[0].disagree);
    ab_grad_check out;
    ab_grad_check_decide(x, AB_FP32, &out);
    CHECK(!out.pass && strstr(out.why, "references disagree"),
          "references 1e-3 apart: %s (want the broken-checker verdict)", out.pass ? "pass" : out.why);
}

static void grad_floor(gsl_rng *r)
{
    ab_shape s = {1, 1, 1, 64, 0, AB_FP16, 0, 0, AB_BWD};
    const size_t n = 64;
    float *q = malloc(7 * n * sizeof(float)), *k = q + n, *v = k + n, *dO = v + n, *dq = dO + n,
          *dk = dq + n, *dv = dk + n;
    for (size_t i = 0; i < n; i++) {
        q[i] = ab_round_to((float)(2 * gsl_rng_uniform(r) - 1), AB_FP16);
        k[i] = ab_round_to((float)(2 * gsl_rng_uniform(r) - 1), AB_FP16);
        v[i] = ab_round_to((float)(2 * gsl_rng_uniform(r) - 1), AB_FP16);
        dO[i] = ab_round_to((float)(2 * gsl_rng_uniform(r) - 1), AB_FP16);
        dq[i] = 1e-5f;
        dk[i] = 0;
        dv[i] = dO[i];
    }
    const double atol = 2.0 * 819.0 * ldexp(1.0, -24);
    ab_grad_check g;
    CHECK(ab_check_grads(&s, q, k, v, dO, dq, dk, dv, &g) == 0, "grads");
    CHECK(g.pass, "dQ = 1e-5 where dQ = 0 exactly failed: %s", g.why);
    CHECK(fabs(g.g[0].atol - atol) <= 1e-3 * atol, "dQ atol %.6g, want FlashAttention's %.6g",
          g.g[0].atol, atol);
    for (size_t i = 0; i < n; i++)
        dq[i] = 1e-2f;
    CHECK(ab_check_grads(&s, q, k, v, dO, dq, dk, dv, &g) == 0, "grads");
    CHECK(!g.pass && strncmp(g.why, "dQ", 2) == 0, "dQ = 1e-2 where dQ = 0 passed: %s", g.why);
    free(q);
}

int main(void)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    absolute_rule(r);
    signed_max(r);
    last_row(r);
    random_rows_on_top();
    grad_cross_check();
    grad_floor(r);
    gsl_rng_free(r);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("ok: absolute max-abs rule, |O| max of a negative output, the last row always "
           "sampled, the gradient atol's floor\n");
    return 0;
}
