/*
 * runlist.h: lists of runs read from the store: the runs matching the
 * filters of `attnbench runs`, and the runs of one experiment (by the hash
 * of its file) grouped by the split they ran, for `attnbench status`.
 * Each list goes row by row to a callback; strings a row points
 * to live until the callback returns.
 */
#ifndef ATTNBENCH_RUNLIST_H
#define ATTNBENCH_RUNLIST_H

#include <sqlite3.h>

/* Filters of ab_runs_each; a NULL field matches every run. */
typedef struct ab_run_filter {
    const char *experiment; /* the experiment's name, exactly */
    const char *variant;    /* a variant the run measured (or its instances V#k) */
    const char *gpu;        /* case-insensitive substring of the GPU name ("CPU only" without) */
    const char *since;      /* YYYY-MM-DD: runs started on or after it (UTC) */
    const char *commit;     /* prefix of the build commit in the fingerprint */
} ab_run_filter;

/* One run as `attnbench runs` lists it. */
typedef struct ab_run_row {
    long long id;
    const char *uuid, *experiment, *started; /* "" for NULL */
    const char *finished;    /* NULL while unfinished */
    const char *status;      /* ab_run_status(): 'running' only while its process lives */
    const char *gpu;         /* fingerprint's GPU name, "CPU only" without one */
    const char *commit;      /* fingerprint's build commit, NULL when unrecorded */
    const char *env_hash;
    long long measurements, not_ok; /* measurements; those whose status is not ok */
} ab_run_row;

/* Calls fn(arg, row) for each run matching f, in id order; a nonzero return
 * of fn stops the list and is returned. Returns 0, fn's nonzero, or -1 on a
 * database error with the message in err (AB_ERR bytes). */
int ab_runs_each(sqlite3 *db, const ab_run_filter *f,
                 int (*fn)(void *arg, const ab_run_row *r), void *arg, char *err);

/* The splits of the experiment with hash `hash` (exp_canon.h) that the
 * database holds runs of (runs.shard_n, 0 for whole-experiment runs;
 * matched by the stored experiment's hash, the run's shard_hash, or the
 * hash of the stored definition, so that runs stored under the older hash
 * of the file's bytes, or from a copy with other comments, are found),
 * ascending, at most max of
 * them into splits; *n: how many. Returns 0, or -1 on a database error
 * (err, AB_ERR bytes). */
int ab_experiment_splits(sqlite3 *db, const char *hash, int *splits, int max, int *n, char *err);

/* One run of one part of a split experiment. */
typedef struct ab_part_run {
    long long id;
    int shard_k;              /* 1-based part; 1 for a whole-experiment run */
    const char *status;       /* as stored (liveness.h's ab_run_status_shown reads it) */
    const char *worker;       /* NULL when unlabelled */
    const char *host, *proc_start, *boot_id; /* the process that ran it (NULL if unknown) */
    long pid;
    long measurements;
} ab_part_run;

/* Calls fn(arg, run) for each run of the experiment with hash `hash`
 * (matched as by ab_experiment_splits) that ran split split_n (0: whole-experiment runs), in id order; a nonzero
 * return of fn stops and is returned. Returns 0, fn's nonzero, or -1 on a
 * database error (err, AB_ERR bytes). */
int ab_experiment_part_runs_each(sqlite3 *db, const char *hash, int split_n,
                                 int (*fn)(void *arg, const ab_part_run *r), void *arg,
                                 char *err);

#endif
