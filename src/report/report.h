/*
 * report.h: the markdown ablation report of one run. Every number in it is
 * read from the database and recomputed by the statistics module with fixed
 * seeds, and it carries no clock time of its own making, so regenerating a
 * report from the same database gives the same bytes.
 */
#ifndef ATTNBENCH_REPORT_H
#define ATTNBENCH_REPORT_H

#include <sqlite3.h>
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

/* Writes the report of run_id to out. Returns 0, or -1 with a message
 * printed (unknown run, unknown baseline, database error). */
int ab_report_write(sqlite3 *db, long long run_id, const ab_report_opts *o, FILE *out);

#endif
