/*
 * test_check.c: the correctness check (kernels/check.h) handed wrong outputs.
 *
 * For every dtype, D in {64, 128}, causal and not, S in {1, 17, 113}
 * (B = 1, H = 1), a correct output must pass and each of these must fail:
 *   scale_1pct     the correct output times 1.01
 *   softmax_scale  attention with scale 1/D instead of 1/sqrt(D)
 *   nan            one NaN element (the last)
 *   row            one row (S/2 of the last slice) holding its neighbour's
 *                  output (negated when S = 1)
 *   column         column 0 holding column 1
 *   causal_offset  causal mask off by one (causal shapes only)
 *   vmean          uniform weights: the mean of V's rows
 *   element        one element off by 10% of max|O| (at large S only the
 *                  max-abs rule sees it: one element hardly moves the L2)
 *   stale          the output of the previous configuration's inputs
 *                  (other seed, same shape): what O holds if a run
 *                  writes nothing and O was not poisoned
 * (softmax_scale and vmean are skipped at S = 1, where O = V whatever the
 * weights: there is nothing wrong to see).
 * The correct output is an emulated tensor-core kernel (fp32 online
 * softmax, P rounded to the dtype before P V, O rounded), the same code
 * with the bug switched on producing the wrong ones; an exact output (the
 * float64 reference rounded to the dtype) must pass too.
 * Also: the float64 reference against an independent long-double
 * brute force written here; the plain computation's error is rounding
 * (below 2 units of the dtype, relative L2); the sampled check always holds
 * rows 0, S-1 and the tile boundaries, draws a different sample for another
 * seed, picks every other row with the frequency (per - forced)/(S - forced)
 * (2000 seeds, within 5 binomial standard deviations), and reports the
 * escape probability 1 - checked/total; a NaN outside the sampled rows still
 * fails; a wrong row off the boundaries is caught under some seeds and not
 * others (the sample follows the seed). Expected values: the definitions, computed here independently.
 */
#include "check.h"
#include "data.h"
#include "reference.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0, checks = 0;
#define CHECK(c, ...)                                           \
    do {                                                        \
        checks++;                                               \
        if (!(c)) {                                             \
            fprintf(stderr, "FAIL line %d: ", __LINE__);        \
            fprintf(stderr, __VA_ARGS__);                       \
            fputc('\n', stderr);                                \
            failures++;                                         \
        }                                                       \
    } while (0)

enum bug { NONE, SCALE_1PCT, SOFTMAX_SCALE, NANOUT, ROW, COLUMN, CAUSAL_OFFSET, VMEAN, STALE,
           ELEMENT, NBUG };
static const char *bug_name[NBUG] = {"none", "scale_1pct", "softmax_scale", "nan", "row",
                                     "column", "causal_offset", "vmean", "stale", "element"};

/* The emulated kernel, one row: query i of slice bh into out (D floats). */
static void kernel_row(const ab_shape *s, const float *q, const float *k, const float *v,
                       size_t bh, int i, int bug, float *out, float *acc)
{
    const int S = s->S, D = s->D;
    const size_t base = bh * (size_t)S * D;
    const float scale = bug == SOFTMAX_SCALE ? 1.f / D : bug == VMEAN ? 0.f : 1.f / sqrtf((float)D);
    int L = S;
    if (s->causal)
        L = bug == CAUSAL_OFFSET ? (i + 2 < S ? i + 2 : S) : i + 1;
    float m = -INFINITY, l = 0.f;
    for (int d = 0; d < D; d++)
        acc[d] = 0.f;
    for (int j = 0; j < L; j++) {
        float sc = 0.f;
        for (int d = 0; d < D; d++)
            sc += q[base + (size_t)i * D + d] * k[base + (size_t)j * D + d];
        sc *= scale;
        const float mn = sc > m ? sc : m;
        const float c = expf(m - mn), p = expf(sc - mn);
        const float pr = ab_round_to(p, s->dtype);
        l = l * c + p;
        for (int d = 0; d < D; d++)
            acc[d] = acc[d] * c + pr * v[base + (size_t)j * D + d];
        m = mn;
    }
    for (int d = 0; d < D; d++)
        out[d] = ab_round_to(acc[d] / l, s->dtype);
}

