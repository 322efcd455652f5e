/*
 * test_changepoint.c: asv-style step detection (stats/changepoint.h) on
 * synthetic series whose change points are known by construction: one step
 * up, one step down, none, two steps, noisy steps, constant, tiny series,
 * weights; and the exact Potts solver against brute-force enumeration of
 * every partition of short series.
 */
#include "abstats.h"
#include "changepoint.h"
#include "check.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

/* base level with steps: level changes by factor[k] at position at[k];
 * Gaussian noise of relative sd `noise` (seeded). */
static void series(double *y, size_t n, double base, const size_t *at, const double *factor,
                   size_t nsteps, double noise, unsigned long seed)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    double level = base;
    for (size_t i = 0, k = 0; i < n; i++) {
        while (k < nsteps && at[k] == i)
            level *= factor[k++];
        y[i] = level * (1 + (noise > 0 ? gsl_ran_gaussian(r, noise) : 0));
    }
    gsl_rng_free(r);
}

/* detects and checks the change points are exactly `want` */
static void expect_steps(const char *what, const double *y, size_t n, const size_t *want,
                         size_t nwant)
{
    ab_steps s;
    int rc = ab_detect_steps(y, NULL, n, &s);
    CHECK(rc == AB_STATS_OK, "%s: rc %d", what, rc);
    if (rc)
        return;
    CHECK(s.nseg == nwant + 1, "%s: %zu segments, want %zu", what, s.nseg, nwant + 1);
    for (size_t j = 1; j < s.nseg && j <= nwant; j++)
        CHECK(s.seg[j].begin == want[j - 1], "%s: change point %zu at %zu, want %zu", what, j,
              s.seg[j].begin, want[j - 1]);
    CHECK(s.seg[0].begin == 0 && s.seg[s.nseg - 1].end == n, "%s: segments do not cover", what);
    for (size_t j = 1; j < s.nseg; j++)
        CHECK(s.seg[j].begin == s.seg[j - 1].end, "%s: segments not contiguous", what);
    ab_steps_free(&s);
}

/* Potts cost of the best partition by enumeration (n <= 16) */
static double brute_potts(const double *y, size_t n, double gamma)
{
    double best = INFINITY;
    for (unsigned long mask = 0; mask < (1ul << (n - 1)); mask++) {
        double total = 0;
        size_t l = 0;
        for (size_t r = 1; r <= n; r++) {
            if (r < n && !(mask & (1ul << (r - 1))))
                continue;
            /* median of y[l..r) by sorting a copy */
            double tmp[16];
            size_t m = r - l;
            memcpy(tmp, y + l, m * sizeof *tmp);
            for (size_t i = 1; i < m; i++)
                for (size_t j = i; j > 0 && tmp[j - 1] > tmp[j]; j--) {
                    double t = tmp[j];
                    tmp[j] = tmp[j - 1];
                    tmp[j - 1] = t;
                }
            double med = m % 2 ? tmp[m / 2] : (tmp[m / 2 - 1] + tmp[m / 2]) / 2;
            for (size_t i = 0; i < m; i++)
                total += fabs(tmp[i] - med);
            total += gamma;
            l = r;
        }
        best = fmin(best, total - gamma);
    }
    return best;
}

