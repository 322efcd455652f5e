/*
 * run_analysis.c: the analysis of one run (run_analysis.h): summaries,
 * the family of comparisons and its verdicts, the A/A calibration and
 * resolution, the provenance; from the run record, once.
 */
#include "run_analysis.h"
#include "claims.h"
#include "median_ci.h"
#include "provenance.h"
#include "util.h"
#include "variant_groups.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef ab_rep_meas meas;
typedef ab_rep_cmp cmp;

int ab_run_is_variant(const ab_run_analysis *an, const char *v, const char *name)
{
    return an->instances_k > 1 ? ab_exp_instance_of(v, name) : strcmp(v, name) == 0;
}

static meas *find(meas *m, size_t n, int config, const char *variant)
{
    for (size_t i = 0; i < n; i++)
        if (m[i].r.config == config && strcmp(m[i].r.variant, variant) == 0)
            return &m[i];
    return NULL;
}

static int usable(const meas *x) { return ab_rep_usable(x); }

/* The record's measurements with the columns only reports show. */
static int take_measurements(const ab_run_record *rec, ab_run_analysis *an)
{
    const ab_experiment *e = &an->e;
    const size_t n = rec->n;
    meas *m = calloc(n ? n : 1, sizeof *m);
    if (!m)
        return error("out of memory");
    an->m = m;
    an->n = n;
    for (size_t i = 0; i < n; i++) {
        m[i].r = rec->m[i]; /* shallow: the samples stay the record's */
        m[i].clk = rec->clk[i];
    }
    for (size_t k = 0; k < rec->nd && k < n; k++) {
        const ab_meas_detail *d = &rec->d[k];
        meas *x = &m[k];
        snprintf(x->backend, sizeof x->backend, "%s", d->backend);
        x->message = d->message;
        x->checked = d->checked;
        x->external = d->external;
        x->warmup = d->warmup;
        x->graph_k = d->graph_k;
        x->max_abs_err = d->max_abs_err;
        x->mean_abs_err = d->mean_abs_err;
        x->rel_l2_err = d->rel_l2_err;
        x->tolerance = d->tolerance;
        x->bytes = d->bytes;
        x->peak_bytes = d->peak_bytes;
        x->nonfinite = d->nonfinite;
        x->rows_checked = d->rows_checked;
        snprintf(x->mode, sizeof x->mode, "%s", d->mode);
        x->input_sets = d->input_sets;
        x->order = 1 << 20;
        for (size_t v = 0; v < e->nvariants; v++)
            if (strcmp(e->variants[v].name, x->r.variant) == 0)
                x->order = (int)v;
    }
    return 0;
}

/* The summary of x (median, its CI over rounds, outliers, drift). */
static void summarise(meas *x, const ab_boot_opts *bo)
{
    if (!usable(x) || ab_summarize(x->r.ms, x->r.n, &x->s) != AB_STATS_OK)
        return;
    x->have_summary = 1;
    ab_measurement_median_ci(x->r.ms, x->r.round, x->r.n, x->r.rounds, bo, &x->lo, &x->hi,
                             &x->ci_rounds, &x->ci_name);
    ab_tukey_outliers(x->r.ms, x->r.n, &x->ol);
    x->drift_ok = x->r.n >= 3 && ab_drift_test(x->r.ms, x->r.n, 0.05, &x->dr) == AB_STATS_OK;
}

/* With instances (instances_k > 1): the comparison of x's variant, when x
 * is its instance #1 and the variant is not ref, with ref (a variant's
 * name without "#k": the baseline, the rung before x's, or a claim's
 * `than`) over every usable instance of each in x's configuration
 * (instances.h), into c (a = x, b = ref's first usable instance). Fewer
 * than 2 usable instances on either side: paired over rounds between x
 * and that first instance. Returns 1 when c was filled, else 0. */
