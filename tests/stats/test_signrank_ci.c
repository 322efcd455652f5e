/*
 * test_signrank_ci.c: the Hodges-Lehmann estimate and signed-rank interval
 * (stats/signrank_ci.c), the serial-correlation rule (stats/serial.c) and
 * the minimum detectable effect (stats/mde.c), each against an independent
 * computation:
 *
 * 1. The interval by brute-force test inversion, for n = 6..14 untied
 *    differences: the null distribution of T+ from all 2^n sign vectors
 *    (not the recursion of signrank_ci.c), and for each shift theta between
 *    consecutive Walsh averages the ranks of |d - theta| recomputed from
 *    their definition; theta is inside the interval when the two-sided
 *    exact test of d - theta at 5% (equal tails) does not reject. The
 *    interval's ends must be the Walsh averages bounding the accepted
 *    shifts, its attained confidence 1 - 2 P(T+ <= c - 1) from the brute
 *    distribution, and the estimate the median of all Walsh averages
 *    (sorted here by qsort). Known value: n = 10, 95% -> c = 9 (Hollander
 *    & Wolfe 1999, Table A.4: P(T+ >= 47) = 0.024 at n = 10, so c = 55 +
 *    1 - 47 = 9), attained 1 - 2 x 0.02441 = 0.9512.
 * 2. The lag-1 autocorrelation and Young's C by hand on short series; the
 *    rule's inflation (1 + rho)/(1 - rho) from the bias-corrected rho, no
 *    widening below 16 rounds, and none where Young's test does not reject
 *    at the gate though the corrected rho is positive.
 * 3. The minimum detectable effect: sd 0.03, 20 rounds, alpha 0.05, 80%
 *    power: z = 1.959964 + 0.841621 (normal table), n_eff = 60/pi =
 *    19.098593, delta = 2.8015852 x 0.03 / 4.3701937 = 0.01923199,
 *    exp(delta) - 1 = 0.01941812; with inflation 4, 2 delta -> 0.0392133
 *    (by hand, series of exp to the fourth term).
 */
#include "abstats.h"
#include "rounds.h"
#include "check.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_dbl(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* T+ of d - theta: ranks of |d_i - theta| by counting (untied) */
static double tplus(const double *d, size_t n, double theta)
{
    double t = 0;
    for (size_t i = 0; i < n; i++) {
        double ai = fabs(d[i] - theta), rank = 1;
        for (size_t j = 0; j < n; j++)
            rank += fabs(d[j] - theta) < ai;
        if (d[i] - theta > 0)
            t += rank;
    }
    return t;
}

