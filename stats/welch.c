/*
 * welch.c: Welch's two-sample t-test with Satterthwaite's or Hsu's
 * conservative degrees of freedom and its confidence interval (welch.h), on
 * GSL's sample moments and t distribution.
 */
#include "welch.h"
#include "abstats.h"

#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

/* p and the interval of w's statistic (t, se, diff set, se > 0) on df. */
static void with_df(ab_welch *w, double df, double level)
{
    w->df = df;
    w->p = 2 * gsl_cdf_tdist_Q(fabs(w->t), df);
    if (w->p > 1)
        w->p = 1;
    double q = gsl_cdf_tdist_Pinv((1 + level) / 2, df);
    w->lo = w->diff - q * w->se;
    w->hi = w->diff + q * w->se;
}

int ab_welch_t(const double *x, size_t nx, const double *y, size_t ny, double level,
               ab_welch *out)
{
    if (!x || !y || !out || nx < 2 || ny < 2 || !(level > 0 && level < 1))
        return AB_STATS_EINVAL;
    for (size_t i = 0; i < nx; i++)
        if (!isfinite(x[i]))
            return AB_STATS_ENONFINITE;
    for (size_t i = 0; i < ny; i++)
        if (!isfinite(y[i]))
            return AB_STATS_ENONFINITE;
    out->mean_x = gsl_stats_mean(x, 1, nx);
    out->mean_y = gsl_stats_mean(y, 1, ny);
    out->var_x = gsl_stats_variance_m(x, 1, nx, out->mean_x);
    out->var_y = gsl_stats_variance_m(y, 1, ny, out->mean_y);
    out->diff = out->mean_y - out->mean_x;
    double vx = out->var_x / (double)nx, vy = out->var_y / (double)ny;
    out->se = sqrt(vx + vy);
    if (!(out->se > 0)) {
        out->t = 0;
        out->df = out->df_satterthwaite = (double)(nx + ny - 2);
        out->p = out->diff == 0 ? 1 : 0;
        out->lo = out->hi = out->diff;
        return AB_STATS_OK;
    }
    out->df = (vx + vy) * (vx + vy) / (vx * vx / (double)(nx - 1) + vy * vy / (double)(ny - 1));
    out->df_satterthwaite = out->df;
    out->t = out->diff / out->se;
    with_df(out, out->df, level);
    return AB_STATS_OK;
}

int ab_welch_t_conservative(const double *x, size_t nx, const double *y, size_t ny, double level,
                            ab_welch *out)
{
    int rc = ab_welch_t(x, nx, y, ny, level, out);
    if (rc != AB_STATS_OK || !(out->se > 0))
        return rc;
    with_df(out, (double)(nx < ny ? nx : ny) - 1, level);
    return AB_STATS_OK;
}