static int instance_compare(const ab_run_analysis *an, meas *x, const char *ref,
                            const ab_compare_opts *co, cmp *c)
{
    meas *m = an->m;
    const size_t n = an->n;
    size_t len = strlen(x->r.variant);
    if (len < 3 || strcmp(x->r.variant + len - 2, "#1") != 0 ||
        ab_run_is_variant(an, x->r.variant, ref))
        return 0;
    char base[256];
    snprintf(base, sizeof base, "%.*s", (int)(len - 2), x->r.variant);
    ab_instance_sample ia[64], ib[64];
    size_t ka = 0, kb = 0;
    meas *b0 = NULL;
    for (size_t i = 0; i < n; i++) {
        meas *y = &m[i];
        if (y->r.config != x->r.config || !usable(y) || y->r.rounds < 1)
            continue;
        ab_instance_sample s = {y->r.ms, y->r.round, y->r.n};
        if (ab_exp_instance_of(y->r.variant, base) && ka < 64)
            ia[ka++] = s;
        else if (ab_exp_instance_of(y->r.variant, ref) && kb < 64) {
            if (!b0 || strcmp(y->r.variant, b0->r.variant) < 0)
                b0 = y;
            ib[kb++] = s;
        }
    }
    if (!b0)
        return 0;
    c->a = x;
    c->b = b0;
    memset(&c->an, 0, sizeof c->an);
    if (ka >= 2 && kb >= 2 && usable(x))
        ab_pair_analyse_instances(ia, ka, ib, kb, co, &c->an);
    else
        ab_rep_compare(c, co);
    if (c->an.ok)
        c->clocks_differ = ab_clocks_differ(&x->clk, &b0->clk);
    return 1;
}

/* With instances: the name (without "#k") of the variant listed before
 * the variant of instance name v in e (e's variants are the instances,
 * V#1 .. V#k of each in turn). 1 with it in out, 0 when v's is the first. */
static int previous_variant(const ab_experiment *e, const char *v, char *out, size_t n)
{
    const size_t lv = ab_variant_name_len(v);
    char prev[256] = "";
    for (size_t i = 0; i < e->nvariants; i++) {
        const char *w = e->variants[i].name;
        const size_t lw = ab_variant_name_len(w);
        if (lw == lv && strncmp(w, v, lv) == 0) {
            if (!prev[0])
                return 0;
            snprintf(out, n, "%s", prev);
            return 1;
        }
        snprintf(prev, sizeof prev, "%.*s", (int)lw, w);
    }
    return 0;
}

static int cmp_order(const void *x, const void *y)
{
    const meas *a = *(meas *const *)x, *b = *(meas *const *)y;
    if (a->r.config != b->r.config)
        return a->r.config - b->r.config;
    return a->order - b->order;
}

/* The claims whose `than` is not the baseline (ab_expect_pairs): their
 * comparisons join the family so that each claim is judged and listed. */
typedef struct claim_pairs {
    char variant[64][256], than[64][256];
    size_t n;
} claim_pairs;

static void add_claim_pair(void *arg, const char *variant, const char *than)
{
    claim_pairs *c = arg;
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->variant[i], variant) == 0 && strcmp(c->than[i], than) == 0)
            return;
    if (c->n < sizeof c->variant / sizeof c->variant[0] && strlen(variant) < 256 &&
        strlen(than) < 256) {
        snprintf(c->variant[c->n], sizeof c->variant[0], "%s", variant);
        snprintf(c->than[c->n], sizeof c->than[0], "%s", than);
        c->n++;
    }
}

/* The A/A groups of timing mode `mode`, built once per analysis; NULL
 * when the mode is unknown or there is no room. */
static const ab_aa_groups *groups_for(const ab_run_record *rec, ab_run_analysis *an,
                                      const char *mode)
{
    if (!mode[0] || rec->aa.n == 0)
        return NULL;
    for (size_t i = 0; i < an->ngroups; i++)
        if (strcmp(an->groups[i].mode, mode) == 0)
            return &an->groups[i];
    if (an->ngroups == AB_ANALYSIS_MAX_MODES)
        return NULL;
    ab_aa_groups *g = &an->groups[an->ngroups++];
    ab_aa_groups_build(&rec->aa, mode, g);
    return g;
}

/* The minimum resolvable shift (ms) of measurement x: its A/A resolution
 * in its timing mode times its median; 0 when none. */
