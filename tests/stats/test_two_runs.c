/*
 * test_two_runs.c: the comparison of two runs (src/analysis/pair.c,
 * ab_pair_analyse_runs: each run's per-round settled medians as two
 * independent samples, Mann-Whitney U and the two-sample Hodges-Lehmann
 * interval), against values computed by hand:
 *
 * Every round has 2 samples, a slow first one (9 ms, left out by the
 * settled median) and the round's value, so each round's median is its
 * second sample. Baseline (run A) medians 1.00 1.02 0.99 1.01 1.03.
 *
 * 1. Candidate (run B) 1.13 1.15 1.12 1.14 1.16, every round slower than
 *    every baseline round: U = 25, the exact two-sided p is
 *    2 / C(10, 5) = 2/252 = 0.0079365079 (the two extreme arrangements of
 *    5 + 5; what scipy.stats.mannwhitneyu(b, a, method='exact') gives). The
 *    25 ratios a_j / b_i sorted: the 13th (the Hodges-Lehmann estimate of
 *    exp(-shift)) is 1.01 / 1.14 = 0.8859649; the interval's critical rank
 *    C = 3 (the exact U distribution of 5 v 5 counts 1, 1, 2, 3 at U = 0..3:
 *    P(U <= 2) = 4/252 = 0.0159 <= 0.025 < P(U <= 3) = 7/252), so the 3rd
 *    and 23rd ratios, 1.00 / 1.16 = 0.8620690 and 1.02 / 1.12 = 0.9107143,
 *    attained confidence 1 - 2 x 4/252 = 0.9682540. The family of one calls
 *    it slower. The same samples paired round by round (the within-run
 *    analysis, unchanged) reach at best 2 / 2^5 = 0.0625: too few rounds.
 * 2. Candidate 1.005 1.025 1.035 1.04 1.05: U = 2 + 4 + 5 + 5 + 5 = 21,
 *    two-sided p = 2 P(U <= 4) = 2 (1 + 1 + 2 + 3 + 5)/252 = 24/252 =
 *    0.0952381; speedup 1.02 / 1.04 = 0.9807692 in [1.00 / 1.05, 1.01 /
 *    1.005] = [0.9523810, 1.0049751]; not called.
 * 3. Three rounds each: the smallest p is 2 / C(6, 3) = 0.1, too few.
 * 4. A run without rounds: the i.i.d. comparison, two_runs = 0.
 */
#include "abstats.h"
#include "check.h"
#include "pair.h"

#include <math.h>
#include <string.h>

/* samples of 5 (or k) rounds of 2: a slow first sample, then med[r] */
static void rounds_of(const double *med, size_t k, double *x, int *r)
{
    for (size_t i = 0; i < k; i++) {
        x[2 * i] = 9.0;
        x[2 * i + 1] = med[i];
        r[2 * i] = r[2 * i + 1] = (int)i;
    }
}

