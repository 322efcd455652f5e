/*
 * hodges_lehmann.c: the Hodges-Lehmann estimate of the shift A - B (Hodges &
 * Lehmann 1963; the median of the na nb differences a_i - b_j) with its
 * distribution-free CI (Lehmann 1975, Nonparametrics, ch. 2.6; Hollander &
 * Wolfe 1999, Nonparametric Statistical Methods, 2nd ed., sec. 4.3): the
 * order statistics D_(C) and D_(N + 1 - C) of the N = na nb differences,
 * C from the null distribution of the Mann-Whitney U statistic.
 *
 * Up to ab__hl_materialise_max (10^5) differences they are materialised and sorted
 * (gsl_sort). Beyond, order statistics are selected in the implicit matrix
 * M[i][c] = xs[i] - ys[nb - 1 - c] of the sorted samples, whose rows and
 * columns are sorted, without building it: randomised selection by pivots
 * drawn uniformly from the surviving candidates, each pivot ranked in
 * O(na + nb) by a staircase sweep (the algorithm of Monahan 1984, ACM TOMS
 * 10(3), Algorithm 616 "Fast computation of the Hodges-Lehmann location
 * estimator", after Johnson & Mizoguchi 1978, SIAM J. Comput. 7(2),
 * "Selecting the Kth element in X + Y and X1 + X2 + ... + Xm"); expected
 * O(log N) sweeps.
 */
#include "abstats.h"
#include "stats_internal.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

size_t ab__hl_materialise_max = 100000; /* sorting beats selection below ~10^5 (bench_stats) */

/* Number of differences xs[i] - ys[j] < p (strict) or <= p in each row,
 * as a count of leading columns of M: the differences of row i fall as j
 * grows, so those below p are a suffix j >= s_i of the columns, and s_i
 * does not decrease with i (one staircase sweep). Differences are always
 * evaluated as the same floating-point expression, which is monotone. */
static void rank_rows(const double *xs, size_t na, const double *ys, size_t nb,
                      double p, int strict, size_t *cnt, size_t *total)
{
    size_t s = 0, t = 0;
    for (size_t i = 0; i < na; i++) {
        if (strict)
            while (s < nb && !(xs[i] - ys[s] < p)) s++;
        else
            while (s < nb && !(xs[i] - ys[s] <= p)) s++;
        cnt[i] = nb - s;
        t += nb - s;
    }
    *total = t;
}

int ab__pairdiff_select(const double *xs, size_t na, const double *ys, size_t nb,
                        size_t k, double *out)
{
    int rc = AB_STATS_OK;
    size_t *lo = calloc(na, sizeof *lo), *hi = malloc(na * sizeof *hi);
    size_t *lt = malloc(na * sizeof *lt), *le = malloc(na * sizeof *le);
    size_t small = 2 * (na + nb) > 4096 ? 2 * (na + nb) : 4096;
    double *buf = malloc(small * sizeof *buf);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (lo == NULL || hi == NULL || lt == NULL || le == NULL || buf == NULL || r == NULL) {
        rc = AB_STATS_ENOMEM;
        goto cleanup;
    }
    gsl_rng_set(r, 1); /* the pivots change the speed, never the result */
    for (size_t i = 0; i < na; i++)
        hi[i] = nb;
    for (;;) {
        size_t below = 0, cand = 0;
        for (size_t i = 0; i < na; i++) {
            below += lo[i];
            cand += hi[i] - lo[i];
        }
        /* Invariant: below < k <= below + cand. */
        if (cand <= small) {
            size_t m = 0;
            for (size_t i = 0; i < na; i++)
                for (size_t c = lo[i]; c < hi[i]; c++)
                    buf[m++] = xs[i] - ys[nb - 1 - c];
            *out = gsl_stats_select(buf, 1, m, k - below - 1);
            break;
        }
        size_t pick = (size_t)(gsl_rng_uniform(r) * (double)cand), row = 0;
        if (pick >= cand)
            pick = cand - 1;
        while (pick >= hi[row] - lo[row]) {
            pick -= hi[row] - lo[row];
            row++;
        }
        double p = xs[row] - ys[nb - 1 - (lo[row] + pick)];
        size_t nlt, nle;
        rank_rows(xs, na, ys, nb, p, 1, lt, &nlt);
        rank_rows(xs, na, ys, nb, p, 0, le, &nle);
        if (k <= nlt) {
            for (size_t i = 0; i < na; i++) {
                size_t h = lt[i] < hi[i] ? lt[i] : hi[i];
                hi[i] = h > lo[i] ? h : lo[i];
            }
        } else if (k > nle) {
            for (size_t i = 0; i < na; i++) {
                size_t l = le[i] > lo[i] ? le[i] : lo[i];
                lo[i] = l < hi[i] ? l : hi[i];
            }
        } else {
            *out = p;
            break;
        }
    }
cleanup:
    gsl_rng_free(r);
    free(buf);
    free(le);
    free(lt);
    free(hi);
    free(lo);
    return rc;
}

