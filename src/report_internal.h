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
#include "rounds.h"
#include "rundata.h"

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
    int ci_rounds;    /* 1: cluster bootstrap over rounds; 0: i.i.d. bootstrap (one round) */
    ab_clock_summary clk;
} ab_rep_meas;

typedef struct ab_rep_cmp {
    ab_rep_meas *a, *b;  /* candidate, reference */
    ab_comparison c;     /* the i.i.d. statistics (Cliff's delta, HL, Mann-Whitney) */
    int ok;              /* comparison computed */
    int paired;          /* 1: inference over shared rounds (rr); 0: i.i.d. (c) */
    ab_rounds_result rr;
    double speedup, lo, hi; /* the speedup and CI the verdict uses */
    double p;            /* the p-value in the family (rr.p or c.mw.p) */
    int too_few;         /* paired, but the test cannot reach p < alpha with these rounds */
    double p_adj;
    ab_verdict verdict;
    int below_floor;     /* the verdict was vetoed by the timer floor */
    int clocks_differ;   /* median SM clocks more than 2% apart */
} ab_rep_cmp;

/* "paired over N rounds: ..." / "i.i.d. ..." method name of a comparison. */
const char *ab_rep_method(const ab_rep_cmp *c);

/* The verdict as reports print it: ab_verdict_name, or "no significant
 * difference (...)" with why (too few rounds, below the timer floor). */
const char *ab_rep_verdict(const ab_rep_cmp *c);

/* Writes the JSON report (report.h, --json) of the comparisons and the
 * per-variant summaries. Returns 0 or -1 (printed). */
int ab_report_json(FILE *out, long long run_id, const char *experiment, const char *baseline,
                   ab_rep_meas *const *sorted, size_t n, const ab_rep_cmp *cmps, size_t ncmp,
                   double alpha, double practical);

#endif
