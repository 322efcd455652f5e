/*
 * walltime_report.h: the report's account of where a run's wall time went
 * (walltime_report.c), in markdown and as JSON, from db/walltime.h's
 * loaded account.
 */
#ifndef ATTNBENCH_WALLTIME_REPORT_H
#define ATTNBENCH_WALLTIME_REPORT_H

#include "walltime.h"

#include <jansson.h>
#include <stdio.h>

/* The wall-time account as JSON for `report --json`: {"total_s",
 * "timed_share", "phases": {name: seconds}, "variants": [{"variant",
 * "measurements", "phases": {...}, "fixed_s_per_measurement",
 * "first_fixed_s", "later_fixed_s_mean" (null with one measurement),
 * "worst_fixed_s" (the largest later one; null with one), "worst_config",
 * "over_fixed_cost_goal"}], "fixed_cost_goal_s"}. NULL when out of memory. */
json_t *ab_walltime_json(const ab_walltime *w, const ab_walltime_variant *v, size_t n);

/* The report's "Where the time went" section: one row per phase with its
 * seconds and share of the total, the share in timed samples, and what the
 * rest is; then, when n > 0, one row per variant of v (its phases, the
 * fixed cost of its first measurement, the mean and the largest of its
 * later ones and where), flagging each variant with a later measurement
 * whose fixed cost exceeds AB_FIXED_COST_FLAG_S. */
void ab_walltime_report(FILE *out, const ab_walltime *w, const ab_walltime_variant *v, size_t n);

#endif
