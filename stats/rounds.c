/*
 * rounds.c: per-round medians, the cluster bootstrap of a median over
 * rounds and the paired comparison of two variants over the rounds they
 * share (rounds.h; its interval and widening in signrank_ci.c and
 * serial.c).
 *
 * The bootstrap resamples whole rounds with replacement and recomputes the
 * statistic from the drawn rounds only (Davison & Hinkley 1997, sec. 3.8:
 * for two-stage data, resampling the first-stage units and keeping each
 * unit's observations intact reproduces the between-unit variance, which is
 * the part that dominates when observations within a unit are correlated;
 * Field & Welsh 2007 prove the consistency of this "cluster bootstrap" for
 * the between-cluster variance). Percentile intervals (Efron & Tibshirani
 * 1993, ch. 13) with numpy's default (type 7) quantiles of the resampled
 * statistics, as bootstrap.c. Reproducible bit for bit for a seed (GSL's
 * mt19937).
 */
#include "rounds.h"
#include "stats_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

static int check_rounds(const double *x, const int *round, size_t n)
{
    int rc = ab__check(x, n, 1);
    if (rc != AB_STATS_OK)
        return rc;
    if (round == NULL)
        return AB_STATS_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (round[i] < 0)
            return AB_STATS_EINVAL;
    return AB_STATS_OK;
}

/* Groups x by round: on return xs holds x ordered by round (ties in input
 * order), start[g] .. start[g+1] the samples of the g-th distinct round,
 * rid[g] its index; *ng the number of rounds. xs has n entries, start n+1,
 * rid n. */
static int group(const double *x, const int *round, size_t n, double *xs, size_t *start, int *rid,
                 size_t *ng)
{
    size_t *perm = malloc(n * sizeof *perm);
    double *key = malloc(n * sizeof *key);
    if (!perm || !key) {
        free(perm);
        free(key);
        return AB_STATS_ENOMEM;
    }
    /* sort by (round, position): the key is exact in a double for
     * round < 2^20 and n < 2^32 */
    for (size_t i = 0; i < n; i++)
        key[i] = (double)round[i] * 4294967296.0 + (double)i;
    gsl_sort_index(perm, key, 1, n);
    size_t g = 0;
    for (size_t i = 0; i < n; i++) {
        xs[i] = x[perm[i]];
        if (i == 0 || round[perm[i]] != round[perm[i - 1]]) {
            start[g] = i;
            rid[g] = round[perm[i]];
            g++;
        }
    }
    start[g] = n;
    *ng = g;
    free(perm);
    free(key);
    return AB_STATS_OK;
}

/* The median of each round's samples (ab_round_medians), or of all but
 * each round's first sample where it has two or more (leave_first;
 * ab_round_settled_medians, *dropped counting those left out). */
static int round_medians(const double *x, const int *round, size_t n, int leave_first, int *rid,
                         double *med, size_t *nr, size_t *dropped)
{
    int rc = check_rounds(x, round, n);
    if (rc != AB_STATS_OK)
        return rc;
    if (rid == NULL || med == NULL || nr == NULL)
        return AB_STATS_EINVAL;
    double *xs = malloc(n * sizeof *xs);
    size_t *start = malloc((n + 1) * sizeof *start);
    if (!xs || !start) {
        free(xs);
        free(start);
        return AB_STATS_ENOMEM;
    }
    size_t g, left_out = 0;
    rc = group(x, round, n, xs, start, rid, &g); /* a round's samples stay in input order */
    if (rc == AB_STATS_OK) {
        for (size_t k = 0; k < g; k++) {
            size_t s0 = start[k], m = start[k + 1] - start[k];
            if (leave_first && m >= 2) { /* the round's first sample is left out */
                s0++;
                m--;
                left_out++;
            }
            gsl_sort(xs + s0, 1, m);
            med[k] = gsl_stats_median_from_sorted_data(xs + s0, 1, m);
        }
        *nr = g;
        if (dropped != NULL)
            *dropped = left_out;
    }
    free(xs);
    free(start);
    return rc;
}

int ab_round_medians(const double *x, const int *round, size_t n, int *rid, double *med,
                     size_t *nr)
{
    return round_medians(x, round, n, 0, rid, med, nr, NULL);
}

int ab_round_settled_medians(const double *x, const int *round, size_t n, int *rid,
                             double *med, size_t *nr, size_t *dropped)
{
    return round_medians(x, round, n, 1, rid, med, nr, dropped);
}

static int check_opts(const ab_boot_opts *o)
{
    if (o == NULL || o->resamples < 2 || !(o->level > 0 && o->level < 1))
        return AB_STATS_EINVAL;
    return AB_STATS_OK;
}

/* Percentile interval of the sorted resampled statistics t[0..m). */
static void percentile(double *t, size_t m, double level, double *lo, double *hi)
{
    gsl_sort(t, 1, m);
    *lo = gsl_stats_quantile_from_sorted_data(t, 1, m, (1 - level) / 2);
    *hi = gsl_stats_quantile_from_sorted_data(t, 1, m, (1 + level) / 2);
}

