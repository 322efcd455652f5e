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

/* Per-round settled medians: as ab_round_medians, but within each round
 * the first sample (in input order, which must be the order the samples
 * were taken) is left out when the round has at least two, so that a slow
 * first sample of a block (the first launch after another variant ran: the
 * host's submission, a cold cache) never decides a round: with 2 samples a
 * round its median is their mean, and one slow first sample moves it by
 * half its excess. The same rule for every variant and every round; a round
 * of one sample keeps it. *dropped: the samples left out (may be NULL).
 * Errors as ab_round_medians. */
int ab_round_settled_medians(const double *x, const int *round, size_t n, int *rid,
                             double *med, size_t *nr, size_t *dropped);

/* The Hodges-Lehmann estimate of a sample of differences and the interval
 * that inverts the two-sided signed-rank test (signrank_ci.c; Hollander &
 * Wolfe 1999, sec. 3.2). */
typedef struct ab_signrank_ci {
    double estimate;  /* median of the n(n+1)/2 Walsh averages */
    double lo, hi;    /* [W_(c), W_(M+1-c)] */
    size_t c;         /* the order statistic c (1-based) */
    double attained;  /* confidence of the interval: exact 1 - 2 P(T+ <= c - 1),
                         or the nominal level for the normal form */
    int exact;        /* 1: c from the exact signed-rank distribution */
    int attainable;   /* 0: even [W_(1), W_(M)] falls short of the level
                         (n <= 5 at 95%) */
} ab_signrank_ci;

/* The estimate and interval of d[0..n) at confidence level (0 < level <
 * 1): exact critical value from the untied signed-rank distribution for
 * n <= 50 and inflation 1, else the normal approximation with the variance
 * of T+ times inflation (>= 1) and, for inflation > 1, Student's t with
 * n/inflation - 1 df (at least 1) for the quantile (serial.c says why).
 * n >= 1. Errors: AB_STATS_EINVAL (NULL, n = 0, bad level or inflation),
 * AB_STATS_ENONFINITE, AB_STATS_ENOMEM (also past 2^26 Walsh averages). */
int ab_signrank_hl(const double *d, size_t n, double level, double inflation,
                   ab_signrank_ci *out);

/* Rounds below which no serial correlation is estimated. */
#define AB_SERIAL_MIN_ROUNDS 16

/* The one-sided level of the test of no serial correlation (Young's C,
 * serial.c) below which the rule widens. */
#define AB_SERIAL_GATE 0.35

/* Serial correlation of differences in round order (serial.c). */
typedef struct ab_serial {
    double r1;        /* lag-1 sample autocorrelation; NAN for n < 3 or constant d */
    double young_c;   /* Young's (1941) C = 1 - sum (d_{i+1} - d_i)^2 / (2 sum (d_i - mean)^2);
                         NAN for n < 3 or constant d */
    double p_serial;  /* one-sided p of C under no serial correlation: normal with mean 0,
                         variance (n - 2)/(n^2 - 1); 1 when not computed */
    double rho;       /* bias-corrected (n r1 + 1)/(n - 4), clipped to [0, 0.95];
                         0 when not widened */
    double inflation; /* (1 + rho)/(1 - rho): the variance factor, 1 when not widened */
    int widened;      /* n >= AB_SERIAL_MIN_ROUNDS, p_serial < AB_SERIAL_GATE and the
                         corrected rho > 0 */
} ab_serial;

/* Lag-1 serial correlation of d[0..n) (in round order) and the rule of
 * serial.c. n >= 1. Errors: AB_STATS_EINVAL, AB_STATS_ENONFINITE. */
int ab_serial_correlation(const double *d, size_t n, ab_serial *out);

/* The two-sided Wilcoxon signed-rank test of d[0..n): with inflation 1,
 * ab_wilcoxon_signed_rank with its defaults; with inflation > 1 its normal
 * form (midranks of the nonzero |d|, tie-corrected variance) with the
 * variance times inflation and p from Student's t with m/inflation - 1 df
 * (m the nonzero differences, at least 1 df), method AB_P_NORMAL. Errors
 * as ab_wilcoxon_signed_rank. */
