/*
 * report_internal.h: what the two writers of a run's report share (the
 * markdown of report.c, the JSON of report_json.c): both print the one
 * analysis (src/analysis/run_analysis.h) of the one record
 * (db/run_record.h), so that both print the same numbers.
 */
#ifndef ATTNBENCH_REPORT_INTERNAL_H
#define ATTNBENCH_REPORT_INTERNAL_H

#include "run_analysis.h"
#include "run_record.h"

#include <jansson.h>
#include <stdio.h>

/* Writes the JSON report (report.h, --json) of the comparisons and the
 * per-variant summaries, with the members of sections (the run record,
 * fingerprint, settings, calibration, wall time, check coverage,
 * conclusion; may be NULL) copied into its top level. Returns 0 or -1
 * (printed). */
int ab_report_json(FILE *out, long long run_id, const char *experiment, const char *baseline,
                   ab_rep_meas *const *sorted, size_t n, const ab_rep_cmp *cmps, size_t ncmp,
                   double alpha, double practical, json_t *sections);

/* The sections `report --json` carries beside the comparisons and the
 * summaries, from the run's record and analysis: "run_record",
 * "fingerprint" (fp, may be NULL), "settings" (may be NULL), "calibration",
 * "wall_time", "check_coverage", "conclusion", "provenance",
 * "timer_floor", "clocks", "aa_calibration_table", "walltime"
 * (walltime_report.h, ab_walltime_json; null for runs before it was
 * recorded) and "sampling" (the GPU-time budget from the run's settings;
 * null for runs before it). A new reference, NULL when out of memory. */
json_t *ab_report_json_sections(const ab_run_record *rec, const ab_run_analysis *an,
                                json_t *fp, json_t *settings);

#endif
