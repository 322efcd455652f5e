/*
 * median_ci.h: the confidence interval of one measurement's median that
 * every command prints (median_ci.c): `show`, `report` and `report --json`
 * give the same interval, under the same name, for the same samples.
 */
#ifndef ATTNBENCH_ANALYSIS_MEDIAN_CI_H
#define ATTNBENCH_ANALYSIS_MEDIAN_CI_H

#include "abstats.h"
#include "rundata.h"

#include <stddef.h>

/* CI at o->level of the median of x[0..n) (ms), round[i] the round of x[i]
 * (NULL: none) and rounds the distinct rounds: with >= 2 rounds the cluster
 * bootstrap over rounds (stats/rounds.h, ab_rounds_median_ci, with
 * AB_ROUND_RESAMPLES resamples and o->seed), else ab_median_ci (order
 * statistics below 30 samples, else the bootstrap o->method). *over_rounds
 * (may be NULL) gets 1 for the cluster bootstrap; *name (may be NULL) a
 * static description ("cluster bootstrap over rounds", or
 * ab_median_ci_name's). Returns AB_STATS_OK or the status of the method
 * (then *lo, *hi are NAN). */
int ab_measurement_median_ci(const double *x, const int *round, size_t n, int rounds,
                             const ab_boot_opts *o, double *lo, double *hi, int *over_rounds,
                             const char **name);

/* The median (ms) of measurement x when it was measured ok with at least 2
 * samples (stats/ ab_summarize): 0 with *median, else -1. */
int ab_measurement_median(const ab_rmeas *x, double *median);

/* The same with its CI (ab_measurement_median_ci over x's samples and
 * rounds): 0 with *median, *lo, *hi and *over_rounds, else -1 (x not
 * usable, or the method failed). */
int ab_measurement_median_with_ci(const ab_rmeas *x, const ab_boot_opts *o, double *median,
                                  double *lo, double *hi, int *over_rounds);

#endif /* ATTNBENCH_ANALYSIS_MEDIAN_CI_H */
