/*
 * test_known_family.c: the verdict rule, Holm's adjustment, the percentile
 * bootstrap's interval ends and the family of paired comparisons
 * (src/analysis/pair.h) against answers known by hand.
 *
 *   - practical threshold (docs/experiments.md: a speedup CI inside 1 +/- practical is
 *     "no difference", the interval closed): a CI whose lower end is exactly
 *     1 + 0.01 (or upper end exactly 1 - 0.01) does not exclude it, so the
 *     verdict is no difference "within the practical threshold"; one ulp
 *     beyond it is faster (slower).
 *   - Holm (Holm 1979; R's p.adjust(c(0.6, 0.7), "holm") = c(1, 1), the
 *     step 2 x 0.6 = 1.2 capped, and p.adjust(c(0.01, 0.04, 0.03), "holm")
 *     = c(0.03, 0.06, 0.06)): an adjusted p is a probability, capped at 1.
 *   - the percentile bootstrap (Efron & Tibshirani 1993, ch. 13.3) takes
 *     its ends as the alpha/2 and 1 - alpha/2 quantiles of ALL B resampled
 *     medians, quantiles of type 7 (Hyndman & Fan 1996: h = (B - 1) p,
 *     x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h])), computed here
 *     by hand over the same B draws (the same mt19937 stream and seed,
 *     drawn through stats_internal.h's ab__boot_median).
 *   - the distribution-free median CI (Conover 1999 sec. 3.2) of n values
 *     at 95%: [x_(k), x_(n+1-k)] with k the largest such that 2 P(Bin(n,
 *     1/2) <= k - 1) <= 0.05, the binomial sums counted here in integers
 *     (n = 10: k = 2; n = 20: k = 6; n = 29: k = 9), and its attained
 *     confidence 1 - 2 P(Bin(n, 1/2) <= k - 1).
 *   - a paired comparison over 6 rounds in which A is faster in every round
 *     has the exact two-sided signed-rank p = 2 x 2^-6 = 0.03125 (Wilcoxon
 *     1945: the one sign pattern and its mirror out of 2^6); alone in its
 *     family its adjusted p is that p (not the Mann-Whitney p of the 18 + 18
 *     samples, about 1e-9), and the verdict is faster. Two such comparisons
 *     in one family: the smallest p Holm can give is 2 x 0.03125 = 0.0625 >=
 *     0.05, so both are "too few rounds for the family's correction".
 */
#include "abstats.h"
#include "pair.h"
#include "stats_internal.h"

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
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

static void practical(void)
{
    ab_compare_opts o;
    ab_compare_opts_default(&o);
    ab_comparison c;
    memset(&c, 0, sizeof c);
    c.hl.attainable = 1;
    c.hl.shift = -1.0; /* far above any minimum shift */
    ab_why why;
    /* lower end exactly 1 + practical */
    c.speedup = 1.05;
    c.speedup_lo = 1 + o.practical;
    c.speedup_hi = 1.10;
    ab_verdict v = ab_decide_why(&c, 1e-6, 0.0, &o, &why);
    CHECK(v == AB_NO_DIFFERENCE && why == AB_WHY_PRACTICAL,
          "CI [1 + practical, 1.10]: %s (%s), want no difference within the practical threshold",
          ab_verdict_name(v), ab_why_name(why));
    c.speedup_lo = nextafter(1 + o.practical, 2.0);
    v = ab_decide_why(&c, 1e-6, 0.0, &o, &why);
    CHECK(v == AB_FASTER, "CI one ulp above 1 + practical: %s", ab_verdict_name(v));
    /* upper end exactly 1 - practical */
    c.speedup = 0.95;
    c.speedup_lo = 0.90;
    c.speedup_hi = 1 - o.practical;
    v = ab_decide_why(&c, 1e-6, 0.0, &o, &why);
    CHECK(v == AB_NO_DIFFERENCE && why == AB_WHY_PRACTICAL,
          "CI [0.90, 1 - practical]: %s (%s), want no difference", ab_verdict_name(v),
          ab_why_name(why));
    c.speedup_hi = nextafter(1 - o.practical, 0.0);
    v = ab_decide_why(&c, 1e-6, 0.0, &o, &why);
    CHECK(v == AB_SLOWER, "CI one ulp below 1 - practical: %s", ab_verdict_name(v));
}