/* Critical rank C (1-based) of the CI at level: the largest C with
 * P(U <= C - 1) <= (1 - level)/2, so that P(D_(C) > shift) and
 * P(D_(N+1-C) < shift) are each at most (1 - level)/2. Exact U distribution
 * under scipy's rule for mannwhitneyu (one size <= 8, no ties); otherwise
 * Hollander & Wolfe's (1999, eq. 4.41) normal approximation
 * C = N/2 - z_(alpha/2) sqrt(na nb (na + nb + 1) / 12), rounded to the
 * nearest integer. Clamped to [1, (N + 1) / 2].
 * *attained: the confidence 1 - 2 P(U <= C - 1) of [D_(C), D_(N+1-C)] for
 * continuous data, from the exact U distribution whenever it is cheap (the
 * smaller sample has at most 50 and m N/2 <= 10^8 updates), else its
 * normal approximation with continuity correction, 1 - 2 Phi((C - 1/2 -
 * N/2) / sigma); below level only when C was clamped up to 1 (level not
 * attainable: 3 v 3 gives 1 - 2/20 = 0.9; *attainable = 0 then). */
static int critical_rank(size_t na, size_t nb, int ties, double level, size_t *c,
                         double *attained, int *attainable)
{
    double n = (double)na * (double)nb, half_alpha = (1.0 - level) / 2.0;
    size_t cmax = (size_t)((n + 1) / 2), m = na < nb ? na : nb;
    size_t kmax = (size_t)(n / 2);
    int exact_cdf = ab__mw_use_exact(na, nb, 0) || (m <= 50 && (double)m * (double)kmax <= 1e8);
    double *cdf = NULL;
    if (exact_cdf) {
        cdf = malloc((kmax + 1) * sizeof *cdf);
        if (cdf == NULL)
            return AB_STATS_ENOMEM;
        int rc = ab__mw_exact_cdf(na, nb, kmax, cdf);
        if (rc != AB_STATS_OK) {
            free(cdf);
            return rc;
        }
    }
    double cr;
    if (ab__mw_use_exact(na, nb, ties)) {
        size_t u = 0;
        while (u <= kmax && cdf[u] <= half_alpha)
            u++;
        cr = (double)u; /* u - 1 is the last with P(U <= u - 1) <= alpha/2 */
    } else {
        double z = gsl_cdf_ugaussian_Qinv(half_alpha);
        cr = floor(n / 2 - z * sqrt(n * (double)(na + nb + 1) / 12.0) + 0.5);
    }
    *attainable = 1;
    if (cr < 1)
        cr = 1;
    *c = (size_t)cr < cmax ? (size_t)cr : cmax;
    if (exact_cdf) {
        *attained = 1 - 2 * cdf[*c - 1];
    } else {
        double sd = sqrt(n * (double)(na + nb + 1) / 12.0);
        *attained = 1 - 2 * gsl_cdf_ugaussian_P(((double)*c - 0.5 - n / 2) / sd);
    }
    if (*attained < 0)
        *attained = 0;
    if (*c == 1 && *attained < level) /* even [D_(1), D_(N)] falls short */
        *attainable = 0;
    free(cdf);
    return AB_STATS_OK;
}

/* Hodges-Lehmann shift of a[0..na) over b[0..nb) (ms), na, nb >= 2, and its
 * CI [D_(C), D_(N+1-C)] at level (see critical_rank). r->shift is the median
 * (type 7: mean of the two middle ones for even N) of the N = na nb
 * differences a_i - b_j; positive = A slower. r->level: the interval's
 * attained confidence (critical_rank), below level when level is not
 * attainable at these sizes. Errors: AB_STATS_EINVAL,
 * AB_STATS_ENONFINITE, AB_STATS_ENEGATIVE, AB_STATS_ENOMEM. */
int ab_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb,
                      double level, ab_hl_result *r)
{
    double *as = NULL, *bs = NULL, *d = NULL;
    int rc = ab__two_sorted(a, na, b, nb, 2, &as, &bs);
    if (rc == AB_STATS_OK && (r == NULL || !(level > 0 && level < 1)))
        rc = AB_STATS_EINVAL;
    if (rc != AB_STATS_OK)
        goto cleanup;
    int ties = 0; /* any tie in the pooled sample */
    {
        size_t i = 0, j = 0;
        double prev = -1;
        while (i < na || j < nb) {
            double v = (j >= nb || (i < na && as[i] <= bs[j])) ? as[i++] : bs[j++];
            if (v == prev)
                ties = 1;
            prev = v;
        }
    }
    size_t n = na * nb, c;
    double attained;
    int attainable;
    rc = critical_rank(na, nb, ties, level, &c, &attained, &attainable);
    if (rc != AB_STATS_OK)
        goto cleanup;
    /* 1-based ranks wanted: the middle one(s), C and N + 1 - C. */
    size_t want[4] = {(n + 1) / 2, n / 2 + 1, c, n + 1 - c};
    double got[4];
    if (n <= ab__hl_materialise_max) {
        d = malloc(n * sizeof *d);
        if (d == NULL) {
            rc = AB_STATS_ENOMEM;
            goto cleanup;
        }
        for (size_t i = 0; i < na; i++)
            for (size_t j = 0; j < nb; j++)
                d[i * nb + j] = as[i] - bs[j];
        gsl_sort(d, 1, n);
        for (int w = 0; w < 4; w++)
            got[w] = d[want[w] - 1];
    } else {
        for (int w = 0; w < 4; w++) {
            rc = ab__pairdiff_select(as, na, bs, nb, want[w], &got[w]);
            if (rc != AB_STATS_OK)
                goto cleanup;
        }
    }
    r->shift = 0.5 * (got[0] + got[1]);
    r->lo = got[2];
    r->hi = got[3];
    r->level = attained;
    r->attainable = attainable;
cleanup:
    free(d);
    free(bs);
    free(as);
    return rc;
}
