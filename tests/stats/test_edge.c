/*
 * test_edge.c: the edge cases of the contract (abstats.h) and the
 * properties that need no reference: error codes for sizes, NULL, NaN/inf
 * and negative latencies; constant and identical samples (MW p = 1,
 * delta 0, degenerate CIs); bit-for-bit reproducibility for a seed; the
 * verdict rule; the magnitude thresholds (Romano et al. 2006); option
 * defaults (seed 004). Expected values are stated by the contract or follow
 * from the definitions by hand (worked next to each).
 */
#include "abstats.h"
#include "check.h"

#include <math.h>
#include <string.h>

int main(void)
{
    ab_stats_init();
    ab_stats_init(); /* idempotent */
    double one[1] = {1.0}, two[2] = {1.0, 2.0};
    double nan3[3] = {1.0, NAN, 2.0}, inf3[3] = {1.0, 2.0, INFINITY}, neg3[3] = {1.0, -0.5, 2.0};
    double ok5[5] = {1.0, 1.2, 1.1, 1.3, 1.05};
    ab_summary s;
    ab_mw_result mw;
    ab_cliff_result cl;
    ab_hl_result hl;
    ab_outliers out;
    ab_drift dr;
    ab_comparison cmp;
    ab_boot_opts bo;
    ab_compare_opts co;
    double lo, hi, ratio;
    ab_boot_opts_default(&bo);
    ab_compare_opts_default(&co);

    /* Defaults (abstats.h). */
    CHECK(bo.resamples == 10000 && bo.seed == 42 && bo.level == 0.95 && bo.method == AB_CI_BCA, "boot defaults");
    CHECK(co.alpha == 0.05 && co.practical == 0.01, "compare defaults");
    CHECK(strcmp(ab_ci_method_name(AB_CI_BCA), "BCa") == 0, "BCa name");
    CHECK(strcmp(ab_ci_method_name(AB_CI_PERCENTILE), "percentile") == 0, "percentile name");
    for (int e = 0; e <= 4; e++)
        CHECK(ab_stats_strerror(e) != NULL && strlen(ab_stats_strerror(e)) > 0, "strerror %d", e);

    /* n = 0 and n = 1. Summary works for n = 1. */
    CHECK_RC(ab_summarize(one, 0, &s), AB_STATS_EINVAL);
    CHECK_RC(ab_summarize(NULL, 3, &s), AB_STATS_EINVAL);
    CHECK_RC(ab_summarize(one, 1, &s), AB_STATS_OK);
    CHECK(s.n == 1 && s.median == 1 && s.mean == 1 && s.stddev == 0 && s.cv == 0 &&
          s.q1 == 1 && s.q3 == 1, "n = 1 summary");
    CHECK_RC(ab_bootstrap_median_ci(one, 1, &bo, &lo, &hi), AB_STATS_EINVAL);
    CHECK_RC(ab_mann_whitney(one, 0, two, 2, &mw), AB_STATS_EINVAL);
    CHECK_RC(ab_cliffs_delta(one, 1, two, 2, 0.95, &cl), AB_STATS_EINVAL);
    CHECK_RC(ab_hodges_lehmann(two, 2, one, 1, 0.95, &hl), AB_STATS_EINVAL);
    CHECK_RC(ab_bootstrap_speedup_ci(one, 1, two, 2, &bo, &ratio, &lo, &hi), AB_STATS_EINVAL);
    CHECK_RC(ab_drift_test(two, 2, 0.05, &dr), AB_STATS_EINVAL);
    CHECK_RC(ab_tukey_outliers(one, 0, &out), AB_STATS_EINVAL);
    CHECK_RC(ab_compare(two, 2, ok5, 5, &co, &cmp), AB_STATS_EINVAL);
    CHECK_RC(ab_cliffs_delta(ok5, 5, ok5, 5, 1.0, &cl), AB_STATS_EINVAL); /* bad level */
    ab_boot_opts bad = bo;
    bad.level = 0;
    CHECK_RC(ab_bootstrap_median_ci(ok5, 5, &bad, &lo, &hi), AB_STATS_EINVAL);
    bad = bo;
    bad.resamples = 1;
    CHECK_RC(ab_bootstrap_median_ci(ok5, 5, &bad, &lo, &hi), AB_STATS_EINVAL);

    /* NaN / inf / negative, in either sample. */
    const double *badx[3] = {nan3, inf3, neg3};
    int want[3] = {AB_STATS_ENONFINITE, AB_STATS_ENONFINITE, AB_STATS_ENEGATIVE};
    for (int k = 0; k < 3; k++) {
        CHECK_RC(ab_summarize(badx[k], 3, &s), want[k]);
        CHECK_RC(ab_bootstrap_median_ci(badx[k], 3, &bo, &lo, &hi), want[k]);
        CHECK_RC(ab_mann_whitney(ok5, 5, badx[k], 3, &mw), want[k]);
        CHECK_RC(ab_cliffs_delta(badx[k], 3, ok5, 5, 0.95, &cl), want[k]);
        CHECK_RC(ab_hodges_lehmann(ok5, 5, badx[k], 3, 0.95, &hl), want[k]);
        CHECK_RC(ab_bootstrap_speedup_ci(badx[k], 3, ok5, 5, &bo, &ratio, &lo, &hi), want[k]);
        CHECK_RC(ab_tukey_outliers(badx[k], 3, &out), want[k]);
        CHECK_RC(ab_drift_test(badx[k], 3, 0.05, &dr), want[k]);
        CHECK_RC(ab_compare(ok5, 5, badx[k], 3, &co, &cmp), want[k]);
    }

    /* Constant samples: zero variance. Equal constants: every pair ties, so
     * U = 0.5 na nb, the tie-corrected variance is 0 and p = 1 (scipy:
     * z = -0.5/0 = -inf, p clipped to 1); delta 0 with CI [0, 0]; all
     * differences 0, HL 0 [0, 0]; bootstrap medians all 0.0125. */
    double ca[6] = {0.0125, 0.0125, 0.0125, 0.0125, 0.0125, 0.0125};
    double cb[4] = {0.0125, 0.0125, 0.0125, 0.0125};
    CHECK_RC(ab_mann_whitney(ca, 6, cb, 4, &mw), AB_STATS_OK);
    /* all tied, 6 v 4: the permutation distribution has one point, p = 1 */
    CHECK(mw.u == 12 && mw.p == 1 && mw.z == 0 && mw.exact == 1 && mw.method == AB_P_PERMUTATION,
          "constant MW u %g p %g", mw.u, mw.p);
    CHECK_RC(ab_cliffs_delta(ca, 6, cb, 4, 0.95, &cl), AB_STATS_OK);
    CHECK(cl.delta == 0 && cl.lo == 0 && cl.hi == 0, "constant delta %g [%g, %g]", cl.delta, cl.lo, cl.hi);
    CHECK_RC(ab_hodges_lehmann(ca, 6, cb, 4, 0.95, &hl), AB_STATS_OK);
    CHECK(hl.shift == 0 && hl.lo == 0 && hl.hi == 0, "constant HL");
    for (int m = 0; m < 2; m++) {
        bo.method = m ? AB_CI_BCA : AB_CI_PERCENTILE;
        CHECK_RC(ab_bootstrap_median_ci(ca, 6, &bo, &lo, &hi), AB_STATS_OK);
        CHECK(lo == 0.0125 && hi == 0.0125, "constant median CI [%g, %g]", lo, hi);
        CHECK_RC(ab_bootstrap_speedup_ci(ca, 6, cb, 4, &bo, &ratio, &lo, &hi), AB_STATS_OK);
        CHECK(ratio == 1 && lo == 1 && hi == 1, "constant speedup %g [%g, %g]", ratio, lo, hi);
    }
    bo.method = AB_CI_BCA;
    CHECK_RC(ab_drift_test(ca, 6, 0.05, &dr), AB_STATS_OK);
    CHECK(dr.rho == 0 && dr.p == 1 && !dr.drifting, "constant drift");
    CHECK_RC(ab_tukey_outliers(ca, 6, &out), AB_STATS_OK);
    CHECK(out.mild == 0 && out.severe == 0, "constant outliers");
    CHECK_RC(ab_compare(ca, 6, cb, 4, &co, &cmp), AB_STATS_OK);
    CHECK(ab_decide(&cmp, cmp.mw.p, &co) == AB_NO_DIFFERENCE && cmp.cis_overlap, "constant verdict");
    /* Different constants: A all above B: U = na nb = 24, delta = 1 with a
     * degenerate CI [1, 1], HL = 0.001 exactly the gap; speedup B/A. */
    double cc[4] = {0.0115, 0.0115, 0.0115, 0.0115};
    CHECK_RC(ab_cliffs_delta(ca, 6, cc, 4, 0.95, &cl), AB_STATS_OK);
    /* complete separation: Newcombe's interval, never [1, 1] (value in
     * edges.ref) */
    CHECK(cl.delta == 1 && cl.lo > 0 && cl.lo < 1 && cl.hi == 1, "separated constants delta [%g, %g]",
          cl.lo, cl.hi);
    CHECK_RC(ab_mann_whitney(ca, 6, cc, 4, &mw), AB_STATS_OK);
    /* exact conditional: only 1 of the C(10, 4) = 210 splits of the two
     * tie groups is this extreme on each side: p = 2/210 */
    CHECK(mw.u == 24 && mw.exact == 1 && fabs(mw.p - 2.0 / 210) < 1e-15, "separated constants U %g p %g",
          mw.u, mw.p);
    CHECK_RC(ab_hodges_lehmann(ca, 6, cc, 4, 0.95, &hl), AB_STATS_OK);
    CHECK_CLOSE("separated HL", hl.shift, 0.0125 - 0.0115, 0, 0);

    /* Identical samples: U = na nb / 2, p = 1, delta 0, HL 0, speedup 1. */
    CHECK_RC(ab_mann_whitney(ok5, 5, ok5, 5, &mw), AB_STATS_OK);
    CHECK(mw.u == 12.5 && mw.p == 1, "identical MW u %g p %g", mw.u, mw.p);
    CHECK_RC(ab_cliffs_delta(ok5, 5, ok5, 5, 0.95, &cl), AB_STATS_OK);
    CHECK(cl.delta == 0 && cl.lo < 0 && cl.hi > 0, "identical delta");
    CHECK_RC(ab_hodges_lehmann(ok5, 5, ok5, 5, 0.95, &hl), AB_STATS_OK);
    CHECK(hl.shift == 0 && hl.lo < 0 && hl.hi > 0, "identical HL");
    CHECK_RC(ab_compare(ok5, 5, ok5, 5, &co, &cmp), AB_STATS_OK);
    CHECK(cmp.speedup == 1 && cmp.cis_overlap && ab_decide(&cmp, cmp.mw.p, &co) == AB_NO_DIFFERENCE,
          "identical compare");
    CHECK(cmp.a_ci_lo == cmp.b_ci_lo && cmp.a_ci_hi == cmp.b_ci_hi, "same data, same seed, same CI");

    /* Reproducibility: a seed gives the same interval bit for bit; another
     * seed draws other resamples (with 10,000 BCa resamples of 101 distinct
     * values the ends move). */
    double x[101];
    for (int i = 0; i < 101; i++)
        x[i] = 1.0 + 0.37 * fmod(i * 0.6180339887, 1.0) + (i % 17 == 0 ? 2.0 : 0.0);
    double l1, h1, l2, h2, l3, h3, r1, r2;
    CHECK_RC(ab_bootstrap_median_ci(x, 101, &bo, &l1, &h1), AB_STATS_OK);
    CHECK_RC(ab_bootstrap_median_ci(x, 101, &bo, &l2, &h2), AB_STATS_OK);
    CHECK(memcmp(&l1, &l2, sizeof l1) == 0 && memcmp(&h1, &h2, sizeof h1) == 0, "seed reproduces");
    CHECK_RC(ab_bootstrap_speedup_ci(x, 101, x + 50, 51, &bo, &r1, &l2, &h2), AB_STATS_OK);
    CHECK_RC(ab_bootstrap_speedup_ci(x, 101, x + 50, 51, &bo, &r2, &l3, &h3), AB_STATS_OK);
    CHECK(l2 == l3 && h2 == h3 && r1 == r2, "speedup seed reproduces");
    int moved = 0;
    for (unsigned long sd = 1; sd <= 5; sd++) {
        bo.seed = sd;
        CHECK_RC(ab_bootstrap_median_ci(x, 101, &bo, &l3, &h3), AB_STATS_OK);
        moved |= (l3 != l1 || h3 != h1);
    }
    CHECK(moved, "other seeds give other intervals");
    bo.seed = 42;

    /* Verdict rule (abstats.h): needs p_adj < alpha AND the speedup CI
     * outside [0.99, 1.01]. */
    ab_comparison v;
    memset(&v, 0, sizeof v);
    v.hl.level = 0.95, v.hl.attainable = 1;
    v.speedup = 1.2, v.speedup_lo = 1.1, v.speedup_hi = 1.3;
    CHECK(ab_decide(&v, 0.01, &co) == AB_FASTER, "faster");
    CHECK(ab_decide(&v, 0.05, &co) == AB_NO_DIFFERENCE, "p == alpha is not significant");
    v.speedup = 0.8, v.speedup_lo = 0.7, v.speedup_hi = 0.9;
    CHECK(ab_decide(&v, 0.001, &co) == AB_SLOWER, "slower");
    v.speedup = 1.02, v.speedup_lo = 1.005, v.speedup_hi = 1.04;
    CHECK(ab_decide(&v, 0.001, &co) == AB_NO_DIFFERENCE, "CI reaches into 1 +- practical");
    v.speedup = 0.97, v.speedup_lo = 0.95, v.speedup_hi = 0.989;
    CHECK(ab_decide(&v, 0.001, &co) == AB_SLOWER, "CI below 0.99");
    CHECK(strcmp(ab_verdict_name(AB_FASTER), "faster") == 0 &&
          strcmp(ab_verdict_name(AB_SLOWER), "slower") == 0 &&
          strcmp(ab_verdict_name(AB_NO_DIFFERENCE), "no significant difference") == 0, "verdict names");

    /* Magnitude thresholds 0.147 / 0.33 / 0.474 on |delta|. */
    CHECK(strcmp(ab_cliffs_magnitude(0.1469), "negligible") == 0, "0.1469");
    CHECK(strcmp(ab_cliffs_magnitude(-0.147), "small") == 0, "-0.147");
    CHECK(strcmp(ab_cliffs_magnitude(0.3299), "small") == 0, "0.3299");
    CHECK(strcmp(ab_cliffs_magnitude(0.33), "medium") == 0, "0.33");
    CHECK(strcmp(ab_cliffs_magnitude(-0.4739), "medium") == 0, "-0.4739");
    CHECK(strcmp(ab_cliffs_magnitude(0.474), "large") == 0, "0.474");
    CHECK(strcmp(ab_cliffs_magnitude(-1), "large") == 0, "-1");

    /* p-adjust: aliasing, bad input; Holm is monotone in sorted p. */
    double p[4] = {0.04, 0.01, 0.03, 0.02};
    CHECK_RC(ab_p_adjust(p, 4, AB_PADJ_HOLM, p), AB_STATS_OK);
    /* sorted 0.01 0.02 0.03 0.04 -> 4*0.01, 3*0.02, 2*0.03, 1*0.04 with
     * running max: 0.04 0.06 0.06 0.06 */
    CHECK_CLOSE("holm alias 0", p[0], 0.06, 1e-12, 0);
    CHECK_CLOSE("holm alias 1", p[1], 0.04, 1e-12, 0);
    CHECK_CLOSE("holm alias 2", p[2], 0.06, 1e-12, 0);
    CHECK_CLOSE("holm alias 3", p[3], 0.06, 1e-12, 0);
    double pb[2] = {0.5, 1.5}, adj[2];
    CHECK_RC(ab_p_adjust(pb, 2, AB_PADJ_HOLM, adj), AB_STATS_EINVAL);
    CHECK_RC(ab_p_adjust(pb, 0, AB_PADJ_HOLM, adj), AB_STATS_EINVAL);
    pb[1] = NAN;
    CHECK_RC(ab_p_adjust(pb, 2, AB_PADJ_BONFERRONI, adj), AB_STATS_ENONFINITE);
    CHECK_RC(ab_p_adjust(pb, 1, AB_PADJ_NONE, adj), AB_STATS_OK);
    CHECK(adj[0] == 0.5, "none copies");

    /* Tukey fences by hand: 1..8 and 30: q1 = 3, q3 = 7 (type 7), IQR 4;
     * mild fences -3 / 13, severe -9 / 19: 30 is severe, nothing mild. */
    double t[9] = {1, 2, 3, 4, 5, 6, 7, 8, 30};
    CHECK_RC(ab_tukey_outliers(t, 9, &out), AB_STATS_OK);
    CHECK(out.severe == 1 && out.mild == 0 && out.lo_mild == -3 && out.hi_mild == 13 &&
          out.lo_severe == -9 && out.hi_severe == 19, "tukey by hand");
    t[8] = 15; /* beyond 13, not beyond 19: mild */
    CHECK_RC(ab_tukey_outliers(t, 9, &out), AB_STATS_OK);
    CHECK(out.severe == 0 && out.mild == 1, "tukey mild");

    /* Drift by hand: a strictly increasing series of 8 has rho = 1 and,
     * exactly, p = 2/8! (only it and its reverse are as extreme). */
    CHECK_RC(ab_drift_test(t, 8, 0.05, &dr), AB_STATS_OK);
    CHECK(dr.rho == 1 && fabs(dr.p - 2.0 / 40320) < 1e-18 && dr.drifting, "monotone drift rho %g p %g",
          dr.rho, dr.p);

    /* Speedup undefined when median(A) = 0: its own error, not EINVAL. */
    double z3[3] = {0, 0, 1};
    CHECK_RC(ab_bootstrap_speedup_ci(z3, 3, ok5, 5, &bo, &ratio, &lo, &hi), AB_STATS_EZERO);
    return check_report("test_edge");
}
