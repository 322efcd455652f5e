/*
 * transfer.h: moving runs between databases without duplicates or lost
 * rows: the JSON export of one run and its import, the CSV export, and the
 * merge of another database (transfer.c; the commands: cli/cmd_export.c,
 * cli/cmd_import.c).
 *
 * Identity: a run is its uuid (runs.uuid); environments and experiments are
 * their hashes. Importing or merging a run whose uuid is already present
 * does nothing, so doing it twice is a no-op; everything else gets new ids
 * in the receiving database (ids are never copied). Each run is written in
 * one transaction: it arrives whole or not at all. A run carries every
 * table of the schema that belongs to it: runs, timer_floor, run_walltime,
 * measurements, samples, clock_blocks, grad_checks.
 */
#ifndef ATTNBENCH_TRANSFER_H
#define ATTNBENCH_TRANSFER_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>

#define AB_EXPORT_VERSION 1

/* The export object of one run (new reference), or NULL after printing an
 * error. */
json_t *ab_export_run(sqlite3 *db, long long run_id);

/* Writes runs ids[0..n) to out as CSV, one row per sample with its run,
 * measurement and sample columns. Returns 0, or -1 after printing an
 * error. */
int ab_export_csv(sqlite3 *db, const long long *ids, size_t n, FILE *out);

/* Imports one run object of an export. *added: 1 when inserted, 0 when a
 * run with its uuid was already there with the same results (status,
 * measurements, samples). Returns 0, or -1 after printing an error (the
 * transaction is rolled back), also when the run already there has other
 * results (the message names the database's run id). */
int ab_import_run(sqlite3 *db, json_t *run, int *added);

/* Imports every run of an export document doc (read from `file`, named in
 * messages): checked first (ab_import_check), then written in one
 * transaction, runs already present (by uuid) with the same results
 * skipped. Returns 0 with the counts, or -1 after printing an error,
 * nothing written: also when a run already present has other results (its
 * status, a measurement's status or samples differ; the message names the
 * file, the run's place in it and the database's run id). Linear in the
 * size of the file. */
int ab_import_doc(sqlite3 *db, json_t *doc, const char *file, size_t *added, size_t *present);

typedef struct ab_merge_counts {
    long runs_added, runs_present, runs_skipped_running;
    long runs_unfinished; /* of runs_added: 'running' runs of a database without liveness */
} ab_merge_counts;

/* Merges every finished run (status other than 'running', or 'running'
 * whose process is gone: abandoned) of the database at other_path
 * (attached by SQL, schema version 2 or later, PRAGMA quick_check clean)
 * into db; a run still running, or on a host this one cannot see, is
 * skipped and counted. The 'running' runs of a database from before
 * liveness was recorded are merged as they are (counted in
 * runs_unfinished, each said on stderr). Returns 0, or -1 after printing
 * an error; runs merged before an error stay merged. */
int ab_merge_db(sqlite3 *db, const char *other_path, ab_merge_counts *c);

#endif
