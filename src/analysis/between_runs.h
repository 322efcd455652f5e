/*
 * between_runs.h: the variance between runs of the same thing, and a
 * comparison of two runs judged by it (between_runs.c).
 *
 * Within one run, rounds and instances measure the noise of that run; two
 * runs of the same kernel, configuration and environment also differ by
 * whatever changes from run to run (placement, clocks, thermal state,
 * allocation), and a regression gate that compares two runs by their
 * within-run variance alone calls that difference a change. Where the
 * database holds k >= 3 runs of the same (variant, configuration) in one
 * environment, the spread of their log medians measures it directly (the
 * variance of one run's summary, within-run noise included), as asv and
 * conbench judge a new result against the distribution of earlier ones
 * (conbench's lookback z-score). The difference of two runs' log medians
 * then has variance 2 s^2, s^2 the sample variance of the k log medians,
 * and (log ratio) / (sqrt(2) s) is Student's t with k - 1 degrees of
 * freedom under "no change" (independent normal run effects; the classical
 * two-sample comparison with a pooled external variance estimate: Snedecor &
 * Cochran 1989, Statistical Methods, 8th ed., sec. 6.9).
 */
#ifndef ATTNBENCH_ANALYSIS_BETWEEN_RUNS_H
#define ATTNBENCH_ANALYSIS_BETWEEN_RUNS_H

#include <stddef.h>

typedef struct ab_between_runs {
    size_t runs;   /* k: runs the variance comes from */
    double sd_log; /* sample sd of their log medians (k - 1 in the denominator) */
} ab_between_runs;

/* Fewest runs of the same thing the between-run variance is taken from. */
#define AB_BETWEEN_RUNS_MIN 3

/* The between-run sd of the log of medians[0..k) (ms, > 0). Returns 0, or
 * -1 when k < AB_BETWEEN_RUNS_MIN or a median is not positive and finite. */
int ab_between_runs_sd(const double *medians, size_t k, ab_between_runs *out);

/* The same from the runs' samples: ms[i][0..n[i]) (ms) of run i, i < k;
 * each run with samples gives its median (stats/ ab_summarize), a run
 * without none. Returns 0, or -1 as ab_between_runs_sd (fewer than
 * AB_BETWEEN_RUNS_MIN medians). */
int ab_between_runs_of_samples(double *const *ms, const size_t *n, size_t k, ab_between_runs *out);

/* The between-run sd of a series of medians[0..k) (ms, > 0) in run order
 * that may hold steps (`history`): the median absolute successive
 * difference of the log medians times 1.4826 / sqrt(2), the noise scale
 * Fryzlewicz (2014, Ann. Statist. 42, 2243-2281, sec. 3) estimates for
 * change-point detection: a step moves one difference of the k - 1, not
 * the median of them. Returns 0, or -1 when k < AB_BETWEEN_RUNS_MIN or a
 * median is not positive and finite. */
int ab_between_runs_sd_steps(const double *medians, size_t k, ab_between_runs *out);

#endif /* ATTNBENCH_ANALYSIS_BETWEEN_RUNS_H */
