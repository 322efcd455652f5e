/*
 * walltime.h: where a run's wall time went. The runner adds up, per run, the
 * seconds spent in each phase (timed samples, the sampling loop around
 * them, warm-up, correctness checks, variant setup, input generation, the
 * run's ceilings and timer floor, external adapters' own overhead, database
 * writes) and stores them with the total in the run_walltime table
 * (db/schema.c); reports print them with the share of the run's wall time
 * that was timed samples (walltime.c).
 */
#ifndef ATTNBENCH_WALLTIME_H
#define ATTNBENCH_WALLTIME_H

#include <sqlite3.h>
#include <stdio.h>

typedef struct ab_walltime {
    double total_s;    /* the run, start to end */
    double timed_s;    /* sum of the samples themselves (ms / 1000, all samples) */
    double sampling_s; /* wall time of the sampling calls (timed samples + launch,
                          synchronisation and NVML reads around them) */
    double warmup_s;   /* warm-up launches */
    double check_s;    /* correctness checks (poison, one run, float64 reference) */
    double setup_s;    /* variant setup and teardown */
    double inputs_s;   /* input generation and upload */
    double ceilings_s; /* timer floor and ceilings at the run's start */
    double adapter_s;  /* external variants: wall time of their processes minus their samples */
    double store_s;    /* writing measurements to the database */
} ab_walltime;

/* Stores w as run_id's wall-time account (replacing any). Returns 0 or -1
 * with a one-line message in err (AB_ERR bytes). */
int ab_walltime_store(sqlite3 *db, long long run_id, const ab_walltime *w, char *err);

/* Loads run_id's account: 0 and *w filled, 1 when the run has none (runs
 * before it was recorded), -1 on a database error (message printed). */
int ab_walltime_load(sqlite3 *db, long long run_id, ab_walltime *w);

/* The report's "Where the time went" section: one row per phase with its
 * seconds and share of the total, the share in timed samples, and what the
 * rest is. */
void ab_walltime_report(FILE *out, const ab_walltime *w);

#endif