int main(void)
{
    ab_stats_init();
    enum { N = 40 };
    double y[N];

    /* one step up by 10% at 20, 1% noise */
    size_t at1[] = {20};
    double up[] = {1.10}, down[] = {0.85};
    series(y, N, 1.0, at1, up, 1, 0.01, 1);
    expect_steps("one step up", y, N, at1, 1);
    /* one step down by 15% at 20, 1% noise */
    series(y, N, 2.5, at1, down, 1, 0.01, 2);
    expect_steps("one step down", y, N, at1, 1);
    /* none: 1% noise only, several seeds */
    for (unsigned long seed = 10; seed < 20; seed++) {
        series(y, N, 0.8, NULL, NULL, 0, 0.01, seed);
        expect_steps("none (noise only)", y, N, NULL, 0);
    }
    /* two steps: up 20% at 12, down 10% at 30 */
    size_t at2[] = {12, 30};
    double f2[] = {1.2, 0.9};
    series(y, N, 1.0, at2, f2, 2, 0.005, 3);
    expect_steps("two steps", y, N, at2, 2);
    /* noisy: 3% noise, a 25% step, over several seeds */
    for (unsigned long seed = 100; seed < 110; seed++) {
        series(y, N, 1.0, at1, (double[]){1.25}, 1, 0.03, seed);
        expect_steps("noisy step", y, N, at1, 1);
    }
    /* noiseless: exact constant, exact step; value is the segment median */
    series(y, N, 3.0, NULL, NULL, 0, 0, 0);
    expect_steps("constant", y, N, NULL, 0);
    series(y, 10, 1.0, (size_t[]){5}, up, 1, 0, 0);
    expect_steps("short exact step", y, 10, (size_t[]){5}, 1);
    {
        ab_steps s;
        CHECK_RC(ab_detect_steps(y, NULL, 10, &s), AB_STATS_OK);
        CHECK(s.nseg == 2, "short exact step: %zu segments", s.nseg);
        if (s.nseg == 2) {
            CHECK_CLOSE("first level", s.seg[0].value, 1.0, 0, 1e-12);
            CHECK_CLOSE("second level", s.seg[1].value, 1.1, 1e-12, 0);
        }
        ab_steps_free(&s);
    }
    /* a small outlier of one point is not a step (L1 cost); a large one is
     * a one-point segment, as in asv (its callers judge segment length) */
    series(y, N, 1.0, NULL, NULL, 0, 0.01, 7);
    y[17] *= 1.03;
    expect_steps("small single outlier", y, N, NULL, 0);
    y[17] *= 1.5;
    expect_steps("large single outlier", y, N, (size_t[]){17, 18}, 2);

    /* the Potts solver is exact: against enumeration at several gammas */
    for (unsigned long seed = 0; seed < 6; seed++) {
        double z[12];
        series(z, 12, 1.0, (size_t[]){4, 8}, (double[]){1.3, 0.8}, 2, 0.05, 50 + seed);
        for (double gamma = 0.0; gamma <= 0.5; gamma += 0.05) {
            ab_steps s;
            CHECK_RC(ab_potts_l1(z, NULL, 12, gamma, &s), AB_STATS_OK);
            double cost = 0;
            for (size_t j = 0; j < s.nseg; j++)
                cost += s.seg[j].cost;
            CHECK_CLOSE("Potts optimum vs brute force", cost + gamma * (double)(s.nseg - 1),
                        brute_potts(z, 12, gamma), 1e-12, 1e-12);
            ab_steps_free(&s);
        }
    }

    /* weights: a point with a tiny weight cannot force a step */
    {
        double v[8] = {1, 1, 1, 1, 1, 1, 5, 5}, w[8] = {1, 1, 1, 1, 1, 1, 1e-9, 1e-9};
        ab_steps s;
        CHECK_RC(ab_detect_steps(v, w, 8, &s), AB_STATS_OK);
        CHECK(s.nseg == 1, "down-weighted points made %zu segments", s.nseg);
        ab_steps_free(&s);
        CHECK_RC(ab_detect_steps(v, NULL, 8, &s), AB_STATS_OK);
        CHECK(s.nseg == 2 && s.seg[1].begin == 6, "unweighted: %zu segments", s.nseg);
        ab_steps_free(&s);
    }

    /* edge cases */
    {
        ab_steps s;
        double one = 2.0, bad[2] = {1.0, NAN};
        CHECK_RC(ab_detect_steps(&one, NULL, 1, &s), AB_STATS_OK);
        CHECK(s.nseg == 1 && s.seg[0].value == 2.0, "n = 1");
        ab_steps_free(&s);
        CHECK_RC(ab_detect_steps(bad, NULL, 2, &s), AB_STATS_ENONFINITE);
        CHECK_RC(ab_detect_steps(NULL, NULL, 2, &s), AB_STATS_EINVAL);
        CHECK_RC(ab_detect_steps(y, NULL, 0, &s), AB_STATS_EINVAL);
        CHECK_RC(ab_potts_l1(y, NULL, 3, -1.0, &s), AB_STATS_EINVAL);
    }
    return check_report("changepoint");
}
