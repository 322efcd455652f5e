/*
 * history.c: one measurement across runs (history.h).
 */
#include "history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ab_history_point_summary(const double *ms, size_t k, const ab_boot_opts *o, double *median,
                             double *lo, double *hi)
{
    ab_summary s;
    if (k < 2 || ab_summarize(ms, k, &s) != 0 || ab_bootstrap_median_ci(ms, k, o, lo, hi) != 0)
        return -1;
    *median = s.median;
    return 0;
}

int ab_history_point_instances(const ab_instance_sample *s, size_t k, double level,
                               double *median, double *lo, double *hi)
{
    double m, l, h;
    size_t tot = 0, at = 0;
    if (!s || k < 2 || ab_instances_level_ci(s, k, level, &m, &l, &h) != AB_STATS_OK)
        return -1;
    for (size_t j = 0; j < k; j++)
        tot += s[j].n;
    double *all = malloc((tot ? tot : 1) * sizeof *all);
    ab_summary su;
    if (!all)
        return -1;
    for (size_t j = 0; j < k; j++)
        for (size_t i = 0; i < s[j].n; i++)
            all[at++] = s[j].ms[i];
    int rc = tot >= 1 && ab_summarize(all, tot, &su) == AB_STATS_OK ? 0 : -1;
    free(all);
    if (rc)
        return -1;
    *median = su.median;
    *lo = su.median * exp(l - m);
    *hi = su.median * exp(h - m);
    return 0;
}

int ab_history_fit_series(const double *median, const double *lo, const double *hi, size_t n,
                          double practical, ab_history_fit *out)
{
    memset(out, 0, sizeof *out);
    const double *y = median;
    double *w = malloc((n ? n : 1) * sizeof *w);
    if (!w)
        return AB_STATS_ENOMEM;
    /* the between-run variance: each point's uncertainty is its CI's width
     * and the spread runs of the same thing show between them (a 95% width
     * 2 x 1.96 x sd x median, added in quadrature), so that a run whose
     * within-run CI is narrow does not pin the fit where runs scatter */
    out->have_br = ab_between_runs_sd_steps(y, n, &out->br) == 0;
    for (size_t i = 0; i < n; i++) {
        double wd = hi[i] - lo[i];
        if (out->have_br) {
            double b = 2 * 1.959964 * out->br.sd_log * median[i];
            wd = sqrt(wd * wd + b * b);
        }
        w[i] = wd > 0 ? 1.0 / wd : NAN; /* NaN: the median weight */
    }
    ab_steps *steps = &out->steps;
    int src = ab_detect_steps(y, w, n, steps);
    free(w);
    if (src != AB_STATS_OK)
        return src;
    /* Steps smaller than the practical threshold are not moves: merge the
     * adjacent pair with the smallest relative step until every step is at
     * least `practical`; a merged level is the median of its points. */
    while (steps->nseg > 1) {
        size_t best = 0;
        double best_rel = INFINITY;
        for (size_t j = 1; j < steps->nseg; j++) {
            double rel = fabs(steps->seg[j].value / steps->seg[j - 1].value - 1);
            if (rel < best_rel) {
                best_rel = rel;
                best = j;
            }
        }
        if (best_rel >= practical)
            break;
        ab_segment *a = &steps->seg[best - 1], *b = &steps->seg[best];
        size_t len = b->end - a->begin;
        double *t = malloc(len * sizeof *t);
        if (!t)
            break;
        memcpy(t, y + a->begin, len * sizeof *t);
        ab_summary s;
        if (ab_summarize(t, len, &s) == AB_STATS_OK)
            a->value = s.median;
        free(t);
        a->end = b->end;
        memmove(b, b + 1, (steps->nseg - best - 1) * sizeof *b);
        steps->nseg--;
    }
    return AB_STATS_OK;
}

void ab_history_fit_free(ab_history_fit *f) { ab_steps_free(&f->steps); }