int ab_signrank_test(const double *d, size_t n, double inflation, ab_wilcoxon *out);

/* The minimum detectable effect of the paired test (mde.c): the smallest
 * true |log ratio| the signed-rank test of n rounds detects at two-sided
 * alpha with the given power (0.8 in reports), from the normal-approximation
 * power formula delta = (z_{1-alpha/2} + z_power) sd sqrt(f / (n 3/pi)):
 * the paired z-test's (Chow, Shao & Wang 2008, Sample Size Calculations in
 * Clinical Research, 2nd ed., sec. 3.1) with the Wilcoxon test's asymptotic
 * relative efficiency 3/pi at the normal (Hodges & Lehmann 1956) and the
 * serial-correlation inflation f. sd: the standard deviation of the
 * per-round log ratios (the between-round variance, measured). Returns the
 * relative effect exp(delta) - 1 (0.02: a 2% change), or NAN for n < 2 or
 * a bad argument. */
double ab_paired_mde(double sd, size_t n, double inflation, double alpha, double power);

/* The fewest rounds with which a paired comparison can be called different
 * in a family of `family` comparisons corrected by Holm at level alpha: the
 * exact two-sided signed-rank test of n rounds gives p >= 2^(1-n) (every
 * round on one side), and Holm multiplies the smallest p by the family's
 * size, so n must satisfy family * 2^(1-n) < alpha. Returns that n (at
 * least 1), or 0 when family is 0 or alpha is not in (0, 1). */
int ab_rounds_needed(size_t family, double alpha);

typedef struct ab_rounds_result {
    size_t rounds;       /* rounds in which both A and B have samples */
    double speedup;      /* exp(Hodges-Lehmann estimate of the per-round log ratios) */
    double lo, hi;       /* exp of the signed-rank interval (ab_signrank_hl) */
    ab_signrank_ci ci;   /* that interval on the log scale */
    ab_wilcoxon test;    /* signed-rank test of the per-round log ratios (ab_signrank_test) */
    double p;            /* its two-sided p-value (test.p) */
    double p_min;        /* the smallest p the test can give with these rounds:
                            2 / 2^m, m the non-zero log ratios (all of one sign),
                            or the widened test's p at T+ = its maximum */
    ab_serial serial;    /* lag-1 serial correlation of the log ratios, in round order */
    double sd_log;       /* standard deviation of the per-round log ratios */
    double mde;          /* minimum detectable effect at alpha 0.05 and 80% power
                            (ab_paired_mde; relative, 0.02 = 2%); NAN below 2 rounds */
    size_t dropped;      /* first samples left out of the per-round medians, A and B */
} ab_rounds_result;

/* The paired comparison of A = a[0..na) (rounds ra) with B = b[0..nb)
 * (rounds rb), each in the order taken, over the rounds they share: the
 * settled median of each round of each (ab_round_settled_medians), the
 * log ratio d_r = log(med_B(r) / med_A(r)) per shared round in round order
 * (positive: A is faster), their serial correlation (ab_serial_correlation),
 * the two-sided signed-rank test of the d_r (ab_signrank_test, widened by
 * the inflation when the rule fires; exact, or exact given ties, up to 50
 * rounds otherwise; Wilcoxon 1945), the test the randomised block design
 * licenses for "A and B are exchangeable within a round", and the speedup
 * exp(Hodges-Lehmann estimate) with the interval that inverts that test
 * (ab_signrank_hl at o->level, the same inflation), and the minimum
 * detectable effect at alpha = 0.05 and 80% power. o: only level is used
 * (resamples and seed are checked, for the callers that share options).
 * Needs >= 2 shared rounds and positive medians. Errors: AB_STATS_EINVAL
 * (fewer shared rounds, a zero median, bad options), the errors of
 * ab_round_medians and of the test. */
int ab_rounds_compare(const double *a, const int *ra, size_t na, const double *b,
                      const int *rb, size_t nb, const ab_boot_opts *o, ab_rounds_result *out);

#ifdef __cplusplus
}
#endif

#endif /* ATTNBENCH_ROUNDS_H */
