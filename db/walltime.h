/*
 * walltime.h: where a run's wall time went. The runner adds up, per run, the
 * seconds spent in each phase (timed samples, the sampling loop around
 * them, warm-up, correctness checks, variant setup, input generation, the
 * run's ceilings and timer floor, external adapters' own overhead, database
 * writes) and stores them with the total in the run_walltime table
 * (db/schema.c); and per variant the phases charged to it (everything the
 * runner did for one variant of one configuration), with its largest fixed
 * cost of one measurement, in the run's settings JSON under
 * "walltime_variants" (runs.run_settings). Reports print both, in markdown
 * and in `report --json` (src/report/walltime_report.h).
 */
#ifndef ATTNBENCH_WALLTIME_H
#define ATTNBENCH_WALLTIME_H

#include <jansson.h>
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
    double reference_s; /* per variant only (not in run_walltime): the check that built
                           its configuration's shared float64 reference (the
                           configuration's cost, left out of the variant's check and
                           total) */
} ab_walltime;

/* A measurement whose fixed cost (its wall time less its timed samples)
 * exceeds this is flagged in reports, seconds: the goal set for
 * attnbench's fixed cost per measurement. */
#define AB_FIXED_COST_FLAG_S 0.150

/* One variant's share of a run's wall time, summed over its measurements
 * (w.total_s: all of it; w.ceilings_s unused; w.inputs_s: what was made
 * for it alone, e.g. an adapter's device-buffer offer; w.reference_s: the
 * shared reference its checks built, left out of the rest). A
 * measurement's fixed cost is its wall time less its timed samples. The
 * variant's first measurement in a process carries what happens once
 * (an adapter's start-up, a library's loading, first-use module loads), so
 * it is kept apart: the flag looks at the later ones, the cost that
 * recurs with every configuration. */
typedef struct ab_walltime_variant {
    char variant[256];
    int measurements;     /* (variant, configuration) pairs charged */
    ab_walltime w;
    double first_fixed_s; /* the fixed cost of its first measurement */
    double worst_fixed_s; /* the largest fixed cost of a later one; -1: none */
    char worst_config[192];
} ab_walltime_variant;

/* Adds measurement account m (one configuration of variant `name`,
 * configuration text `config`) into the array *v of *n variants (grown
 * with realloc; a new name appended, m its first measurement). 0, or -1
 * when out of memory. */
int ab_walltime_variant_add(ab_walltime_variant **v, size_t *n, const char *name,
                            const char *config, const ab_walltime *m);

/* Adds variant account x (all its measurements, e.g. a resumed run's
 * first part) into *v: summed, the larger worst kept, the first
 * measurement's the one already there (x's first, a process's first too,
 * counted with the later ones' sum only). 0 or -1. */
int ab_walltime_variant_merge(ab_walltime_variant **v, size_t *n, const ab_walltime_variant *x);

/* Stores the n per-variant accounts of run_id in its settings JSON
 * ("walltime_variants"), replacing any; 0 or -1 with err (AB_ERR bytes). */
int ab_walltime_variants_store(sqlite3 *db, long long run_id, const ab_walltime_variant *v,
                               size_t n, char *err);

/* Loads run_id's per-variant accounts into *v (malloc'd, *n of them; NULL
 * and 0 for runs without them). 0, or -1 when out of memory. */
int ab_walltime_variants_load(sqlite3 *db, long long run_id, ab_walltime_variant **v,
                              size_t *n);

/* One variant's account as the JSON object stored in the run's settings
 * and reported: {"variant", "measurements", "total_s", "phases": {...},
 * "fixed_s_per_measurement", "first_fixed_s", "later_fixed_s_mean" (null
 * with one measurement), "worst_fixed_s" (the largest later one; null with
 * one), "worst_config", "over_fixed_cost_goal"}. NULL when out of memory. */
json_t *ab_walltime_variant_json(const ab_walltime_variant *x);

/* The phases a variant is charged for, in report order: how many, the
 * column title of phase i, and its seconds in w (the sampling overhead is
 * the sampling calls less their samples). */
size_t ab_walltime_nvphases(void);
const char *ab_walltime_vphase_title(size_t i);
double ab_walltime_vphase(const ab_walltime *w, size_t i);

/* The mean fixed cost of x's measurements after its first; NAN with one. */
double ab_walltime_later_mean(const ab_walltime_variant *x);

/* Stores w as run_id's wall-time account (replacing any). Returns 0 or -1
 * with a one-line message in err (AB_ERR bytes). */
int ab_walltime_store(sqlite3 *db, long long run_id, const ab_walltime *w, char *err);

/* Loads run_id's account: 0 and *w filled, 1 when the run has none (runs
 * before it was recorded), -1 on a database error (message printed). */
int ab_walltime_load(sqlite3 *db, long long run_id, ab_walltime *w);

#endif