int main(void)
{
    ab_stats_init();
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 2026);
    /* ---- 1. the interval by brute-force inversion ---- */
    for (size_t n = 6; n <= 14; n++) {
        double d[14];
        for (size_t i = 0; i < n; i++)
            d[i] = 0.01 + gsl_ran_gaussian(r, 0.02);
        size_t M = n * (n + 1) / 2;
        /* the null distribution of T+ by enumeration */
        double *pmf = calloc(M + 1, sizeof *pmf), *cdf = calloc(M + 1, sizeof *cdf);
        for (unsigned long mask = 0; mask < (1UL << n); mask++) {
            size_t t = 0;
            for (size_t i = 0; i < n; i++)
                if (mask >> i & 1)
                    t += i + 1;
            pmf[t] += 1.0 / (double)(1UL << n);
        }
        for (size_t s = 0, run = 0; s <= M; s++)
            cdf[s] = (run ? cdf[s - 1] : 0) + pmf[s], run = 1;
        double *w = malloc(M * sizeof *w);
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = i; j < n; j++)
                w[k++] = (d[i] + d[j]) / 2;
        qsort(w, M, sizeof *w, cmp_dbl);
        /* accepted shifts: between w[g-1] and w[g] (0-based g = 1..M-1) */
        long first = -1, last = -1;
        for (size_t g = 1; g < M; g++) {
            double t = tplus(d, n, (w[g - 1] + w[g]) / 2);
            size_t ti = (size_t)llround(t);
            int reject = cdf[ti] <= 0.025 || cdf[M - ti] <= 0.025; /* P(T+ <= t), P(T+ >= t) */
            if (!reject) {
                if (first < 0)
                    first = (long)g;
                last = (long)g;
            }
        }
        ab_signrank_ci ci;
        CHECK_RC(ab_signrank_hl(d, n, 0.95, 1, &ci), AB_STATS_OK);
        double hl = M % 2 ? w[M / 2] : (w[M / 2 - 1] + w[M / 2]) / 2;
        CHECK_CLOSE("Hodges-Lehmann estimate", ci.estimate, hl, 1e-15, 0);
        CHECK(first > 0, "n = %zu: some shift accepted", n);
        if (first > 0) {
            CHECK_CLOSE("lower end = inversion of the exact test", ci.lo, w[first - 1], 0, 0);
            CHECK_CLOSE("upper end = inversion of the exact test", ci.hi, w[last], 0, 0);
            CHECK_CLOSE("attained confidence", ci.attained, 1 - 2 * cdf[(size_t)first - 1], 1e-12, 0);
        }
        CHECK(ci.exact == 1 && ci.attainable == (ci.attained >= 0.95), "n = %zu flags", n);
        if (n == 10) {
            CHECK(ci.c == 9, "n = 10: c = %zu, want 9 (Hollander & Wolfe Table A.4)", ci.c);
            CHECK_CLOSE("n = 10 attained", ci.attained, 1 - 2 * 25.0 / 1024, 1e-12, 0);
        }
        /* the widened interval is no narrower */
        ab_signrank_ci wide;
        CHECK_RC(ab_signrank_hl(d, n, 0.95, 3, &wide), AB_STATS_OK);
        CHECK(wide.lo <= ci.lo && wide.hi >= ci.hi, "n = %zu: widened contains exact", n);
        free(pmf);
        free(cdf);
        free(w);
    }
    /* n <= 5 at 95%: not attainable; the widest interval and its confidence */
    {
        double d[5] = {0.1, 0.2, 0.3, 0.4, 0.5};
        ab_signrank_ci ci;
        CHECK_RC(ab_signrank_hl(d, 5, 0.95, 1, &ci), AB_STATS_OK);
        CHECK(ci.c == 1 && !ci.attainable, "n = 5: c %zu", ci.c);
        CHECK_CLOSE("n = 5: [min, max]", ci.lo, 0.1, 0, 0);
        CHECK_CLOSE("n = 5: [min, max]", ci.hi, 0.5, 0, 0);
        CHECK_CLOSE("n = 5: attained 1 - 2/32", ci.attained, 1 - 2.0 / 32, 1e-12, 0);
        CHECK_RC(ab_signrank_hl(d, 0, 0.95, 1, &ci), AB_STATS_EINVAL);
        CHECK_RC(ab_signrank_hl(d, 5, 1.5, 1, &ci), AB_STATS_EINVAL);
        CHECK_RC(ab_signrank_hl(d, 5, 0.95, 0.5, &ci), AB_STATS_EINVAL);
    }
    /* n = 50: exact; the normal form would give floor(637.5 - 1.959964
     * sqrt(50 51 101/24)) = 434 (by hand), the exact c one above it. n = 60:
     * the normal form, floor(915 - 1.959964 sqrt(18452.5)) = 648 (by hand) */
    {
        double d[60];
        for (size_t i = 0; i < 60; i++)
            d[i] = gsl_ran_gaussian(r, 1);
        ab_signrank_ci ex, nm;
        CHECK_RC(ab_signrank_hl(d, 50, 0.95, 1, &ex), AB_STATS_OK);
        CHECK(ex.exact && (ex.c == 434 || ex.c == 435), "n = 50: exact c %zu", ex.c);
        CHECK_RC(ab_signrank_hl(d, 60, 0.95, 1, &nm), AB_STATS_OK);
        CHECK(!nm.exact && nm.c == 648, "n = 60: normal form, c %zu", nm.c);
    }
    /* ---- 2. serial correlation ---- */
    {
        /* d = 1..10: mean 5.5, sum of squares 82.5, lag-1 products
         * sum_{i=1}^{9} (i - 5.5)(i + 1 - 5.5) = 57.75 -> r1 = 0.7; 10 <
         * 16 rounds: measured, not acted on */
        double d[20];
        for (int i = 0; i < 20; i++)
            d[i] = i + 1;
        ab_serial s;
        CHECK_RC(ab_serial_correlation(d, 10, &s), AB_STATS_OK);
        CHECK_CLOSE("r1 of 1..10", s.r1, 0.7, 1e-12, 0);
        CHECK(!s.widened && s.inflation == 1, "10 rounds: not widened");
        CHECK_RC(ab_serial_correlation(d, AB_SERIAL_MIN_ROUNDS - 1, &s), AB_STATS_OK);
        CHECK(!s.widened && s.inflation == 1 && s.r1 > 0, "few rounds");
        /* d = 1..20: sum of squares 665, lag-1 products 565.25 -> r1 = 0.85;
         * rho = (20 x 0.85 + 1)/16 = 1.125 -> clipped to 0.95, f = 39 */
        CHECK_RC(ab_serial_correlation(d, 20, &s), AB_STATS_OK);
        CHECK_CLOSE("r1 of 1..20", s.r1, 0.85, 1e-12, 0);
        CHECK(s.widened && fabs(s.rho - 0.95) < 1e-12, "rho %g", s.rho);
        CHECK_CLOSE("inflation", s.inflation, 39.0, 1e-12, 0);
        /* Young's C of 1..20: 1 - 19 / (2 x 665) = 0.98571429; its z
         * 0.98571429 / sqrt(18/399) = 4.641 -> p 1.7e-6 < the gate */
        CHECK_CLOSE("Young's C of 1..20", s.young_c, 1 - 19.0 / 1330.0, 1e-12, 0);
        CHECK(s.p_serial < 1e-5, "p_serial %g", s.p_serial);
        /* the gate: 0, then 1, 1, -1, -1 four times, then 1, 1, -1: sum 1,
         * mean 0.05, sum of squares 19 - 20 x 0.0025 = 18.95; lag-1
         * products sum to 0, centred 0 - 0.05 (2 + 1) + 19 x 0.0025 =
         * -0.1025 -> r1 = -0.0054090, the corrected rho (20 r1 + 1)/16 =
         * 0.0557388 > 0 (the rule before the gate would widen); squared
         * successive differences 37 -> C = 1 - 37/37.9 = 0.0237467, z =
         * C / sqrt(18/399) = 0.111803, one-sided p = 0.45549 (normal
         * table) > AB_SERIAL_GATE: not widened */
        double q[20];
        q[0] = 0;
        for (int i = 1; i < 20; i++)
            q[i] = ((i - 1) % 4) < 2 ? 1 : -1;
        CHECK_RC(ab_serial_correlation(q, 20, &s), AB_STATS_OK);
        CHECK_CLOSE("r1 of the gate series", s.r1, -0.1025 / 18.95, 1e-12, 0);
        CHECK(((20 * s.r1 + 1) / 16) > 0, "corrected rho > 0");
        CHECK_CLOSE("Young's C of the gate series", s.young_c, 1 - 37 / 37.9, 1e-12, 0);
        CHECK_CLOSE("p_serial of the gate series", s.p_serial, 0.45549, 0, 5e-5);
        CHECK(AB_SERIAL_GATE < 0.45549 && !s.widened && s.inflation == 1,
              "the gate series: not widened");
        /* alternating: r1 < 0, not widened */
        double alt[20];
        for (int i = 0; i < 20; i++)
            alt[i] = i % 2 ? -1 : 1;
        CHECK_RC(ab_serial_correlation(alt, 20, &s), AB_STATS_OK);
        CHECK(!s.widened && s.inflation == 1 && s.r1 < -0.8, "alternating r1 %g", s.r1);
        /* the widened test is less significant than the exact one */
        ab_wilcoxon w1, w3;
        double sh[12];
        for (size_t i = 0; i < 12; i++)
            sh[i] = 0.01 * (double)(i % 5) + 0.005 * (double)i - 0.02;
        CHECK_RC(ab_signrank_test(sh, 12, 1, &w1), AB_STATS_OK);
        CHECK_RC(ab_signrank_test(sh, 12, 3, &w3), AB_STATS_OK);
        CHECK(w3.method == AB_P_NORMAL && w3.p > w1.p, "widened p %g > %g", w3.p, w1.p);
    }
    /* ---- 3. minimum detectable effect ---- */
    CHECK_CLOSE("MDE, sd 0.03, 20 rounds", ab_paired_mde(0.03, 20, 1, 0.05, 0.8), 0.01941812, 1e-6, 0);
    CHECK_CLOSE("MDE with inflation 4: delta doubles", ab_paired_mde(0.03, 20, 4, 0.05, 0.8),
                0.0392133, 1e-6, 0);
    CHECK(isnan(ab_paired_mde(0.03, 1, 1, 0.05, 0.8)), "one round: no MDE");
    gsl_rng_free(r);
    return check_report("test_signrank_ci");
}
