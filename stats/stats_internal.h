/*
 * stats_internal.h: helpers shared by the files of stats/ and by the tests of
 * tests/stats (input validation, sorted copies, leave-one-out medians, the
 * exact Mann-Whitney null distribution and the implicit-matrix selection of
 * the Hodges-Lehmann estimator). Not part of the public API (abstats.h).
 */
#ifndef ATTNBENCH_STATS_INTERNAL_H
#define ATTNBENCH_STATS_INTERNAL_H

#include <stddef.h>
#include <gsl/gsl_rng.h>

/* Validates a latency sample: AB_STATS_EINVAL when x is NULL or n < nmin,
 * AB_STATS_ENONFINITE for a NaN/inf, AB_STATS_ENEGATIVE for x[i] < 0,
 * AB_STATS_ERANGE for a nonzero x[i] outside [AB_STATS_MIN_VALUE,
 * AB_STATS_MAX_VALUE]. */
int ab__check(const double *x, size_t n, size_t nmin);

/* Malloc'd ascending copy of x[0..n) (gsl_sort); NULL when out of memory. */
double *ab__sorted_copy(const double *x, size_t n);

/* The preamble of the two-sample methods: validates A and B (ab__check
 * with nmin) and makes ascending copies *as, *bs (both NULL unless
 * AB_STATS_OK; AB_STATS_ENOMEM when a copy fails). */
int ab__two_sorted(const double *a, size_t na, const double *b, size_t nb, size_t nmin,
                   double **as, double **bs);

/* Median (Hyndman-Fan type 7, as gsl_stats_median_from_sorted_data) of the
 * ascending xs[0..n) without its element at index i, O(1). n >= 2. */
double ab__loo_median(const double *xs, size_t n, size_t i);

/* Median of one bootstrap resample of the ascending xs[0..n), drawn in O(1)
 * from the order statistics of uniform indices (see bootstrap.c). */
double ab__boot_median(const gsl_rng *r, const double *xs, size_t n);

/* Lower tail of the exact null distribution of the Mann-Whitney U statistic
 * for sample sizes m and n without ties: cdf[u] = P(U <= u), u = 0..kmax
 * (mannwhitney.c). Returns AB_STATS_OK or AB_STATS_ENOMEM. */
int ab__mw_exact_cdf(size_t m, size_t n, size_t kmax, double *cdf);

/* scipy's method='auto' rule: exact when not both sizes exceed 8 and the
 * pooled sample has no ties. */
int ab__mw_use_exact(size_t na, size_t nb, int pooled_has_ties);

/* k-th smallest (1-based, 1 <= k <= na*nb) of the na*nb differences
 * xs[i] - ys[j], xs and ys ascending, without materialising them
 * (randomised selection in the implicit sorted matrix; hodges_lehmann.c).
 * Returns AB_STATS_OK or AB_STATS_ENOMEM. */
int ab__pairdiff_select(const double *xs, size_t na, const double *ys, size_t nb,
                        size_t k, double *out);

/* na*nb above which ab_hodges_lehmann selects instead of sorting all
 * differences; tests lower it to exercise both paths. */
extern size_t ab__hl_materialise_max;

/* Two-sided p of the signed-rank statistic under sign flipping (wilcoxon.c):
 * r2[0..m) the doubled midranks of the nonzero differences (integers >= 2),
 * s_obs the observed doubled T+; *p = P(|2S - R| >= |2 s_obs - R|), R the sum
 * of r2, S the doubled T+ of independent fair signs, enumerated exactly on
 * the integer lattice in O(m R). AB_STATS_OK or AB_STATS_ENOMEM. */
int ab__signrank_perm_p(const unsigned long *r2, size_t m, unsigned long s_obs, double *p);

/* Lattice updates above which ab_mann_whitney_opts draws a Monte Carlo
 * permutation p instead of enumerating; tests lower it. */
extern size_t ab__mw_enum_budget;

/* The exact null distribution of the untied signed-rank statistic T+ of n
 * differences: cdf[s] = P(T+ <= s), s = 0..n(n+1)/2 (cdf holds that many
 * + 1); exact in doubles for n <= 52 (signrank_ci.c). AB_STATS_OK. */
int ab__signrank_exact_cdf(size_t n, double *cdf);

/* The two-sided quantile the signed-rank interval uses at level: the
 * normal's, or Student's t with n/inflation - 1 df (at least 1) when
 * inflation > 1 (signrank_ci.c). */
double ab__signrank_quantile(double level, double inflation, size_t n);

#endif /* ATTNBENCH_STATS_INTERNAL_H */
