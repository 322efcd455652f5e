/*
 * welch.h: the two-sample t-test of means without equal variances (Welch
 * 1947, Biometrika 34, 28-35), with Satterthwaite's approximate degrees of
 * freedom (Satterthwaite 1946, Biometrics Bulletin 2, 110-114), and the
 * confidence interval of the difference of means that inverts it (welch.c).
 * GSL has the t distribution (gsl_cdf_tdist_*) but not the test.
 *
 * The analysis of several instances per variant uses it on per-instance
 * means (src/analysis/instances.h): the instance is then the unit, and the
 * test's variance is the between-instance one. With as few as 4 units a
 * side, Satterthwaite's df, estimated from the same variances as the
 * statistic, makes the test liberal where the variances differ (4 and 4
 * instances, one variant's noise persisting across rounds: raw p < 0.05 in
 * 6.5% and 7.7% of 400 synthetic null runs, reports/block-design/); there
 * the analysis uses the conservative df min(nx, ny) - 1
 * (ab_welch_t_conservative: 4.5% and 4.0%).
 */
#ifndef ATTNBENCH_WELCH_H
#define ATTNBENCH_WELCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ab_welch {
    double mean_x, mean_y; /* the two sample means */
    double var_x, var_y;   /* their sample variances (n - 1 in the denominator) */
    double diff;           /* mean_y - mean_x */
    double se;             /* sqrt(var_x/nx + var_y/ny) */
    double t;              /* diff / se (0 when se = 0 and diff = 0) */
    double df;             /* the df of p and the interval: Satterthwaite's (ab_welch_t) or
                              min(nx, ny) - 1 (ab_welch_t_conservative) */
    double df_satterthwaite; /* se^4 / ((var_x/nx)^2/(nx-1) + (var_y/ny)^2/(ny-1)) */
    double p;              /* two-sided p from Student's t with df */
    double lo, hi;         /* diff -/+ t_{df, (1+level)/2} se */
} ab_welch;

/* Welch's test of x[0..nx) against y[0..ny) (values finite; nx, ny >= 2)
 * at confidence level (0 < level < 1) for the interval of mean_y - mean_x.
 * When both variances are 0: se 0, df = nx + ny - 2, the interval the
 * point diff, p 1 if diff = 0 else 0. Errors: AB_STATS_EINVAL (NULL, fewer
 * than 2 values in either sample, bad level), AB_STATS_ENONFINITE. */
int ab_welch_t(const double *x, size_t nx, const double *y, size_t ny, double level,
               ab_welch *out);

/* As ab_welch_t, with df = min(nx, ny) - 1 for p and the interval (the
 * statistic and se unchanged; df_satterthwaite still set): Hsu's (1938,
 * Statistical Research Memoirs 2, 1-24) conservative solution of the
 * Behrens-Fisher problem, whose test and interval hold their level for
 * normal samples whatever the ratio of the variances (Mickey & Brown 1966,
 * Ann. Math. Statist. 37, 639-642, bound the statistic's distribution by
 * Student's t with that df). When both variances are 0, as ab_welch_t.
 * Errors as ab_welch_t. */
int ab_welch_t_conservative(const double *x, size_t nx, const double *y, size_t ny, double level,
                            ab_welch *out);

#ifdef __cplusplus
}
#endif

#endif /* ATTNBENCH_WELCH_H */
