/*
 * test_rounds.c: inference over rounds (stats/rounds.h).
 *
 * 1. Per-round medians by hand; the paired comparison's p against brute
 *    force: the Wilcoxon signed-rank p of the per-round log ratios is
 *    recomputed here from its definition (midranks of |d|, T+ over every
 *    one of the 2^n sign vectors, p = P(|T+ - n(n+1)/4| >= |t - n(n+1)/4|),
 *    which is scipy.stats.wilcoxon's exact two-sided p for untied data),
 *    independent of stats/wilcoxon.c; p_min = 2/2^n by the same
 *    definition (where the serial-correlation rule does not widen the
 *    test). Settled per-round medians (first sample left out) by hand.
 * 2. A synthetic randomised block design with a known between-block variance
 *    and autocorrelation, A and B identical: in each of R rounds each variant
 *    takes k samples; each (variant, round) block has its own level
 *    u ~ N(0, sigma_b^2) (the clock the block ran at), every round a common
 *    level (shared by both variants), and within a block the noise is AR(1)
 *    with phi = 0.8. Over many seeds the i.i.d. analysis (Mann-Whitney U of
 *    all samples, abstats.h) rejects far more often than alpha, while the
 *    paired test over rounds holds its nominal 5% (binomial bound) and the
 *    signed-rank interval of the speedup covers 1 in about 95% of seeds.
 */
#include "abstats.h"
#include "rounds.h"
#include "check.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Brute force Wilcoxon: midranks of |d| (no zeros here), T+ of every sign
 * vector, p = share with |T+ - mu| >= |t - mu|. */
static double brute_wilcoxon(const double *d, size_t n)
{
    double rank[32], mu = n * (n + 1) / 4.0, t = 0;
    for (size_t i = 0; i < n; i++) {
        double less = 0, eq = 0;
        for (size_t j = 0; j < n; j++) {
            less += fabs(d[j]) < fabs(d[i]);
            eq += fabs(d[j]) == fabs(d[i]);
        }
        rank[i] = less + (eq + 1) / 2.0;
        if (d[i] > 0)
            t += rank[i];
    }
    unsigned long hits = 0;
    for (unsigned long mask = 0; mask < (1UL << n); mask++) {
        double tp = 0;
        for (size_t i = 0; i < n; i++)
            if (mask >> i & 1)
                tp += rank[i];
        hits += fabs(tp - mu) >= fabs(t - mu) - 1e-9;
    }
    return (double)hits / (double)(1UL << n);
}

/* One synthetic run: a[i], b[i] with rounds ra/rb. */
static void simulate(gsl_rng *r, size_t R, size_t k, double sigma_round, double sigma_b,
                     double sigma_e, double phi, double slow, double *a, int *ra, double *b, int *rb)
{
    size_t na = 0, nb = 0;
    for (size_t round = 0; round < R; round++) {
        double common = gsl_ran_gaussian(r, sigma_round);
        int a_first = gsl_rng_uniform_int(r, 2);
        for (int v = 0; v < 2; v++) {
            int is_a = (v == 0) == a_first;
            double u = gsl_ran_gaussian(r, sigma_b), e = gsl_ran_gaussian(r, sigma_e);
            for (size_t j = 0; j < k; j++) {
                e = phi * e + sqrt(1 - phi * phi) * gsl_ran_gaussian(r, sigma_e);
                double x = 1.5 * exp(common + u + e) * (is_a ? 1 + slow : 1);
                if (is_a) {
                    a[na] = x;
                    ra[na++] = (int)round;
                } else {
                    b[nb] = x;
                    rb[nb++] = (int)round;
                }
            }
        }
    }
}

