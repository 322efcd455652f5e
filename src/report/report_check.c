/*
 * report_check.c: the report's statement of what the correctness check
 * covered: for a run whose measurements carry rows_total (runs
 * made since the check stored it), either "every row" or, for sampled
 * measurements, the rows checked out of B*H*S, the coverage, the
 * probability that a single wrong row escapes (kernels/check.h,
 * ab_check_escape) and the seeds. Older runs print nothing, so their
 * committed reports stay byte for byte.
 */
#include "report_check.h"

#include <stdio.h>
#include <stdlib.h>

void ab_report_grad_checks(const ab_run_record *rec, FILE *out)
{
    const ab_grad_entry *g = rec->grads;
    const size_t n = rec->ngrads;
    if (rec->grads_status) {
        fprintf(out, "\nGradients: %s\n", rec->grads_err);
        return;
    }
    if (n == 0)
        return; /* no backward pass in this run: nothing printed (older reports unchanged) */
    fprintf(out, "\n### Gradients\n\nEach backward pass was checked gradient by gradient "
                 "(kernels/check.h): dQ, dK, dV poisoned with NaN, one pass, each "
                 "compared over every element with a float64 backward on the same inputs and "
                 "dO; pass: no NaN/Inf, max abs error ≤ 2 × the error of a plain same-precision "
                 "backward (PyTorch's autograd through attention in the dtype, measured against "
                 "its own float64 shadow) + FlashAttention's atol, and the L2 form. "
                 "The main table above shows the gradient furthest from its tolerance.\n\n");
    fprintf(out, "| configuration | variant | gradient | max abs err | tolerance | err / tol | "
                 "plain err | rel L2 | non-finite | pass |\n");
    fprintf(out, "|---|---|---|---:|---:|---:|---:|---:|---:|---|\n");
    for (size_t i = 0; i < n; i++) {
        char title[160];
        ab_rmeas_title(&g[i].cfg, title, sizeof title);
        fprintf(out, "| %s | %s | %s | %.3e | %.3e | %.3f | %.3e | %.3e | %lld | %s |\n",
                title, g[i].variant, g[i].grad, g[i].max_abs_err, g[i].tolerance,
                g[i].tolerance > 0 ? g[i].max_abs_err / g[i].tolerance : 0.0,
                g[i].plain_max_abs_err, g[i].rel_l2_err, g[i].nonfinite,
                g[i].pass ? "yes" : "**no**");
    }
}

void ab_report_check_coverage(const ab_run_record *rec, FILE *out)
{
    const ab_check_coverage c = rec->cov;
    if (rec->coverage_status)
        return; /* nothing checked with row counts, or an older schema: nothing to say */
    fprintf(out, "\nThis run's check (kernels/check.h): the plain error is measured against "
                 "its own float64 shadow, never against the reference; pass also needs the "
                 "L2 form (relative L2 error <= 2 x the plain's + u/2) and the two float64 "
                 "references to agree.\n");
    if (c.nsampled == 0) {
        fprintf(out, "\nCoverage: every row of every (b, h) slice was checked in all %lld "
                     "checked measurements (%lld rows).\n",
                c.n, c.rows_checked);
    } else {
        const long long rc = c.sampled_checked, rt = c.sampled_total;
        fprintf(out,
                "\nCoverage: %lld of %lld checked measurements compared every row; %lld "
                "compared a fresh sample (rows 0, S-1 and the tile boundaries always): "
                "%lld of %lld rows (%.1f%%); a single wrong row escapes a sampled check "
                "with probability at most %.3f (1 - rows checked / rows). Seeds: %s.\n",
                c.n - c.nsampled, c.n, c.nsampled, rc, rt, rt ? 100.0 * rc / rt : 0.0,
                c.max_escape, c.seeds);
    }
}
