/*
 * run_record.h: one run as the report reads it, loaded from the database
 * once (ab_run_record_load): the run's header (experiment, fingerprint,
 * status, command), its measurements with their unthrottled samples,
 * rounds, details and clock summaries, the timer floors and clock totals,
 * the run's stored settings, wall time, check coverage and gradient
 * checks, the external variants' own environments and each variant's
 * adapter record, its shard, and the A/A samples of its environment
 * (aa_samples.h). Nothing below this load reads the database: the
 * analysis (src/analysis/run_analysis.h) and the writers
 * (src/report/) take this record.
 */
#ifndef ATTNBENCH_RUN_RECORD_H
#define ATTNBENCH_RUN_RECORD_H

#include "aa_samples.h"
#include "clocks.h"
#include "read.h"
#include "runmeta.h"
#include "rundata.h"
#include "walltime.h"

#include <sqlite3.h>
#include <stddef.h>

#define AB_RECORD_MAX_FLOORS 16

typedef struct ab_run_record {
    long long run_id;
    ab_run_header h;             /* read.h */
    /* measurements in id order: samples, rounds, configuration index
     * (rundata.h), the columns only reports show (read.h), clocks */
    ab_rmeas *m;
    ab_meas_detail *d;           /* d[i] for m[i], i < nd */
    size_t nd;
    ab_clock_summary *clk;       /* clk[i] for m[i] */
    size_t n;
    ab_timer_floor_row floors[AB_RECORD_MAX_FLOORS];
    int nfloors;                 /* ab_timer_floors_load's count */
    int have_totals;             /* clocks monitored and their totals read */
    ab_clock_totals totals;
    int max_sm_mhz_status;       /* ab_run_max_sm_mhz's return */
    double max_sm_mhz;
    char *settings;              /* the run's settings, JSON text; NULL for runs before them */
    int walltime_status;         /* ab_walltime_load's return (0 when wall is set) */
    ab_walltime wall;
    int walltime_variants_status; /* ab_walltime_variants_load's return */
    ab_walltime_variant *wv;
    size_t nwv;
    int coverage_status;         /* ab_check_coverage_load's return (0 when cov is set) */
    ab_check_coverage cov;
    int grads_status;            /* ab_grad_checks_load's return; grads_err on -1 */
    char grads_err[1024];
    ab_grad_entry *grads;
    size_t ngrads;
    ab_adapter_env *envs;        /* external variants' own environments (read.h) */
    size_t nenvs;
    int venvs_status;            /* 0, or -1 with venvs_err */
    char venvs_err[1024];
    ab_variant_env *venvs;       /* each variant's adapter record (read.h) */
    size_t nvenvs;
    int shard_status;            /* ab_run_shard_info_load's return (1: a part) */
    ab_run_shard_info shard;
    ab_aa_samples aa;            /* the environment's A/A samples */
} ab_run_record;

/* Loads run run_id into *rec (zeroed first). Returns 0, or -1 with an error
 * printed when the header or the measurements cannot be read (the other
 * parts keep their loaders' statuses). Free with ab_run_record_free (also
 * after -1). */
int ab_run_record_load(sqlite3 *db, long long run_id, ab_run_record *rec);
void ab_run_record_free(ab_run_record *rec);

#endif
