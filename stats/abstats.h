/*
 * abstats.h: the statistics attnbench applies to latency samples, on GSL.
 *
 * Conventions (GSL's): arrays come as (const double *x, size_t n); samples
 * are latencies in milliseconds, finite and >= 0; functions return
 * AB_STATS_OK (0) or one of the AB_STATS_E* codes below and never abort
 * (callers run gsl_set_error_handler_off() once; ab_stats_init does it).
 * Inputs are never modified. Randomised methods take an explicit seed and
 * are reproducible bit for bit for a given seed (GSL's mt19937).
 *
 * Two-sample functions take A (the candidate) and B (the baseline): a
 * positive effect means A's latencies are larger, i.e. A is slower.
 */
#ifndef ATTNBENCH_ABSTATS_H
#define ATTNBENCH_ABSTATS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    AB_STATS_OK = 0,
    AB_STATS_EINVAL = 1,    /* n too small for the method, NULL pointer, bad level */
    AB_STATS_ENONFINITE = 2, /* a NaN or infinity in the input */
    AB_STATS_ENEGATIVE = 3, /* a negative latency */
    AB_STATS_ENOMEM = 4,
    AB_STATS_EZERO = 5,     /* median(A) is 0, or 0 in bootstrap resamples of A,
                               so median(B)/median(A) is undefined or unbounded */
    AB_STATS_ERANGE = 6,    /* a value outside [AB_STATS_MIN_VALUE,
                               AB_STATS_MAX_VALUE] other than 0 */
};

/* The magnitudes the statistics accept besides 0 (ms): within them sums,
 * squares and ratios of medians of up to 10^6 values stay finite and
 * normal (1e150^2 * 1e6 < DBL_MAX; 1e150 / 1e-150 < DBL_MAX). */
#define AB_STATS_MAX_VALUE 1e150
#define AB_STATS_MIN_VALUE 1e-150

/* Human-readable text of a status code. */
const char *ab_stats_strerror(int status);

/* Turns GSL's abort-on-error handler off. Idempotent. */
void ab_stats_init(void);

/* ---- one sample ---------------------------------------------------------- */

typedef struct ab_summary {
    size_t n;
    double median, mean, stddev, cv; /* stddev with n-1; cv = stddev/mean */
    double min, max, q1, q3;         /* q1, q3: GSL's quantile_from_sorted_data */
} ab_summary;

/* Descriptive statistics of x[0..n). n >= 1 (stddev and cv are 0 for n = 1).
 * Median and quartiles by gsl_stats_quantile_from_sorted_data (linear
 * interpolation, Hyndman-Fan type 7). */
int ab_summarize(const double *x, size_t n, ab_summary *out);

typedef enum ab_ci_method { AB_CI_PERCENTILE = 0, AB_CI_BCA = 1 } ab_ci_method;

typedef struct ab_boot_opts {
    size_t resamples;     /* default 10,000 (seed 004) */
    unsigned long seed;   /* default 42 (seed 004) */
    double level;         /* default 0.95 */
    ab_ci_method method;  /* default AB_CI_BCA for reports */
} ab_boot_opts;

/* Fills o with the defaults above. */
void ab_boot_opts_default(ab_boot_opts *o);

/* "percentile" or "BCa". */
const char *ab_ci_method_name(ab_ci_method m);

/* Bootstrap CI of the median of x (Efron & Tibshirani 1993, ch. 13
 * percentile, ch. 14 BCa with jackknife acceleration). n >= 2. */
int ab_bootstrap_median_ci(const double *x, size_t n, const ab_boot_opts *o,
                           double *lo, double *hi);

