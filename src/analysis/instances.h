/*
 * instances.h: the comparison of two variants each measured as several
 * instances (instances.c): the instance is the random effect, rounds are
 * nested in instances.
 *
 * Identical instances of one kernel (fresh allocations, a fresh cuDNN
 * graph, a fresh adapter process) differ persistently: an instance's offset
 * lasts the whole run, so within one instance per variant it is
 * indistinguishable from a difference of the variants, and the paired test
 * over rounds (pair.h) counts it as one. With k >= 2 instances per variant
 * the analysis is two-stage (the summary-measures analysis of a nested
 * design: Donner & Klar 2000, Design and Analysis of Cluster Randomization
 * Trials in Health Research, sec. 6.2; Murray 1998, Design and Analysis of
 * Group-Randomized Trials, ch. 9): stage one reduces each instance to one
 * number, the mean over its rounds of the log settled per-round median
 * (stats/rounds.h, ab_round_settled_medians) centred on the round's mean
 * over every instance of both variants (which removes round effects shared
 * by all); stage two is Welch's t statistic of those per-instance numbers
 * on Hsu's conservative degrees of freedom min(ka, kb) - 1 (stats/welch.h,
 * ab_welch_t_conservative: with 4 instances a side and one variant's
 * noise persisting across rounds, Satterthwaite's df left raw p < 0.05 in
 * 6.5% of 400 synthetic null runs, Hsu's in 4.5%; reports/block-design/), and the speedup CI is the interval that inverts
 * it. Its variance is the between-instance
 * variance plus the within-instance round noise over the rounds, exactly
 * the variance of an instance's summary, so it holds its level whatever the
 * instance effect, and noise that persists across the rounds of one
 * instance is absorbed in that instance's mean.
 */
#ifndef ATTNBENCH_ANALYSIS_INSTANCES_H
#define ATTNBENCH_ANALYSIS_INSTANCES_H

#include "welch.h"

#include <stddef.h>

/* One instance's samples: ms[0..n) in the order taken, round[i] the round
 * of sample i. */
typedef struct ab_instance_sample {
    const double *ms;
    const int *round;
    size_t n;
} ab_instance_sample;

typedef struct ab_instances_result {
    size_t instances_a, instances_b;
    double rounds;      /* mean rounds per instance */
    ab_welch w;         /* Welch's statistic of the per-instance log levels (x: A, y: B)
                           on Hsu's df min(ka, kb) - 1 (w.df; w.df_satterthwaite the
                           approximate one), so w.diff = log(speedup) */
    double speedup;     /* exp(w.diff): the median(B)/median(A) sense */
    double lo, hi;      /* exp(w.lo), exp(w.hi) */
    double sd_instance; /* between-instance sd of the log level (moment estimator:
                           the pooled within-variant variance of the instance means minus
                           the round noise's share sd_round^2 / rounds, at least 0;
                           Searle, Casella & McCulloch 1992, Variance Components, sec. 3.5) */
    double sd_round;    /* within-instance sd of the centred log round medians (pooled) */
    double mde;         /* minimum detectable effect at alpha 0.05 and 80% power from the
                           variance components and the rounds: expm1((t_{df,0.975} +
                           t_{df,0.8}) se) with se^2 = (sd_instance^2 + sd_round^2 / R)
                           (1/ka + 1/kb), R the harmonic mean of the rounds per instance,
                           df = w.df (Chow, Shao & Wang 2008, sec. 3.2, the two-sample
                           t-test's power by its t approximation) */
    int one_side;       /* across runs (ab_instances_compare_runs): 0 both sides
                           several instances (Welch), 1 a single instance, 2 b single */
} ab_instances_result;

/* Compares variant A's instances a[0..ka) (the candidate) with variant B's
 * b[0..kb) (the baseline), each instance sampled in rounds (the same round
 * numbers across instances: the runner interleaves every instance in each
 * round). ka, kb >= 2; every instance needs >= 1 round and positive
 * latencies. level: the CI's confidence (0.95). Errors: AB_STATS_EINVAL
 * (fewer than 2 instances, a NULL, a bad level), the errors of
 * ab_round_settled_medians (negative or non-finite samples), AB_STATS_ENOMEM. */
int ab_instances_compare(const ab_instance_sample *a, size_t ka, const ab_instance_sample *b,
                         size_t kb, double level, ab_instances_result *out);

/* One instance's level, the unit across runs: the mean over its rounds of
 * the log settled per-round median (stats/rounds.h, each round's first
 * sample left out where it has two or more), not centred (the rounds of two
 * runs share nothing to centre on); an instance without rounds (round NULL)
 * gives the log of its median. Errors: AB_STATS_EINVAL (no samples, a
 * median that is not positive), the errors of ab_round_settled_medians,
 * AB_STATS_ENOMEM. */
int ab_instance_level(const ab_instance_sample *x, double *log_level);

/* The comparison of two runs of one variant when either was measured as
 * several instances (`compare`; `history` uses the levels alone): the
 * instance is the unit across runs, as within one (the summary-measures
 * analysis of a nested design, Donner & Klar 2000, sec. 6.2): each
 * instance reduced to its level (ab_instance_level), then
 * - ka, kb >= 2: Welch's statistic of the two runs' instance levels on
 *   Hsu's df min(ka, kb) - 1 (ab_welch_t_conservative), the interval that
 *   inverts it;
 * - one side a single instance (a run stored before instances, or with
 *   `instances = 1`), the other k >= 2: that level against the k others as
 *   one further observation of their population, t = (l_1 - mean_k) /
 *   (s_k sqrt(1 + 1/k)) on k - 1 df, and the interval that inverts it (the
 *   prediction interval of one further normal observation: Hahn & Meeker
 *   1991, Statistical Intervals, ch. 4); the single instance's level has
 *   at most the variance of one of the k (it has at least as many rounds
 *   under the default's budget split), so s_k is the larger yardstick.
 * a: the candidate (run B of compare), b: the baseline (run A). Sets w
 * (x: a's levels, y: b's; w.diff = log(speedup)), speedup, lo, hi,
 * instances_a/b, sd_instance (the pooled sd of the
 * instance levels; rounds, sd_round and mde stay 0), one_side 0 (Welch), 1 (a single),
 * 2 (b single). Both single: AB_STATS_EINVAL (two runs of one instance are
 * the rounds' comparison, pair.h ab_pair_analyse_runs). level: the CI's
 * confidence. Errors: AB_STATS_EINVAL, those of ab_instance_level and
 * ab_welch_t_conservative. */
int ab_instances_compare_runs(const ab_instance_sample *a, size_t ka,
                              const ab_instance_sample *b, size_t kb, double level,
                              ab_instances_result *out);

/* A run's level over its k >= 2 instances for `history` and `show`: the
 * mean m of the instance levels (ab_instance_level) and its interval
 * m -/+ t_{k-1,(1+level)/2} s / sqrt(k), s their sd (Student's interval of
 * a mean, the instance the unit). Returns as ab_instance_level, or
 * AB_STATS_EINVAL for k < 2. */
int ab_instances_level_ci(const ab_instance_sample *x, size_t k, double level, double *mean_log,
                          double *lo_log, double *hi_log);

#endif /* ATTNBENCH_ANALYSIS_INSTANCES_H */