int main(void)
{
    ab_stats_init();
    /* ---- 1. per-round medians ---- */
    {
        double x[7] = {3, 1, 2, 10, 5, 7, 4};
        int rd[7] = {2, 0, 2, 1, 0, 2, 5};
        int rid[7];
        double med[7];
        size_t nr = 0;
        CHECK_RC(ab_round_medians(x, rd, 7, rid, med, &nr), AB_STATS_OK);
        /* round 0: {1, 5} -> 3; 1: {10}; 2: {3, 2, 7} -> 3; 5: {4} */
        CHECK(nr == 4 && rid[0] == 0 && rid[1] == 1 && rid[2] == 2 && rid[3] == 5, "rounds");
        CHECK_CLOSE("med0", med[0], 3.0, 0, 0);
        CHECK_CLOSE("med1", med[1], 10.0, 0, 0);
        CHECK_CLOSE("med2", med[2], 3.0, 0, 0);
        CHECK_CLOSE("med5", med[3], 4.0, 0, 0);
        int bad[7] = {0, 0, 0, -1, 0, 0, 0};
        CHECK_RC(ab_round_medians(x, bad, 7, rid, med, &nr), AB_STATS_EINVAL);
        /* settled: each round's first sample (input order) left out when
         * the round has two or more: round 0: {5}; 1: {10}; 2: {2, 7} ->
         * 4.5; 5: {4}; two left out */
        size_t dropped = 0;
        CHECK_RC(ab_round_settled_medians(x, rd, 7, rid, med, &nr, &dropped), AB_STATS_OK);
        CHECK(nr == 4 && dropped == 2, "settled: %zu rounds, %zu dropped", nr, dropped);
        CHECK_CLOSE("settled med0", med[0], 5.0, 0, 0);
        CHECK_CLOSE("settled med1", med[1], 10.0, 0, 0);
        CHECK_CLOSE("settled med2", med[2], 4.5, 0, 0);
        CHECK_CLOSE("settled med5", med[3], 4.0, 0, 0);
    }
    /* ---- the paired comparison's p against brute-force enumeration ---- */
    {
        gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(r, 7);
        ab_boot_opts o;
        ab_boot_opts_default(&o);
        o.resamples = 200;
        for (size_t n = 2; n <= 14; n++) {
            /* one sample per variant per round: d_r = log(b_r / a_r) */
            double a[14], b[14], d[14];
            int rd[14];
            for (size_t i = 0; i < n; i++) {
                a[i] = 1.0 + 0.1 * gsl_rng_uniform(r);
                b[i] = a[i] * exp(gsl_ran_gaussian(r, 0.02) + 0.01);
                d[i] = log(b[i] / a[i]);
                rd[i] = (int)(3 * i + 1);
            }
            ab_rounds_result res;
            CHECK_RC(ab_rounds_compare(a, rd, n, b, rd, n, &o, &res), AB_STATS_OK);
            CHECK(res.rounds == n, "n = %zu rounds", n);
            /* the unwidened test against brute force; the comparison's p is
             * the test with the comparison's own inflation */
            ab_wilcoxon w;
            CHECK_RC(ab_signrank_test(d, n, 1, &w), AB_STATS_OK);
            CHECK_CLOSE("Wilcoxon p over rounds vs brute force", w.p, brute_wilcoxon(d, n), 1e-9, 0);
            CHECK_RC(ab_signrank_test(d, n, res.serial.inflation, &w), AB_STATS_OK);
            CHECK_CLOSE("the comparison's p is the test's", res.p, w.p, 0, 0);
            if (!res.serial.widened)
                CHECK_CLOSE("p_min", res.p_min, fmin(1, 2.0 / (double)(1UL << n)), 0, 0);
        }
        gsl_rng_free(r);
    }
    /* ---- a shifted pair: speedup recovered, CI covers it ---- */
    {
        double a[6] = {1.0, 1.02, 2.0, 2.04, 3.0, 3.06}, b[6] = {1.1, 1.122, 2.2, 2.244, 3.3, 3.366};
        int ra[6] = {0, 0, 1, 1, 2, 2}, rb[6] = {0, 0, 1, 1, 2, 2};
        ab_boot_opts o;
        ab_boot_opts_default(&o);
        o.resamples = 500;
        ab_rounds_result res;
        CHECK_RC(ab_rounds_compare(a, ra, 6, b, rb, 6, &o, &res), AB_STATS_OK);
        /* every round's ratio is exactly 1.1 */
        CHECK(res.rounds == 3, "3 shared rounds");
        CHECK_CLOSE("speedup", res.speedup, 1.1, 1e-12, 0);
        CHECK_CLOSE("lo", res.lo, 1.1, 1e-12, 0);
        CHECK_CLOSE("hi", res.hi, 1.1, 1e-12, 0);
        /* the log ratios are all log 1.1 up to rounding: ties, all one
         * sign; the smallest p of 3 rounds is 2/8 */
        CHECK_CLOSE("p: 3 rounds, all one sign: 2/8", res.p, 0.25, 0, 1e-12);
        CHECK_CLOSE("p_min of 3 rounds", res.p_min, 0.25, 0, 0);
        /* one shared round only */
        int rb1[6] = {0, 0, 7, 7, 8, 8};
        CHECK_RC(ab_rounds_compare(a, ra, 6, b, rb1, 6, &o, &res), AB_STATS_EINVAL);
        double lo, hi;
        CHECK_RC(ab_rounds_median_ci(a, ra, 6, &o, &lo, &hi), AB_STATS_OK);
        CHECK(lo >= 1.0 && hi <= 3.06 && lo <= hi, "median CI inside the data [%g, %g]", lo, hi);
        int one_round[6] = {4, 4, 4, 4, 4, 4};
        CHECK_RC(ab_rounds_median_ci(a, one_round, 6, &o, &lo, &hi), AB_STATS_EINVAL);
    }
    /* ---- 2. the block design where the i.i.d. analysis fails ---- */
    {
        enum { SEEDS = 400, R = 20, K = 3 };
        gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
        double a[R * K], b[R * K];
        int ra[R * K], rb[R * K];
        ab_boot_opts o;
        ab_boot_opts_default(&o);
        o.resamples = 1000;
        int iid_rej = 0, round_rej = 0, covered = 0, median_cov = 0;
        for (int seed = 1; seed <= SEEDS; seed++) {
            gsl_rng_set(r, (unsigned long)seed);
            simulate(r, R, K, 0.005, 0.01, 0.002, 0.8, 0.0, a, ra, b, rb);
            ab_mw_result mw;
            CHECK_RC(ab_mann_whitney(a, R * K, b, R * K, &mw), AB_STATS_OK);
            iid_rej += mw.p < 0.05;
            ab_rounds_result res;
            o.seed = (unsigned long)seed;
            CHECK_RC(ab_rounds_compare(a, ra, R * K, b, rb, R * K, &o, &res), AB_STATS_OK);
            round_rej += res.p < 0.05;
            covered += res.lo <= 1 && 1 <= res.hi;
            /* the true median of A's distribution is 1.5 (all effects are
             * symmetric about 0 on the log scale) */
            double lo, hi;
            CHECK_RC(ab_rounds_median_ci(a, ra, R * K, &o, &lo, &hi), AB_STATS_OK);
            median_cov += lo <= 1.5 && 1.5 <= hi;
        }
        fprintf(stderr,
                "block design, %d seeds: i.i.d. Mann-Whitney rejects %.3f, paired over rounds "
                "%.3f; speedup CI covers 1 in %.3f; cluster median CI covers the true median "
                "in %.3f\n",
                SEEDS, iid_rej / (double)SEEDS, round_rej / (double)SEEDS,
                covered / (double)SEEDS, median_cov / (double)SEEDS);
        /* nominal 5%: at 400 seeds the binomial 99.9% upper bound is 0.085 */
        CHECK(round_rej <= 34, "paired test over rounds holds alpha: %d/%d", round_rej, SEEDS);
        CHECK(round_rej >= 6, "and is not vacuous: %d/%d", round_rej, SEEDS);
        CHECK(iid_rej >= 4 * 20, "the i.i.d. analysis fails here: %d/%d", iid_rej, SEEDS);
        /* the interval inverts the test: it covers 1 exactly when p >= 0.05
         * (up to the widened test's t quantile) */
        CHECK(covered >= (int)(0.93 * SEEDS), "speedup CI coverage %d/%d", covered, SEEDS);
        CHECK(median_cov >= (int)(0.85 * SEEDS), "median CI coverage %d/%d", median_cov, SEEDS);
        /* power: a 3% slowdown of A is detected (p < 0.05, speedup < 1) */
        int det = 0;
        for (int seed = 1; seed <= 100; seed++) {
            gsl_rng_set(r, 100000UL + (unsigned long)seed);
            simulate(r, R, K, 0.005, 0.01, 0.002, 0.8, 0.03, a, ra, b, rb);
            ab_rounds_result res;
            CHECK_RC(ab_rounds_compare(a, ra, R * K, b, rb, R * K, &o, &res), AB_STATS_OK);
            det += res.p < 0.05 && res.hi < 1;
        }
        fprintf(stderr, "a 3%% slowdown detected in %d/100 seeds\n", det);
        CHECK(det >= 90, "power against 3%%: %d/100", det);
        gsl_rng_free(r);
    }
    return check_report("test_rounds");
}
