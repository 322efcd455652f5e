/*
 * drift.c: a trend test of latencies against their order of measurement,
 * Spearman's rank correlation (Spearman 1904) of x with its index 0..n-1
 * (average ranks for ties, as scipy.stats.spearmanr), with the two-sided
 * p-value of t = rho sqrt((n - 2) / (1 - rho^2)) on n - 2 degrees of
 * freedom (the approximation scipy.stats.spearmanr uses; Zar 1972) for
 * n > 10. That approximation is far off at small n (a monotone series of 3
 * gets p ~ 1e-8; the exact p is 1/3), so for n <= AB_DRIFT_EXACT_MAX (10)
 * the p is exact: the conditional permutation distribution of rho given
 * the ties of x, every one of the n! orderings enumerated (Heap's
 * algorithm, Heap 1963, Computer Journal 6(3), 293-294; at most 3.6e6
 * orderings x 10), on doubled midranks, with the statistic S = sum_i i r_i
 * (rho is an increasing affine function of S for fixed ties): p = P(|2S -
 * (n + 1) R| >= observed), R the sum of the doubled ranks (Kendall &
 * Gibbons 1990, Rank Correlation Methods, 5th ed., ch. 4: exact null by
 * enumeration for small n).
 */
#include "abstats.h"
#include "stats_internal.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#define AB_DRIFT_EXACT_MAX 10

/* Exact two-sided permutation p of S = sum_i (i + 1) r2[i] over all n!
 * orderings of the integers r2[0..n) (n <= 10), iteratively by Heap's
 * algorithm, each ordering one transposition from the last, so S is
 * updated in O(1). r2 is permuted in place. */
static double exact_p(long *r2, size_t n)
{
    long total = 0, s = 0;
    for (size_t i = 0; i < n; i++) {
        total += r2[i];
        s += (long)(i + 1) * r2[i];
    }
    long centre = (long)(n + 1) * total, dev = labs(2 * s - centre);
    size_t c[AB_DRIFT_EXACT_MAX] = {0};
    double hits = 1, count = 1; /* the identity ordering */
    for (size_t i = 1; i < n;) {
        if (c[i] < i) {
            size_t j = i % 2 == 0 ? 0 : c[i];
            /* swapping positions i and j changes S by (i - j)(r2[j] - r2[i]) */
            s += ((long)i - (long)j) * (r2[j] - r2[i]);
            long t = r2[j];
            r2[j] = r2[i];
            r2[i] = t;
            hits += labs(2 * s - centre) >= dev;
            count++;
            c[i]++;
            i = 1;
        } else {
            c[i] = 0;
            i++;
        }
    }
    return hits / count;
}

/* The untied null distribution of S = sum_i (i + 1) pi(i) over the n!
 * permutations pi of 1..n, for n = AB_DRIFT_EXACT_MAX: computed once per
 * process by the same enumeration (3.6e6 orderings, ~10 ms) and kept, since
 * the untied distribution depends on n only and reports test hundreds of
 * 10-sample series. Not thread-safe on its first call (attnbench analyses
 * in one thread). untied_counts[S - smin], smin = n(n+1)(n+2)/6. */
static double untied_counts[400];
static int untied_ready;

static double untied_p(long s_obs, size_t n)
{
    long smin = (long)(n * (n + 1) * (n + 2) / 6), smax = (long)(n * (n + 1) * (2 * n + 1) / 6);
    if (!untied_ready) {
        long r[AB_DRIFT_EXACT_MAX], s = 0;
        size_t c[AB_DRIFT_EXACT_MAX] = {0};
        for (size_t i = 0; i < n; i++) {
            r[i] = (long)(i + 1);
            s += (long)(i + 1) * r[i];
        }
        untied_counts[s - smin] += 1;
        for (size_t i = 1; i < n;) {
            if (c[i] < i) {
                size_t j = i % 2 == 0 ? 0 : c[i];
                s += ((long)i - (long)j) * (r[j] - r[i]);
                long t = r[j];
                r[j] = r[i];
                r[i] = t;
                untied_counts[s - smin] += 1;
                c[i]++;
                i = 1;
            } else {
                c[i] = 0;
                i++;
            }
        }
        untied_ready = 1;
    }
    long centre = smin + smax, dev = labs(2 * s_obs - centre); /* 2 E[S] = smin + smax */
    double hits = 0, count = 0;
    for (long s = smin; s <= smax; s++) {
        count += untied_counts[s - smin];
        if (labs(2 * s - centre) >= dev)
            hits += untied_counts[s - smin];
    }
    return hits / count;
}

