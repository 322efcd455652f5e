/*
 * spread.c: wide and bimodal samples (spread.h), on GSL's moments and
 * quantiles.
 */
#include "spread.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double ab_bimodality_coefficient(const double *x, size_t n)
{
    if (n < 4)
        return NAN;
    const double dn = (double)n;
    if (gsl_stats_variance(x, 1, n) <= 0)
        return NAN;
    /* GSL normalises by the n-1 standard deviation: skew = (m3 / s³)·, with
     * s² = m2·n/(n-1); rescale to the moment ratios m3/m2^1.5, m4/m2². */
    const double r = dn / (dn - 1);
    const double b1 = gsl_stats_skew(x, 1, n) * pow(r, 1.5);
    const double b2 = (gsl_stats_kurtosis(x, 1, n) + 3) * r * r;
    const double g = sqrt(dn * (dn - 1)) / (dn - 2) * b1;
    const double k = (dn - 1) / ((dn - 2) * (dn - 3)) * ((dn + 1) * (b2 - 3) + 6);
    return (g * g + 1) / (k + 3 * (dn - 1) * (dn - 1) / ((dn - 2) * (dn - 3)));
}

int ab_spread_check(const double *x, size_t n, ab_spread *out)
{
    if (n < 2)
        return -1;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return -1;
    memcpy(s, x, n * sizeof *s);
    gsl_sort(s, 1, n);
    out->p10 = gsl_stats_quantile_from_sorted_data(s, 1, n, 0.10);
    out->p90 = gsl_stats_quantile_from_sorted_data(s, 1, n, 0.90);
    free(s);
    out->ratio = out->p10 > 0 ? out->p90 / out->p10 : INFINITY;
    out->bc = ab_bimodality_coefficient(x, n);
    out->wide = out->ratio > AB_SPREAD_RATIO;
    out->bimodal = out->wide && isfinite(out->bc) && out->bc > AB_BIMODAL_BC;
    return 0;
}
