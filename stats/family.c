/*
 * family.c: multiple-comparison adjustment of a family of p-values, as
 * statsmodels.stats.multitest.multipletests returns them: Bonferroni
 * (m p, capped at 1) and Holm's step-down (Holm 1979, Scand. J. Statist.
 * 6, 65-70): with p sorted ascending, p~_(i) = min(1, max_{j <= i}
 * (m - j + 1) p_(j)) (1-based), mapped back to the input order.
 */
#include "abstats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>

const char *ab_padjust_name(ab_padjust m)
{
    switch (m) {
    case AB_PADJ_HOLM: return "holm";
    case AB_PADJ_BONFERRONI: return "bonferroni";
    case AB_PADJ_NONE: return "none";
    default: return "unknown";
    }
}

/* Adjusted p-values adj[0..m) of p[0..m) (each in [0, 1]) by Holm,
 * Bonferroni or none (a copy). m >= 1; adj may alias p. Errors:
 * AB_STATS_EINVAL (NULL, m = 0, p outside [0, 1], unknown method),
 * AB_STATS_ENONFINITE (NaN), AB_STATS_ENOMEM. */
int ab_p_adjust(const double *p, size_t m, ab_padjust method, double *adj)
{
    int rc = AB_STATS_OK;
    size_t *idx = NULL;
    double *tmp = NULL;
    if (p == NULL || adj == NULL || m == 0 ||
        (method != AB_PADJ_HOLM && method != AB_PADJ_BONFERRONI && method != AB_PADJ_NONE)) {
        rc = AB_STATS_EINVAL;
        goto cleanup;
    }
    for (size_t i = 0; i < m; i++) {
        if (isnan(p[i])) {
            rc = AB_STATS_ENONFINITE;
            goto cleanup;
        }
        if (p[i] < 0 || p[i] > 1) {
            rc = AB_STATS_EINVAL;
            goto cleanup;
        }
    }
    if (method != AB_PADJ_HOLM) {
        double f = method == AB_PADJ_BONFERRONI ? (double)m : 1.0;
        for (size_t i = 0; i < m; i++)
            adj[i] = fmin(1.0, f * p[i]);
        goto cleanup;
    }
    idx = malloc(m * sizeof *idx);
    tmp = malloc(m * sizeof *tmp);
    if (idx == NULL || tmp == NULL) {
        rc = AB_STATS_ENOMEM;
        goto cleanup;
    }
    memcpy(tmp, p, m * sizeof *tmp);
    gsl_sort_index(idx, tmp, 1, m); /* stable for equal p is not needed */
    double run = 0;
    for (size_t j = 0; j < m; j++) {
        double v = (double)(m - j) * tmp[idx[j]];
        if (v > run)
            run = v;
        adj[idx[j]] = fmin(1.0, run);
    }
cleanup:
    free(tmp);
    free(idx);
    return rc;
}