/* Spearman trend of x[0..n) (ms, in sample order), n >= 3, 0 < alpha < 1.
 * d->rho: Pearson correlation (gsl_stats_correlation) of the average ranks
 * of x with 1..n; d->p exact for n <= 10 (file comment), else
 * 2 Q_t(|t|; n - 2) by gsl_cdf_tdist_Q (0 when |rho| = 1); constant x (no rank variance): rho = 0, p = 1. d->drifting =
 * p < alpha. Errors: AB_STATS_EINVAL, AB_STATS_ENONFINITE,
 * AB_STATS_ENEGATIVE, AB_STATS_ENOMEM. */
int ab_drift_test(const double *x, size_t n, double alpha, ab_drift *d)
{
    size_t *idx = NULL;
    double *rank = NULL, *pos = NULL;
    int rc = ab__check(x, n, 3);
    if (rc == AB_STATS_OK && (d == NULL || !(alpha > 0 && alpha < 1)))
        rc = AB_STATS_EINVAL;
    if (rc != AB_STATS_OK)
        goto cleanup;
    idx = malloc(n * sizeof *idx);
    rank = malloc(n * sizeof *rank);
    pos = malloc(n * sizeof *pos);
    if (idx == NULL || rank == NULL || pos == NULL) {
        rc = AB_STATS_ENOMEM;
        goto cleanup;
    }
    gsl_sort_index(idx, x, 1, n);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && x[idx[j + 1]] == x[idx[i]])
            j++;
        double avg = 0.5 * (double)(i + j) + 1.0; /* ranks i+1 .. j+1 */
        for (size_t k = i; k <= j; k++)
            rank[idx[k]] = avg;
        i = j + 1;
    }
    for (size_t i = 0; i < n; i++)
        pos[i] = (double)(i + 1);
    double rho = 0, p = 1;
    if (rank[idx[0]] != rank[idx[n - 1]]) {
        rho = gsl_stats_correlation(rank, 1, pos, 1, n);
        if (rho > 1) rho = 1;
        if (rho < -1) rho = -1;
        if (n <= AB_DRIFT_EXACT_MAX) {
            long r2[AB_DRIFT_EXACT_MAX], s = 0;
            int tied = 0;
            for (size_t i = 0; i < n; i++) {
                r2[i] = lround(2 * rank[i]);
                s += (long)(i + 1) * r2[i] / 2;
                tied |= r2[i] % 2 != 0 || (i > 0 && rank[idx[i]] == rank[idx[i - 1]]);
            }
            p = n == AB_DRIFT_EXACT_MAX && !tied ? untied_p(s, n) : exact_p(r2, n);
        } else if (fabs(rho) >= 1) {
            p = 0;
        } else {
            double df = (double)(n - 2);
            double t = rho * sqrt(df / ((1 - rho) * (1 + rho)));
            p = 2 * gsl_cdf_tdist_Q(fabs(t), df);
            if (p > 1) p = 1;
        }
    }
    d->rho = rho;
    d->p = p;
    d->method = n <= AB_DRIFT_EXACT_MAX ? AB_P_PERMUTATION : AB_P_NORMAL;
    d->drifting = p < alpha;
cleanup:
    free(pos);
    free(rank);
    free(idx);
    return rc;
}
