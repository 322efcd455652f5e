/*
 * run_compare.c: the comparisons of a run's measurements (run_analysis.h:
 * ab_rep_compare, ab_rep_decide, ab_rep_family_limit, ab_rep_verdict,
 * ab_rep_method) on the analysis's one comparison (pair.h), shared by the
 * run's analysis (run_analysis.c) and the calibration analysis
 * (calibration.c).
 */
#include "run_analysis.h"

#include <stdlib.h>
#include <string.h>

int ab_rep_usable(const ab_rep_meas *x)
{
    return x && strcmp(x->r.status, "ok") == 0 && x->r.n >= 2;
}

void ab_rep_compare(ab_rep_cmp *c, const ab_compare_opts *co)
{
    ab_rep_meas *a = c->a, *b = c->b;
    memset(&c->an, 0, sizeof c->an);
    if (ab_rep_usable(a) && ab_rep_usable(b))
        ab_pair_analyse(a->r.ms, a->r.round, a->r.n, a->r.rounds, b->r.ms, b->r.round, b->r.n,
                        b->r.rounds, co, &c->an);
    if (c->an.ok)
        c->clocks_differ = ab_clocks_differ(&a->clk, &b->clk);
}

void ab_rep_decide(ab_rep_cmp *c, double p_adj, const ab_compare_opts *co, double min_shift_ms)
{
    ab_pair_decide(&c->an, p_adj, co, min_shift_ms);
}

void ab_rep_family_limit(ab_rep_cmp *c, size_t n, double alpha)
{
    ab_pair_analysis **x = malloc((n ? n : 1) * sizeof *x);
    if (!x) { /* out of memory: no comparison can be called */
        for (size_t i = 0; i < n; i++)
            c[i].an.too_few_family = c[i].an.ok;
        return;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = &c[i].an;
    ab_pair_family_limit(x, n, alpha);
    free(x);
}

const char *ab_rep_verdict(const ab_rep_cmp *c) { return ab_pair_verdict_text(&c->an); }

const char *ab_rep_method(const ab_rep_cmp *c) { return ab_pair_method(&c->an); }


const char *ab_rep_prediction(const ab_rep_cmp *c)
{
    if (!c->predicted || !c->an.ok || !(c->an.speedup > 0))
        return "";
    int out;
    const int at = ab_range_place(c->an.speedup, c->an.lo, c->an.hi, c->pred_lo, c->pred_hi, &out);
    if (at < 0)
        return out ? "below, CI outside" : "below";
    if (at > 0)
        return out ? "above, CI outside" : "above";
    return "inside";
}
