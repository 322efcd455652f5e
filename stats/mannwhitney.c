/*
 * mannwhitney.c: the two-sided Mann-Whitney U test (Mann & Whitney 1947).
 * U of A comes from one merge of the two sorted samples (O(n log n)). The
 * p-value (which method: ab_mann_whitney_opts in abstats.h):
 *  - untied: the exact null distribution (Gaussian binomial coefficients,
 *    below), as scipy.stats.mannwhitneyu(method='exact');
 *  - tied, small or heavily tied: the exact conditional permutation
 *    distribution of the rank sum given the ties (Lehmann 1975,
 *    Nonparametrics, sec. 1.4; Hollander & Wolfe 1999, sec. 4.1 comment 9),
 *    enumerated on doubled midranks (integers: a tie group at sorted
 *    positions s+1..s+t has doubled midrank 2s + t + 1) by the shift
 *    algorithm of Streitberg & Roehmel (1986, Statistical Software
 *    Newsletter 12, 10-17): N_k(i, w) = N_k(i-1, w) + N_{k-1}(i-1, w - r_i),
 *    the number of k-subsets of the first i observations with doubled rank
 *    sum w, O(N m W) for the smaller sample's size m and W its largest
 *    doubled rank sum; two-sided p = 2 min(P(W <= w), P(W >= w)) capped at 1
 *    (scipy.stats.permutation_test's two-sided p; it equals scipy's exact
 *    mannwhitneyu p when untied). When that costs more than
 *    ab__mw_enum_budget updates: a Monte Carlo permutation p over random
 *    m-subsets (partial Fisher-Yates, gsl_rng_mt19937 with the given seed),
 *    p = 2 min(b_le + 1, b_ge + 1) / (R + 1) capped at 1 (Phipson & Smyth
 *    2010, Stat. Appl. Genet. Mol. Biol. 9(1), art. 39: valid, never 0),
 *    with standard error 2 sqrt(t (1 - t) / R), t = p / 2 the smaller tail;
 *  - otherwise the normal approximation with tie and continuity corrections
 *    of scipy.stats.mannwhitneyu(use_continuity=True, method='asymptotic').
 */
#include "abstats.h"
#include "stats_internal.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>

size_t ab__mw_enum_budget = 100000000; /* lattice updates, ~0.1 s */

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

/* Doubled midranks of the pooled sorted samples: r2[k] for the k-th pooled
 * value in ascending order, and for each the sample it came from (inA). */
static void pooled_ranks(const double *as, size_t na, const double *bs, size_t nb,
                         unsigned long *r2, unsigned char *inA)
{
    size_t i = 0, j = 0, k = 0;
    while (i < na || j < nb) {
        double v = (j >= nb || (i < na && as[i] <= bs[j])) ? as[i] : bs[j];
        size_t s = k;
        while (i < na && as[i] == v) { inA[k++] = 1; i++; }
        while (j < nb && bs[j] == v) { inA[k++] = 0; j++; }
        for (size_t q = s; q < k; q++)
            r2[q] = (unsigned long)(2 * s + (k - s) + 1);
    }
}

/* Exact conditional p of the doubled rank sum w of an m-subset of the N
 * values with doubled ranks r2 (ascending): see the file comment. */
static int perm_p(const unsigned long *r2, size_t N, size_t m, unsigned long w, double *p)
{
    unsigned long wmax = 0;
    for (size_t k = 0; k < m; k++)
        wmax += r2[N - 1 - k];
    size_t W = (size_t)wmax + 1;
    double *f = calloc((m + 1) * W, sizeof *f);
    if (f == NULL)
        return AB_STATS_ENOMEM;
    f[0] = 1.0; /* f[k W + s]: k-subsets with doubled rank sum s */
    unsigned long top = 0;
    for (size_t i = 0; i < N; i++) {
        unsigned long r = r2[i];
        top = top + r < wmax ? top + r : wmax;
        size_t kmax = i + 1 < m ? i + 1 : m;
        for (size_t k = kmax; k >= 1; k--) {
            double *dst = f + k * W, *src = f + (k - 1) * W;
            for (unsigned long s = top; s >= r; s--) {
                dst[s] += src[s - r];
                if (s == r)
                    break;
            }
        }
    }
    const double *g = f + m * W;
    double total = 0, le = 0, ge = 0;
    for (size_t s = 0; s < W; s++)
        total += g[s];
    for (size_t s = 0; s <= w && s < W; s++)
        le += g[s];
    for (size_t s = W - 1; s >= w; s--) {
        ge += g[s];
        if (s == 0)
            break;
    }
    double q = 2 * (le < ge ? le : ge) / total;
    *p = q < 1.0 ? q : 1.0;
    free(f);
    return AB_STATS_OK;
}

/* Monte Carlo permutation p of the doubled rank sum w of an m-subset: see
 * the file comment. */