static void holm(void)
{
    const double p1[2] = {0.6, 0.7}, w1[2] = {1, 1};
    const double p2[3] = {0.01, 0.04, 0.03}, w2[3] = {0.03, 0.06, 0.06};
    double adj[3];
    CHECK(ab_p_adjust(p1, 2, AB_PADJ_HOLM, adj) == AB_STATS_OK, "holm");
    for (int i = 0; i < 2; i++)
        CHECK(adj[i] == w1[i], "Holm of (0.6, 0.7)[%d] = %.17g, want %g", i, adj[i], w1[i]);
    CHECK(ab_p_adjust(p2, 3, AB_PADJ_HOLM, adj) == AB_STATS_OK, "holm");
    for (int i = 0; i < 3; i++)
        CHECK(fabs(adj[i] - w2[i]) < 1e-15, "Holm of (0.01, 0.04, 0.03)[%d] = %.17g, want %g", i,
              adj[i], w2[i]);
}

/* type 7 quantile of the ascending x[0..n) at p, by its definition */
static double type7(const double *x, size_t n, double p)
{
    double h = (double)(n - 1) * p;
    size_t j = (size_t)floor(h);
    return j + 1 < n ? x[j] + (h - (double)j) * (x[j + 1] - x[j]) : x[n - 1];
}

static void percentile_ends(void)
{
    double x[21];
    for (int i = 0; i < 21; i++)
        x[i] = 1.0 + 0.37 * ((i * 13) % 21) + 0.001 * i * i;
    for (size_t B = 10; B <= 1000; B *= 10) {
        ab_boot_opts o;
        ab_boot_opts_default(&o);
        o.method = AB_CI_PERCENTILE;
        o.resamples = B;
        o.seed = 12345;
        double lo, hi;
        CHECK(ab_bootstrap_median_ci(x, 21, &o, &lo, &hi) == AB_STATS_OK, "bootstrap");
        double xs[21], *tb = malloc(B * sizeof *tb);
        memcpy(xs, x, sizeof xs);
        gsl_sort(xs, 1, 21);
        gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(r, o.seed);
        for (size_t b = 0; b < B; b++)
            tb[b] = ab__boot_median(r, xs, 21);
        gsl_rng_free(r);
        gsl_sort(tb, 1, B);
        const double wl = type7(tb, B, 0.025), wh = type7(tb, B, 0.975);
        CHECK(fabs(lo - wl) <= 1e-12 * wl && fabs(hi - wh) <= 1e-12 * wh, "B = %zu: percentile CI [%.17g, %.17g], want [%.17g, %.17g]", B,
              lo, hi, wl, wh);
        free(tb);
    }
}

/* 2 P(Bin(n, 1/2) <= j), from binomial coefficients in integers (n <= 60) */
static double two_tail(int n, int j)
{
    unsigned long long c = 1, sum = 0; /* C(n, i) */
    for (int i = 0; i <= j; i++) {
        sum += c;
        c = c * (unsigned long long)(n - i) / (unsigned long long)(i + 1);
    }
    return 2.0 * (double)sum / ldexp(1.0, n);
}

