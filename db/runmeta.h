/*
 * runmeta.h: columns of a run's row that are written after the run starts
 * and read back by commands: its run settings (threads, affinity, load,
 * environment; runenv.h builds them), the part of a split experiment it
 * measured and its worker label (shard.h), and what `attnbench resume`
 * needs to restart it.
 */
#ifndef ATTNBENCH_RUNMETA_H
#define ATTNBENCH_RUNMETA_H

#include <sqlite3.h>

/* Stores json_text (a JSON object) as run run_id's run settings, replacing
 * them. 0, or -1 with err (AB_ERR bytes). */
int ab_run_settings_store(sqlite3 *db, long long run_id, const char *json_text, char *err);

/* Sets key `path` (an SQLite JSON path, e.g. "$.load_avg_end") of run
 * run_id's stored run settings to the JSON value json_value; nothing when the
 * run has no settings. 0, or -1 with err (AB_ERR bytes). */
int ab_run_settings_set(sqlite3 *db, long long run_id, const char *path,
                        const char *json_value, char *err);

/* Run run_id's run settings (JSON text, malloc'd), or NULL when it has none,
 * the database predates the column, or on a database error. */
char *ab_run_settings_text(sqlite3 *db, long long run_id);

/* Stores the part k of n of the experiment with file hash `hash` (n 0:
 * not split, the three columns stay NULL) and the worker label (NULL: none)
 * with run run_id. 0, or -1 with err (AB_ERR bytes). */
int ab_run_shard_store(sqlite3 *db, long long run_id, int k, int n, const char *hash,
                       const char *worker, char *err);

/* The part of run run_id: 1 with *k, *n set when it ran one part of a split
 * experiment, 0 when it ran the whole experiment (or there is no such run),
 * -1 on a database error (err, AB_ERR bytes). */
int ab_run_shard_load(sqlite3 *db, long long run_id, int *k, int *n, char *err);

/* The part of a run as a report states it. */
typedef struct ab_run_shard_info {
    int k, n;          /* part k of n */
    char hash[72];     /* the split experiment's file hash */
    char worker[128];  /* "" when unlabelled */
    int has_worker;
    char exp_path[1024]; /* the experiment file's path */
    int others;        /* other runs of the same split in the database */
} ab_run_shard_info;

/* Fills *s for run run_id: 1 when the run measured one part, 0 when it ran
 * the whole experiment, there is no such run, or the database predates the
 * shard columns (not an error). */
int ab_run_shard_info_load(sqlite3 *db, long long run_id, ab_run_shard_info *s);

/* What `attnbench resume` reads of a run: its stored status, the process
 * that ran it, its experiment (path and text as stored) and its command
 * line. Strings malloc'd ("" for NULL); ab_run_resume_row_free frees them. */
typedef struct ab_run_resume_row {
    char *status, *host, *proc_start, *boot_id, *exp_path, *definition, *command;
    long pid;
} ab_run_resume_row;

/* Loads run run_id into *r. Returns 0; 1 when there is no such run (nothing
 * allocated); -1 on a database error or out of memory with the message in
 * err (AB_ERR bytes), nothing allocated. */
int ab_run_resume_row_load(sqlite3 *db, long long run_id, ab_run_resume_row *r, char *err);

/* Frees r's strings (not r). */
void ab_run_resume_row_free(ab_run_resume_row *r);

#endif
