/*
 * bootstrap.c: bootstrap confidence intervals of a median and of the
 * speedup median(B)/median(A) (Efron & Tibshirani 1993, An Introduction to
 * the Bootstrap: ch. 13 percentile interval, ch. 14.3 BCa interval with the
 * jackknife acceleration of eq. 14.15, ch. 15.4 / eq. 15.36 for the
 * acceleration of a statistic of two independent samples). Conventions follow
 * scipy.stats.bootstrap (1.10) so that its results can serve as references:
 * z0 from the "mean" percentile of the observed statistic among the
 * resampled ones, interval ends as numpy's default (type-7) percentiles of
 * the bootstrap distribution.
 *
 * Resampling the median in O(1): the median of a resample of n observations
 * is an order statistic (or the mean of two adjacent ones) of the n drawn
 * indices. Drawing index floor(n U) with U ~ U(0,1) is the ordinary uniform
 * draw with replacement, floor is monotone, so the k-th smallest drawn index
 * is floor(n U_(k)) where U_(k) ~ Beta(k, n + 1 - k) is the k-th order
 * statistic of n uniforms, and U_(k+1) = U_(k) + (1 - U_(k)) Beta(1, n - k)
 * given U_(k) (David & Nagaraja 2003, Order Statistics, 3rd ed., sec. 2.2
 * and 2.5). The resampled median x_(floor(n U_(k))) of the sorted data thus
 * has exactly the distribution of the naive bootstrap median, at a cost of
 * two or three gsl_ran_beta draws instead of n draws and a selection, so
 * 10,000 resamples of 10^6 observations take milliseconds. Bit-for-bit
 * reproducible for a given seed (gsl_rng_mt19937).
 */
#include "abstats.h"
#include "stats_internal.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

void ab_boot_opts_default(ab_boot_opts *o)
{
    if (o == NULL)
        return;
    o->resamples = 10000;
    o->seed = 42;
    o->level = 0.95;
    o->method = AB_CI_BCA;
}

const char *ab_ci_method_name(ab_ci_method m)
{
    return m == AB_CI_BCA ? "BCa" : "percentile";
}

static int check_opts(const ab_boot_opts *o)
{
    if (o == NULL || o->resamples < 2 || !(o->level > 0 && o->level < 1) ||
        (o->method != AB_CI_PERCENTILE && o->method != AB_CI_BCA))
        return AB_STATS_EINVAL;
    return AB_STATS_OK;
}

/* y_k of the sorted sample xs without its element i. */
static double loo_at(const double *xs, size_t i, size_t k)
{
    return k < i ? xs[k] : xs[k + 1];
}

double ab__loo_median(const double *xs, size_t n, size_t i)
{
    size_t m = n - 1; /* as gsl_stats_median_from_sorted_data on m values */
    size_t lhs = (m - 1) / 2, rhs = m / 2;
    if (lhs == rhs)
        return loo_at(xs, i, lhs);
    return 0.5 * (loo_at(xs, i, lhs) + loo_at(xs, i, rhs));
}

static size_t uniform_index(double u, size_t n)
{
    size_t idx = (size_t)(u * (double)n);
    return idx < n ? idx : n - 1;
}

double ab__boot_median(const gsl_rng *r, const double *xs, size_t n)
{
    if (n == 1)
        return xs[0];
    if (n % 2 == 1) {
        size_t k = (n + 1) / 2; /* 1-based rank of the median */
        double u = gsl_ran_beta(r, (double)k, (double)(n + 1 - k));
        return xs[uniform_index(u, n)];
    }
    size_t k = n / 2; /* median = mean of ranks k and k + 1 */
    double u = gsl_ran_beta(r, (double)k, (double)(n + 1 - k));
    double v = u + (1.0 - u) * gsl_ran_beta(r, 1.0, (double)(n - k));
    return 0.5 * (xs[uniform_index(u, n)] + xs[uniform_index(v, n)]);
}

/* One group of jackknife values of a statistic (one sample left out at a
 * time), for the acceleration. */
typedef struct jack_group {
    const double *theta; /* theta_(i), i < n */
    size_t n;
} jack_group;

/* Acceleration a = sum_j sum_i U_ji^3 / n_j^3 / (6 (sum_j sum_i U_ji^2 /
 * n_j^2)^(3/2)), U_ji = (n_j - 1)(theta_j(.) - theta_j(i)) (Efron &
 * Tibshirani 1993 eq. 14.15; eq. 15.36 for several samples; scipy's
 * _bca_interval). 0 when the jackknife values do not vary; NaN when one is
 * not finite. */
