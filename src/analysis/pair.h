/*
 * pair.h: the one comparison of two samples that every command makes
 * (pair.c): `report` (markdown and JSON, every table), `calibrate`,
 * `compare` and `stats` call it, so the same samples with the same rounds
 * get the same numbers and the same verdict everywhere.
 *
 * A comparison is paired over rounds when both samples come with rounds and
 * have at least two each (stats/rounds.h: settled per-round medians, the
 * Wilcoxon signed-rank test of the per-round log ratios, the Hodges-Lehmann
 * speedup with the interval that inverts it, widened for serial
 * correlation, the minimum detectable effect); otherwise it is i.i.d.
 * (stats/abstats.h, ab_compare: ratio of medians with its bootstrap CI,
 * Mann-Whitney U). The i.i.d. statistics (Cliff's delta, the
 * Hodges-Lehmann shift of the pooled samples, summaries) are computed either
 * way. The verdict is stats/verdict.c's rule on the speedup, CI and p of the
 * inference used, after the family's adjustment.
 */
#ifndef ATTNBENCH_ANALYSIS_PAIR_H
#define ATTNBENCH_ANALYSIS_PAIR_H

#include "abstats.h"
#include "between_runs.h"
#include "instances.h"
#include "rounds.h"

#include <stddef.h>

/* Two runs of the same (variant, configuration) sampled in rounds: the
 * rounds of one run are not paired in time with those of the other, so
 * each run's per-round settled medians (stats/rounds.h) are one sample and
 * the two samples are independent (ab_pair_analyse_runs). */
typedef struct ab_pair_runs {
    size_t rounds_a, rounds_b; /* per-round medians of the candidate and the baseline */
    ab_mw_result mw;           /* Mann-Whitney U of the log per-round medians */
    ab_hl_result hl;           /* two-sample Hodges-Lehmann shift of the log medians,
                                  candidate minus baseline, with its interval */
    double p_min;              /* the smallest two-sided p of the exact test at these
                                  sizes without ties: 2 / C(na + nb, na) */
    size_t dropped;            /* first samples left out of the per-round medians */
} ab_pair_runs;

typedef struct ab_pair_analysis {
    ab_comparison c;     /* the i.i.d. statistics (Cliff's delta, HL, Mann-Whitney) */
    int ok;              /* comparison computed */
    int paired;          /* 1: inference over shared rounds (rr); 0: i.i.d. (c) */
    ab_rounds_result rr;
    int by_instance;     /* 1: several instances per variant, the instance the unit
                            (ir, instances.h); paired is then 0 */
    ab_instances_result ir;
    int two_runs;        /* 1: two runs, their per-round medians as independent
                            samples (tr; compare); paired is then 0 */
    ab_pair_runs tr;
    int between_runs;    /* 1: the CI and p are the between-run test's (br; compare) */
    ab_between_runs br;
    double speedup, lo, hi; /* the speedup (median(B)/median(A) sense) and CI the verdict uses */
    double p;            /* the p-value in the family (rr.p or c.mw.p) */
    ab_pmethod p_method; /* how p was obtained */
    int too_few;         /* paired or two_runs, but the test cannot reach p < alpha
                            with these rounds */
    int too_few_family;  /* no comparison of the family can reach alpha after Holm's
                            correction: family size x the smallest attainable p >= alpha */
    size_t family;       /* size of the family it was corrected in */
    double p_adj;
    ab_verdict verdict;
    int below_floor;     /* the verdict was vetoed by the minimum resolvable shift */
    ab_why why;          /* the verdict rule's reason (stats/verdict.c) */
} ab_pair_analysis;

/* Resamples of the bootstrap over rounds (median CIs): each resample copies
 * whole rounds, so fewer than the i.i.d. bootstrap's 10,000; 2,000 keeps the
 * percentile ends' Monte Carlo error well under their sampling error
 * (Davison & Hinkley 1997, sec. 5.2.3). */
#define AB_ROUND_RESAMPLES 2000

/* Compares A = a[0..na) (the candidate) with B = b[0..nb) (the baseline).
 * ra, rb: the round of each sample (in the order taken), or NULL when the
 * sample has none; rounds_a, rounds_b: their distinct rounds (0 without).
 * Paired over the shared rounds when both have at least 2 rounds and
 * ab_rounds_compare succeeds (>= 2 shared rounds, positive medians), else
 * i.i.d. Sets every field but the verdict's (ab_pair_decide_family).
 * Returns AB_STATS_OK with out->ok = 1, or the status of ab_compare (then
 * out->ok = 0). */
int ab_pair_analyse(const double *a, const int *ra, size_t na, int rounds_a, const double *b,
                    const int *rb, size_t nb, int rounds_b, const ab_compare_opts *co,
                    ab_pair_analysis *out);

