/*
 * training.c: the report sections of a run that timed backward passes,
 * after seed 003's tables: the training step per configuration
 * (forward, backward, their ratio, forward + backward), the scaling with B
 * where a sweep varies B alone (throughput relative to the smallest B and
 * the scaling efficiency), and the achieved bandwidth per pass against the
 * copy ceiling measured at the start of the run. A run without a backward
 * pass prints none of them (older reports stay byte for byte).
 */
#include "units.h"
#include "training.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the median of x's usable samples in ms (the analysis's summary), or NAN */
static double median_of(const ab_rep_meas *x)
{
    return x && x->have_summary ? x->s.median : NAN;
}

/* same configuration but for `ignore_pass`, `ignore_B` */
static int same_shape(const ab_rmeas *a, const ab_rmeas *b, int ignore_pass, int ignore_B)
{
    return (ignore_B || a->B == b->B) && a->H == b->H && a->S == b->S && a->D == b->D &&
           a->causal == b->causal && strcmp(a->dtype, b->dtype) == 0 && a->H_kv == b->H_kv &&
           a->S_kv == b->S_kv && (ignore_pass || strcmp(a->pass, b->pass) == 0);
}

static const ab_rep_meas *find_pass(ab_rep_meas *const *m, size_t n, const ab_rep_meas *x,
                                    const char *pass)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(m[i]->r.variant, x->r.variant) == 0 && same_shape(&m[i]->r, &x->r, 1, 0) &&
            strcmp(m[i]->r.pass, pass) == 0)
            return m[i];
    return NULL;
}

static void title_no_pass(const ab_rmeas *r, char *buf, size_t n)
{
    ab_rmeas t = *r;
    snprintf(t.pass, sizeof t.pass, "fwd");
    ab_rmeas_title(&t, buf, n);
}

static void ms_cell(FILE *out, double ms)
{
    if (isnan(ms))
        fprintf(out, " — |");
    else {
        char m[40];
        fprintf(out, " %s |", ab_fmt_ms(ms, 0, m, sizeof m));
    }
}