static double acceleration(const jack_group *g, size_t ng)
{
    double num = 0, den = 0;
    for (size_t j = 0; j < ng; j++) {
        double n = (double)g[j].n, mean = 0;
        for (size_t i = 0; i < g[j].n; i++)
            mean += g[j].theta[i];
        mean /= n;
        double s2 = 0, s3 = 0;
        for (size_t i = 0; i < g[j].n; i++) {
            double u = (n - 1) * (mean - g[j].theta[i]);
            s2 += u * u;
            s3 += u * u * u;
        }
        num += s3 / (n * n * n);
        den += s2 / (n * n);
    }
    if (!isfinite(num) || !isfinite(den))
        return NAN;
    if (den <= 0)
        return 0.0;
    return num / (6.0 * pow(den, 1.5));
}

/* Interval ends from the sorted bootstrap values tb[0..nb): percentile
 * (Efron & Tibshirani ch. 13.3) or BCa (ch. 14.3, eqs. 14.10-14.14). For
 * BCa, z0 = Phi^-1((#{tb < theta} + #{tb <= theta}) / (2 B)) (scipy's
 * convention, robust to the ties a bootstrap median has) and the adjusted
 * levels Phi(z0 + (z0 + z_a) / (1 - a (z0 + z_a))). Where BCa is undefined
 * (all bootstrap values on one side of theta, a non-finite acceleration) the
 * percentile interval is returned. */
static void interval(const double *tb, size_t nb, double theta, const jack_group *g,
                     size_t ng, ab_ci_method method, double level, double *lo, double *hi)
{
    double alpha = (1.0 - level) / 2.0;
    double a1 = alpha, a2 = 1.0 - alpha;
    if (method == AB_CI_BCA) {
        size_t lt = 0, le = 0;
        for (size_t i = 0; i < nb; i++) {
            lt += tb[i] < theta;
            le += tb[i] <= theta;
        }
        double p0 = ((double)lt + (double)le) / (2.0 * (double)nb);
        double acc = acceleration(g, ng);
        if (p0 > 0 && p0 < 1 && isfinite(acc)) {
            double z0 = gsl_cdf_ugaussian_Pinv(p0);
            double zl = gsl_cdf_ugaussian_Pinv(alpha), zh = -zl;
            double b1 = gsl_cdf_ugaussian_P(z0 + (z0 + zl) / (1.0 - acc * (z0 + zl)));
            double b2 = gsl_cdf_ugaussian_P(z0 + (z0 + zh) / (1.0 - acc * (z0 + zh)));
            if (isfinite(b1) && isfinite(b2)) {
                a1 = b1;
                a2 = b2;
            }
        }
    }
    *lo = gsl_stats_quantile_from_sorted_data(tb, 1, nb, a1);
    *hi = gsl_stats_quantile_from_sorted_data(tb, 1, nb, a2);
}

/* Bootstrap CI of the median of x[0..n) (ms) at o->level from o->resamples
 * resamples with seed o->seed, percentile or BCa (o->method). n >= 2.
 * AB_STATS_EINVAL (n < 2, NULL, bad options), AB_STATS_ENONFINITE,
 * AB_STATS_ENEGATIVE, AB_STATS_ENOMEM. Method: Efron & Tibshirani (1993)
 * ch. 13 and 14; resampled medians drawn as order statistics (file comment). */
int ab_bootstrap_median_ci(const double *x, size_t n, const ab_boot_opts *o,
                           double *lo, double *hi)
{
    double *xs = NULL, *tb = NULL, *jk = NULL;
    gsl_rng *r = NULL;
    int rc = ab__check(x, n, 2);
    if (rc == AB_STATS_OK)
        rc = check_opts(o);
    if (rc == AB_STATS_OK && (lo == NULL || hi == NULL))
        rc = AB_STATS_EINVAL;
    if (rc != AB_STATS_OK)
        goto cleanup;
    xs = ab__sorted_copy(x, n);
    tb = malloc(o->resamples * sizeof *tb);
    jk = malloc(n * sizeof *jk);
    r = gsl_rng_alloc(gsl_rng_mt19937);
    if (xs == NULL || tb == NULL || jk == NULL || r == NULL) {
        rc = AB_STATS_ENOMEM;
        goto cleanup;
    }
    gsl_rng_set(r, o->seed);
    for (size_t b = 0; b < o->resamples; b++)
        tb[b] = ab__boot_median(r, xs, n);
    gsl_sort(tb, 1, o->resamples);
    for (size_t i = 0; i < n; i++)
        jk[i] = ab__loo_median(xs, n, i);
    jack_group g = {jk, n};
    interval(tb, o->resamples, gsl_stats_median_from_sorted_data(xs, 1, n), &g, 1,
             o->method, o->level, lo, hi);
cleanup:
    gsl_rng_free(r);
    free(jk);
    free(tb);
    free(xs);
    return rc;
}

