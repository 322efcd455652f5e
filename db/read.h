/*
 * read.h: the read API of the store for reports and commands: what a run
 * recorded besides its samples (rundata.h loads those): each measurement's
 * check and setup columns, the timer floors, the clock-block totals. Every
 * query of the report's load path lives here, so report/ holds no SQL.
 */
#ifndef ATTNBENCH_READ_H
#define ATTNBENCH_READ_H

#include "rundata.h"

#include <sqlite3.h>
#include <stddef.h>

/* One measurement's columns that only reports show (measurements table). */
typedef struct ab_meas_detail {
    char backend[32], mode[8]; /* backend; timing_mode ("" when NULL) */
    char *message;             /* malloc'd, "" when NULL; ab_meas_details_free frees it */
    int checked, external, warmup, graph_k, input_sets;
    double max_abs_err, mean_abs_err, rel_l2_err, tolerance, bytes;
    double peak_bytes;         /* 0 when NULL */
    long nonfinite;               /* 0 when NULL */
    long rows_checked;            /* -1 when NULL: the variant did not report it */
} ab_meas_detail;

/* Fills out[0..n) with the details of run run_id's measurements in id order
 * (the order of ab_run_load), at most n of them; *got: how many rows were
 * read. Returns 0, or -1 after printing an error. */
int ab_meas_details_load(sqlite3 *db, long long run_id, ab_meas_detail *out, size_t n,
                         size_t *got);

/* Frees the messages of d[0..n). */
void ab_meas_details_free(ab_meas_detail *d, size_t n);

/* The run's timer floor (median of empty-kernel samples, ms) in timing mode
 * `mode`, 0 when not measured (CPU variants, runs before the floor was
 * recorded) or on a database error. */
double ab_timer_floor_ms(sqlite3 *db, long long run_id, const char *mode);

/* One timer floor of a run. */
typedef struct ab_timer_floor_row {
    char mode[16];     /* timing mode */
    double median_ms;  /* median of the empty kernel's samples */
    long long n;       /* samples */
} ab_timer_floor_row;

/* The run's timer floors ordered by timing mode, at most max of them, into
 * rows; returns how many, or -1 on a database error. */
int ab_timer_floors_load(sqlite3 *db, long long run_id, ab_timer_floor_row *rows, int max);

/* The totals of a run's clock blocks (NVML readings around each block of
 * samples). */
typedef struct ab_clock_totals {
    long long blocks, throttled, power_capped;
    int sm_mhz_min, sm_mhz_max, mem_mhz_min, mem_mhz_max, temp_c_max; /* 0 when NULL */
    double power_w_max;
} ab_clock_totals;

/* Fills *out for run run_id. Returns 0, or -1 on a database error. */
int ab_clock_totals_load(sqlite3 *db, long long run_id, ab_clock_totals *out);

/* A run's row with its experiment and environment, as a report heads it.
 * Every string is malloc'd ("" for NULL); ab_run_header_free frees them. */
typedef struct ab_run_header {
    char *uuid, *started, *finished; /* finished: "—" while unfinished */
    char *status;     /* ab_run_status(): 'running' only while its process lives */
    char *command, *mode; /* the command line; the run's timing mode */
    char *exp_path, *definition, *exp_hash; /* the experiment file's path, text, hash */
    char *fingerprint, *env_hash; /* the environment's fingerprint (JSON text) and hash */
    int monitored;    /* clocks monitored (NVML) */
    double peak_gemm_tflops, peak_copy_gbs; /* 0 when not measured */
    char *exp_name;   /* the experiment's name */
} ab_run_header;

/* Loads run run_id's header into *h. Returns 0; or -1 after printing an
 * error (a database error, or "no run N in the database"), *h then holding
 * no allocation. */
int ab_run_header_load(sqlite3 *db, long long run_id, ab_run_header *h);

/* Frees h's strings (the pointers, not h). */
void ab_run_header_free(ab_run_header *h);

/* One external variant's own environment (the adapter's `env` JSON text),
 * one per distinct (variant, env). */
typedef struct ab_adapter_env {
    char *variant, *env; /* malloc'd */
} ab_adapter_env;

/* Loads the distinct (variant, adapter environment JSON text) of run
 * run_id's external measurements, in order of first measurement, into *out
 * (malloc'd, *n of them). Returns 0, or -1 on a database error or out of
 * memory (what was read stays in *out). Free with ab_adapter_envs_free. */
int ab_adapter_envs_load(sqlite3 *db, long long run_id, ab_adapter_env **out, size_t *n);
void ab_adapter_envs_free(ab_adapter_env *v, size_t n);