void ab_report_training(FILE *out, ab_rep_meas *const *m, size_t n, const ab_pass_bandwidth *bw,
                        size_t nbw, double peak_copy_gbs)
{
    int any = 0;
    for (size_t i = 0; i < n; i++)
        any |= strcmp(m[i]->r.pass, "fwd") != 0 && m[i]->r.pass[0];
    if (!any)
        return;

    /* ---- the training step (seed 003's "gradient computation" table) ---- */
    fprintf(out, "\n## Training step: forward and backward\n\nMedians per variant and "
                 "configuration. F+B ratio = backward median / forward median (seed 003); "
                 "forward + backward is its own measurement (one timed unit), its TFLOP/s "
                 "counting 3.5 forwards. FLOPs of the backward: 2.5 forwards (FlashAttention's "
                 "convention: five GEMMs against two). Peak = memory of the forward + backward "
                 "measurement (else the backward's).\n\n"
                 "| configuration | variant | fwd ms | bwd ms | F+B ratio | fwd+bwd ms | "
                 "fwd+bwd TFLOP/s | peak MiB |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < n; i++) {
        const ab_rep_meas *x = m[i];
        /* one row per (variant, configuration): at its first pass in the sort */
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(m[k]->r.variant, x->r.variant) == 0 && same_shape(&m[k]->r, &x->r, 1, 0);
        if (seen)
            continue;
        const ab_rep_meas *f = find_pass(m, n, x, "fwd"), *b = find_pass(m, n, x, "bwd"),
                          *fb = find_pass(m, n, x, "fwd+bwd");
        if (!b && !fb)
            continue;
        const double mf = median_of(f), mb = median_of(b), mfb = median_of(fb);
        char title[160];
        title_no_pass(&x->r, title, sizeof title);
        fprintf(out, "| %s | %s |", title, x->r.variant);
        ms_cell(out, mf);
        ms_cell(out, mb);
        if (isnan(mf) || isnan(mb))
            fprintf(out, " — |");
        else
            fprintf(out, " %.2fx |", mb / mf);
        ms_cell(out, mfb);
        if (isnan(mfb))
            fprintf(out, " — |");
        else
            fprintf(out, " %.3g |", fb->r.flops / (mfb * 1e9));
        const ab_rep_meas *pk = fb && fb->peak_bytes > 0 ? fb : b;
        if (pk && pk->peak_bytes > 0)
            fprintf(out, " %.1f |\n", pk->peak_bytes / 1048576.0);
        else
            fprintf(out, " — |\n");
    }

    /* ---- scaling with B (seed 003's strong-scaling table) ---- */
    int header = 0;
    for (size_t i = 0; i < n; i++) {
        const ab_rep_meas *x = m[i];
        /* a group: same variant, pass and shape but for B; printed at the
         * member with the smallest B, once */
        size_t members = 0;
        int smallest = 1, first = 1;
        for (size_t k = 0; k < n; k++) {
            if (strcmp(m[k]->r.variant, x->r.variant) != 0 || !same_shape(&m[k]->r, &x->r, 0, 1))
                continue;
            members++;
            if (m[k]->r.B < x->r.B)
                smallest = 0;
            if (m[k]->r.B == x->r.B && k < i)
                first = 0;
        }
        if (members < 2 || !smallest || !first)
            continue;
        const double m0 = median_of(x);
        if (isnan(m0))
            continue;
        if (!header) {
            fprintf(out, "\n## Scaling with B\n\nWhere a sweep varies B with every other axis "
                         "fixed: throughput (B·S tokens per median) relative to the smallest B, "
                         "and the scaling efficiency = that speedup / (B / smallest B) (seed "
                         "003's strong-scaling table; 100%% = linear).\n\n"
                         "| variant | configuration at the smallest B | B | median ms | tokens/s "
                         "| throughput vs smallest B | efficiency |\n"
                         "|---|---|---:|---:|---:|---:|---:|\n");
            header = 1;
        }
        char title[160];
        ab_rmeas_title(&x->r, title, sizeof title);
        /* members in increasing B */
        int lastB = 0;
        for (;;) {
            const ab_rep_meas *next = NULL;
            for (size_t k = 0; k < n; k++)
                if (strcmp(m[k]->r.variant, x->r.variant) == 0 &&
                    same_shape(&m[k]->r, &x->r, 0, 1) && m[k]->r.B > lastB &&
                    (!next || m[k]->r.B < next->r.B))
                    next = m[k];
            if (!next)
                break;
            lastB = next->r.B;
            const double mb = median_of(next);
            if (isnan(mb))
                continue;
            const double thr = (double)next->r.B * next->r.S / (mb * 1e-3);
            const double sp = (next->r.B / mb) / (x->r.B / m0);
            char mbs[40];
            fprintf(out, "| %s | %s | %d | %s | %.3g | %.2fx | %.1f%% |\n", x->r.variant, title,
                    next->r.B, ab_fmt_ms(mb, 0, mbs, sizeof mbs), thr, sp, 100.0 * sp / ((double)next->r.B / x->r.B));
        }
    }

    /* ---- bandwidth per pass (seed 003's bandwidth-utilisation table) ---- */
    if (peak_copy_gbs > 0) {
        fprintf(out, "\n## Bandwidth by pass\n\nAchieved bandwidth = the ideal bytes of the "
                     "pass (forward: Q, O and K, V once; backward: Q, O, dO, dQ and K, V, dK, "
                     "dV once; src/core/variant.h) / median, against the copy ceiling measured "
                     "at the start of this run (%.0f GB/s). Median and maximum over the "
                     "variant's configurations of that pass.\n\n"
                     "| pass | variant | configurations | median GB/s | of ceiling | max GB/s | "
                     "of ceiling |\n|---|---|---:|---:|---:|---:|---:|\n",
                peak_copy_gbs);
        for (size_t i = 0; i < nbw; i++)
            fprintf(out, "| %s | %s | %zu | %.0f | %.1f%% | %.0f | %.1f%% |\n", bw[i].pass,
                    bw[i].variant, bw[i].n, bw[i].median, 100.0 * bw[i].median / peak_copy_gbs,
                    bw[i].max, 100.0 * bw[i].max / peak_copy_gbs);
    }
}
