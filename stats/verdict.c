/*
 * verdict.c: the one verdict rule of attnbench (abstats.h, ab_decide_why):
 * a difference is called faster or slower only when it is significant after
 * the family's multiple-comparison adjustment (Holm 1979 by default), the
 * sample sizes can support the nominal confidence, the speedup CI clears the
 * practical threshold, and the Hodges-Lehmann shift is at least the minimum
 * resolvable shift (the A/A resolution of the environment and timing mode,
 * src/analysis/resolution.h; what feeds it is the caller's). `stats`, `compare`, `report` (every table) and `calibrate` all
 * decide through ab_decide_family, so the same samples get the same verdict
 * everywhere.
 */
#include "abstats.h"

#include <math.h>
#include <stdlib.h>

const char *ab_verdict_name(ab_verdict v)
{
    switch (v) {
    case AB_FASTER: return "faster";
    case AB_SLOWER: return "slower";
    default: return "no significant difference";
    }
}

const char *ab_why_name(ab_why w)
{
    switch (w) {
    case AB_WHY_SIGNIFICANT: return "";
    case AB_WHY_P: return "not significant";
    case AB_WHY_UNATTAINABLE: return "samples too small for the interval's confidence";
    case AB_WHY_PRACTICAL: return "within the practical threshold";
    case AB_WHY_RESOLUTION: return "shift below the A/A resolution";
    default: return "unknown";
    }
}

ab_verdict ab_decide_why(const ab_comparison *c, double p_adjusted, double min_shift_ms,
                         const ab_compare_opts *o, ab_why *why)
{
    ab_why w = AB_WHY_P;
    ab_verdict v = AB_NO_DIFFERENCE;
    if (c == NULL || o == NULL || !(p_adjusted < o->alpha))
        goto done;
    w = AB_WHY_UNATTAINABLE;
    if (!c->hl.attainable)
        goto done;
    w = AB_WHY_PRACTICAL;
    if (!(c->speedup_lo > 1 + o->practical || c->speedup_hi < 1 - o->practical))
        goto done;
    w = AB_WHY_RESOLUTION;
    if (fabs(c->hl.shift) < min_shift_ms)
        goto done;
    w = AB_WHY_PRACTICAL; /* speedup exactly 1 with a CI off 1: not a direction */
    if (c->speedup > 1)
        v = AB_FASTER, w = AB_WHY_SIGNIFICANT;
    else if (c->speedup < 1)
        v = AB_SLOWER, w = AB_WHY_SIGNIFICANT;
done:
    if (why != NULL)
        *why = w;
    return v;
}

ab_verdict ab_decide(const ab_comparison *c, double p_adjusted, const ab_compare_opts *o)
{
    return ab_decide_why(c, p_adjusted, 0, o, NULL);
}

int ab_decide_family(const ab_comparison *const *c, size_t m, const double *min_shift_ms,
                     const ab_compare_opts *o, ab_decision *out)
{
    int rc = AB_STATS_OK;
    double *p = NULL;
    if (c == NULL || m == 0 || o == NULL || out == NULL) {
        rc = AB_STATS_EINVAL;
        goto cleanup;
    }
    p = malloc(m * sizeof *p);
    if (p == NULL) {
        rc = AB_STATS_ENOMEM;
        goto cleanup;
    }
    for (size_t k = 0; k < m; k++) {
        if (c[k] == NULL) {
            rc = AB_STATS_EINVAL;
            goto cleanup;
        }
        p[k] = c[k]->mw.p;
    }
    rc = ab_p_adjust(p, m, o->padjust, p);
    if (rc != AB_STATS_OK)
        goto cleanup;
    for (size_t k = 0; k < m; k++) {
        out[k].p_adjusted = p[k];
        out[k].verdict = ab_decide_why(c[k], p[k], min_shift_ms ? min_shift_ms[k] : 0, o,
                                       &out[k].why);
    }
cleanup:
    free(p);
    return rc;
}
