/*
 * calibration.c: the analysis of an A/A calibration run (the run itself:
 * run/calibration_run.c builds its experiment, cli/cmd_calibrate.c is
 * `attnbench calibrate EXPERIMENT [--variant V] [--pairs K]`), the A/A test
 * of the verdict rule. One variant is measured against itself: 2K
 * instances of it per configuration, interleaved in seeded random order like
 * any run, compared in K disjoint pairs. Every difference the rule reports is
 * a false positive, so the observed rate estimates the rule's real
 * false-positive rate on this machine (Kohavi et al., "Trustworthy Online
 * Controlled Experiments", 2020, ch. 19: A/A tests). The run is stored like
 * any other (experiment "<name>-calibration"), so its report can be written,
 * and reports of runs in the same environment show the result, flagged when
 * the rule called more than alpha of the pairs different. The markdown
 * table is src/report/calibration_table.c's.
 */
#include "calibration.h"
#include "abstats.h"
#include "experiment.h"
#include "run_analysis.h"
#include "util.h"

#include <gsl/gsl_cdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Clopper-Pearson interval of k successes in n (Clopper & Pearson 1934),
 * through GSL's inverse Beta CDF. */
static void clopper_pearson(int k, int n, double level, double *lo, double *hi)
{
    double a = (1 - level) / 2;
    *lo = k == 0 ? 0 : gsl_cdf_beta_Pinv(a, k, n - k + 1);
    *hi = k == n ? 1 : gsl_cdf_beta_Pinv(1 - a, k + 1, n - k);
}

/* P(X >= k), X ~ Binomial(n, p). */
static double binom_upper(int k, int n, double p)
{
    return k <= 0 ? 1.0 : gsl_cdf_binomial_Q((unsigned)(k - 1), p, (unsigned)n);
}

static void finish_config(ab_calibration_config *c, double alpha, double level)
{
    if (c->pairs == 0)
        return;
    clopper_pearson(c->raw_positives, c->pairs, 0.95, &c->raw_lo, &c->raw_hi);
    clopper_pearson(c->covered, c->pairs, 0.95, &c->cov_lo, &c->cov_hi);
    c->raw_binom_p = binom_upper(c->raw_positives, c->pairs, alpha);
    c->verdict_binom_p = binom_upper(c->uncorrected_positives, c->pairs, alpha);
    c->cov_binom_p = gsl_cdf_binomial_P((unsigned)c->covered, level, (unsigned)c->pairs);
    c->flagged = c->raw_binom_p < AB_CAL_FLAG_P || c->verdict_binom_p < AB_CAL_FLAG_P ||
                 c->cov_binom_p < AB_CAL_FLAG_P;
}

/* The pair partner of "NAME#k" (k odd): "NAME#k+1"; 0 when v is not an odd
 * instance. */
static int partner(const char *v, char *out, size_t n)
{
    const char *h = strrchr(v, '#');
    char *end;
    if (!h)
        return 0;
    long k = strtol(h + 1, &end, 10);
    if (*end || k < 1 || k % 2 == 0)
        return 0;
    snprintf(out, n, "%.*s#%ld", (int)(h - v), v, k + 1);
    return 1;
}