/* Distribution-free CI of the median of x from two order statistics
 * (Thompson 1936; Conover 1999, Practical Nonparametric Statistics, 3rd
 * ed., sec. 3.2): [x_(k), x_(n+1-k)] with k the largest such that
 * 2 P(Bin(n, 1/2) <= k - 1) <= 1 - level; its confidence, at least level
 * for continuous data, goes to *attained. When even [x_(1), x_(n)] falls
 * short (n <= 5 at 95%) that interval, with its confidence below level.
 * n >= 1. Errors as ab_summarize, AB_STATS_EINVAL for a bad level. */
int ab_median_ci_exact(const double *x, size_t n, double level, double *lo, double *hi,
                       double *attained);

/* The median CI attnbench reports: ab_median_ci_exact for n < 30, where the
 * bootstrap of a median undercovers (0.935 at n = 10 in
 * tests/stats/test_coverage, 3,000 replications), else
 * ab_bootstrap_median_ci with o. n >= 2. */
int ab_median_ci(const double *x, size_t n, const ab_boot_opts *o, double *lo, double *hi);

/* What ab_median_ci(x, n, o, ...) computes, for labels: "order statistics
 * (distribution-free)" for n < 30, else "BCa bootstrap" or "percentile
 * bootstrap" (o->method). A static string. */
const char *ab_median_ci_name(size_t n, const ab_boot_opts *o);

/* ---- rank tests: how a p-value was obtained, and their options ----------- */

/* The method that gave a rank test's p-value. */
typedef enum ab_pmethod {
    AB_P_EXACT = 0,       /* exact null distribution of the untied statistic */
    AB_P_PERMUTATION = 1, /* exact conditional (permutation) distribution given
                             the observed ties and zeros, fully enumerated */
    AB_P_MONTE_CARLO = 2, /* Monte Carlo permutation p (seeded), with its SE */
    AB_P_NORMAL = 3,      /* normal approximation with tie correction */
    AB_P_WELCH_T = 4,     /* Welch's statistic on Student's t, Satterthwaite's or
                             Hsu's degrees of freedom (stats/welch.h, a test of
                             means, not of ranks) */
    AB_P_BETWEEN_RUNS = 5, /* Student's t on the between-run variance
                              (src/analysis/between_runs.h) */
    AB_P_ONE_INSTANCE_T = 6, /* Student's t of one run's single instance against
                                the other run's instances (the prediction of one
                                further observation; src/analysis/instances.h) */
} ab_pmethod;
/* "exact", "exact permutation", "Monte Carlo permutation", "normal approximation",
 * "Welch t", "t between runs", "t of one instance against instances". */
const char *ab_pmethod_name(ab_pmethod m);

/* Zeros of a paired difference in the Wilcoxon signed-rank test: dropped
 * before ranking (Wilcoxon 1945; scipy's default zero_method='wilcox'), or
 * ranked with the others and then given no sign (Pratt 1959; 'pratt'). */
typedef enum ab_zero_method { AB_ZERO_WILCOX = 0, AB_ZERO_PRATT = 1 } ab_zero_method;

typedef struct ab_test_opts {
    size_t exact_max_n;   /* default 50: exact (or exact permutation with ties)
                             p whenever the sample (MW: each sample) has at
                             most this many observations */
    size_t mc_resamples;  /* default 100,000 (Monte Carlo permutation p) */
    unsigned long seed;   /* default 42 (Monte Carlo permutation p) */
    ab_zero_method zero_method; /* default AB_ZERO_WILCOX (scipy's default) */
} ab_test_opts;
/* Fills o with the defaults above. */
void ab_test_opts_default(ab_test_opts *o);

/* ---- one sample of paired differences ------------------------------------ */

typedef struct ab_wilcoxon {
    size_t n;         /* differences given */
    size_t n_zero;    /* of them exactly 0 */
    double t_plus;    /* sum of the (mid)ranks of |d_i| over d_i > 0 */
    double t_minus;   /* the same over d_i < 0 */
    double statistic; /* min(t_plus, t_minus): scipy's two-sided statistic */
    double z;         /* standardised statistic of the normal approximation
                         (0 unless method == AB_P_NORMAL) */
    double p;         /* two-sided p-value */
    double p_se;      /* Monte Carlo standard error of p (0 for the others) */
    ab_pmethod method;
} ab_wilcoxon;

