/*
 * pair.c: the one comparison of two samples (pair.h), moved here from the
 * report so that `stats`, `compare`, `report` and `calibrate` build it the
 * same way.
 */
#include "pair.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sf_gamma.h>

int ab_pair_analyse(const double *a, const int *ra, size_t na, int rounds_a, const double *b,
                    const int *rb, size_t nb, int rounds_b, const ab_compare_opts *co,
                    ab_pair_analysis *out)
{
    memset(out, 0, sizeof *out);
    int st = ab_compare(a, na, b, nb, co, &out->c);
    if (st != AB_STATS_OK)
        return st;
    out->ok = 1;
    ab_boot_opts rb_opts = co->boot;
    rb_opts.resamples = AB_ROUND_RESAMPLES;
    out->paired = ra && rb && rounds_a >= 2 && rounds_b >= 2 &&
                  ab_rounds_compare(a, ra, na, b, rb, nb, &rb_opts, &out->rr) == AB_STATS_OK;
    if (out->paired) {
        out->speedup = out->rr.speedup;
        out->lo = out->rr.lo;
        out->hi = out->rr.hi;
        out->p = out->rr.p;
        out->p_method = out->rr.test.method;
        out->too_few = !(out->rr.p_min < co->alpha);
    } else {
        out->speedup = out->c.speedup;
        out->lo = out->c.speedup_lo;
        out->hi = out->c.speedup_hi;
        out->p = out->c.mw.p;
        out->p_method = out->c.mw.method;
    }
    return AB_STATS_OK;
}

/* The log per-round settled medians of x[0..n) (rounds r): *out (malloc'd,
 * n entries room) and their count *m; *dropped += first samples left out.
 * Returns AB_STATS_OK, an error of ab_round_settled_medians, or
 * AB_STATS_EINVAL for a median that is not positive. */
static int log_round_medians(const double *x, const int *r, size_t n, double **out, size_t *m,
                             size_t *dropped)
{
    int *rid = malloc((n ? n : 1) * sizeof *rid);
    double *med = malloc((n ? n : 1) * sizeof *med);
    size_t d = 0;
    int st = AB_STATS_ENOMEM;
    if (!rid || !med)
        goto cleanup;
    st = ab_round_settled_medians(x, r, n, rid, med, m, &d);
    if (st != AB_STATS_OK)
        goto cleanup;
    for (size_t i = 0; i < *m; i++) {
        if (!(med[i] > 0)) {
            st = AB_STATS_EINVAL;
            goto cleanup;
        }
        med[i] = log(med[i]);
    }
    *dropped += d;
    *out = med;
    med = NULL;
cleanup:
    free(rid);
    free(med);
    return st;
}

int ab_pair_analyse_runs(const double *a, const int *ra, size_t na, int rounds_a,
                         const double *b, const int *rb, size_t nb, int rounds_b,
                         const ab_compare_opts *co, ab_pair_analysis *out)
{
    int st = ab_pair_analyse(a, NULL, na, 0, b, NULL, nb, 0, co, out);
    if (st != AB_STATS_OK || !ra || !rb || rounds_a < 2 || rounds_b < 2)
        return st;
    double *la = NULL, *lb = NULL;
    ab_pair_runs tr;
    memset(&tr, 0, sizeof tr);
    /* any failure here leaves the i.i.d. comparison in out */
    if (log_round_medians(a, ra, na, &la, &tr.rounds_a, &tr.dropped) != AB_STATS_OK ||
        log_round_medians(b, rb, nb, &lb, &tr.rounds_b, &tr.dropped) != AB_STATS_OK ||
        tr.rounds_a < 2 || tr.rounds_b < 2)
        goto cleanup;
    /* the logs relative to the smallest median of both, so that they are
     * >= 0 as stats/ wants latencies; differences and ranks are unchanged */
    double lmin = la[0];
    for (size_t i = 0; i < tr.rounds_a; i++)
        lmin = fmin(lmin, la[i]);
    for (size_t i = 0; i < tr.rounds_b; i++)
        lmin = fmin(lmin, lb[i]);
    for (size_t i = 0; i < tr.rounds_a; i++)
        la[i] = fmax(la[i] - lmin, 0);
    for (size_t i = 0; i < tr.rounds_b; i++)
        lb[i] = fmax(lb[i] - lmin, 0);
    if (ab_mann_whitney_opts(la, tr.rounds_a, lb, tr.rounds_b, &co->test, &tr.mw) != AB_STATS_OK ||
        ab_hodges_lehmann(la, tr.rounds_a, lb, tr.rounds_b, co->boot.level, &tr.hl) != AB_STATS_OK)
        goto cleanup;
    tr.p_min = 2 * exp(-gsl_sf_lnchoose((unsigned int)(tr.rounds_a + tr.rounds_b),
                                        (unsigned int)tr.rounds_a));
    if (tr.p_min > 1)
        tr.p_min = 1;
    out->two_runs = 1;
    out->tr = tr;
    /* shift = log(candidate) - log(baseline); speedup = baseline / candidate */
    out->speedup = exp(-tr.hl.shift);
    out->lo = exp(-tr.hl.hi);
    out->hi = exp(-tr.hl.lo);
    out->p = tr.mw.p;
    out->p_method = tr.mw.method;
    out->too_few = !(tr.p_min < co->alpha);
cleanup:
    free(la);
    free(lb);
    return AB_STATS_OK;
}

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* The distinct rounds of round[0..n) (0 when out of memory: no rounds). */
static int count_rounds(const int *round, size_t n)
{
    int *r = malloc((n ? n : 1) * sizeof *r), d = 0;
    if (!r)
        return 0;
    memcpy(r, round, n * sizeof *r);
    qsort(r, n, sizeof *r, cmp_int);
    for (size_t i = 0; i < n; i++)
        d += i == 0 || r[i] != r[i - 1];
    free(r);
    return d;
}

