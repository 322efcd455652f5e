/*
 * summary.c: status texts, input validation, the one-sample descriptive
 * summary and Tukey's outlier fences. Quantiles are GSL's
 * gsl_stats_quantile_from_sorted_data (linear interpolation between order
 * statistics, Hyndman & Fan 1996 type 7, the same as numpy's default).
 */
#include "abstats.h"
#include "stats_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

const char *ab_stats_strerror(int status)
{
    switch (status) {
    case AB_STATS_OK: return "success";
    case AB_STATS_EINVAL: return "invalid argument (sample too small, NULL pointer or bad option)";
    case AB_STATS_ENONFINITE: return "sample contains a NaN or an infinity";
    case AB_STATS_ENEGATIVE: return "sample contains a negative latency";
    case AB_STATS_ENOMEM: return "out of memory";
    case AB_STATS_EZERO:
        return "median latency of A is 0 (or 0 in bootstrap resamples of A): the speedup "
               "median(B)/median(A) is undefined or unbounded (timer resolution too coarse?)";
    case AB_STATS_ERANGE:
        return "a value out of range (nonzero magnitudes must lie in [1e-150, 1e150] ms)";
    default: return "unknown statistics error";
    }
}

void ab_stats_init(void)
{
    gsl_set_error_handler_off();
}

int ab__check(const double *x, size_t n, size_t nmin)
{
    if (n < nmin || (n > 0 && x == NULL))
        return AB_STATS_EINVAL;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            return AB_STATS_ENONFINITE;
    }
    for (size_t i = 0; i < n; i++) {
        if (x[i] < 0)
            return AB_STATS_ENEGATIVE;
    }
    for (size_t i = 0; i < n; i++) {
        if (x[i] != 0 && !(x[i] >= AB_STATS_MIN_VALUE && x[i] <= AB_STATS_MAX_VALUE))
            return AB_STATS_ERANGE;
    }
    return AB_STATS_OK;
}

double *ab__sorted_copy(const double *x, size_t n)
{
    double *s = malloc((n ? n : 1) * sizeof *s);
    if (s == NULL)
        return NULL;
    if (n > 0)
        memcpy(s, x, n * sizeof *s);
    gsl_sort(s, 1, n);
    return s;
}

int ab__two_sorted(const double *a, size_t na, const double *b, size_t nb, size_t nmin,
                   double **as, double **bs)
{
    int rc = ab__check(a, na, nmin);
    *as = *bs = NULL;
    if (rc == AB_STATS_OK)
        rc = ab__check(b, nb, nmin);
    if (rc != AB_STATS_OK)
        return rc;
    *as = ab__sorted_copy(a, na);
    *bs = ab__sorted_copy(b, nb);
    if (*as == NULL || *bs == NULL) {
        free(*as);
        free(*bs);
        *as = *bs = NULL;
        return AB_STATS_ENOMEM;
    }
    return AB_STATS_OK;
}

/* Summary of x[0..n), ms. n >= 1; AB_STATS_EINVAL (n = 0, NULL),
 * AB_STATS_ENONFINITE, AB_STATS_ENEGATIVE, AB_STATS_ENOMEM. Mean and sample
 * standard deviation (n - 1) by gsl_stats_mean / gsl_stats_sd_m; median and
 * quartiles by gsl_stats_quantile_from_sorted_data (Hyndman & Fan type 7). */
int ab_summarize(const double *x, size_t n, ab_summary *out)
{
    int rc = ab__check(x, n, 1);
    double *s = NULL;
    if (rc != AB_STATS_OK)
        goto cleanup;
    if (out == NULL) {
        rc = AB_STATS_EINVAL;
        goto cleanup;
    }
    s = ab__sorted_copy(x, n);
    if (s == NULL) {
        rc = AB_STATS_ENOMEM;
        goto cleanup;
    }
    memset(out, 0, sizeof *out);
    out->n = n;
    out->mean = gsl_stats_mean(s, 1, n);
    out->stddev = n > 1 ? gsl_stats_sd_m(s, 1, n, out->mean) : 0.0;
    out->cv = out->mean > 0 ? out->stddev / out->mean : 0.0;
    out->min = s[0];
    out->max = s[n - 1];
    out->median = gsl_stats_median_from_sorted_data(s, 1, n);
    out->q1 = gsl_stats_quantile_from_sorted_data(s, 1, n, 0.25);
    out->q3 = gsl_stats_quantile_from_sorted_data(s, 1, n, 0.75);
cleanup:
    free(s);
    return rc;
}

/* Tukey's fences (Tukey 1977, Exploratory Data Analysis, ch. 2): with the
 * type-7 quartiles q1, q3 and IQR = q3 - q1, an observation is "severe" when
 * x < q1 - 3 IQR or x > q3 + 3 IQR, and "mild" when it lies beyond the
 * 1.5 IQR fences but not beyond the 3 IQR ones (the counts are disjoint).
 * n >= 1; errors as ab_summarize. Counts only: nothing is removed. */
int ab_tukey_outliers(const double *x, size_t n, ab_outliers *o)
{
    ab_summary s;
    int rc = ab_summarize(x, n, &s);
    if (rc != AB_STATS_OK)
        return rc;
    if (o == NULL)
        return AB_STATS_EINVAL;
    double iqr = s.q3 - s.q1;
    memset(o, 0, sizeof *o);
    o->lo_mild = s.q1 - 1.5 * iqr;
    o->hi_mild = s.q3 + 1.5 * iqr;
    o->lo_severe = s.q1 - 3.0 * iqr;
    o->hi_severe = s.q3 + 3.0 * iqr;
    for (size_t i = 0; i < n; i++) {
        if (x[i] < o->lo_severe || x[i] > o->hi_severe)
            o->severe++;
        else if (x[i] < o->lo_mild || x[i] > o->hi_mild)
            o->mild++;
    }
    return AB_STATS_OK;
}
