/*
 * drift.c: a trend test of latencies against their order of measurement,
 * Spearman's rank correlation (Spearman 1904) of x with its index 0..n-1
 * (average ranks for ties, as scipy.stats.spearmanr), with the two-sided
 * p-value of t = rho sqrt((n - 2) / (1 - rho^2)) on n - 2 degrees of
 * freedom (the approximation scipy.stats.spearmanr uses; Zar 1972).
 */
#include "abstats.h"
#include "stats_internal.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

/* Spearman trend of x[0..n) (ms, in sample order), n >= 3, 0 < alpha < 1.
 * d->rho: Pearson correlation (gsl_stats_correlation) of the average ranks
 * of x with 1..n; d->p = 2 Q_t(|t|; n - 2) by gsl_cdf_tdist_Q (0 when
 * |rho| = 1); constant x (no rank variance): rho = 0, p = 1. d->drifting =
 * p < alpha. Errors: AB_STATS_EINVAL, AB_STATS_ENONFINITE,
 * AB_STATS_ENEGATIVE, AB_STATS_ENOMEM. */
int ab_drift_test(const double *x, size_t n, double alpha, ab_drift *d)
{
    size_t *idx = NULL;
    double *rank = NULL, *pos = NULL;
    int rc = ab__check(x, n, 3);
    if (rc == AB_STATS_OK && (d == NULL || !(alpha > 0 && alpha < 1)))
        rc = AB_STATS_EINVAL;
    if (rc != AB_STATS_OK)
        goto cleanup;
    idx = malloc(n * sizeof *idx);
    rank = malloc(n * sizeof *rank);
    pos = malloc(n * sizeof *pos);
    if (idx == NULL || rank == NULL || pos == NULL) {
        rc = AB_STATS_ENOMEM;
        goto cleanup;
    }
    gsl_sort_index(idx, x, 1, n);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && x[idx[j + 1]] == x[idx[i]])
            j++;
        double avg = 0.5 * (double)(i + j) + 1.0; /* ranks i+1 .. j+1 */
        for (size_t k = i; k <= j; k++)
            rank[idx[k]] = avg;
        i = j + 1;
    }
    for (size_t i = 0; i < n; i++)
        pos[i] = (double)(i + 1);
    double rho = 0, p = 1;
    if (rank[idx[0]] != rank[idx[n - 1]]) {
        rho = gsl_stats_correlation(rank, 1, pos, 1, n);
        if (rho > 1) rho = 1;
        if (rho < -1) rho = -1;
        if (fabs(rho) >= 1) {
            p = 0;
        } else {
            double df = (double)(n - 2);
            double t = rho * sqrt(df / ((1 - rho) * (1 + rho)));
            p = 2 * gsl_cdf_tdist_Q(fabs(t), df);
            if (p > 1) p = 1;
        }
    }
    d->rho = rho;
    d->p = p;
    d->drifting = p < alpha;
cleanup:
    free(pos);
    free(rank);
    free(idx);
    return rc;
}
