/*
 * compare.c: the comparison of a candidate A against a baseline B that a
 * report makes (every statistic of abstats.h for one pair of samples); the
 * verdict rule is verdict.c.
 */
#include "abstats.h"

#include <string.h>

void ab_compare_opts_default(ab_compare_opts *o)
{
    if (o == NULL)
        return;
    ab_boot_opts_default(&o->boot);
    ab_test_opts_default(&o->test);
    o->alpha = 0.05;
    o->practical = 0.01;
    o->padjust = AB_PADJ_HOLM;
}

/* Fills out for A = a[0..na), B = b[0..nb) (ms), na, nb >= 3 (the drift
 * test needs 3): summaries, bootstrap CIs of both medians (each from
 * o->boot, same seed), cis_overlap (the two median CIs intersect), the
 * Mann-Whitney test, Cliff's delta and Hodges-Lehmann CIs at o->boot.level,
 * the speedup median(B)/median(A) with its bootstrap CI (o->boot), Tukey
 * outlier counts and Spearman drift at o->alpha for each sample. o NULL:
 * ab_compare_opts_default. Errors: the first error of any of them
 * (AB_STATS_EINVAL also for median(A) = 0 and bad options). */
int ab_compare(const double *a, size_t na, const double *b, size_t nb,
               const ab_compare_opts *o, ab_comparison *out)
{
    ab_compare_opts def;
    if (o == NULL) {
        ab_compare_opts_default(&def);
        o = &def;
    }
    if (out == NULL || na < 3 || nb < 3 || !(o->alpha > 0 && o->alpha < 1) ||
        !(o->practical >= 0))
        return AB_STATS_EINVAL;
    memset(out, 0, sizeof *out);
    double level = o->boot.level;
    int rc;
    if ((rc = ab_summarize(a, na, &out->a)) != AB_STATS_OK) return rc;
    if ((rc = ab_summarize(b, nb, &out->b)) != AB_STATS_OK) return rc;
    if ((rc = ab_bootstrap_median_ci(a, na, &o->boot, &out->a_ci_lo, &out->a_ci_hi)) != AB_STATS_OK) return rc;
    if ((rc = ab_bootstrap_median_ci(b, nb, &o->boot, &out->b_ci_lo, &out->b_ci_hi)) != AB_STATS_OK) return rc;
    out->cis_overlap = out->a_ci_lo <= out->b_ci_hi && out->b_ci_lo <= out->a_ci_hi;
    if ((rc = ab_mann_whitney_opts(a, na, b, nb, &o->test, &out->mw)) != AB_STATS_OK) return rc;
    if ((rc = ab_cliffs_delta(a, na, b, nb, level, &out->cliff)) != AB_STATS_OK) return rc;
    if ((rc = ab_hodges_lehmann(a, na, b, nb, level, &out->hl)) != AB_STATS_OK) return rc;
    if ((rc = ab_bootstrap_speedup_ci(a, na, b, nb, &o->boot, &out->speedup,
                                      &out->speedup_lo, &out->speedup_hi)) != AB_STATS_OK) return rc;
    if ((rc = ab_tukey_outliers(a, na, &out->a_out)) != AB_STATS_OK) return rc;
    if ((rc = ab_tukey_outliers(b, nb, &out->b_out)) != AB_STATS_OK) return rc;
    if ((rc = ab_drift_test(a, na, o->alpha, &out->a_drift)) != AB_STATS_OK) return rc;
    if ((rc = ab_drift_test(b, nb, o->alpha, &out->b_drift)) != AB_STATS_OK) return rc;
    return AB_STATS_OK;
}