/* Wilcoxon signed-rank test (Wilcoxon 1945) of paired differences d[0..n)
 * (any sign, e.g. per-round median of A minus that of B, ms), two-sided,
 * H0: the d_i are symmetric about 0. Added for round-level inference (issue
 * 13); exact signature:
 *   int ab_wilcoxon_signed_rank(const double *d, size_t n,
 *                               const ab_test_opts *o, ab_wilcoxon *out);
 * o NULL: ab_test_opts_default. See wilcoxon.c for the methods; the
 * p-value is exact (untied, or the exact conditional permutation
 * distribution given ties and zeros) whenever the nonzero count is at most
 * o->exact_max_n, or ties/zeros are present and enumeration is cheap
 * (nonzero count <= 460); otherwise normal with tie correction. All zeros:
 * p = 1 (AB_P_PERMUTATION). Errors: AB_STATS_EINVAL (NULL, n = 0, bad
 * option), AB_STATS_ENONFINITE, AB_STATS_ENOMEM. */
int ab_wilcoxon_signed_rank(const double *d, size_t n, const ab_test_opts *o,
                            ab_wilcoxon *out);

/* ---- two samples --------------------------------------------------------- */

typedef struct ab_mw_result {
    double u;  /* U of A: #{a_i > b_j} + 0.5 #{a_i == b_j} (scipy's convention) */
    double z;  /* standardised statistic (0 unless method == AB_P_NORMAL) */
    double p;  /* two-sided p-value */
    int exact; /* 1: p from an exact null distribution (method AB_P_EXACT or
                  AB_P_PERMUTATION); 0: Monte Carlo or normal approximation */
    ab_pmethod method; /* which method gave p (see ab_mann_whitney_opts) */
    double p_se;       /* Monte Carlo standard error of p, else 0 */
} ab_mw_result;

/* Mann-Whitney U test, two-sided (Mann & Whitney 1947), with
 * ab_test_opts_default; see ab_mann_whitney_opts. */
int ab_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                    ab_mw_result *r);

/* Mann-Whitney U test, two-sided. p by (mannwhitney.c):
 *  - no ties: the exact null distribution when one sample has at most 8
 *    observations (scipy 1.10's method='auto') or both have at most
 *    o->exact_max_n (AB_P_EXACT);
 *  - ties, and (one sample has at most 8, or both at most o->exact_max_n,
 *    or the ties are heavy: they remove more than half of the rank
 *    variance): the exact
 *    conditional permutation distribution of the rank sum given the ties
 *    (AB_P_PERMUTATION) when it is cheap to enumerate, else a Monte Carlo
 *    permutation p from o->mc_resamples draws with o->seed (AB_P_MONTE_CARLO,
 *    with its standard error);
 *  - otherwise scipy's normal approximation with tie and continuity
 *    correction (AB_P_NORMAL).
 * o NULL: defaults. Errors: AB_STATS_EINVAL, AB_STATS_ENONFINITE,
 * AB_STATS_ENEGATIVE, AB_STATS_ENOMEM. */
int ab_mann_whitney_opts(const double *a, size_t na, const double *b, size_t nb,
                         const ab_test_opts *o, ab_mw_result *r);

typedef struct ab_cliff_result {
    double delta;     /* (#{a_i > b_j} - #{a_i < b_j}) / (na nb), in [-1, 1] */
    double lo, hi;    /* CI at the given level */
} ab_cliff_result;

/* Cliff's delta (Cliff 1993) with a CI from Cliff's consistent variance
 * estimator, O(n log n); at |delta| = 1, where that variance is 0, Newcombe's
 * (2006) score interval instead (cliff.c). */