int ab_rounds_median_ci(const double *x, const int *round, size_t n, const ab_boot_opts *o,
                        double *lo, double *hi)
{
    int rc = check_rounds(x, round, n);
    if (rc != AB_STATS_OK)
        return rc;
    if ((rc = check_opts(o)) != AB_STATS_OK || lo == NULL || hi == NULL)
        return AB_STATS_EINVAL;
    double *xs = malloc(n * sizeof *xs), *buf = NULL, *t = NULL;
    size_t *start = malloc((n + 1) * sizeof *start);
    int *rid = malloc(n * sizeof *rid);
    gsl_rng *r = NULL;
    size_t g = 0;
    rc = AB_STATS_ENOMEM;
    if (!xs || !start || !rid)
        goto cleanup;
    if ((rc = group(x, round, n, xs, start, rid, &g)) != AB_STATS_OK)
        goto cleanup;
    rc = AB_STATS_EINVAL;
    if (g < 2)
        goto cleanup;
    /* a resample of g rounds holds at most g times the largest round */
    size_t maxr = 0;
    for (size_t k = 0; k < g; k++)
        if (start[k + 1] - start[k] > maxr)
            maxr = start[k + 1] - start[k];
    rc = AB_STATS_ENOMEM;
    buf = malloc(g * maxr * sizeof *buf);
    t = malloc(o->resamples * sizeof *t);
    r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!buf || !t || !r)
        goto cleanup;
    gsl_rng_set(r, o->seed);
    for (size_t b = 0; b < o->resamples; b++) {
        size_t m = 0;
        for (size_t k = 0; k < g; k++) {
            size_t c = (size_t)gsl_rng_uniform_int(r, g);
            memcpy(buf + m, xs + start[c], (start[c + 1] - start[c]) * sizeof *buf);
            m += start[c + 1] - start[c];
        }
        t[b] = gsl_stats_median(buf, 1, m); /* quickselect, reorders buf */
    }
    percentile(t, o->resamples, o->level, lo, hi);
    rc = AB_STATS_OK;
cleanup:
    gsl_rng_free(r);
    free(xs);
    free(start);
    free(rid);
    free(buf);
    free(t);
    return rc;
}

int ab_rounds_compare(const double *a, const int *ra, size_t na, const double *b,
                      const int *rb, size_t nb, const ab_boot_opts *o, ab_rounds_result *out)
{
    int rc;
    if (out == NULL || check_opts(o) != AB_STATS_OK)
        return AB_STATS_EINVAL;
    if ((rc = check_rounds(a, ra, na)) != AB_STATS_OK || (rc = check_rounds(b, rb, nb)) != AB_STATS_OK)
        return rc;
    memset(out, 0, sizeof *out);
    int *ia = malloc(na * sizeof *ia), *ib = malloc(nb * sizeof *ib);
    double *ma = malloc(na * sizeof *ma), *mb = malloc(nb * sizeof *mb);
    double *d = malloc((na < nb ? na : nb) * sizeof *d);
    size_t ga = 0, gb = 0, m = 0, da = 0, db = 0;
    rc = AB_STATS_ENOMEM;
    if (!ia || !ib || !ma || !mb || !d)
        goto cleanup;
    if ((rc = ab_round_settled_medians(a, ra, na, ia, ma, &ga, &da)) != AB_STATS_OK ||
        (rc = ab_round_settled_medians(b, rb, nb, ib, mb, &gb, &db)) != AB_STATS_OK)
        goto cleanup;
    out->dropped = da + db;
    /* the shared rounds, in round order: both lists are ascending */
    rc = AB_STATS_EINVAL;
    for (size_t i = 0, j = 0; i < ga && j < gb;) {
        if (ia[i] < ib[j]) {
            i++;
        } else if (ib[j] < ia[i]) {
            j++;
        } else {
            if (!(ma[i] > 0) || !(mb[j] > 0))
                goto cleanup;
            d[m++] = log(mb[j] / ma[i]);
            i++;
            j++;
        }
    }
    out->rounds = m;
    if (m < 2)
        goto cleanup;
    if ((rc = ab_serial_correlation(d, m, &out->serial)) != AB_STATS_OK)
        goto cleanup;
    const double f = out->serial.inflation;
    if ((rc = ab_signrank_test(d, m, f, &out->test)) != AB_STATS_OK)
        goto cleanup;
    if ((rc = ab_signrank_hl(d, m, o->level, f, &out->ci)) != AB_STATS_OK)
        goto cleanup;
    out->speedup = exp(out->ci.estimate);
    out->lo = exp(out->ci.lo);
    out->hi = exp(out->ci.hi);
    out->p = out->test.p;
    size_t nz = m - out->test.n_zero;
    if (nz == 0) {
        out->p_min = 1;
    } else if (f > 1) { /* the widened test at T+ = its maximum, untied */
        double dn = (double)nz, df = dn / f - 1;
        double z = dn * (dn + 1) / 4 / sqrt(dn * (dn + 1) * (2 * dn + 1) / 24 * f);
        out->p_min = fmin(1, 2 * gsl_cdf_tdist_Q(z, df < 1 ? 1 : df));
    } else {
        out->p_min = nz < 1000 ? fmin(1, ldexp(2.0, -(int)nz)) : 0;
    }
    out->sd_log = gsl_stats_sd(d, 1, m);
    out->mde = ab_paired_mde(out->sd_log, m, f, 0.05, 0.8);
cleanup:
    free(ia);
    free(ib);
    free(ma);
    free(mb);
    free(d);
    return rc;
}