/* The samples of k instances pooled, for the i.i.d. statistics. */
static double *pool(const ab_instance_sample *x, size_t k, size_t *n)
{
    size_t tot = 0;
    for (size_t j = 0; j < k; j++)
        tot += x[j].n;
    double *p = malloc((tot ? tot : 1) * sizeof *p);
    if (!p)
        return NULL;
    size_t at = 0;
    for (size_t j = 0; j < k; j++)
        for (size_t i = 0; i < x[j].n; i++)
            p[at++] = x[j].ms[i];
    *n = tot;
    return p;
}

/* Pooled-sample summary plus the instance test: within one run (two_runs 0,
 * ab_instances_compare) or across two runs (two_runs 1,
 * ab_instances_compare_runs, whose one_side picks the single-instance t). */
static int analyse_by_instance(const ab_instance_sample *a, size_t ka,
                               const ab_instance_sample *b, size_t kb, const ab_compare_opts *co,
                               int two_runs, ab_pair_analysis *out)
{
    memset(out, 0, sizeof *out);
    size_t na = 0, nb = 0;
    double *pa = pool(a, ka, &na), *pb = pool(b, kb, &nb);
    int st = AB_STATS_ENOMEM;
    if (!pa || !pb)
        goto cleanup;
    st = ab_compare(pa, na, pb, nb, co, &out->c);
    if (st != AB_STATS_OK)
        goto cleanup;
    st = two_runs ? ab_instances_compare_runs(a, ka, b, kb, co->boot.level, &out->ir)
                  : ab_instances_compare(a, ka, b, kb, co->boot.level, &out->ir);
    if (st != AB_STATS_OK)
        goto cleanup;
    out->ok = 1;
    out->by_instance = 1;
    out->two_runs = two_runs;
    out->speedup = out->ir.speedup;
    out->lo = out->ir.lo;
    out->hi = out->ir.hi;
    out->p = out->ir.w.p;
    out->p_method = out->ir.one_side ? AB_P_ONE_INSTANCE_T : AB_P_WELCH_T;
cleanup:
    free(pa);
    free(pb);
    return st;
}

int ab_pair_analyse_instances(const ab_instance_sample *a, size_t ka,
                              const ab_instance_sample *b, size_t kb, const ab_compare_opts *co,
                              ab_pair_analysis *out)
{
    return analyse_by_instance(a, ka, b, kb, co, 0, out);
}

int ab_pair_analyse_runs_instances(const ab_instance_sample *a, size_t ka,
                                   const ab_instance_sample *b, size_t kb,
                                   const ab_compare_opts *co, ab_pair_analysis *out)
{
    if (!a || !b || ka < 1 || kb < 1) {
        memset(out, 0, sizeof *out);
        return AB_STATS_EINVAL;
    }
    if (ka == 1 && kb == 1) {
        const int rounds_a = a[0].round ? count_rounds(a[0].round, a[0].n) : 0;
        const int rounds_b = b[0].round ? count_rounds(b[0].round, b[0].n) : 0;
        return ab_pair_analyse_runs(a[0].ms, a[0].round, a[0].n, rounds_a, b[0].ms, b[0].round,
                                    b[0].n, rounds_b, co, out);
    }
    return analyse_by_instance(a, ka, b, kb, co, 1, out);
}

