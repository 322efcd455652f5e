/*
 * instances.c: the two-stage analysis of variants measured as several
 * instances (instances.h).
 */
#include "instances.h"
#include "abstats.h"
#include "rounds.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

/* The log settled per-round medians of every instance, A's then B's, with
 * their rounds: inst[j] owns lr[off[j]..off[j+1]) and rr[...]. */
typedef struct levels {
    double *lr;
    int *rr;
    size_t *off;
} levels;

static int load_levels(const ab_instance_sample *s, size_t k, const ab_instance_sample *t,
                       size_t kt, levels *L)
{
    size_t tot = 0;
    for (size_t j = 0; j < k + kt; j++) {
        const ab_instance_sample *x = j < k ? &s[j] : &t[j - k];
        if (!x->ms || !x->round || x->n < 1)
            return AB_STATS_EINVAL;
        tot += x->n;
    }
    L->lr = malloc(tot * sizeof *L->lr);
    L->rr = malloc(tot * sizeof *L->rr);
    L->off = malloc((k + kt + 1) * sizeof *L->off);
    if (!L->lr || !L->rr || !L->off)
        return AB_STATS_ENOMEM;
    L->off[0] = 0;
    for (size_t j = 0; j < k + kt; j++) {
        const ab_instance_sample *x = j < k ? &s[j] : &t[j - k];
        size_t nr = 0, at = L->off[j];
        int st = ab_round_settled_medians(x->ms, x->round, x->n, L->rr + at, L->lr + at, &nr,
                                          NULL);
        if (st != AB_STATS_OK)
            return st;
        for (size_t r = 0; r < nr; r++) {
            if (!(L->lr[at + r] > 0))
                return AB_STATS_EINVAL;
            L->lr[at + r] = log(L->lr[at + r]);
        }
        L->off[j + 1] = at + nr;
    }
    return AB_STATS_OK;
}

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

int ab_instances_compare(const ab_instance_sample *a, size_t ka, const ab_instance_sample *b,
                         size_t kb, double level, ab_instances_result *out)
{
    if (!a || !b || !out || ka < 2 || kb < 2 || !(level > 0 && level < 1))
        return AB_STATS_EINVAL;
    size_t k = ka + kb;
    levels L = {NULL, NULL, NULL};
    int *ids = NULL;
    double *rsum = NULL, *rcnt = NULL, *m = NULL;
    int rc = load_levels(a, ka, b, kb, &L);
    if (rc != AB_STATS_OK)
        goto cleanup;
    /* each round's mean over every instance present in it */
    size_t tot = L.off[k], nid = 0;
    ids = malloc(tot * sizeof *ids);
    rsum = calloc(tot, sizeof *rsum);
    rcnt = calloc(tot, sizeof *rcnt);
    m = malloc(k * sizeof *m);
    rc = AB_STATS_ENOMEM;
    if (!ids || !rsum || !rcnt || !m)
        goto cleanup;
    for (size_t i = 0; i < tot; i++)
        ids[i] = L.rr[i];
    qsort(ids, tot, sizeof *ids, cmp_int);
    for (size_t i = 0; i < tot; i++)
        if (nid == 0 || ids[nid - 1] != ids[i])
            ids[nid++] = ids[i];
    for (size_t i = 0; i < tot; i++) {
        int *at = bsearch(&L.rr[i], ids, nid, sizeof *ids, cmp_int);
        rsum[at - ids] += L.lr[i];
        rcnt[at - ids] += 1;
    }
    /* stage one: each instance's mean centred log level; the pooled
     * within-instance round variance */
    double ss_round = 0, df_round = 0, inv_r = 0;
    for (size_t j = 0; j < k; j++) {
        size_t n = L.off[j + 1] - L.off[j];
        double s = 0;
        for (size_t i = L.off[j]; i < L.off[j + 1]; i++) {
            size_t q = (size_t)((int *)bsearch(&L.rr[i], ids, nid, sizeof *ids, cmp_int) - ids);
            L.lr[i] -= rsum[q] / rcnt[q];
            s += L.lr[i];
        }
        m[j] = s / (double)n;
        for (size_t i = L.off[j]; i < L.off[j + 1]; i++)
            ss_round += (L.lr[i] - m[j]) * (L.lr[i] - m[j]);
        df_round += (double)n - 1;
        inv_r += 1.0 / (double)n;
    }
    /* stage two: Welch's statistic of the instance levels, A against B,
     * on Hsu's conservative df (welch.h says why) */
    rc = ab_welch_t_conservative(m, ka, m + ka, kb, level, &out->w);
    if (rc != AB_STATS_OK)
        goto cleanup;
    out->instances_a = ka;
    out->instances_b = kb;
    out->rounds = (double)tot / (double)k;
    out->speedup = exp(out->w.diff);
    out->lo = exp(out->w.lo);
    out->hi = exp(out->w.hi);
    out->sd_round = df_round > 0 ? sqrt(ss_round / df_round) : 0;
    double pooled = ((double)(ka - 1) * out->w.var_x + (double)(kb - 1) * out->w.var_y) /
                    (double)(k - 2);
    double rbar = (double)k / inv_r; /* harmonic mean of the rounds per instance */
    double share = out->sd_round * out->sd_round / rbar;
    double vb = pooled - share;
    out->sd_instance = vb > 0 ? sqrt(vb) : 0;
    /* the variance of one instance's summary from the two components, and
     * the se of the difference of the variants' means of ka and kb of them */
    double se = sqrt((out->sd_instance * out->sd_instance + share) *
                     (1 / (double)ka + 1 / (double)kb));
    double t = gsl_cdf_tdist_Pinv(0.975, out->w.df) + gsl_cdf_tdist_Pinv(0.8, out->w.df);
    out->mde = expm1(t * se);
    rc = AB_STATS_OK;
cleanup:
    free(L.lr);
    free(L.rr);
    free(L.off);
    free(ids);
    free(rsum);
    free(rcnt);
    free(m);
    return rc;
}