/* O of the emulated kernel with `bug` (see the file comment). */
static void kernel(const ab_shape *s, const float *q, const float *k, const float *v, int bug,
                   float *o)
{
    const size_t slices = (size_t)s->B * s->H;
    float *acc = malloc(sizeof(float) * s->D);
    for (size_t bh = 0; bh < slices; bh++)
        for (int i = 0; i < s->S; i++)
            kernel_row(s, q, k, v, bh, i, bug, o + (bh * s->S + i) * s->D, acc);
    const size_t last = (slices - 1) * s->S + s->S / 2; /* the row bug's row */
    if (bug == SCALE_1PCT)
        for (size_t e = 0; e < ab_shape_numel(s); e++)
            o[e] = ab_round_to(o[e] * 1.01f, s->dtype);
    if (bug == NANOUT)
        o[ab_shape_numel(s) - 1] = NAN;
    if (bug == ROW) {
        if (s->S > 1)
            kernel_row(s, q, k, v, slices - 1, s->S / 2 - 1, NONE, o + last * s->D, acc);
        else
            for (int d = 0; d < s->D; d++)
                o[last * s->D + d] = -o[last * s->D + d];
    }
    if (bug == COLUMN)
        for (size_t r = 0; r < slices * s->S; r++)
            o[r * s->D] = o[r * s->D + 1];
    if (bug == ELEMENT) { /* one element off by 10% of the largest output */
        float mx = 0;
        for (size_t e = 0; e < ab_shape_numel(s); e++)
            mx = fabsf(o[e]) > mx ? fabsf(o[e]) : mx;
        o[last * s->D + s->D / 2] = ab_round_to(o[last * s->D + s->D / 2] + 0.1f * mx, s->dtype);
    }
    free(acc);
}

/* Independent brute force: one row in long double, straight from the
 * definition softmax(q K^T / sqrt(D)) V with the causal mask j <= i. */
static void brute_row(const ab_shape *s, const float *q, const float *k, const float *v,
                      size_t bh, int i, long double *out)
{
    const int S = s->S, D = s->D;
    const size_t base = bh * (size_t)S * D;
    long double w[2100], tot = 0, mx = -INFINITY;
    for (int j = 0; j < S; j++) {
        long double dot = 0;
        for (int d = 0; d < D; d++)
            dot += (long double)q[base + (size_t)i * D + d] * k[base + (size_t)j * D + d];
        w[j] = (s->causal && j > i) ? -INFINITY : dot / sqrtl((long double)D);
        if (w[j] > mx)
            mx = w[j];
    }
    for (int j = 0; j < S; j++)
        tot += w[j] = expl(w[j] - mx);
    for (int d = 0; d < D; d++) {
        out[d] = 0;
        for (int j = 0; j < S; j++)
            out[d] += w[j] / tot * v[base + (size_t)j * D + d];
    }
}