/* What the run's measurements of one variant hold of its adapter: the
 * first non-null adapter_env (JSON text, NULL when none) and how many
 * distinct ones. */
typedef struct ab_variant_env {
    char *variant, *first; /* malloc'd; first may be NULL */
    long long distinct;
} ab_variant_env;

/* Loads one ab_variant_env per variant measured in run run_id into *out
 * (malloc'd, *n of them). Returns 0, or -1 with err (AB_ERR bytes) on a
 * database error or out of memory. Free with ab_variant_envs_free. */
int ab_variant_envs_load(sqlite3 *db, long long run_id, ab_variant_env **out, size_t *n,
                         char *err);
void ab_variant_envs_free(ab_variant_env *v, size_t n);

/* Run run_id's experiment as stored: the file's path, its text and the
 * run's timing mode (each malloc'd, "" for NULL; a NULL pointer argument
 * skips that field). Returns 0; 1 when there is no such run (nothing
 * allocated); -1 on a database error with the message in err (AB_ERR
 * bytes). */
int ab_run_experiment_load(sqlite3 *db, long long run_id, char **path, char **definition,
                           char **timing_mode, char *err);

/* The name of run run_id's experiment into name (n bytes). Returns 0; 1
 * when there is no such run; -1 on a database error with the message in
 * err (AB_ERR bytes). */
int ab_run_experiment_name(sqlite3 *db, long long run_id, char *name, size_t n, char *err);

/* The fingerprint (JSON text, malloc'd) of run run_id's environment, or
 * NULL when there is no such run or on a database error. */
char *ab_run_fingerprint_text(sqlite3 *db, long long run_id);

/* One point of a history series: an ok measurement of one variant at one
 * configuration in one run (`attnbench history`). */
typedef struct ab_history_point {
    long long run, mid;  /* run id, measurement id */
    char date[32], commit[48], gpu[64], env[20]; /* run start; build commit ("?"), GPU
                                                    name ("CPU only"), environment hash */
    int causal;
    char dtype[8];
    char *fp;            /* the environment's fingerprint, JSON text (malloc'd) */
} ab_history_point;

/* Every ok measurement of variant at configurations matching pat
 * (rundata.h; pat->causal < 0 and pat->dtype "" match any), the variant's
 * instances "variant#k" (k decimal digits; `instances`) included, ordered
 * by run start, run id, then measurement id (a run's instances adjacent),
 * into *out (malloc'd, *n of them; free each fp, then
 * the array). Returns 0 (*out NULL after running out of memory, *n 0); or
 * -1 on a database error with the message in err (AB_ERR bytes). */
int ab_history_load(sqlite3 *db, const char *variant, const ab_config_pat *pat,
                    ab_history_point **out, size_t *n, char *err);

/* The latest complete A/A calibration run (experiment "<name>-calibration")
 * in the environment with hash env_hash: 0 and *run set (0 when there is
 * none), or -1 on a database error. */
int ab_calibration_run_for_env(sqlite3 *db, const char *env_hash, long long *run);

/* The correctness-check coverage of a run's checked measurements. */
typedef struct ab_check_coverage {
    long long n;              /* checked measurements with row counts */
    long long rows_checked;   /* rows compared, all of them */
    long long nsampled;       /* measurements whose check sampled rows (a seed) */
    long long sampled_checked, sampled_total; /* rows compared / rows, sampled ones */
    double max_escape;        /* max over sampled of 1 - rows checked / rows */
    char *seeds;              /* the distinct seeds, comma-separated (malloc'd, "" if none) */
} ab_check_coverage;

/* Fills *c for run run_id: 0 when the run has checked measurements with
 * row counts (free c->seeds), 1 when it has none or the database predates
 * the columns (nothing allocated). */
int ab_check_coverage_load(sqlite3 *db, long long run_id, ab_check_coverage *c);

/* One gradient's check of a backward measurement (grad_checks). */
typedef struct ab_grad_entry {
    long long measurement_id;
    char variant[64];
    ab_rmeas cfg;                 /* its configuration (shape fields, dtype, pass; no samples) */
    char grad[4];                 /* "dQ", "dK", "dV" */
    double max_abs_err, rel_l2_err, plain_max_abs_err, tolerance;
    long long nonfinite;
    int pass;
} ab_grad_entry;

/* The gradient checks of run run_id, by measurement id then dQ, dK, dV,
 * into *out (malloc'd, *n entries; NULL and 0 when there are none or the
 * database predates the table). Returns 0, or -1 with err. */
int ab_grad_checks_load(sqlite3 *db, long long run_id, ab_grad_entry **out, size_t *n, char *err);

#endif