int main(void)
{
    const double a[] = {1.00, 1.02, 0.99, 1.01, 1.03};
    const double b1[] = {1.13, 1.15, 1.12, 1.14, 1.16};
    const double b2[] = {1.005, 1.025, 1.035, 1.04, 1.05};
    double xa[10], xb[10];
    int ra[10], rb[10];
    ab_compare_opts co;
    ab_compare_opts_default(&co);
    co.boot.resamples = 200; /* the i.i.d. statistics' bootstrap, unused here */
    rounds_of(a, 5, xa, ra);

    /* 1. every round slower */
    rounds_of(b1, 5, xb, rb);
    ab_pair_analysis an;
    CHECK_RC(ab_pair_analyse_runs(xb, rb, 10, 5, xa, ra, 10, 5, &co, &an), AB_STATS_OK);
    CHECK(an.ok && an.two_runs && !an.paired, "two_runs %d paired %d", an.two_runs, an.paired);
    CHECK(an.tr.rounds_a == 5 && an.tr.rounds_b == 5 && an.tr.dropped == 10,
          "rounds %zu %zu dropped %zu", an.tr.rounds_a, an.tr.rounds_b, an.tr.dropped);
    CHECK_CLOSE("case 1 U", an.tr.mw.u, 25, 0, 0);
    CHECK_CLOSE("case 1 p", an.p, 2.0 / 252, 1e-12, 0);
    CHECK(an.p_method == AB_P_EXACT, "p method %d", (int)an.p_method);
    CHECK_CLOSE("case 1 p_min", an.tr.p_min, 2.0 / 252, 1e-12, 0);
    CHECK_CLOSE("case 1 speedup", an.speedup, 1.01 / 1.14, 1e-12, 0);
    CHECK_CLOSE("case 1 lo", an.lo, 1.00 / 1.16, 1e-12, 0);
    CHECK_CLOSE("case 1 hi", an.hi, 1.02 / 1.12, 1e-12, 0);
    CHECK_CLOSE("case 1 attained", an.tr.hl.level, 1 - 8.0 / 252, 1e-12, 0);
    CHECK(!an.too_few, "case 1: too_few");
    ab_pair_analysis *fam[1] = {&an};
    CHECK_RC(ab_pair_decide_family(fam, 1, NULL, &co), AB_STATS_OK);
    CHECK(an.verdict == AB_SLOWER, "case 1 verdict %d, want slower", (int)an.verdict);
    /* the within-run analysis of the same samples: paired, too few rounds */
    ab_pair_analysis wr;
    CHECK_RC(ab_pair_analyse(xb, rb, 10, 5, xa, ra, 10, 5, &co, &wr), AB_STATS_OK);
    CHECK(wr.paired && !wr.two_runs, "within run: paired %d two_runs %d", wr.paired,
          wr.two_runs);
    CHECK_CLOSE("within-run p_min", wr.rr.p_min, 2.0 / 32, 1e-12, 0);
    CHECK(wr.too_few, "within run: 5 paired rounds should be too few");

    /* 2. interleaved */
    rounds_of(b2, 5, xb, rb);
    CHECK_RC(ab_pair_analyse_runs(xb, rb, 10, 5, xa, ra, 10, 5, &co, &an), AB_STATS_OK);
    CHECK_CLOSE("case 2 U", an.tr.mw.u, 21, 0, 0);
    CHECK_CLOSE("case 2 p", an.p, 24.0 / 252, 1e-12, 0);
    CHECK_CLOSE("case 2 speedup", an.speedup, 1.02 / 1.04, 1e-12, 0);
    CHECK_CLOSE("case 2 lo", an.lo, 1.00 / 1.05, 1e-12, 0);
    CHECK_CLOSE("case 2 hi", an.hi, 1.01 / 1.005, 1e-12, 0);
    CHECK_RC(ab_pair_decide_family(fam, 1, NULL, &co), AB_STATS_OK);
    CHECK(an.verdict == AB_NO_DIFFERENCE, "case 2 verdict %d", (int)an.verdict);

    /* 3. three rounds each */
    rounds_of(b1, 3, xb, rb);
    CHECK_RC(ab_pair_analyse_runs(xb, rb, 6, 3, xa, ra, 6, 3, &co, &an), AB_STATS_OK);
    CHECK(an.two_runs, "case 3: two_runs");
    CHECK_CLOSE("case 3 p_min", an.tr.p_min, 0.1, 1e-12, 0);
    CHECK(an.too_few, "case 3: 3 v 3 rounds should be too few");

    /* 4. no rounds: i.i.d. */
    CHECK_RC(ab_pair_analyse_runs(xb, NULL, 10, 0, xa, NULL, 10, 0, &co, &an), AB_STATS_OK);
    CHECK(an.ok && !an.two_runs && !an.paired, "case 4: two_runs %d paired %d", an.two_runs,
          an.paired);
    CHECK_CLOSE("case 4 p is Mann-Whitney of the samples", an.p, an.c.mw.p, 0, 0);
    return check_report("test_two_runs");
}