void ab_pair_decide(ab_pair_analysis *x, double p_adj, const ab_compare_opts *co,
                    double min_shift_ms)
{
    /* the one rule (stats/verdict.c), fed the speedup, CI and p of the
     * inference used (paired over rounds, or i.i.d.) */
    ab_comparison v = x->c;
    v.speedup = x->speedup;
    v.speedup_lo = x->lo;
    v.speedup_hi = x->hi;
    if (x->two_runs && !x->by_instance && !x->between_runs)
        v.hl.attainable = x->tr.hl.attainable; /* the interval used is the runs' */
    x->p_adj = p_adj;
    x->why = AB_WHY_SIGNIFICANT;
    if (x->too_few || x->too_few_family) {
        x->verdict = AB_NO_DIFFERENCE;
        x->why = AB_WHY_P;
    } else {
        x->verdict = ab_decide_why(&v, p_adj, min_shift_ms, co, &x->why);
    }
    x->below_floor = x->why == AB_WHY_RESOLUTION;
}

void ab_pair_family_limit(ab_pair_analysis *const *x, size_t n, double alpha)
{
    size_t m = 0;
    double pmin = 1;
    for (size_t i = 0; i < n; i++)
        if (x[i]->ok) {
            m++;
            pmin = fmin(pmin, x[i]->between_runs || x[i]->by_instance ? 0
                              : x[i]->paired ? x[i]->rr.p_min
                              : x[i]->two_runs ? x[i]->tr.p_min : 0);
        }
    for (size_t i = 0; i < n; i++) {
        x[i]->family = m;
        x[i]->too_few_family = x[i]->ok && !((double)m * pmin < alpha);
    }
}

int ab_pair_decide_family(ab_pair_analysis *const *x, size_t n, const double *min_shift_ms,
                          const ab_compare_opts *co)
{
    ab_pair_family_limit(x, n, co->alpha);
    double *p = malloc((n ? n : 1) * sizeof *p), *adj = malloc((n ? n : 1) * sizeof *adj);
    int rc = AB_STATS_ENOMEM;
    if (!p || !adj)
        goto cleanup;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i]->ok)
            p[k++] = x[i]->p;
    rc = AB_STATS_OK;
    if (k == 0 || (rc = ab_p_adjust(p, k, co->padjust, adj)) != AB_STATS_OK)
        goto cleanup;
    k = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i]->ok)
            ab_pair_decide(x[i], adj[k++], co, min_shift_ms ? min_shift_ms[i] : 0);
cleanup:
    free(p);
    free(adj);
    return rc;
}

const char *ab_pair_verdict_text(const ab_pair_analysis *x)
{
    if (x->too_few)
        return "no significant difference (too few rounds for the test)";
    if (x->too_few_family)
        return "no significant difference (too few rounds for the family's correction)";
    if (x->below_floor)
        return "no significant difference (shift below the A/A resolution)";
    if (x->why == AB_WHY_UNATTAINABLE)
        return "no significant difference (samples too small for the nominal confidence)";
    return ab_verdict_name(x->verdict);
}

const char *ab_pair_method(const ab_pair_analysis *x)
{
    if (x->by_instance && x->two_runs)
        return x->ir.one_side
                   ? "two runs by instance: one run's single instance against the other's "
                     "instances, Student's t of the instance levels (prediction of one further "
                     "observation), its interval"
                   : "two runs by instance: Welch t of the instance levels (mean log round "
                     "medians, Hsu's conservative df), its interval";
    if (x->by_instance)
        return "by instance: Welch t of the per-instance mean log round medians "
               "(Hsu's conservative df), its interval";
    if (x->two_runs)
        return "two runs: rounds as independent samples, Mann-Whitney U of the log per-round "
               "medians, two-sample Hodges-Lehmann shift with its interval";
    return x->paired ? "paired over rounds: Hodges-Lehmann estimate of the per-round log ratios, "
                       "signed-rank interval, Wilcoxon signed-rank"
                     : "i.i.d.: ratio of medians, bootstrap CI, Mann-Whitney U (not interleaved)";
}
