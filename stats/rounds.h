/*
 * rounds.h: inference with the interleaving round as the unit (rounds.c).
 *
 * attnbench samples the variants of a configuration in rounds: each round
 * visits every variant once, in a seeded random order, and takes a few
 * samples of each. A run is therefore a randomised complete block design
 * with the round as the block (Box, Hunter & Hunter 2005, ch. 4). Samples
 * within a round share the machine's state (clock, power, temperature,
 * what ran before), so samples of one measurement are not independent: on a
 * power-capped GPU their lag-1 autocorrelation is high and i.i.d. tests and
 * bootstraps are far too confident. The functions here treat the round as
 * the independent unit: per-round medians, a paired estimate of the
 * speedup over the rounds two variants share, a CI from resampling whole
 * rounds (the cluster bootstrap: Davison & Hinkley 1997, Bootstrap Methods
 * and their Application, sec. 3.8, strategy 1, resampling the top-level
 * units only; Field & Welsh 2007, JRSS B 69, 369-390, which shows it is
 * consistent for the between-cluster variance), and the Wilcoxon
 * signed-rank test of the per-round log ratios.
 *
 * Conventions are abstats.h's: latencies in ms, finite and >= 0 (> 0 where a
 * logarithm is taken), A the candidate and B the baseline, status codes, no
 * aborts, fixed seeds.
 */
#ifndef ATTNBENCH_ROUNDS_H
#define ATTNBENCH_ROUNDS_H

#include <stddef.h>

#include "abstats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-round medians of x[0..n) whose round indices are round[0..n) (any
 * order, any non-negative values). Writes the distinct rounds in ascending
 * order to rid[0..*nr) and the median of each round's samples (GSL's, type
 * 7) to med[0..*nr); rid and med must hold n entries. n >= 1. Errors:
 * AB_STATS_EINVAL (NULL, n = 0, negative round), AB_STATS_ENONFINITE,
 * AB_STATS_ENEGATIVE, AB_STATS_ENOMEM. */
int ab_round_medians(const double *x, const int *round, size_t n, int *rid, double *med,
                     size_t *nr);

/* Cluster-bootstrap CI of the median of x[0..n) (the median of all samples,
 * as the report gives it): each resample draws the rounds with replacement
 * (as many as there are) and takes the median of all the samples of the
 * drawn rounds (Davison & Hinkley 1997, sec. 3.8, strategy 1; percentile
 * interval, o->resamples resamples, o->seed, o->level; o->method is
 * ignored). Needs at least 2 rounds. Errors as ab_round_medians, and
 * AB_STATS_EINVAL for fewer than 2 rounds or bad options. */
int ab_rounds_median_ci(const double *x, const int *round, size_t n, const ab_boot_opts *o,
                        double *lo, double *hi);

typedef struct ab_rounds_result {
    size_t rounds;       /* rounds in which both A and B have samples */
    double speedup;      /* exp(median over those rounds of log(med_B / med_A)) */
    double lo, hi;       /* cluster-bootstrap percentile CI of the speedup */
    ab_wilcoxon test;    /* Wilcoxon signed-rank test of the per-round log ratios */
    double p;            /* its two-sided p-value (test.p) */
    double p_min;        /* the smallest p the test can give with these rounds:
                            2 / 2^m, m the non-zero log ratios (all of one sign) */
} ab_rounds_result;

/* The paired comparison of A = a[0..na) (rounds ra) with B = b[0..nb)
 * (rounds rb) over the rounds they share: per-round medians of each, the
 * log ratio d_r = log(med_B(r) / med_A(r)) per shared round (positive: A
 * is faster), the speedup exp(median d_r), its CI from resampling the
 * shared rounds with replacement (o: resamples, seed, level; the cluster
 * bootstrap of a statistic of the rounds' summaries, Davison & Hinkley
 * 1997, sec. 3.8), and the two-sided Wilcoxon signed-rank test of the d_r
 * (ab_wilcoxon_signed_rank with its defaults: exact, or exact conditional
 * given ties, up to 50 rounds; Wilcoxon 1945), the test the randomised
 * block design licenses for "A and B are exchangeable within a round".
 * Needs >= 2 shared rounds and positive medians. Errors: AB_STATS_EINVAL
 * (fewer shared rounds, a zero median, bad options), the errors of
 * ab_round_medians and of the test. */
int ab_rounds_compare(const double *a, const int *ra, size_t na, const double *b,
                      const int *rb, size_t nb, const ab_boot_opts *o, ab_rounds_result *out);

#ifdef __cplusplus
}
#endif

#endif /* ATTNBENCH_ROUNDS_H */
