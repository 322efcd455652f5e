/*
 * resolution.h: what feeds the verdict rule's minimum resolvable shift
 * (stats/verdict.c, ab_decide_why): the A/A resolution of a measurement,
 * the largest difference attnbench's own paired analysis found between
 * identical instances of one kernel in an A/A calibration (`attnbench
 * calibrate`) of the same environment and timing mode (the empty-kernel
 * "timer floor" it replaces is launch overhead both sides pay, not the
 * resolution of a difference). Computed here from the A/A samples db/
 * loads (db/aa_samples.h); report and compare both take it from here, so
 * that the same samples get the same verdict in each.
 */
#ifndef ATTNBENCH_ANALYSIS_RESOLUTION_H
#define ATTNBENCH_ANALYSIS_RESOLUTION_H

#include "aa_samples.h"

#include <stddef.h>

/* The A/A resolution found for a measurement. */
typedef struct ab_resolution {
    double rel;                /* max over A/A pairs of |speedup - 1|; 0: no calibration */
    long long calibration_run; /* the A/A run it came from, 0 when none */
    int pairs;                 /* A/A pairs it was computed from */
    double aa_median_ms;       /* median latency of the calibrated kernel at that configuration */
    double median_ms;          /* this measurement's median (set when rel > 0) */
} ab_resolution;

/* The A/A groups of one timing mode: one per (calibration run,
 * configuration) with at least one pair. */
#define AB_AA_MAX_GROUPS 64
typedef struct ab_aa_groups {
    char mode[16];
    size_t n;
    ab_resolution g[AB_AA_MAX_GROUPS];
} ab_aa_groups;

/* Builds the groups of timing mode `mode` from aa's rows (in their order,
 * at most AB_AA_MAX_GROUPS): per (run, configuration), its instances in
 * instance order form disjoint pairs (1, 2), (3, 4), ... as `calibrate`
 * pairs them; per pair the speedup is the paired round estimate the report
 * made before its Hodges-Lehmann estimate (exp of the median over shared
 * rounds of log(median_b / median_a), each round's median by
 * stats/rounds.h's ab_round_medians), kept so that the verdicts it vetoes
 * stay as they were; rel is the largest |speedup - 1|, aa_median_ms the
 * geometric mean of the instances' medians. G->n = 0 when out of memory. */
void ab_aa_groups_build(const ab_aa_samples *aa, const char *mode, ab_aa_groups *G);

/* The A/A resolution of a measurement with samples ms[0..n) (ms) in G's
 * mode: the group whose median latency is closest to the measurement's
 * median (in log scale); r->rel = 0 (no veto) when G has no group or the
 * median is not positive. */
void ab_aa_resolution(const ab_aa_groups *G, const double *ms, size_t n, ab_resolution *r);

/* Minimum resolvable shift (ms) of such a measurement: its A/A resolution
 * times its median; 0 when none. */
double ab_aa_min_shift_ms(const ab_aa_groups *G, const double *ms, size_t n);

#endif