static void order_statistic_ci(void)
{
    const int ns[3] = {10, 20, 29}, want_k[3] = {2, 6, 9};
    for (int t = 0; t < 3; t++) {
        const int n = ns[t];
        double x[29];
        for (int i = 0; i < n; i++)
            x[i] = 1.0 + (double)((i * 7) % n); /* 1..n, shuffled */
        int k = 1;
        while (k + 1 <= (n + 1) / 2 && two_tail(n, k) <= 0.05)
            k++;
        CHECK(k == want_k[t], "n = %d: k = %d by the binomial sums, want %d", n, k, want_k[t]);
        double lo, hi, att;
        CHECK(ab_median_ci_exact(x, (size_t)n, 0.95, &lo, &hi, &att) == AB_STATS_OK, "exact ci");
        CHECK(lo == k && hi == n + 1 - k, "n = %d: median CI [%g, %g], want [x_(%d), x_(%d)] = [%d, %d]",
              n, lo, hi, k, n + 1 - k, k, n + 1 - k);
        CHECK(fabs(att - (1 - two_tail(n, k - 1))) < 1e-12, "n = %d: attained %.15g, want %.15g", n,
              att, 1 - two_tail(n, k - 1));
    }
}

/* A: 6 rounds x 3 samples at base_r, B the same x ratio_r > 1 (A faster) */
static void six_rounds(double *a, int *ra, double *b, int *rb, double shift)
{
    const double ratio[6] = {1.10, 1.13, 1.11, 1.15, 1.12, 1.14};
    for (int i = 0; i < 18; i++) {
        const int r = i / 3;
        ra[i] = rb[i] = r;
        a[i] = 1.0 + 0.01 * r + shift;
        b[i] = a[i] * ratio[r];
    }
}

static void family(void)
{
    ab_compare_opts o;
    ab_compare_opts_default(&o);
    double a[2][18], b[2][18];
    int ra[2][18], rb[2][18];
    ab_pair_analysis x[2], *px[2] = {&x[0], &x[1]};
    for (int k = 0; k < 2; k++) {
        six_rounds(a[k], ra[k], b[k], rb[k], 0.5 * k);
        CHECK(ab_pair_analyse(a[k], ra[k], 18, 6, b[k], rb[k], 18, 6, &o, &x[k]) == AB_STATS_OK &&
                  x[k].paired,
              "comparison %d not paired over rounds", k);
    }
    /* alone: p = 2 / 2^6 */
    CHECK(fabs(x[0].rr.p - 0.03125) < 1e-15, "signed-rank p of 6 rounds all one way: %.17g, want 1/32",
          x[0].rr.p);
    CHECK(x[0].c.mw.p < 1e-3, "precondition: the i.i.d. Mann-Whitney p %.3g is far from 1/32",
          x[0].c.mw.p);
    CHECK(ab_pair_decide_family(px, 1, NULL, &o) == AB_STATS_OK, "family of one");
    CHECK(fabs(x[0].p_adj - 0.03125) < 1e-15, "family of one: adjusted p %.17g, want the paired 1/32",
          x[0].p_adj);
    CHECK(!x[0].too_few_family && x[0].family == 1, "family of one: too few %d, size %zu",
          x[0].too_few_family, x[0].family);
    CHECK(x[0].verdict == AB_FASTER, "family of one: %s, want faster", ab_pair_verdict_text(&x[0]));
    /* two: 2 x 1/32 >= 0.05 */
    CHECK(ab_pair_decide_family(px, 2, NULL, &o) == AB_STATS_OK, "family of two");
    for (int k = 0; k < 2; k++) {
        CHECK(x[k].family == 2 && x[k].too_few_family,
              "family of two, comparison %d: too few rounds for the family %d (size %zu), want 1", k,
              x[k].too_few_family, x[k].family);
        CHECK(fabs(x[k].p_adj - 0.0625) < 1e-15, "family of two: adjusted p %.17g, want 2/32",
              x[k].p_adj);
        CHECK(strstr(ab_pair_verdict_text(&x[k]), "family's correction") != NULL,
              "family of two: '%s'", ab_pair_verdict_text(&x[k]));
    }
}

int main(void)
{
    practical();
    holm();
    percentile_ends();
    order_statistic_ci();
    family();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("ok: practical threshold closed, Holm capped at 1, percentile ends over all B "
           "resamples, order-statistic median CIs, the family's p is the paired one and its limit counts the family\n");
    return 0;
}