static int mc_p(const unsigned long *r2, size_t N, size_t m, unsigned long w,
                const ab_test_opts *o, double *p, double *se)
{
    size_t *perm = malloc(N * sizeof *perm);
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    if (perm == NULL || g == NULL) {
        free(perm);
        gsl_rng_free(g);
        return AB_STATS_ENOMEM;
    }
    gsl_rng_set(g, o->seed);
    for (size_t i = 0; i < N; i++)
        perm[i] = i;
    double le = 0, ge = 0, R = (double)o->mc_resamples;
    for (size_t rep = 0; rep < o->mc_resamples; rep++) {
        unsigned long s = 0;
        for (size_t k = 0; k < m; k++) { /* partial Fisher-Yates: a uniform m-subset */
            size_t j = k + (size_t)gsl_rng_uniform_int(g, (unsigned long)(N - k));
            size_t t = perm[k];
            perm[k] = perm[j];
            perm[j] = t;
            s += r2[perm[k]];
        }
        le += s <= w;
        ge += s >= w;
    }
    double t = ((le < ge ? le : ge) + 1) / (R + 1), q = 2 * t; /* t: the smaller tail */
    *p = q < 1.0 ? q : 1.0;
    *se = 2 * sqrt(t * (1 - t) / R);
    gsl_rng_free(g);
    free(perm);
    return AB_STATS_OK;
}

int ab_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                    ab_mw_result *r)
{
    return ab_mann_whitney_opts(a, na, b, nb, NULL, r);
}

/* Mann-Whitney U test of a[0..na) against b[0..nb) (ms), two-sided.
 * na, nb >= 1. r->u = #{a_i > b_j} + 0.5 #{a_i == b_j} (scipy's U1).
 * Exact untied (AB_P_EXACT, r->z = 0): p = 2 P(U >= max(U1, U2)), capped
 * at 1. Permutation / Monte Carlo: see the file comment. Normal: with
 * N = na + nb and T = sum over tie groups of (t^3 - t), sigma = sqrt(na nb
 * / 12 ((N + 1) - T / (N (N - 1)))), p = 2 Q((max(U1, U2) - na nb / 2 -
 * 0.5) / sigma) capped at 1 (scipy's _get_mwu_z); r->z = sign(U1 - na nb /
 * 2) max(|U1 - na nb/2| - 0.5, 0) / sigma (0 when sigma = 0, p = 1).
 * Errors: AB_STATS_EINVAL, AB_STATS_ENONFINITE, AB_STATS_ENEGATIVE,
 * AB_STATS_ENOMEM. */
int ab_mann_whitney_opts(const double *a, size_t na, const double *b, size_t nb,
                         const ab_test_opts *o, ab_mw_result *r)
{
    double *as = NULL, *bs = NULL, *cdf = NULL;
    unsigned long *r2 = NULL;
    unsigned char *inA = NULL;
    ab_test_opts def;
    if (o == NULL) {
        ab_test_opts_default(&def);
        o = &def;
    }
    int rc = ab__two_sorted(a, na, b, nb, 1, &as, &bs);
    if (rc == AB_STATS_OK && (r == NULL || o->mc_resamples < 1))
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
    double mn = (double)na * (double)nb, nn = (double)(na + nb);
    double u1 = gt + 0.5 * eq, u2 = mn - u1, u = u1 > u2 ? u1 : u2;
    r->u = u1;
    r->z = 0;
    r->p_se = 0;
    size_t m = na < nb ? na : nb, N = na + nb;
    int small = m <= o->exact_max_n;
    int heavy = tie > 0.5 * (nn * nn * nn - nn);
    if (tie == 0 && (ab__mw_use_exact(na, nb, 0) ||
                     (small && (double)m * (mn / 2) <= (double)ab__mw_enum_budget))) {
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
        r->method = AB_P_EXACT;
        r->exact = 1;
        goto cleanup;
    }
    if (small || heavy) {
        r2 = malloc(N * sizeof *r2);
        inA = malloc(N);
        if (r2 == NULL || inA == NULL) {
            rc = AB_STATS_ENOMEM;
            goto cleanup;
        }
        pooled_ranks(as, na, bs, nb, r2, inA);
        /* the statistic: doubled rank sum of the smaller sample */
        int pickA = na <= nb;
        unsigned long w = 0, wmax = 0;
        for (size_t k = 0; k < N; k++)
            if ((inA[k] != 0) == pickA)
                w += r2[k];
        for (size_t k = 0; k < m; k++)
            wmax += r2[N - 1 - k];
        double cost = (double)N * (double)m * (double)(wmax + 1);
        if (cost <= (double)ab__mw_enum_budget) {
            rc = perm_p(r2, N, m, w, &r->p);
            r->method = AB_P_PERMUTATION;
            r->exact = 1;
        } else {
            rc = mc_p(r2, N, m, w, o, &r->p, &r->p_se);
            r->method = AB_P_MONTE_CARLO;
            r->exact = 0;
        }
        goto cleanup;
    }
    double var = mn / 12.0 * ((nn + 1) - tie / (nn * (nn - 1)));
    r->exact = 0;
    r->method = AB_P_NORMAL;
    if (!(var > 0)) {
        r->p = 1.0;
        goto cleanup;
    }
    double s = sqrt(var), d = u - mn / 2.0;
    double p = 2.0 * gsl_cdf_ugaussian_Q((d - 0.5) / s);
    r->p = p < 1.0 ? p : 1.0;
    double zd = d - 0.5 > 0 ? (d - 0.5) / s : 0.0;
    r->z = u1 >= mn / 2.0 ? zd : -zd;
cleanup:
    free(inA);
    free(r2);
    free(cdf);
    free(bs);
    free(as);
    return rc;
}