int ab_instance_level(const ab_instance_sample *x, double *log_level)
{
    if (!x || !x->ms || x->n < 1 || !log_level)
        return AB_STATS_EINVAL;
    if (!x->round) { /* no rounds: the log median of the samples */
        ab_summary s;
        int st = ab_summarize(x->ms, x->n, &s);
        if (st != AB_STATS_OK)
            return st;
        if (!(s.median > 0))
            return AB_STATS_EINVAL;
        *log_level = log(s.median);
        return AB_STATS_OK;
    }
    levels L = {NULL, NULL, NULL};
    int st = load_levels(x, 1, NULL, 0, &L);
    if (st == AB_STATS_OK) {
        size_t nr = L.off[1];
        double s = 0;
        for (size_t i = 0; i < nr; i++)
            s += L.lr[i];
        if (nr < 1)
            st = AB_STATS_EINVAL;
        else
            *log_level = s / (double)nr;
    }
    free(L.lr);
    free(L.rr);
    free(L.off);
    return st;
}

/* The levels of x[0..k) into l[0..k). */
static int levels_of(const ab_instance_sample *x, size_t k, double *l)
{
    for (size_t j = 0; j < k; j++) {
        int st = ab_instance_level(&x[j], &l[j]);
        if (st != AB_STATS_OK)
            return st;
    }
    return AB_STATS_OK;
}

/* The sample mean and sd of l[0..k) (k >= 2). */
static void mean_sd(const double *l, size_t k, double *mean, double *sd)
{
    double m = 0, ss = 0;
    for (size_t j = 0; j < k; j++)
        m += l[j];
    m /= (double)k;
    for (size_t j = 0; j < k; j++)
        ss += (l[j] - m) * (l[j] - m);
    *mean = m;
    *sd = sqrt(ss / (double)(k - 1));
}

int ab_instances_compare_runs(const ab_instance_sample *a, size_t ka,
                              const ab_instance_sample *b, size_t kb, double level,
                              ab_instances_result *out)
{
    if (!a || !b || !out || ka < 1 || kb < 1 || (ka < 2 && kb < 2) || !(level > 0 && level < 1))
        return AB_STATS_EINVAL;
    memset(out, 0, sizeof *out);
    double *la = malloc(ka * sizeof *la), *lb = malloc(kb * sizeof *lb);
    int rc = AB_STATS_ENOMEM;
    if (!la || !lb)
        goto cleanup;
    if ((rc = levels_of(a, ka, la)) != AB_STATS_OK || (rc = levels_of(b, kb, lb)) != AB_STATS_OK)
        goto cleanup;
    if (ka >= 2 && kb >= 2) {
        rc = ab_welch_t_conservative(la, ka, lb, kb, level, &out->w);
        if (rc != AB_STATS_OK)
            goto cleanup;
        out->sd_instance = sqrt(((double)(ka - 1) * out->w.var_x + (double)(kb - 1) * out->w.var_y) /
                                (double)(ka + kb - 2));
    } else {
        /* one level against k others: t = (l_1 - mean_k) / (s_k sqrt(1 + 1/k)), k - 1 df */
        const int a_single = ka < 2;
        const double *one = a_single ? la : lb, *many = a_single ? lb : la;
        size_t k = a_single ? kb : ka;
        double m, s;
        mean_sd(many, k, &m, &s);
        ab_welch *w = &out->w;
        w->mean_x = a_single ? one[0] : m;
        w->mean_y = a_single ? m : one[0];
        w->var_x = a_single ? 0 : s * s;
        w->var_y = a_single ? s * s : 0;
        w->diff = w->mean_y - w->mean_x;
        w->se = s * sqrt(1 + 1 / (double)k);
        w->df = w->df_satterthwaite = (double)(k - 1);
        double q = gsl_cdf_tdist_Pinv((1 + level) / 2, w->df);
        if (w->se > 0) {
            w->t = w->diff / w->se;
            w->p = 2 * gsl_cdf_tdist_Q(fabs(w->t), w->df);
            if (w->p > 1)
                w->p = 1;
        } else { /* the k levels equal: the point, p as ab_welch_t's zero variances */
            w->t = 0;
            w->p = w->diff == 0 ? 1 : 0;
        }
        w->lo = w->diff - q * w->se;
        w->hi = w->diff + q * w->se;
        out->one_side = a_single ? 1 : 2;
        out->sd_instance = s;
    }
    out->instances_a = ka;
    out->instances_b = kb;
    out->speedup = exp(out->w.diff);
    out->lo = exp(out->w.lo);
    out->hi = exp(out->w.hi);
    rc = AB_STATS_OK;
cleanup:
    free(la);
    free(lb);
    return rc;
}

int ab_instances_level_ci(const ab_instance_sample *x, size_t k, double level, double *mean_log,
                          double *lo_log, double *hi_log)
{
    if (!x || k < 2 || !(level > 0 && level < 1))
        return AB_STATS_EINVAL;
    double *l = malloc(k * sizeof *l);
    if (!l)
        return AB_STATS_ENOMEM;
    int rc = levels_of(x, k, l);
    if (rc == AB_STATS_OK) {
        double m, s;
        mean_sd(l, k, &m, &s);
        double h = gsl_cdf_tdist_Pinv((1 + level) / 2, (double)(k - 1)) * s / sqrt((double)k);
        *mean_log = m;
        *lo_log = m - h;
        *hi_log = m + h;
    }
    free(l);
    return rc;
}