int ab_calibration_analyse(const ab_rmeas *r, const ab_clock_summary *clk, size_t n,
                           long long run_id, double alpha, double practical, ab_calibration *out)
{
    int rc = -1;
    size_t np = 0;
    ab_rep_meas *m = NULL;
    ab_rep_cmp *c = NULL;
    double *p = NULL, *adj = NULL;
    ab_compare_opts o;
    ab_compare_opts_default(&o);
    o.alpha = alpha;
    o.practical = practical;
    memset(out, 0, sizeof *out);
    out->run_id = run_id;
    out->alpha = o.alpha;
    out->level = o.boot.level;
    m = calloc(n ? n : 1, sizeof *m);
    c = calloc(n ? n : 1, sizeof *c);
    p = malloc((n ? n : 1) * sizeof *p);
    adj = malloc((n ? n : 1) * sizeof *adj);
    if (!m || !c || !p || !adj) {
        error("out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++) {
        m[i].r = r[i]; /* shallow: the samples stay the caller's */
        m[i].clk = clk[i];
    }
    for (size_t i = 0; i < n; i++) {
        char want[80];
        if (strcmp(m[i].r.status, "ok") != 0 || !partner(m[i].r.variant, want, sizeof want))
            continue;
        for (size_t j = 0; j < n; j++)
            if (m[j].r.config == m[i].r.config && strcmp(m[j].r.variant, want) == 0 &&
                strcmp(m[j].r.status, "ok") == 0) {
                c[np].a = &m[i];
                c[np].b = &m[j];
                ab_rep_compare(&c[np], &o);
                if (c[np].an.ok) {
                    p[np] = c[np].an.p;
                    np++;
                } else
                    memset(&c[np], 0, sizeof c[np]);
                break;
            }
    }
    ab_rep_family_limit(c, np, o.alpha);
    if (np && ab_p_adjust(p, np, o.padjust, adj) != AB_STATS_OK) {
        error("out of memory");
        goto cleanup;
    }
    snprintf(out->all.title, sizeof out->all.title, "all");
    for (size_t i = 0; i < np; i++) {
        ab_calibration_config *k = NULL;
        char title[96];
        ab_rmeas_title(&c[i].a->r, title, sizeof title);
        for (size_t j = 0; j < out->nconfigs && !k; j++)
            if (strcmp(out->cfg[j].title, title) == 0)
                k = &out->cfg[j];
        if (!k && out->nconfigs < AB_CAL_MAX_CONFIGS) {
            k = &out->cfg[out->nconfigs++];
            snprintf(k->title, sizeof k->title, "%s", title);
        }
        /* no resolution veto: the A/A pairs are what the resolution is measured
         * from, and their false-positive rate must be the rule's own */
        const double floor = 0;
        ab_rep_decide(&c[i], adj[i], &o, floor);
        int rule = c[i].an.verdict != AB_NO_DIFFERENCE;
        /* the rule without the family correction: the per-comparison error
         * (the family's limit on rounds does not apply to it) */
        const int fam = c[i].an.too_few_family;
        c[i].an.too_few_family = 0;
        ab_rep_decide(&c[i], p[i], &o, floor);
        c[i].an.too_few_family = fam;
        int uncorrected = c[i].an.verdict != AB_NO_DIFFERENCE;
        int raw = !c[i].an.too_few && p[i] < o.alpha;
        int covered = c[i].an.lo <= 1 && 1 <= c[i].an.hi;
        ab_calibration_config *both[2] = {&out->all, k};
        for (int b = 0; b < 2; b++) {
            if (!both[b])
                continue;
            both[b]->pairs++;
            both[b]->paired += c[i].an.paired;
            both[b]->raw_positives += raw;
            both[b]->covered += covered;
            both[b]->uncorrected_positives += uncorrected;
            both[b]->rule_positives += rule;
        }
    }
    finish_config(&out->all, o.alpha, o.boot.level);
    out->flagged = out->all.flagged;
    for (size_t j = 0; j < out->nconfigs; j++) {
        finish_config(&out->cfg[j], o.alpha, o.boot.level);
        out->flagged |= out->cfg[j].flagged;
    }
    out->pairs = out->all.pairs;
    out->raw_positives = out->all.raw_positives;
    out->uncorrected_positives = out->all.uncorrected_positives;
    out->rule_positives = out->all.rule_positives;
    out->binom_p = out->all.verdict_binom_p;
    rc = 0;
cleanup:
    free(m);
    free(c);
    free(p);
    free(adj);
    return rc;
}

int ab_calibration_of_run(const ab_aa_run *r, ab_calibration *out)
{
    ab_compare_opts o;
    ab_compare_opts_default(&o);
    if (r->definition) {
        ab_experiment e;
        char perr[1024];
        if (ab_experiment_parse("(stored)", r->definition, 0, &e, perr, sizeof perr) == 0) {
            o.alpha = e.alpha;
            o.practical = e.practical;
        }
        ab_experiment_free(&e);
    }
    return ab_calibration_analyse(r->m, r->clk, r->n, r->run_id, o.alpha, o.practical, out);
}
