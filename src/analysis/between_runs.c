/*
 * between_runs.c: the between-run sd of log medians (between_runs.h), and
 * the comparison of two runs judged by it (pair.h, ab_pair_between_runs).
 */
#include "between_runs.h"
#include "abstats.h"
#include "pair.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

int ab_between_runs_sd(const double *medians, size_t k, ab_between_runs *out)
{
    if (!medians || !out || k < AB_BETWEEN_RUNS_MIN)
        return -1;
    double *l = malloc(k * sizeof *l);
    if (!l)
        return -1;
    for (size_t i = 0; i < k; i++) {
        if (!(medians[i] > 0) || !isfinite(medians[i])) {
            free(l);
            return -1;
        }
        l[i] = log(medians[i]);
    }
    out->runs = k;
    out->sd_log = gsl_stats_sd(l, 1, k);
    free(l);
    return 0;
}

int ab_between_runs_sd_steps(const double *medians, size_t k, ab_between_runs *out)
{
    if (!medians || !out || k < AB_BETWEEN_RUNS_MIN)
        return -1;
    double *dd = malloc((k - 1) * sizeof *dd);
    if (!dd)
        return -1;
    for (size_t i = 0; i < k; i++)
        if (!(medians[i] > 0) || !isfinite(medians[i])) {
            free(dd);
            return -1;
        }
    for (size_t i = 0; i + 1 < k; i++)
        dd[i] = fabs(log(medians[i + 1]) - log(medians[i]));
    gsl_sort(dd, 1, k - 1);
    out->runs = k;
    out->sd_log = 1.4826 * gsl_stats_median_from_sorted_data(dd, 1, k - 1) / sqrt(2.0);
    free(dd);
    return 0;
}

void ab_pair_between_runs(ab_pair_analysis *x, const ab_between_runs *b, double level)
{
    if (!x->ok || !b || b->runs < AB_BETWEEN_RUNS_MIN)
        return;
    double df = (double)b->runs - 1, se = sqrt(2.0) * b->sd_log, d = log(x->speedup);
    x->between_runs = 1;
    x->br = *b;
    x->too_few = 0;
    x->p_method = AB_P_BETWEEN_RUNS;
    if (!(se > 0)) {
        x->lo = x->hi = x->speedup;
        x->p = d == 0 ? 1 : 0;
        return;
    }
    double q = gsl_cdf_tdist_Pinv((1 + level) / 2, df);
    x->lo = exp(d - q * se);
    x->hi = exp(d + q * se);
    x->p = 2 * gsl_cdf_tdist_Q(fabs(d) / se, df);
    if (x->p > 1)
        x->p = 1;
}

int ab_between_runs_of_samples(double *const *ms, const size_t *n, size_t k, ab_between_runs *out)
{
    double *med = malloc((k ? k : 1) * sizeof *med);
    size_t m = 0;
    if (!med)
        return -1;
    for (size_t i = 0; i < k; i++) {
        ab_summary su;
        if (n[i] >= 1 && ab_summarize(ms[i], n[i], &su) == AB_STATS_OK)
            med[m++] = su.median;
    }
    const int rc = ab_between_runs_sd(med, m, out);
    free(med);
    return rc;
}
