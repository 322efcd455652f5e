/*
 * store.h: attnbench's SQLite store. One file holds every run: the
 * environment fingerprints, experiment definitions, runs, measurements and
 * every raw latency sample (one row each, so plain SQL can read the arrays).
 *
 * The schema is created and migrated by version (PRAGMA user_version, see
 * schema.c); connections use WAL and enforce foreign keys. Each measurement
 * is written in its own transaction as soon as it finishes, so an interrupted
 * or failed run keeps everything measured before the failure.
 *
 * All functions return 0 on success or -1 with a one-line message in `err`
 * (sized AB_ERR); they never exit.
 */
#ifndef ATTNBENCH_STORE_H
#define ATTNBENCH_STORE_H

#include <sqlite3.h>
#include <stddef.h>

#include "ab_id.h"

#include "variant.h"

#define AB_ERR 1024

/* How long a connection waits for another writer (sqlite3_busy_timeout),
 * and how many more times ab_db_begin tries after that. */
#define AB_DB_BUSY_MS 10000
#define AB_DB_RETRIES 5

/* BEGIN IMMEDIATE: takes the database's write lock, waiting for other
 * writers (busy timeout, then up to AB_DB_RETRIES more tries, each said on
 * stderr). Returns 0, or -1 with "FILE: database is locked by another
 * process (waited N s ...)" in err. */
int ab_db_begin(sqlite3 *db, char *err);

/* Installs SQLite's error log (call before any other SQLite call): it keeps
 * the first corruption, I/O error or "not a database" of the process. */
void ab_db_init(void);

/* -1 with "FILE: the database is damaged (...)" in err when SQLite reported
 * corruption or an I/O error since ab_db_init, whether or not the caller
 * noticed (-2, err untouched, on later calls: already said); 0 otherwise.
 * main() checks it before exiting. */
int ab_db_damage(char *err);

/* PRAGMA SCHEMA.quick_check(1) on db (schema "main", or an attached one),
 * SQLite's structural check of every page (sqlite.org/pragma.html
 * #pragma_quick_check: integrity_check without the index contents; a few
 * ms per MB). 0 when it says "ok"; else -1 with "PATH: the database is
 * damaged (...)" in err, which is then the only message ab_db_damage lets
 * through for the damage. */
int ab_db_quick_check(sqlite3 *db, const char *schema, const char *path, char *err);

/* Current schema version (PRAGMA user_version after migration). */
int ab_db_schema_version(void);

/* Opens (creating if needed) the database at path and migrates it to the
 * current schema. readonly: open with SQLITE_OPEN_READONLY, refuse a file
 * that does not exist, and never write the file: one with an older schema
 * is read through a private in-memory copy migrated to the current schema
 * (query-only; ab_db_name still names the file); the file must pass
 * ab_db_quick_check. Fails on a file that is not a SQLite database ("file
 * is not a database"), is damaged, has a negative user_version, or is
 * newer than this build. */
int ab_db_open(const char *path, int readonly, sqlite3 **db, char *err);
void ab_db_close(sqlite3 *db);

/* Registers fn to be called with a handle just before ab_db_close closes
 * it, so that a module caching per-handle data forgets it without store.c
 * depending on that module (at most 8 functions; one registered twice is
 * kept once). Returns 0, or -1 when the table is full. */
int ab_db_on_close(void (*fn)(sqlite3 *db));

/* Inserts the environment (fingerprint JSON text, its hash) unless a row
 * with that hash exists; returns its id either way. */
int ab_db_put_environment(sqlite3 *db, const char *hash, const char *fingerprint,
                          ab_id *id, char *err);

/* Same for an experiment definition (name, path as given, file text, hash). */
int ab_db_put_experiment(sqlite3 *db, const char *name, const char *path, const char *text,
                         const char *hash, ab_id *id, char *err);

/* Starts a run: status 'running', started_at = now (UTC, ISO 8601), the
 * command line that reproduces it. A fresh random uuid gives the run an
 * identity that survives export and import. */
int ab_db_begin_run(sqlite3 *db, ab_id experiment_id, ab_id environment_id,
                    const char *command, const char *timing_mode, ab_id *run_id,
                    char *err);

/* Resumes run_id: status 'running' again, finished_at cleared, this
 * process recorded as the one running it (host, PID, start time, boot id;
 * ab_db_begin_run records them for a new run). Exclusive: in one write
 * transaction, refused (-1, err "resume: run N is still running (process P
 * on this host)", nothing changed) when the run is 'running' and its
 * recorded process is alive on this host, as after another resume took it
 * first. Returns 0, or -1 with err (AB_ERR). */
