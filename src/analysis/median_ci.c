/*
 * median_ci.c: the one interval of a measurement's median (median_ci.h):
 * over rounds where the samples come in rounds, as the report's analysis
 * treats them, i.i.d. otherwise.
 */
#include "median_ci.h"
#include "pair.h"
#include "rounds.h"

#include <math.h>
#include <string.h>

int ab_measurement_median_ci(const double *x, const int *round, size_t n, int rounds,
                             const ab_boot_opts *o, double *lo, double *hi, int *over_rounds,
                             const char **name)
{
    int st = AB_STATS_EINVAL;
    int by_rounds = 0;
    if (o && round && rounds >= 2) {
        ab_boot_opts rb = *o;
        rb.resamples = AB_ROUND_RESAMPLES;
        st = ab_rounds_median_ci(x, round, n, &rb, lo, hi);
        by_rounds = st == AB_STATS_OK;
    }
    if (!by_rounds)
        st = ab_median_ci(x, n, o, lo, hi);
    if (st != AB_STATS_OK)
        *lo = *hi = NAN;
    if (over_rounds)
        *over_rounds = by_rounds;
    if (name)
        *name = by_rounds ? "cluster bootstrap over rounds" : ab_median_ci_name(n, o);
    return st;
}

int ab_measurement_median(const ab_rmeas *x, double *median)
{
    ab_summary s;
    if (strcmp(x->status, "ok") != 0 || x->n < 2 || ab_summarize(x->ms, x->n, &s) != AB_STATS_OK)
        return -1;
    *median = s.median;
    return 0;
}

int ab_measurement_median_with_ci(const ab_rmeas *x, const ab_boot_opts *o, double *median,
                                  double *lo, double *hi, int *over_rounds)
{
    if (ab_measurement_median(x, median))
        return -1;
    return ab_measurement_median_ci(x->ms, x->round, x->n, x->rounds, o, lo, hi, over_rounds,
                                    NULL) == AB_STATS_OK
               ? 0
               : -1;
}