int ab_cliffs_delta(const double *a, size_t na, const double *b, size_t nb,
                    double level, ab_cliff_result *r);

/* Magnitude label of |delta| (Romano et al. 2006 thresholds, as in seed 004):
 * "negligible" < 0.147 <= "small" < 0.33 <= "medium" < 0.474 <= "large". */
const char *ab_cliffs_magnitude(double delta);

typedef struct ab_hl_result {
    double shift;   /* median of all pairwise differences a_i - b_j, ms */
    double lo, hi;  /* distribution-free CI (Hollander & Wolfe, via the U
                       distribution's critical value) */
    double level;   /* its attained confidence: >= the nominal level asked
                       for, except when that is not attainable at these
                       sizes (3 v 3: at most 0.9), then the widest interval
                       [D_(1), D_(N)] and its confidence, below nominal */
    int attainable; /* 0 when the nominal level is not attainable at these
                       sizes (the widest interval's confidence is below it) */
} ab_hl_result;

/* Hodges-Lehmann estimate of the shift A - B with its CI. */
int ab_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb,
                      double level, ab_hl_result *r);

/* Speedup of A over B: ratio = median(B) / median(A), with a bootstrap CI
 * from resampling A and B independently (each resample of the pair gives
 * one ratio). */
int ab_bootstrap_speedup_ci(const double *a, size_t na, const double *b, size_t nb,
                            const ab_boot_opts *o, double *ratio, double *lo,
                            double *hi);

/* ---- families, outliers, drift ------------------------------------------- */

typedef enum ab_padjust { AB_PADJ_HOLM = 0, AB_PADJ_BONFERRONI = 1, AB_PADJ_NONE = 2 } ab_padjust;
const char *ab_padjust_name(ab_padjust m);
/* Adjusted p-values of a family of m tests (Holm 1979; Bonferroni), as
 * statsmodels.stats.multitest.multipletests returns them. adj may alias p. */
int ab_p_adjust(const double *p, size_t m, ab_padjust method, double *adj);

typedef struct ab_outliers {
    size_t mild, severe;          /* beyond 1.5 IQR (not 3) / beyond 3 IQR */
    double lo_mild, hi_mild;      /* fences: q1 - 1.5 IQR, q3 + 1.5 IQR */
    double lo_severe, hi_severe;  /* q1 - 3 IQR, q3 + 3 IQR */
} ab_outliers;
/* Tukey's fences (Tukey 1977). Counts only; nothing is dropped. */
int ab_tukey_outliers(const double *x, size_t n, ab_outliers *o);

typedef struct ab_drift {
    double rho;  /* Spearman's rank correlation of x with its index */
    double p;    /* two-sided: exact permutation p for n <= 10, else the t
                    approximation with n-2 df */
    ab_pmethod method; /* AB_P_PERMUTATION (n <= 10) or AB_P_NORMAL (t) */
    int drifting; /* p < alpha */
} ab_drift;
/* Trend of latencies with their order, x in sample order. n >= 3; at
 * n <= 10 the p is exact (the smallest possible is 2/n!: 1/3 at n = 3). */
int ab_drift_test(const double *x, size_t n, double alpha, ab_drift *d);

/* ---- the comparison a report makes ---------------------------------------- */

typedef enum ab_verdict { AB_NO_DIFFERENCE = 0, AB_FASTER = 1, AB_SLOWER = 2 } ab_verdict;
/* "faster", "slower", "no significant difference". */
const char *ab_verdict_name(ab_verdict v);

typedef struct ab_compare_opts {
    ab_boot_opts boot;
    ab_test_opts test;       /* rank tests' options (ab_test_opts_default) */
    double alpha;            /* default 0.05 */
    double practical;        /* default 0.01: speedup CI must exclude 1 +/- this */
    ab_padjust padjust;      /* default AB_PADJ_HOLM: the family's adjustment */
} ab_compare_opts;
void ab_compare_opts_default(ab_compare_opts *o);