int ab_db_resume_run(sqlite3 *db, ab_id run_id, char *err);

/* 1 when run_id has a measurement of variant at shape s (any status), 0
 * when not, -1 on a database error. */
int ab_db_has_measurement(sqlite3 *db, ab_id run_id, const char *variant,
                          const ab_shape *s, char *err);

/* The run's measurements: all of them and those with status 'ok'. */
int ab_db_count_measurements(sqlite3 *db, ab_id run_id, long *all, long *ok, char *err);

/* -1 with a message naming the file when the database db was opened on
 * (read-write) has since been removed or replaced by another file (another
 * inode); 0 otherwise. ab_db_put_measurement checks it first. */
int ab_db_check_file(sqlite3 *db, char *err);

/* Ends a run: status one of 'complete', 'failed', 'interrupted';
 * finished_at = now. */
int ab_db_end_run(sqlite3 *db, ab_id run_id, const char *status, char *err);

/* The check of one gradient of a backward pass (kernels/check.h
 * ab_grad_check holds how each figure is computed). */
typedef struct ab_grad_row {
    const char *grad;        /* "dQ", "dK", "dV" */
    double max_abs_err, rel_l2_err, plain_max_abs_err, atol, tolerance, ref_absmax;
    long nonfinite, elems;
    int pass;
} ab_grad_row;

/* One measurement: a (variant, configuration) of a run and its outcome. */
typedef struct ab_measurement {
    ab_id run_id;
    const char *variant, *backend;
    ab_shape shape;
    int warmup;
    const char *timing_mode;
    int graph_k;
    const char *status;     /* 'ok', 'failed' (correctness), 'error' (did not run) */
    const char *message;    /* why, for failed/error; NULL otherwise */
    int checked;            /* correctness figures present */
    double max_abs_err, mean_abs_err, rel_l2_err, tolerance;
    long nonfinite, rows_checked;
    double flops, bytes;    /* per timed pass (ab_attention_flops, ab_attention_bytes) */
    double peak_bytes;      /* device (or host) bytes the variant needed */
    const char *stop_reason; /* 'fixed', 'converged', 'max_samples', 'budget' */
    int external;
    const char *adapter_env; /* JSON of an external adapter, or NULL */
    const char *stderr_text; /* adapter's stderr, or NULL */
    int input_sets;         /* copies of Q, K, V, O rotated in hot/graph mode (>= 1) */
    const ab_grad_row *grads; /* checked backward: one row per gradient, or NULL */
    int ngrads;
} ab_measurement;

/* One latency sample. */
typedef struct ab_sample {
    double ms;
    int round;        /* interleaving round it was taken in */
    double t_s;       /* seconds since the run started, when it was taken */
    int throttled;    /* NVML reported a throttle reason during its block */
} ab_sample;

/* NVML's view of one block of samples (readings before and after it). */
typedef struct ab_clock_block {
    int round;
    size_t first_idx, n;
    int sm_mhz_before, sm_mhz_after, mem_mhz, temp_c;
    double power_w;
    long long reasons;
    int throttled, power_capped;
} ab_clock_block;

/* Writes m (with its gradient checks, if any), its samples and its clock
 * blocks (may be 0) in one transaction;
 * *id gets the measurement id. */
int ab_db_put_measurement(sqlite3 *db, const ab_measurement *m, const ab_sample *s, size_t n,
                          const ab_clock_block *cb, size_t ncb, ab_id *id, char *err);

/* Records the timer floor of one mode for a run. */
int ab_db_put_timer_floor(sqlite3 *db, ab_id run_id, const char *mode, size_t n,
                          double median_ms, char *err);

/* Records the machine's ceilings measured at the run's start. */
int ab_db_set_peaks(sqlite3 *db, ab_id run_id, double gemm_tflops, double copy_gbs,
                    char *err);

/* Marks whether the run's clocks were monitored through NVML. */
int ab_db_set_clocks_monitored(sqlite3 *db, ab_id run_id, int yes, char *err);

/* Loads the samples (ms) of a measurement in index order; *ms is malloc'd.
 * include_throttled: 0 leaves out samples flagged throttled. */
int ab_db_samples(sqlite3 *db, ab_id measurement_id, int include_throttled,
                  double **ms, size_t *n, char *err);

/* The file name of db's main database (absolute, as SQLite resolved it), or
 * "database" (in-memory): what error messages name. */
const char *ab_db_name(sqlite3 *db);

#endif