/* Compares A = a[0..na) (the candidate, one run) with B = b[0..nb) (the
 * baseline, another run), arguments as ab_pair_analyse. The rounds of two
 * runs are not paired in time (round r of one run and round r of another
 * share no machine state), so when both have at least 2 rounds each run's
 * per-round settled medians (ab_round_settled_medians) are taken as two
 * independent samples: the two-sided Mann-Whitney U test of their logs
 * (ab_mann_whitney_opts with co->test: exact without ties when one sample
 * has at most 8, as scipy.stats.mannwhitneyu), the speedup
 * exp(-Hodges-Lehmann shift of the log medians) and the interval that
 * inverts that test, [D_(C), D_(N+1-C)] of the na nb differences
 * (ab_hodges_lehmann at co->boot.level; Hollander & Wolfe 1999,
 * Nonparametric Statistical Methods, 2nd ed., sec. 4.3), mapped through
 * exp(-x); two_runs = 1, too_few when p_min >= co->alpha. Otherwise (a run
 * without rounds, fewer than 2 rounds, a zero median) the i.i.d.
 * comparison of ab_pair_analyse without rounds. The i.i.d. statistics (c)
 * are computed either way. Returns as ab_pair_analyse. */
int ab_pair_analyse_runs(const double *a, const int *ra, size_t na, int rounds_a,
                         const double *b, const int *rb, size_t nb, int rounds_b,
                         const ab_compare_opts *co, ab_pair_analysis *out);

/* Compares variant A, measured as instances a[0..ka), with variant B's
 * b[0..kb) (ka, kb >= 2; instances.h): the speedup, CI and p of the
 * two-stage analysis (ab_instances_compare at co->boot.level), and the
 * i.i.d. statistics (c) of the pooled samples of all instances. Sets every
 * field but the verdict's; by_instance = 1. Returns AB_STATS_OK with
 * out->ok = 1, or an error status (out->ok = 0). */
int ab_pair_analyse_instances(const ab_instance_sample *a, size_t ka,
                              const ab_instance_sample *b, size_t kb, const ab_compare_opts *co,
                              ab_pair_analysis *out);

/* Compares two runs of one (variant, configuration), candidate a[0..ka)
 * (run B's instances) with baseline b[0..kb) (run A's), when either was
 * measured as several instances (a run with one instance gives k = 1, its
 * measurement the one instance): ka = kb = 1 is ab_pair_analyse_runs of the
 * two measurements; otherwise the instance is the unit across runs
 * (instances.h, ab_instances_compare_runs: Welch's t of the instance
 * levels on Hsu's df, or one run's single instance against the other's
 * instances), and the i.i.d. statistics (c) of the pooled samples.
 * by_instance = 1 and two_runs = 1 (the tr fields unset), too_few 0 (the
 * test has no floor). Returns as ab_pair_analyse. */
int ab_pair_analyse_runs_instances(const ab_instance_sample *a, size_t ka,
                                   const ab_instance_sample *b, size_t kb,
                                   const ab_compare_opts *co, ab_pair_analysis *out);

/* Judges x, a comparison of two runs of the same (variant, configuration)
 * in one environment, by the between-run variance b (between_runs.h): keeps
 * x's speedup, replaces its CI with log(speedup) -/+ t_{k-1,(1+level)/2}
 * sqrt(2) b->sd_log and its p with the two-sided t-test of log(speedup) on
 * that se (k - 1 df), and sets between_runs = 1 and too_few = 0 (the test
 * is continuous). Nothing happens when x is not ok or b has fewer than
 * AB_BETWEEN_RUNS_MIN runs. Call before the family's verdicts. */
void ab_pair_between_runs(ab_pair_analysis *x, const ab_between_runs *b, double level);

/* The verdict of x given its family-adjusted p (or its raw p, for the
 * per-comparison error rate): ab_decide_why on x's speedup and CI with
 * min_shift_ms the minimum resolvable shift (0: none); no difference when
 * the rounds are too few for the test or the family. Sets verdict, why,
 * below_floor, p_adj. */
void ab_pair_decide(ab_pair_analysis *x, double p_adj, const ab_compare_opts *co,
                    double min_shift_ms);

/* The family's verdicts: x[0..n) (entries with ok = 0 are skipped) are one
 * family; marks each too_few_family when no comparison of it can reach alpha
 * after Holm (family size x the smallest attainable p >= alpha: p_min of a
 * round-level test, paired or two runs', 0 for an i.i.d. or between-run
 * one), adjusts their p together
 * (co->padjust) and decides each with min_shift_ms[k] (NULL: 0). Returns
 * AB_STATS_OK or AB_STATS_ENOMEM. */
int ab_pair_decide_family(ab_pair_analysis *const *x, size_t n, const double *min_shift_ms,
                          const ab_compare_opts *co);

/* The family limit alone (what ab_pair_decide_family does first). */
void ab_pair_family_limit(ab_pair_analysis *const *x, size_t n, double alpha);

/* The verdict as reports print it: ab_verdict_name, or "no significant
 * difference (...)" with why (too few rounds, below the A/A resolution,
 * samples too small). */
const char *ab_pair_verdict_text(const ab_pair_analysis *x);

/* The method name of a comparison: by instance, paired over rounds, two
 * runs' rounds as independent samples, or i.i.d. */
const char *ab_pair_method(const ab_pair_analysis *x);

#endif /* ATTNBENCH_ANALYSIS_PAIR_H */