static double ratio(double num, double den)
{
    if (den > 0)
        return num / den;
    return num > 0 ? INFINITY : 1.0; /* x/0: infinitely faster; 0/0: equal */
}

/* Speedup of A over B, *ratio = median(B) / median(A) (> 1: A faster), with
 * a bootstrap CI at o->level: each of o->resamples draws resamples A and B
 * independently (one median of each, in this order from one mt19937 stream
 * seeded with o->seed) and gives one ratio; percentile or BCa with the
 * two-sample jackknife acceleration (Efron & Tibshirani 1993 eq. 15.36, as
 * scipy.stats.bootstrap(..., paired=False)). na, nb >= 2; median(A) > 0.
 * Errors: AB_STATS_EINVAL (sizes, NULL, options), AB_STATS_EZERO (median(A)
 * = 0, or an interval end infinite because resampled medians of A are 0:
 * the ratio is undefined or unbounded; *ratio, *lo, *hi are then not to be
 * used), AB_STATS_ENONFINITE, AB_STATS_ENEGATIVE, AB_STATS_ERANGE,
 * AB_STATS_ENOMEM. */
int ab_bootstrap_speedup_ci(const double *a, size_t na, const double *b, size_t nb,
                            const ab_boot_opts *o, double *ratio_out, double *lo,
                            double *hi)
{
    double *as = NULL, *bs = NULL, *tb = NULL, *jk = NULL;
    gsl_rng *r = NULL;
    int rc = ab__check(a, na, 2);
    if (rc == AB_STATS_OK)
        rc = ab__check(b, nb, 2);
    if (rc == AB_STATS_OK)
        rc = check_opts(o);
    if (rc == AB_STATS_OK && (ratio_out == NULL || lo == NULL || hi == NULL))
        rc = AB_STATS_EINVAL;
    if (rc != AB_STATS_OK)
        goto cleanup;
    as = ab__sorted_copy(a, na);
    bs = ab__sorted_copy(b, nb);
    tb = malloc(o->resamples * sizeof *tb);
    jk = malloc((na + nb) * sizeof *jk);
    r = gsl_rng_alloc(gsl_rng_mt19937);
    if (as == NULL || bs == NULL || tb == NULL || jk == NULL || r == NULL) {
        rc = AB_STATS_ENOMEM;
        goto cleanup;
    }
    double ma = gsl_stats_median_from_sorted_data(as, 1, na);
    double mb = gsl_stats_median_from_sorted_data(bs, 1, nb);
    if (!(ma > 0)) {
        rc = AB_STATS_EZERO;
        goto cleanup;
    }
    gsl_rng_set(r, o->seed);
    for (size_t k = 0; k < o->resamples; k++) {
        double ra = ab__boot_median(r, as, na);
        double rb = ab__boot_median(r, bs, nb);
        tb[k] = ratio(rb, ra);
    }
    gsl_sort(tb, 1, o->resamples);
    for (size_t i = 0; i < na; i++)
        jk[i] = ratio(mb, ab__loo_median(as, na, i));
    for (size_t i = 0; i < nb; i++)
        jk[na + i] = ratio(ab__loo_median(bs, nb, i), ma);
    jack_group g[2] = {{jk, na}, {jk + na, nb}};
    *ratio_out = mb / ma;
    interval(tb, o->resamples, *ratio_out, g, 2, o->method, o->level, lo, hi);
    if (!isfinite(*lo) || !isfinite(*hi))
        rc = AB_STATS_EZERO; /* resampled median(A) = 0: no finite bound */
cleanup:
    gsl_rng_free(r);
    free(jk);
    free(tb);
    free(bs);
    free(as);
    return rc;
}