static double min_shift(const ab_run_record *rec, ab_run_analysis *an, const meas *x)
{
    const size_t k = (size_t)(x - an->m);
    const ab_aa_groups *g = groups_for(rec, an, k < rec->nd ? rec->d[k].mode : "");
    return g ? ab_aa_min_shift_ms(g, x->r.ms, x->r.n) : 0;
}

/* The family: every variant against the baseline (and, with chain, the
 * previous variant) in every configuration, and the claims against other
 * variants; then decided together. */
static int build_family(const ab_run_record *rec, const ab_analysis_opts *o, ab_run_analysis *an)
{
    const ab_experiment *e = &an->e;
    meas *m = an->m;
    const size_t n = an->n;
    const char *baseline = an->baseline;
    claim_pairs *cp_claims = calloc(1, sizeof *cp_claims);
    if (!cp_claims)
        return error("out of memory");
    ab_expect_pairs(e, add_claim_pair, cp_claims); /* an unparsable expect: none */
    an->cmps = calloc((2 + cp_claims->n) * (n ? n : 1), sizeof *an->cmps);
    if (!an->cmps) {
        free(cp_claims);
        return error("out of memory");
    }
    cmp *cmps = an->cmps;
    size_t ncmp = 0;
    const ab_compare_opts *co = &an->co;
    for (size_t i = 0; i < n; i++) {
        meas *x = an->sorted[i];
        if (an->instances_k > 1) { /* by instance: the baseline, the rung before, the claims */
            const size_t first = ncmp;
            ncmp += (size_t)instance_compare(an, x, baseline, co, &cmps[ncmp]);
            char prev[256];
            if (o->chain && previous_variant(e, x->r.variant, prev, sizeof prev) &&
                strcmp(prev, baseline) != 0)
                ncmp += (size_t)instance_compare(an, x, prev, co, &cmps[ncmp]);
            for (size_t k = 0; k < cp_claims->n; k++) {
                if (!ab_exp_instance_of(x->r.variant, cp_claims->variant[k]))
                    continue;
                int have = 0; /* already compared with that variant */
                for (size_t c = first; c < ncmp && !have; c++)
                    have = ab_exp_instance_of(cmps[c].b->r.variant, cp_claims->than[k]);
                if (!have)
                    ncmp += (size_t)instance_compare(an, x, cp_claims->than[k], co, &cmps[ncmp]);
            }
            continue;
        }
        meas *refs[2] = {NULL, NULL};
        if (strcmp(x->r.variant, baseline) != 0)
            refs[0] = find(m, n, x->r.config, baseline);
        if (o->chain && x->order > 0 && x->order < (int)e->nvariants) {
            meas *prev = find(m, n, x->r.config, e->variants[x->order - 1].name);
            if (prev && prev != refs[0])
                refs[1] = prev;
        }
        for (int r = 0; r < 2; r++) {
            if (!refs[r])
                continue;
            cmp *c = &cmps[ncmp++];
            c->a = x;
            c->b = refs[r];
            ab_rep_compare(c, co);
        }
        /* a claim against another variant than the baseline (`expect`'s
         * `than`): that comparison too, once per configuration */
        for (size_t k = 0; k < cp_claims->n; k++) {
            if (strcmp(x->r.variant, cp_claims->variant[k]) != 0)
                continue;
            meas *y = find(m, n, x->r.config, cp_claims->than[k]);
            int have = !y || y == x;
            for (size_t c = 0; c < ncmp && !have; c++)
                have = cmps[c].a == x && cmps[c].b == y;
            if (have)
                continue;
            cmp *c = &cmps[ncmp++];
            c->a = x;
            c->b = y;
            ab_rep_compare(c, co);
        }
    }
    free(cp_claims);
    an->ncmp = ncmp;

    /* one family (every comparison of the report): the family rule
     * (pair.h: the family limit on rounds, the p-values of the inference
     * used adjusted together, Holm by default, then the one verdict rule
     * with each pair's minimum resolvable shift) */
    ab_pair_analysis **fam = malloc((ncmp ? ncmp : 1) * sizeof *fam);
    double *shift = malloc((ncmp ? ncmp : 1) * sizeof *shift);
    if (!fam || !shift) {
        free(fam);
        free(shift);
        return error("out of memory");
    }
    for (size_t i = 0; i < ncmp; i++) {
        fam[i] = &cmps[i].an;
        shift[i] = 0;
        if (cmps[i].an.ok) {
            const double sa = min_shift(rec, an, cmps[i].a), sb = min_shift(rec, an, cmps[i].b);
            shift[i] = sa > sb ? sa : sb;
        }
    }
    int st = ab_pair_decide_family(fam, ncmp, shift, co);
    free(fam);
    free(shift);
    if (st != AB_STATS_OK)
        return error("report: %s", ab_stats_strerror(st));
    for (size_t i = 0; i < ncmp; i++)
        an->family += cmps[i].an.ok;
    return 0;
}