static void one_shape(const ab_shape *s, unsigned long seed)
{
    const size_t n = ab_shape_numel(s);
    float *q = malloc(n * 4), *k = malloc(n * 4), *v = malloc(n * 4), *o = malloc(n * 4);
    float *q2 = malloc(n * 4), *k2 = malloc(n * 4), *v2 = malloc(n * 4);
    ab_inputs_fill(s, seed, q, k, v);
    ab_inputs_fill(s, seed + 1, q2, k2, v2);
    char tag[96];
    snprintf(tag, sizeof tag, "%s D=%d causal=%d S=%d", ab_dtype_name(s->dtype), s->D, s->causal,
             s->S);

    /* the reference against the brute force, every row */
    {
        double ref[128], scratch[2100];
        long double bf[128];
        double worst = 0;
        for (size_t bh = 0; bh < (size_t)s->B * s->H; bh++)
            for (int i = 0; i < s->S; i++) {
                ab_reference_row(s, q, k, v, bh, i, ref, scratch);
                brute_row(s, q, k, v, bh, i, bf);
                for (int d = 0; d < s->D; d++)
                    if (fabs(ref[d] - (double)bf[d]) > worst || isnan(ref[d]))
                        worst = isnan(ref[d]) ? INFINITY : fabs(ref[d] - (double)bf[d]);
            }
        CHECK(worst <= 1e-13, "%s: reference differs from the brute force by %.3e", tag, worst);
    }

    ab_check c;
    for (int bug = 0; bug < NBUG; bug++) {
        if (bug == CAUSAL_OFFSET && (!s->causal || s->S == 1))
            continue; /* no mask, or nothing past the diagonal to let in */
        if ((bug == SOFTMAX_SCALE || bug == VMEAN) && s->S == 1)
            continue; /* one key: O = V whatever the scale, nothing to catch */
        if (bug == STALE)
            kernel(s, q2, k2, v2, NONE, o);
        else
            kernel(s, q, k, v, bug, o);
        CHECK(ab_check_output(s, q, k, v, o, seed, 0, &c) == 0, "check ran");
        printf("%-28s %-14s max_err %.3e tol %.3e (plain %.3e atol %.3e) rel_l2 %.3e "
               "l2_tol %.3e %s%s%s\n",
               tag, bug_name[bug], c.max_abs_err, c.tolerance, c.plain_max_abs_err, c.atol,
               c.rel_l2_err, c.l2_tolerance, c.pass ? "pass" : "FAIL", c.pass ? "" : ": ", c.why);
        CHECK(c.rows_checked == c.rows_total && c.rows_total == (long)s->B * s->H * s->S,
              "%s: every row checked", tag);
        if (bug == NONE) {
            CHECK(c.pass, "%s: the correct output failed: %s", tag, c.why);
            /* the plain error is rounding, not a semantic difference */
            CHECK(c.plain_rel_l2_err <= (s->dtype == AB_FP16   ? ldexp(1, -10)
                                         : s->dtype == AB_BF16 ? ldexp(1, -7)
                                                               : 1e-6),
                  "%s: plain relative L2 error %.3e is more than 2 units of rounding", tag,
                  c.plain_rel_l2_err);
            CHECK(c.disagreement <= 1e-12, "%s: shadow and reference disagree %.3e", tag,
                  c.disagreement);
            /* atol is at the output's size: at most 2 ulps of max|O_ref| */
            if (s->dtype != AB_FP32) {
                const double eps = ldexp(1, s->dtype == AB_FP16 ? -10 : -7);
                CHECK(c.atol <= 2 * eps * c.ref_absmax * (1 + 1e-9),
                      "%s: atol %.3e above 2 ulps of max|O_ref| = %.3e", tag, c.atol,
                      c.ref_absmax);
            }
        } else {
            if (bug == NANOUT)
                CHECK(isinf(c.max_abs_err) && c.nonfinite == 1,
                      "%s: a NaN output must count as an infinite error (max %.3e, %ld non-finite)",
                      tag, c.max_abs_err, c.nonfinite);
            CHECK(!c.pass, "%s: wrong output '%s' passed (max_err %.3e tol %.3e, rel_l2 %.3e "
                           "l2_tol %.3e)",
                  tag, bug_name[bug], c.max_abs_err, c.tolerance, c.rel_l2_err, c.l2_tolerance);
        }
    }
    /* the best possible output: the reference rounded to the dtype */
    {
        double ref[128], scratch[2100];
        for (size_t bh = 0; bh < (size_t)s->B * s->H; bh++)
            for (int i = 0; i < s->S; i++) {
                ab_reference_row(s, q, k, v, bh, i, ref, scratch);
                for (int d = 0; d < s->D; d++)
                    o[(bh * s->S + i) * s->D + d] = ab_round_to((float)ref[d], s->dtype);
            }
        CHECK(ab_check_output(s, q, k, v, o, seed, 0, &c) == 0 && c.pass,
              "%s: the rounded reference failed: %s", tag, c.why);
    }
    free(q), free(k), free(v), free(o), free(q2), free(k2), free(v2);
}

