/*
 * report.h: the markdown ablation report of one run, and its JSON form.
 * Every number in it is read from the database once (db/run_record.h),
 * recomputed by the analysis with fixed seeds (src/analysis/run_analysis.h)
 * and only written here; it carries no clock time of its own making, so
 * regenerating a report from the same database gives the same bytes.
 */
#ifndef ATTNBENCH_REPORT_H
#define ATTNBENCH_REPORT_H

#include "run_analysis.h"
#include "run_record.h"

#include <stdio.h>

typedef struct ab_report_opts {
    const char *baseline;   /* NULL: the experiment's baseline, else its first variant */
    int chain;              /* also compare each variant with the one listed before it */
    const char *db_label;   /* how the report names the database (e.g. its file name) */
    int plots;              /* append a "## Plots" section with gnuplot figures (plot.h) */
    const char *path;       /* where the report goes (its images go beside it); NULL or "-": stdout */
    int by_clock;           /* add latency normalised to the run's highest SM clock */
    int json;               /* write the JSON report (comparisons, summaries) instead */
} ab_report_opts;

/* Writes the report of the run in rec, analysed in an (with o's baseline,
 * chain and by_clock), to out: markdown, or the JSON report with o->json;
 * with o->plots the figures beside o->path. Returns 0, or -1 with a
 * message printed (out of memory). */
int ab_report_write(const ab_run_record *rec, const ab_run_analysis *an, const ab_report_opts *o,
                    FILE *out);

#endif