/* The bandwidth per pass and variant (ab_pass_bandwidth), in the order the
 * report lists them: by pass, then the variant's first measurement in
 * sorted order. */
static int pass_bandwidths(ab_run_analysis *an)
{
    static const char *const passes[] = {"fwd", "bwd", "fwd+bwd"};
    meas *const *m = an->sorted;
    const size_t n = an->n;
    an->bw = calloc(3 * (n ? n : 1), sizeof *an->bw);
    double *g = malloc((n ? n : 1) * sizeof *g);
    if (!an->bw || !g) {
        free(g);
        return error("out of memory");
    }
    for (int p = 0; p < 3; p++)
        for (size_t i = 0; i < n; i++) {
            const meas *x = m[i];
            if (strcmp(x->r.pass, passes[p]) != 0)
                continue;
            int seen = 0;
            for (size_t k = 0; k < i && !seen; k++)
                seen = strcmp(m[k]->r.variant, x->r.variant) == 0 &&
                       strcmp(m[k]->r.pass, passes[p]) == 0;
            if (seen)
                continue;
            size_t ng = 0;
            for (size_t k = 0; k < n; k++)
                if (strcmp(m[k]->r.variant, x->r.variant) == 0 &&
                    strcmp(m[k]->r.pass, passes[p]) == 0 && m[k]->have_summary &&
                    m[k]->r.bytes > 0)
                    g[ng++] = m[k]->r.bytes / (m[k]->s.median * 1e6);
            ab_summary s;
            if (ng > 0 && ab_summarize(g, ng, &s) == AB_STATS_OK)
                an->bw[an->nbw++] = (ab_pass_bandwidth){passes[p], x->r.variant, ng, s.median, s.max};
        }
    free(g);
    return 0;
}

