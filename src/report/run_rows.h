/*
 * run_rows.h: rows of the report's "Run" table from the run's stored
 * settings (threads, affinity, load, the GPU-time budget, tuning and hold
 * variables) and its shard, written from the loaded run record
 * (db/run_record.h).
 */
#ifndef ATTNBENCH_RUN_ROWS_H
#define ATTNBENCH_RUN_ROWS_H

#include "run_record.h"

#include <jansson.h>
#include <stdio.h>

/* Prints the Run-table rows for the run settings s (the run's settings
 * JSON, src/run/runenv.h: "| CPU threads, affinity, load | ...", with a
 * warning when the load average shows other work competing for the CPUs
 * the run's threads had); nothing when s is NULL (older runs), so their
 * reports are unchanged. */
void ab_report_settings_rows(FILE *out, const json_t *s);

/* The row for a run of one part ("| shard | part K of N ... |"), nothing
 * for a run of the whole experiment. */
void ab_report_shard_row(FILE *out, const ab_run_record *rec);

#endif
