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

#endif /* ATTNBENCH_ANALYSIS_INSTANCES_H */