/* The sampled check: forced rows, fresh samples, uniform frequencies. */
static void sampling(void)
{
    const int S = 1025;
    const size_t per = 100;
    int rows[1025];
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    size_t n = ab_check_rows_select(S, per, r, rows);
    CHECK(n == per, "sample size %zu, expected %zu", n, per);
    /* forced: 0, S-1, and b-1, b, b+1 for b = 64, 128, ..., 1024 */
    int forced[64], nf = 0, mark[1025] = {0};
    forced[nf++] = 0;
    forced[nf++] = S - 1;
    for (int b = 64; b <= 1024; b += 64)
        for (int d = -1; d <= 1; d++)
            if (b + d < S && b + d != S - 1)
                forced[nf++] = b + d;
    for (size_t i = 0; i < n; i++)
        mark[rows[i]]++;
    for (int i = 0; i < nf; i++)
        CHECK(mark[forced[i]] == 1, "row %d not always checked", forced[i]);
    for (int i = 0; i < S; i++)
        CHECK(mark[i] <= 1, "row %d drawn twice", i);
    /* another seed, another sample */
    int rows2[1025], same = 0;
    gsl_rng_set(r, 6);
    ab_check_rows_select(S, per, r, rows2);
    int mark2[1025] = {0};
    for (size_t i = 0; i < per; i++)
        mark2[rows2[i]] = 1;
    for (int i = 0; i < S; i++)
        same += mark[i] && mark2[i];
    CHECK(same < (int)per, "seeds 5 and 6 drew the same rows");
    /* frequency of a non-forced row over 2000 samples: p = (per-nf)/(S-nf) */
    const int T = 2000, probe = 300;
    int hits = 0;
    for (int t = 0; t < T; t++) {
        gsl_rng_set(r, 1000 + t);
        ab_check_rows_select(S, per, r, rows2);
        for (size_t i = 0; i < per; i++)
            hits += rows2[i] == probe;
    }
    const double p = (double)(per - nf) / (S - nf), sd = sqrt(T * p * (1 - p));
    CHECK(fabs(hits - T * p) <= 5 * sd, "row %d drawn %d times in %d, expected %.1f +- %.1f",
          probe, hits, T, T * p, sd);
    gsl_rng_free(r);

    /* end to end: a wrong row at a tile boundary is caught by a sample, a
     * NaN in a row that is not sampled still fails, coverage is stated */
    ab_shape s = {1, 2, S, 64, 1, AB_FP16, 0, 0};
    const size_t numel = ab_shape_numel(&s);
    float *q = malloc(numel * 4), *k = malloc(numel * 4), *v = malloc(numel * 4);
    float *o = malloc(numel * 4);
    ab_inputs_fill(&s, 9, q, k, v);
    kernel(&s, q, k, v, NONE, o);
    ab_check c;
    ab_check_output(&s, q, k, v, o, 11, per, &c);
    CHECK(c.pass && c.rows_checked == 2 * (long)per && c.rows_total == 2 * S && c.seed == 11,
          "sampled correct output: pass %d rows %ld/%ld seed %lu", c.pass, c.rows_checked,
          c.rows_total, c.seed);
    CHECK(fabs(ab_check_escape(c.rows_checked, c.rows_total) - (1.0 - (double)per / S)) < 1e-12,
          "escape probability %.6f", ab_check_escape(c.rows_checked, c.rows_total));
    for (int d = 0; d < 64; d++) /* row 640 = 10 * 64 of slice 1 */
        o[((size_t)S + 640) * 64 + d] = 0.5f;
    ab_check_output(&s, q, k, v, o, 12, per, &c);
    CHECK(!c.pass, "a wrong row at a tile boundary escaped the sample");
    kernel(&s, q, k, v, NONE, o);
    o[((size_t)S + 500) * 64 + 3] = NAN; /* row 500: not forced; sampled or not */
    ab_check_output(&s, q, k, v, o, 13, per, &c);
    CHECK(!c.pass && c.nonfinite == 1, "a NaN outside the sample passed");
    free(q), free(k), free(v), free(o);

    /* fresh samples end to end: a wrong row off the boundaries is caught by
     * some seeds and not others (p = 46/286 per seed: 60 seeds catch it
     * 0 or 60 times with probability < 1e-4 together) */
    {
        ab_shape t = {1, 1, 300, 8, 0, AB_FP16, 0, 0};
        const size_t nt = ab_shape_numel(&t);
        float *tq = malloc(nt * 4), *tk = malloc(nt * 4), *tv = malloc(nt * 4), *to = malloc(nt * 4);
        ab_inputs_fill(&t, 21, tq, tk, tv);
        kernel(&t, tq, tk, tv, NONE, to);
        for (int d = 0; d < 8; d++)
            to[150 * 8 + d] = 0.5f;
        int caught = 0;
        for (unsigned long sd = 1; sd <= 60; sd++) {
            ab_check_output(&t, tq, tk, tv, to, sd, 60, &c);
            caught += !c.pass;
        }
        CHECK(caught > 0 && caught < 60, "row 150 caught by %d of 60 seeds: samples not fresh", caught);
        free(tq), free(tk), free(tv), free(to);
    }

    /* the host check's row budget: every row for the small shapes */
    ab_shape small = {2, 3, 2049, 128, 0, AB_FP16, 0, 0}, big = {4, 16, 4096, 128, 0, AB_FP16, 0, 0};
    CHECK(ab_check_rows_for(&small) == 0 || ab_check_rows_for(&small) >= AB_CHECK_MIN_ROWS,
          "rows for the suite's shape");
    CHECK(ab_check_rows_for(&big) >= AB_CHECK_MIN_ROWS && ab_check_rows_for(&big) < 4096,
          "rows for a ladder shape: %zu", ab_check_rows_for(&big));
}