typedef struct ab_comparison {
    ab_summary a, b;
    double a_ci_lo, a_ci_hi, b_ci_lo, b_ci_hi; /* CI of each median (ab_median_ci) */
    int cis_overlap;
    ab_mw_result mw;
    ab_cliff_result cliff;
    ab_hl_result hl;
    double speedup, speedup_lo, speedup_hi;   /* median(B)/median(A) */
    ab_outliers a_out, b_out;
    ab_drift a_drift, b_drift;
} ab_comparison;

/* Everything above for one pair of samples; the verdict is left to
 * ab_decide because it needs the family-adjusted p-value. */
int ab_compare(const double *a, size_t na, const double *b, size_t nb,
               const ab_compare_opts *o, ab_comparison *out);

/* ---- the verdict rule (verdict.c): the one every command applies --------- */

/* Why a verdict is what it is. */
typedef enum ab_why {
    AB_WHY_SIGNIFICANT = 0,  /* faster / slower: every condition met */
    AB_WHY_P = 1,            /* family-adjusted Mann-Whitney p >= alpha */
    AB_WHY_UNATTAINABLE = 2, /* samples too small: the Hodges-Lehmann interval
                                cannot reach the nominal confidence */
    AB_WHY_PRACTICAL = 3,    /* speedup CI reaches into 1 +/- practical */
    AB_WHY_RESOLUTION = 4,   /* |Hodges-Lehmann shift| below the minimum
                                resolvable shift (the timer floor) */
} ab_why;
/* Short reason: "", "not significant", "samples too small for the
 * interval's confidence", "within the practical threshold", "shift below
 * the timer floor". */
const char *ab_why_name(ab_why w);

typedef struct ab_decision {
    ab_verdict verdict;
    ab_why why;
    double p_adjusted; /* the Mann-Whitney p after the family's adjustment */
} ab_decision;

/* THE verdict rule. AB_FASTER / AB_SLOWER only when (in this order, the
 * first failing condition is *why):
 *   1. p_adjusted < o->alpha (the family-adjusted Mann-Whitney p);
 *   2. the nominal confidence is attainable at these sample sizes
 *      (c->hl.attainable; samples too small for it cannot support a claim
 *      at that level);
 *   3. the speedup CI [speedup_lo, speedup_hi] lies wholly outside
 *      [1 - o->practical, 1 + o->practical];
 *   4. |c->hl.shift| >= min_shift_ms, the minimum resolvable shift (ms):
 *      a difference smaller than what the timer resolves in that mode (the
 *      empty kernel's median, the timer floor) is never called real;
 * then faster when speedup > 1, slower when < 1. c or o NULL:
 * AB_NO_DIFFERENCE. why may be NULL. */
ab_verdict ab_decide_why(const ab_comparison *c, double p_adjusted, double min_shift_ms,
                         const ab_compare_opts *o, ab_why *why);

/* ab_decide_why with no resolution limit (min_shift_ms = 0). */
ab_verdict ab_decide(const ab_comparison *c, double p_adjusted, const ab_compare_opts *o);

/* The verdicts of one family of m >= 1 comparisons: the Mann-Whitney p
 * values of c[0..m) adjusted together by o->padjust (ab_p_adjust), then
 * ab_decide_why on each with min_shift_ms[k] (NULL: all 0). The family is
 * every comparison one command's output reports: `stats` one pair,
 * `compare` every pair compared between the two runs, `report` every
 * comparison of the report (against the baseline and, with --chain, against
 * the previous rung), `calibrate` its K pairs. Errors: AB_STATS_EINVAL,
 * AB_STATS_ENOMEM. */
int ab_decide_family(const ab_comparison *const *c, size_t m, const double *min_shift_ms,
                     const ab_compare_opts *o, ab_decision *out);

#ifdef __cplusplus
}
#endif

#endif /* ATTNBENCH_ABSTATS_H */
