/*
 * mannwhitney.c: the two-sided Mann-Whitney U test (Mann & Whitney 1947),
 * written to reproduce scipy.stats.mannwhitneyu(a, b, use_continuity=True,
 * alternative='two-sided', method='auto') of scipy 1.10: U of A from one
 * merge of the two sorted samples (O(n log n)), the exact null distribution
 * when at least one sample has at most 8 observations and nothing is tied,
 * otherwise the normal approximation with tie and continuity corrections.
 */
#include "abstats.h"
#include "stats_internal.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_gamma.h>

int ab__mw_use_exact(size_t na, size_t nb, int pooled_has_ties)
{
    /* scipy 1.10 _mwu_choose_method: "if n1 > 8 and n2 > 8: asymptotic";
     * then asymptotic if any ties; else exact. */
    if (na > 8 && nb > 8)
        return 0;
    return !pooled_has_ties;
}

/* Exact null distribution of U (no ties): the number of arrangements with
 * U = u is the coefficient of q^u in the Gaussian binomial coefficient
 * [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i) (Andrews 1976,
 * The Theory of Partitions, Thm 3.1; the generating function of Mann &
 * Whitney's recursion f(u; m, n) = f(u - n; m - 1, n) + f(u; m, n - 1)).
 * Built factor by factor as a power series truncated at kmax: dividing by
 * (1 - q^i) is a running sum with stride i, multiplying by (1 - q^(n+i)) a
 * shifted difference; after step i it holds [n+i choose i]_q exactly (up to
 * rounding), so the cost is O(min(m,n) kmax). Counts are divided by
 * C(m+n, m) via gsl_sf_lnchoose. */
int ab__mw_exact_cdf(size_t m, size_t n, size_t kmax, double *cdf)
{
    if (m > n) {
        size_t t = m;
        m = n;
        n = t;
    }
    double *c = calloc(kmax + 1, sizeof *c);
    if (c == NULL)
        return AB_STATS_ENOMEM;
    c[0] = 1.0;
    for (size_t i = 1; i <= m; i++) {
        for (size_t j = i; j <= kmax; j++)
            c[j] += c[j - i];
        for (size_t j = kmax; j >= n + i && j <= kmax; j--)
            c[j] -= c[j - n - i];
    }
    double lnc = gsl_sf_lnchoose((unsigned int)(m + n), (unsigned int)m);
    double acc = 0;
    for (size_t j = 0; j <= kmax; j++) {
        acc += c[j];
        double p = exp(log(acc) - lnc);
        cdf[j] = p < 1.0 ? p : 1.0;
    }
    free(c);
    return AB_STATS_OK;
}

/* Mann-Whitney U test of a[0..na) against b[0..nb) (ms), two-sided.
 * na, nb >= 1. r->u = #{a_i > b_j} + 0.5 #{a_i == b_j} (scipy's U1).
 * Exact (r->exact = 1, r->z = 0): p = 2 P(U >= max(U1, U2)) from the exact
 * null distribution, capped at 1. Asymptotic: with N = na + nb and
 * T = sum over tie groups of (t^3 - t), sigma = sqrt(na nb / 12 ((N + 1) -
 * T / (N (N - 1)))), p = 2 Q((max(U1, U2) - na nb / 2 - 0.5) / sigma) capped
 * at 1 (scipy's _get_mwu_z); r->z = sign(U1 - na nb / 2) max(|U1 - na nb/2|
 * - 0.5, 0) / sigma (0 when sigma = 0, i.e. all values equal, p = 1).
 * Errors: AB_STATS_EINVAL, AB_STATS_ENONFINITE, AB_STATS_ENEGATIVE,
 * AB_STATS_ENOMEM. */
int ab_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                    ab_mw_result *r)
{
    double *as = NULL, *bs = NULL, *cdf = NULL;
    int rc = ab__two_sorted(a, na, b, nb, 1, &as, &bs);
    if (rc == AB_STATS_OK && r == NULL)
        rc = AB_STATS_EINVAL;
    if (rc != AB_STATS_OK)
        goto cleanup;
    /* One merge over the distinct values: ca, cb copies of v in A and B. */
    double gt = 0, eq = 0, tie = 0;
    size_t i = 0, j = 0;
    while (i < na || j < nb) {
        double v = (j >= nb || (i < na && as[i] <= bs[j])) ? as[i] : bs[j];
        size_t ca = 0, cb = 0, jb = j;
        while (i < na && as[i] == v) { i++; ca++; }
        while (j < nb && bs[j] == v) { j++; cb++; }
        gt += (double)ca * (double)jb;
        eq += (double)ca * (double)cb;
        double t = (double)(ca + cb);
        tie += t * t * t - t;
    }
    double mn = (double)na * (double)nb;
    double u1 = gt + 0.5 * eq, u2 = mn - u1, u = u1 > u2 ? u1 : u2;
    r->u = u1;
    if (ab__mw_use_exact(na, nb, tie > 0)) {
        size_t k = (size_t)(mn - u); /* P(U >= u) = P(U <= mn - u) */
        cdf = malloc((k + 1) * sizeof *cdf);
        if (cdf == NULL) {
            rc = AB_STATS_ENOMEM;
            goto cleanup;
        }
        rc = ab__mw_exact_cdf(na, nb, k, cdf);
        if (rc != AB_STATS_OK)
            goto cleanup;
        double p = 2.0 * cdf[k];
        r->p = p < 1.0 ? p : 1.0;
        r->z = 0;
        r->exact = 1;
        goto cleanup;
    }
    double nn = (double)(na + nb);
    double var = mn / 12.0 * ((nn + 1) - tie / (nn * (nn - 1)));
    r->exact = 0;
    if (!(var > 0)) {
        r->z = 0;
        r->p = 1.0;
        goto cleanup;
    }
    double s = sqrt(var), d = u - mn / 2.0;
    double p = 2.0 * gsl_cdf_ugaussian_Q((d - 0.5) / s);
    r->p = p < 1.0 ? p : 1.0;
    double zd = d - 0.5 > 0 ? (d - 0.5) / s : 0.0;
    r->z = u1 >= mn / 2.0 ? zd : -zd;
cleanup:
    free(cdf);
    free(bs);
    free(as);
    return rc;
}
