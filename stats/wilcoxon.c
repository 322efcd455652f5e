/*
 * wilcoxon.c: the two-sided Wilcoxon signed-rank test of paired differences
 * (Wilcoxon 1945, "Individual comparisons by ranking methods", Biometrics
 * Bulletin 1(6), 80-83), the test that round-level inference applies to
 * per-round differences (10-30 rounds, timer-rounded, so ties and zeros are
 * the rule), and the defaults of the rank tests' options (ab_test_opts).
 *
 * Ranks are midranks of |d_i|; everything is computed on doubled midranks,
 * which are integers (a tie group at sorted positions s+1..s+t has midrank
 * s + (t + 1)/2, doubled 2s + t + 1), so the statistic and its null
 * distribution live on an integer lattice.
 *
 * Zeros: AB_ZERO_WILCOX drops them before ranking (Wilcoxon's convention,
 * scipy.stats.wilcoxon's default zero_method='wilcox'); AB_ZERO_PRATT ranks
 * them with the others and gives them no sign (Pratt 1959, JASA 54, 655-667;
 * scipy's zero_method='pratt').
 *
 * Null distribution: conditional on the observed |d_i| (hence on the ties
 * and zeros), each nonzero d_i is + or - with probability 1/2 independently,
 * and T+ = sum of the ranks with d_i > 0 (the permutation distribution of
 * Pratt & Gibbons 1981, Concepts of Nonparametric Theory, sec. 5.7, and
 * Hollander & Wolfe 1999, sec. 3.1 comment 13). Its probabilities over the
 * doubled-rank lattice are built one observation at a time, P_k(s) =
 * (P_{k-1}(s) + P_{k-1}(s - r_k)) / 2 (the shift algorithm of Streitberg &
 * Roehmel 1986, "Exact distributions for permutation and rank tests",
 * Statistical Software Newsletter 12, 10-17), O(m R) for m nonzero
 * differences with doubled-rank total R <= m (m + 1). Without ties or zeros
 * it is Wilcoxon's exact distribution (scipy's mode='exact'). The two-sided
 * p is P(|T+ - E| >= |t+ - E|), E = R/4 in ranks, which by the symmetry of
 * the null equals scipy's 2 min(P(T+ <= t+), P(T+ >= t+)) capped at 1.
 *
 * Method: exact whenever m <= o->exact_max_n (scipy 1.10's mode='auto'
 * threshold, 50), and also beyond when ties or zeros are present and m <=
 * AB_WSR_ENUM_MAX (460: m^2 (m + 1) <= 10^8 lattice updates, ~0.1 s);
 * otherwise the normal approximation of scipy.stats.wilcoxon(mode='approx',
 * correction=False): T = min(T+, T-), with c = m (wilcox) or n (Pratt),
 * mean c (c + 1)/4 and variance (c (c + 1)(2c + 1) - sum_g t_g (t_g^2 - 1)/2)
 * / 24 over tie groups g of nonzero |d|, Pratt's mean and variance reduced by
 * those of the zeros' ranks, z0 (z0 + 1)/4 and z0 (z0 + 1)(2 z0 + 1)/24
 * (Cureton 1967, JASA 62, 1068-1069).
 */
#include "abstats.h"
#include "stats_internal.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>

#define AB_WSR_ENUM_MAX 460

void ab_test_opts_default(ab_test_opts *o)
{
    if (o == NULL)
        return;
    o->exact_max_n = 50;
    o->mc_resamples = 100000;
    o->seed = 42;
    o->zero_method = AB_ZERO_WILCOX;
}

const char *ab_pmethod_name(ab_pmethod m)
{
    switch (m) {
    case AB_P_EXACT: return "exact";
    case AB_P_PERMUTATION: return "exact permutation";
    case AB_P_MONTE_CARLO: return "Monte Carlo permutation";
    case AB_P_NORMAL: return "normal approximation";
    case AB_P_WELCH_T: return "Welch t";
    case AB_P_BETWEEN_RUNS: return "t between runs";
    case AB_P_ONE_INSTANCE_T: return "t of one instance against instances";
    default: return "unknown";
    }
}

int ab__signrank_perm_p(const unsigned long *r2, size_t m, unsigned long s_obs, double *p)
{
    unsigned long total = 0;
    for (size_t k = 0; k < m; k++)
        total += r2[k];
    double *f = calloc(total + 1, sizeof *f);
    if (f == NULL)
        return AB_STATS_ENOMEM;
    f[0] = 1.0;
    unsigned long top = 0; /* f[s] = 0 for s > top */
    for (size_t k = 0; k < m; k++) {
        unsigned long r = r2[k];
        top += r;
        for (unsigned long s = top; s >= r; s--) {
            f[s] = 0.5 * (f[s] + f[s - r]);
            if (s == r)
                break;
        }
        for (unsigned long s = 0; s < r && s <= top; s++)
            f[s] *= 0.5;
    }
    /* |2s - total| >= |2 s_obs - total|: the two tails, each summed from its
     * extreme inwards (small terms first); the centre cell, if any, once. */
    long tot = (long)total, dev = labs(2 * (long)s_obs - tot);
    double acc = 0;
    for (long s = 0; 2 * s <= tot && tot - 2 * s >= dev; s++)
        acc += f[s];
    for (long s = tot; 2 * s > tot && 2 * s - tot >= dev; s--)
        acc += f[s];
    *p = acc < 1.0 ? acc : 1.0;
    free(f);
    return AB_STATS_OK;
}

