/*
 * report_internal.h: what report.c computes for one run before it writes
 * anything, shared by its two writers (the markdown of report.c, the JSON
 * of report_json.c) so that both print the same numbers.
 */
#ifndef ATTNBENCH_REPORT_INTERNAL_H
#define ATTNBENCH_REPORT_INTERNAL_H

#include "abstats.h"
#include "clocks.h"
#include "experiment.h"
#include "pair.h"
#include "rounds.h"
#include "rundata.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>

typedef struct ab_rep_meas {
    ab_rmeas r;       /* id, variant, shape, status, samples, rounds, configuration */
    char backend[32], mode[8];
    int input_sets;
    char *message;
    int checked, external, warmup, graph_k;
    double max_abs_err, mean_abs_err, rel_l2_err, tolerance, bytes, peak_bytes;
    long nonfinite, rows_checked;
    int order;        /* position of the variant in the experiment */
    /* the summary (usable measurements only) */
    int have_summary;
    ab_summary s;
    double lo, hi;    /* 95% CI of the median */
    int ci_rounds;    /* 1: cluster bootstrap over rounds; 0: i.i.d. (one round) */
    const char *ci_name; /* the interval's method (src/analysis/median_ci.h) */
    ab_clock_summary clk;
} ab_rep_meas;

typedef struct ab_rep_cmp {
    ab_rep_meas *a, *b;  /* candidate, reference */
    ab_pair_analysis an; /* the comparison (src/analysis/pair.h) */
    int clocks_differ;   /* median SM clocks more than 2% apart */
} ab_rep_cmp;

/* 1 when x was measured ok with at least 2 samples (rep_compare.c). */
int ab_rep_usable(const ab_rep_meas *x);

/* Computes comparison c of c->a against c->b (both with r and clk
 * filled): the i.i.d. statistics (ab_compare), and the paired inference
 * over the rounds both were sampled in when there are at least 2 shared
 * rounds (stats/rounds.h), else the i.i.d. speedup and Mann-Whitney p (a
 * variant sampled outside the rounds, e.g. a protocol-1 adapter). Sets ok,
 * paired, speedup/lo/hi, p, too_few (the test cannot reach p < alpha),
 * clocks_differ. */
void ab_rep_compare(ab_rep_cmp *c, const ab_compare_opts *co);

/* The verdict of c given its family-adjusted p (or its raw p, for the
 * per-comparison error rate): the one verdict rule (ab_decide_why,
 * stats/verdict.c) on c's speedup and CI with min_shift_ms the minimum
 * resolvable shift (src/resolution.h; 0: none); no difference when the
 * rounds are too few for the test or the family. Sets verdict, why and
 * below_floor. */
void ab_rep_decide(ab_rep_cmp *c, double p_adj, const ab_compare_opts *co, double min_shift_ms);

/* Marks every computed comparison of c[0..n) too_few_family when no
 * comparison of the family can reach alpha after Holm's adjustment: Holm's
 * adjusted p-values are all at least n_ok x min p (Holm 1979), and each p is
 * at least its test's smallest attainable value (p_min of a round-level
 * test, 0 for an i.i.d. one), so n_ok x min p_min >= alpha rules every
 * verdict out. Sets family = n_ok on each. */
void ab_rep_family_limit(ab_rep_cmp *c, size_t n, double alpha);

/* "paired over N rounds: ..." / "i.i.d. ..." method name of a comparison. */
const char *ab_rep_method(const ab_rep_cmp *c);

/* The verdict as reports print it: ab_verdict_name, or "no significant
 * difference (...)" with why (too few rounds, below the timer floor). */
const char *ab_rep_verdict(const ab_rep_cmp *c);

/* Writes the JSON report (report.h, --json) of the comparisons and the
 * per-variant summaries, with the members of sections (the run record,
 * fingerprint, settings, calibration, wall time, check coverage,
 * conclusion; may be NULL) copied into its top level. Returns 0 or -1
 * (printed). */
int ab_report_json(FILE *out, long long run_id, const char *experiment, const char *baseline,
                   ab_rep_meas *const *sorted, size_t n, const ab_rep_cmp *cmps, size_t ncmp,
                   double alpha, double practical, json_t *sections);

/* What `report --json` gives of run_id beside its measurements: "walltime"
 * (walltime.h, ab_walltime_json; null for runs before it was recorded) and
 * "sampling" (the GPU-time budget from the run's settings, runenv.h; null
 * for runs before it). A new reference, NULL when out of memory. */
json_t *ab_report_json_run_extra(sqlite3 *db, long long run_id);

#endif
