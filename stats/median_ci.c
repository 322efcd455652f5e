/*
 * median_ci.c: the distribution-free confidence interval of a median from
 * two order statistics (Thompson 1936, Ann. Math. Statist. 7, 122-128;
 * Conover 1999, Practical Nonparametric Statistics, sec. 3.2), and the
 * choice between it and the bootstrap for the intervals reports print:
 * below 30 observations the bootstrap interval of a median undercovers
 * (tests/stats/test_coverage), while this one has at least its nominal
 * confidence for any continuous distribution.
 */
#include "abstats.h"
#include "stats_internal.h"

#include <stdlib.h>

#include <gsl/gsl_cdf.h>

#define AB_MEDIAN_EXACT_BELOW 30

int ab_median_ci_exact(const double *x, size_t n, double level, double *lo, double *hi,
                       double *attained)
{
    double *xs = NULL;
    int rc = ab__check(x, n, 1);
    if (rc == AB_STATS_OK && (lo == NULL || hi == NULL || !(level > 0 && level < 1)))
        rc = AB_STATS_EINVAL;
    if (rc != AB_STATS_OK)
        goto cleanup;
    xs = ab__sorted_copy(x, n);
    if (xs == NULL) {
        rc = AB_STATS_ENOMEM;
        goto cleanup;
    }
    /* P(x_(k) <= median <= x_(n+1-k)) = 1 - 2 P(Bin(n, 1/2) <= k - 1) */
    size_t k = 1;
    while (k + 1 <= (n + 1) / 2 &&
           2 * gsl_cdf_binomial_P((unsigned)k, 0.5, (unsigned)n) <= 1 - level)
        k++;
    *lo = xs[k - 1];
    *hi = xs[n - k];
    if (attained != NULL)
        *attained = 1 - 2 * gsl_cdf_binomial_P((unsigned)(k - 1), 0.5, (unsigned)n);
cleanup:
    free(xs);
    return rc;
}

int ab_median_ci(const double *x, size_t n, const ab_boot_opts *o, double *lo, double *hi)
{
    if (o == NULL)
        return AB_STATS_EINVAL;
    if (n >= 2 && n < AB_MEDIAN_EXACT_BELOW)
        return ab_median_ci_exact(x, n, o->level, lo, hi, NULL);
    return ab_bootstrap_median_ci(x, n, o, lo, hi);
}

const char *ab_median_ci_name(size_t n, const ab_boot_opts *o)
{
    if (n < AB_MEDIAN_EXACT_BELOW)
        return "order statistics (distribution-free)";
    return o && o->method == AB_CI_BCA ? "BCa bootstrap" : "percentile bootstrap";
}