/* Signed-rank test of d[0..n); see the file comment and abstats.h. */
int ab_wilcoxon_signed_rank(const double *d, size_t n, const ab_test_opts *o,
                            ab_wilcoxon *out)
{
    int rc = AB_STATS_OK;
    double *ad = NULL;
    size_t *idx = NULL;
    unsigned long *r2 = NULL;
    ab_test_opts def;
    if (o == NULL) {
        ab_test_opts_default(&def);
        o = &def;
    }
    if (d == NULL || n == 0 || out == NULL ||
        (o->zero_method != AB_ZERO_WILCOX && o->zero_method != AB_ZERO_PRATT)) {
        rc = AB_STATS_EINVAL;
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++)
        if (!isfinite(d[i])) {
            rc = AB_STATS_ENONFINITE;
            goto cleanup;
        }
    ad = malloc(n * sizeof *ad);
    idx = malloc(n * sizeof *idx);
    r2 = malloc(n * sizeof *r2);
    if (ad == NULL || idx == NULL || r2 == NULL) {
        rc = AB_STATS_ENOMEM;
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++)
        ad[i] = fabs(d[i]);
    gsl_sort_index(idx, ad, 1, n);
    size_t nz = 0;
    while (nz < n && ad[idx[nz]] == 0)
        nz++;
    /* Ranked positions: all n (Pratt) or the nonzero ones (Wilcoxon). */
    size_t first = o->zero_method == AB_ZERO_PRATT ? 0 : nz;
    size_t m = n - nz;              /* nonzero differences */
    unsigned long tp2 = 0, tm2 = 0; /* doubled T+, T- */
    double ties = 0;                /* sum over nonzero tie groups of t (t^2 - 1) */
    int tied = 0;
    size_t k = 0;                   /* entries of r2 (nonzero ones) */
    for (size_t i = first; i < n;) {
        size_t j = i;
        while (j < n && ad[idx[j]] == ad[idx[i]])
            j++;
        size_t s = i - first, t = j - i;
        unsigned long rr = (unsigned long)(2 * s + t + 1);
        if (ad[idx[i]] != 0) {
            double ft = (double)t;
            ties += ft * (ft * ft - 1);
            tied |= t > 1;
            for (size_t q = i; q < j; q++) {
                r2[k++] = rr;
                if (d[idx[q]] > 0)
                    tp2 += rr;
                else
                    tm2 += rr;
            }
        }
        i = j;
    }
    out->n = n;
    out->n_zero = nz;
    out->t_plus = 0.5 * (double)tp2;
    out->t_minus = 0.5 * (double)tm2;
    out->statistic = out->t_plus < out->t_minus ? out->t_plus : out->t_minus;
    out->z = 0;
    out->p_se = 0;
    if (m == 0) { /* every difference is 0: no sign to permute */
        out->p = 1.0;
        out->method = AB_P_PERMUTATION;
        goto cleanup;
    }
    int irregular = tied || nz > 0;
    if (m <= o->exact_max_n || (irregular && m <= AB_WSR_ENUM_MAX)) {
        rc = ab__signrank_perm_p(r2, m, tp2, &out->p);
        out->method = irregular ? AB_P_PERMUTATION : AB_P_EXACT;
        goto cleanup;
    }
    double c = (double)(o->zero_method == AB_ZERO_PRATT ? n : m);
    double mn = c * (c + 1) * 0.25, v24 = c * (c + 1) * (2 * c + 1);
    if (o->zero_method == AB_ZERO_PRATT) {
        double z0 = (double)nz;
        mn -= z0 * (z0 + 1) * 0.25;
        v24 -= z0 * (z0 + 1) * (2 * z0 + 1);
    }
    v24 -= 0.5 * ties;
    out->method = AB_P_NORMAL;
    if (!(v24 > 0)) {
        out->p = 1.0;
        goto cleanup;
    }
    out->z = (out->statistic - mn) / sqrt(v24 / 24);
    double p = 2 * gsl_cdf_ugaussian_Q(fabs(out->z));
    out->p = p < 1.0 ? p : 1.0;
cleanup:
    free(r2);
    free(idx);
    free(ad);
    return rc;
}
