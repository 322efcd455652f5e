/*
 * aa_samples.h: the A/A calibration samples of one environment, as the
 * analysis needs them (src/analysis/resolution.h, src/analysis/calibration.h):
 * every measurement of the environment's complete A/A calibration runs
 * (experiments named "*-calibration") with its unthrottled samples, and the
 * environment's latest calibration run loaded whole. db/ only reads; what
 * is computed from them is the analysis's.
 */
#ifndef ATTNBENCH_AA_SAMPLES_H
#define ATTNBENCH_AA_SAMPLES_H

#include "clocks.h"
#include "rundata.h"

#include <sqlite3.h>
#include <stddef.h>

/* One measurement of an A/A calibration run. */
typedef struct ab_aa_row {
    long long id, run;  /* measurement, run */
    char cfg[96];       /* "B,H,S,D,causal,dtype,H_kv,S_kv" */
    char mode[16];      /* its timing mode */
    double *ms;         /* unthrottled samples (ms), malloc'd */
    int *round;         /* their rounds, malloc'd */
    size_t n;
} ab_aa_row;

/* One A/A calibration run loaded whole, as its own analysis reads it. */
typedef struct ab_aa_run {
    long long run_id;
    char *definition;      /* the stored experiment text (malloc'd); NULL when the run
                              has none or no timing mode */
    ab_rmeas *m;           /* ab_run_load's measurements with samples */
    ab_clock_summary *clk; /* clk[i]: m[i]'s clock summary */
    size_t n;
} ab_aa_run;

typedef struct ab_aa_samples {
    /* ok measurements of every complete calibration run of the environment,
     * ordered by run, configuration text, instance number (the k of
     * "variant#k"), measurement id; empty on a database error */
    ab_aa_row *rows;
    size_t n;
    /* the environment's latest complete calibration run (read.h,
     * ab_calibration_run_for_env): cal_status 0 loaded into cal, 1 none,
     * -1 database error (printed) */
    int cal_status;
    ab_aa_run cal;
} ab_aa_samples;

/* Loads the A/A samples of the environment with hash env_hash (NULL: none)
 * into *out (zeroed first). Returns 0; the parts that failed to load are
 * empty (rows) or marked (cal_status -1). Free with ab_aa_samples_free. */
int ab_aa_samples_load(sqlite3 *db, const char *env_hash, ab_aa_samples *out);
void ab_aa_samples_free(ab_aa_samples *a);

/* Loads calibration run run_id whole into *out (zeroed first): its stored
 * experiment, measurements with samples and clock summaries. Returns 0, or
 * -1 with an error printed. Free with ab_aa_run_free. */
int ab_aa_run_load(sqlite3 *db, long long run_id, ab_aa_run *out);
void ab_aa_run_free(ab_aa_run *r);

/* The environment hash and timing mode of measurement measurement_id
 * (env, mode of 64 and 16 bytes): 0, or -1 when it has none or on a
 * database error. */
int ab_measurement_env_mode(sqlite3 *db, long long measurement_id, char *env, char *mode);

#endif
