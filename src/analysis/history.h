/*
 * history.h: the analysis of one measurement across runs (`attnbench
 * history`, history.c): each run's median with its bootstrap CI, the
 * between-run spread, and the runs where performance moved, by airspeed
 * velocity's step detection (stats/changepoint.h: Friedrich et al. 2008's
 * L1 Potts fit, gamma by asv's information criterion), weighted as asv
 * weights points: by the inverse width of each median's CI, the
 * between-run spread added in quadrature; steps smaller than the practical
 * threshold merged (in the spirit of the threshold of asv's
 * detect_regressions).
 */
#ifndef ATTNBENCH_ANALYSIS_HISTORY_H
#define ATTNBENCH_ANALYSIS_HISTORY_H

#include "abstats.h"
#include "between_runs.h"
#include "changepoint.h"
#include "instances.h"

#include <stddef.h>

/* One run's point: the median of its samples ms[0..k) (ms) and its CI
 * (ab_bootstrap_median_ci with o). Returns 0, or -1 with fewer than 2
 * samples or when a method fails. */
int ab_history_point_summary(const double *ms, size_t k, const ab_boot_opts *o, double *median,
                             double *lo, double *hi);

/* One run's point when it measured the variant as k >= 2 instances
 * s[0..k) (instances.h): the median of their samples pooled, and around it
 * the interval of the run's level over its instances, median x exp(-/+
 * t_{k-1,(1+level)/2} sd / sqrt(k)), sd that of the instance levels (the
 * mean log settled per-round medians; ab_instances_level_ci): the instance
 * is the unit of the run's uncertainty, as in the run's own comparisons.
 * Returns 0, or -1 when a level or the pooled median cannot be computed. */
int ab_history_point_instances(const ab_instance_sample *s, size_t k, double level,
                               double *median, double *lo, double *hi);

typedef struct ab_history_fit {
    int have_br;        /* the between-run spread was measured (>= AB_BETWEEN_RUNS_MIN runs) */
    ab_between_runs br; /* ab_between_runs_sd_steps of the medians */
    ab_steps steps;     /* the levels after merging steps under `practical` */
} ab_history_fit;

/* Fits the series median[0..n) (ms, run order) with CIs [lo[i], hi[i]]:
 * weights 1 / (CI width, with the between-run 95% width 2 x 1.96 x sd x
 * median added in quadrature), asv's step detection, then the adjacent
 * pair with the smallest relative step merged (its level the median of
 * its points) until every step is at least `practical`. Returns
 * AB_STATS_OK (free with ab_history_fit_free) or the step detection's
 * status. */
int ab_history_fit_series(const double *median, const double *lo, const double *hi, size_t n,
                          double practical, ab_history_fit *out);
void ab_history_fit_free(ab_history_fit *f);

#endif