/* The verdict from sums (ab_check_decide): each rule alone fails a check
 * that would otherwise pass; values chosen here, fp16 (u/2 = 2^-12). */
static void rules(void)
{
    ab_check_sums good = {0};
    good.max_err = 1e-4;      /* tolerance: 2 * 1e-4 + 2 * 2e-5 = 2.4e-4 */
    good.plain_max = 1e-4;
    good.ref_atol = 2e-5;
    good.sq_ref = 1.0;        /* ||O_ref|| = 1 */
    good.sq_err = 1e-8;       /* relative L2 1e-4 */
    good.plain_sq = 1e-8;     /* L2 tolerance 2e-4 + 2^-12 */
    good.ref_absmax = 0.5;
    good.elems = good.rows_checked = good.rows_total = 10;
    ab_check c;
    ab_check_decide(&good, AB_FP16, &c);
    CHECK(c.pass && fabs(c.tolerance - 2.4e-4) < 1e-12 &&
              fabs(c.l2_tolerance - (2e-4 + ldexp(1, -12))) < 1e-12,
          "rules: good sums: pass %d tol %.6e l2_tol %.6e (%s)", c.pass, c.tolerance,
          c.l2_tolerance, c.why);
    ab_check_sums x = good;
    x.nonfinite = 1;
    ab_check_decide(&x, AB_FP16, &c);
    CHECK(!c.pass, "rules: a non-finite output passed");
    x = good;
    x.max_err = 2.5e-4;
    ab_check_decide(&x, AB_FP16, &c);
    CHECK(!c.pass, "rules: max error above the tolerance passed");
    x = good;
    x.sq_err = 1e-6; /* relative L2 1e-3 > 2e-4 + 2.44e-4 */
    ab_check_decide(&x, AB_FP16, &c);
    CHECK(!c.pass, "rules: L2 error above the L2 tolerance passed");
    x = good;
    x.disagree = 1e-6;
    ab_check_decide(&x, AB_FP16, &c);
    CHECK(!c.pass, "rules: disagreeing float64 references passed");
    x = good;
    x.elems = 0;
    ab_check_decide(&x, AB_FP16, &c);
    CHECK(!c.pass, "rules: a check that compared nothing passed");
}

int main(void)
{
    rules();
    const int lengths[] = {1, 17, 113}, dims[] = {64, 128};
    unsigned long seed = 100;
    for (int t = 0; t < AB_NDTYPES; t++)
        for (int di = 0; di < 2; di++)
            for (int causal = 0; causal <= 1; causal++)
                for (int li = 0; li < 3; li++) {
                    ab_shape s = {1, 1, lengths[li], dims[di], causal, (ab_dtype)t, 0, 0};
                    one_shape(&s, seed++);
                }
    sampling();
    printf("test_check: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