int ab_run_analyse(const ab_run_record *rec, const ab_analysis_opts *o, ab_run_analysis *an)
{
    char err[1024];
    memset(an, 0, sizeof *an);
    if (ab_experiment_parse_k(rec->h.exp_path, rec->h.definition, 0,
                              ab_exp_stored_instances(rec->settings), &an->e, err, sizeof err))
        return error("stored experiment of run %lld: %s", rec->run_id, err);
    const ab_experiment *e = &an->e;
    an->instances_k = e->instances > 1 ? e->instances : 1;
    char first[256];
    snprintf(first, sizeof first, "%s", e->variants[0].name);
    if (an->instances_k > 1 && strchr(first, '#'))
        *strrchr(first, '#') = 0; /* the variant of instance #1 */
    snprintf(an->baseline, sizeof an->baseline, "%s",
             o->baseline ? o->baseline : e->baseline ? e->baseline : first);
    int found = 0;
    for (size_t i = 0; i < e->nvariants; i++)
        found |= ab_run_is_variant(an, e->variants[i].name, an->baseline);
    if (!found)
        return error("baseline '%s' is not a variant of run %lld", an->baseline, rec->run_id);
    an->groups = calloc(AB_ANALYSIS_MAX_MODES, sizeof *an->groups);
    if (!an->groups)
        return error("out of memory");
    if (take_measurements(rec, an))
        return -1;
    const size_t n = an->n;
    meas *m = an->m;
    an->sorted = malloc((n ? n : 1) * sizeof *an->sorted);
    if (!an->sorted)
        return error("out of memory");
    for (size_t i = 0; i < n; i++)
        an->sorted[i] = &m[i];
    qsort(an->sorted, n, sizeof *an->sorted, cmp_order);

    ab_compare_opts_default(&an->co);
    an->co.alpha = e->alpha;
    an->co.practical = e->practical;
    for (size_t i = 0; i < n; i++)
        summarise(&m[i], &an->co.boot);
    if (o->by_clock) {
        if (rec->max_sm_mhz_status)
            return -1; /* printed by the load */
        an->ref_mhz = rec->max_sm_mhz;
    }
    for (size_t i = 0; i < n; i++) {
        an->any_bwd |= m[i].r.pass[0] && strcmp(m[i].r.pass, "fwd") != 0;
        an->any_kv |= m[i].r.H_kv != m[i].r.H || m[i].r.S_kv != m[i].r.S;
    }
    if (build_family(rec, o, an))
        return -1;

    /* the largest rates, from which the writers choose their units */
    for (size_t i = 0; i < n; i++) {
        *(strcmp(m[i].backend, "cpu") == 0 ? &an->cpu_meas : &an->device_meas) += 1;
        if (m[i].have_summary) {
            an->max_flop_s = fmax(an->max_flop_s, m[i].r.flops / (m[i].s.median * 1e-3));
            an->max_byte_s = fmax(an->max_byte_s, m[i].bytes / (m[i].s.median * 1e-3));
        }
    }
    for (size_t i = 0; i < n; i++)
        an->baseline_ok |= ab_run_is_variant(an, m[i].r.variant, an->baseline) && usable(&m[i]);

    if (pass_bandwidths(an))
        return -1;

    /* the environment's A/A calibration, and a calibration run's own */
    an->cal_status = rec->aa.cal_status;
    if (an->cal_status == 0 && ab_calibration_of_run(&rec->aa.cal, &an->cal))
        an->cal_status = -1;
    size_t ln = strlen(e->name);
    if (ln > 12 && strcmp(e->name + ln - 12, "-calibration") == 0)
        an->own_cal = ab_calibration_analyse(rec->m, rec->clk, rec->n, rec->run_id, e->alpha,
                                             e->practical, &an->own) == 0 &&
                      an->own.pairs > 0;
    an->provenance = ab_provenance_of_record(rec, e);

    /* the claims, judged from the verdicts (the conclusion) */
    an->outcomes = calloc(an->ncmp ? an->ncmp : 1, sizeof *an->outcomes);
    an->sorted_r = calloc(n ? n : 1, sizeof *an->sorted_r);
    if (!an->outcomes || !an->sorted_r)
        return error("out of memory");
    for (size_t i = 0; i < an->ncmp; i++)
        an->outcomes[i] = (ab_outcome){&an->cmps[i].a->r,       &an->cmps[i].b->r,
                                       an->cmps[i].an.ok,       an->cmps[i].an.verdict,
                                       an->cmps[i].an.speedup,  an->cmps[i].an.lo,
                                       an->cmps[i].an.hi};
    for (size_t i = 0; i < n; i++)
        an->sorted_r[i] = &an->sorted[i]->r;
    ab_judge_all(&an->judged, e, an->outcomes, an->ncmp, an->sorted_r, n); /* judged.status */
    an->judged_set = 1;
    /* the predicted speedups (`expect`'s `speedup`) of the pairs compared,
     * from the claims the judgement parsed */
    for (size_t i = 0; i < an->ncmp; i++)
        an->cmps[i].predicted =
            ab_claim_range(e, an->judged.claims, an->judged.nclaims, an->cmps[i].a->r.variant,
                           an->cmps[i].b->r.variant, &an->cmps[i].a->r, &an->cmps[i].pred_lo,
                           &an->cmps[i].pred_hi) >= 0;
    return 0;
}

void ab_run_analysis_free(ab_run_analysis *an)
{
    ab_experiment_free(&an->e);
    free(an->m);
    free(an->sorted);
    free(an->cmps);
    free(an->groups);
    json_decref(an->provenance);
    free(an->bw);
    free(an->outcomes);
    free(an->sorted_r);
    if (an->judged_set)
        ab_judged_free(&an->judged);
    memset(an, 0, sizeof *an);
}
