/*
 * claims.c: the experiment's claims (`expect`), parsed and checked, and
 * judged from the run's verdicts with the spread of each measurement
 * (claims.h); src/report/conclusion.c writes the result.
 */
#include "claims.h"
#include "variant_groups.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *baseline_of(const ab_experiment *e)
{
    return e->baseline ? e->baseline : e->nvariants ? e->variants[0].name : "";
}

int ab_claim_names(const ab_experiment *e, const char *v, const char *name)
{
    return e->instances > 1 ? ab_exp_instance_of(v, name) : strcmp(v, name) == 0;
}

/* 1 with *x when setting s is a number (int or float), else 0. */
static int setting_number(const config_setting_t *s, double *x)
{
    const int t = s ? config_setting_type(s) : CONFIG_TYPE_NONE;
    if (t != CONFIG_TYPE_FLOAT && t != CONFIG_TYPE_INT)
        return 0;
    *x = t == CONFIG_TYPE_FLOAT ? config_setting_get_float(s) : (double)config_setting_get_int(s);
    return 1;
}

static int is_variant(const ab_experiment *e, const char *name)
{
    for (size_t i = 0; i < e->nvariants; i++)
        if (ab_claim_names(e, e->variants[i].name, name))
            return 1;
    return 0;
}

static int fail_at(char *err, size_t n, const ab_experiment *e, const config_setting_t *s,
                   const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(err, n, "%s:%d: expect: %s", e->path, s ? config_setting_source_line(s) : 0, msg);
    return -1;
}

/* The axes a `where` may name (ab_claim_cond.axis indexes it): the
 * numeric ones in the order where_holds takes them, causal, then the
 * string axes. */
static const char *const where_axes[] = {"B", "H", "H_kv", "S", "S_kv", "D", "causal", "dtype",
                                         "pass"};

/* Parses claim c's `where` group w into c->where and c->where_text.
 * Returns 0 or -1 with err naming the file and line. */
static int parse_where(const ab_experiment *e, const config_setting_t *w, ab_claim *c, char *err,
                       size_t n)
{
    if (!config_setting_is_group(w))
        return fail_at(err, n, e, w, "where must be a group { D = 128; causal = false; ... }");
    const int len = config_setting_length(w);
    if (len < 1 || len > AB_CLAIM_MAX_WHERE)
        return fail_at(err, n, e, w, "where must name 1 to %d axes", AB_CLAIM_MAX_WHERE);
    size_t used = 0;
    for (int i = 0; i < len; i++) {
        const config_setting_t *x = config_setting_get_elem(w, (unsigned)i);
        const char *name = config_setting_name(x);
        size_t a = 0;
        while (a < sizeof where_axes / sizeof *where_axes && strcmp(where_axes[a], name) != 0)
            a++;
        if (a == sizeof where_axes / sizeof *where_axes)
            return fail_at(err, n, e, x,
                           "where: unknown axis '%s' (one of B, H, H_kv, S, S_kv, D, causal, "
                           "dtype, pass)", name);
        ab_claim_cond *k = &c->where[c->nwhere++];
        k->axis = (int)a;
        const int t = config_setting_type(x);
        char val[48];
        if (a >= 7) { /* dtype, pass */
            if (t != CONFIG_TYPE_STRING)
                return fail_at(err, n, e, x, "where: %s must be a string", name);
            k->str = config_setting_get_string(x);
            snprintf(val, sizeof val, "%s", k->str);
        } else if (a == 6 && t == CONFIG_TYPE_BOOL) {
            k->value = config_setting_get_bool(x);
            snprintf(val, sizeof val, "%s", k->value ? "true" : "false");
        } else if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) {
            k->value = config_setting_get_int64(x);
            if (a == 6 && k->value != 0 && k->value != 1)
                return fail_at(err, n, e, x, "where: causal must be true or false");
            snprintf(val, sizeof val, "%lld", k->value);
        } else {
            return fail_at(err, n, e, x, "where: %s must be %s", name,
                           a == 6 ? "true or false" : "an integer");
        }
        const int wrote = snprintf(c->where_text + used, sizeof c->where_text - used, "%s%s = %s",
                                   i ? ", " : "", name, val);
        used += wrote > 0 ? (size_t)wrote : 0;
        if (used >= sizeof c->where_text)
            return fail_at(err, n, e, w, "where is too long");
    }
    return 0;
}

/* 1 when every condition of c's `where` holds for a configuration with
 * these axes (numeric ones in x: B, H, H_kv, S, S_kv, D, causal). */
static int where_holds(const ab_claim *c, const long long x[7], const char *dtype, const char *pass)
{
    for (size_t i = 0; i < c->nwhere; i++) {
        const ab_claim_cond *k = &c->where[i];
        const int ok = k->axis == 8   ? strcmp(pass, k->str) == 0
                       : k->axis == 7 ? strcmp(dtype, k->str) == 0
                       : k->axis == 6 ? (x[6] != 0) == (k->value != 0)
                                      : x[k->axis] == k->value;
        if (!ok)
            return 0;
    }
    return 1;
}

int ab_claim_covers(const ab_claim *c, const ab_rmeas *m)
{
    if (!m)
        return 1;
    const long long x[7] = {m->B, m->H, m->H_kv, m->S, m->S_kv, m->D, m->causal};
    return where_holds(c, x, m->dtype, m->pass);
}

/* 1 when claim c covers some configuration of e (always without `where`) */
static int covers_some(const ab_experiment *e, const ab_claim *c)
{
    for (size_t i = 0; i < e->nconfigs; i++) {
        const ab_shape *s = &e->configs[i];
        const long long x[7] = {s->B, s->H, ab_shape_hkv(s), s->S, ab_shape_skv(s), s->D,
                                s->causal};
        const char *dt = ab_dtype_name(s->dtype), *ps = ab_pass_name(s->pass);
        if (where_holds(c, x, dt ? dt : "", ps ? ps : ""))
            return 1;
    }
    return c->nwhere == 0;
}

int ab_claims_load(const ab_experiment *e, config_t *cfg, ab_claim **out, size_t *nc, char *err,
                   size_t n)
{
    *out = NULL;
    *nc = 0;
    if (!e->text || config_read_string(cfg, e->text) != CONFIG_TRUE)
        return 0; /* the experiment parser reports syntax errors */
    const config_setting_t *list = config_lookup(cfg, "expect");
    if (!list)
        return 0;
    if (!config_setting_is_list(list) && !config_setting_is_array(list))
        return fail_at(err, n, e, list, "must be a list of groups ( { variant = ...; verdict = ...; } )");
    const int len = config_setting_length(list);
    ab_claim *c = calloc(len ? (size_t)len : 1, sizeof *c);
    if (!c) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    for (int i = 0; i < len; i++) {
        const config_setting_t *g = config_setting_get_elem(list, (unsigned)i);
        const char *verdict = NULL;
        if (!config_setting_is_group(g)) {
            free(c);
            return fail_at(err, n, e, g, "each entry must be a group { variant = ...; verdict = ...; }");
        }
        if (!config_setting_lookup_string(g, "variant", &c[i].variant) ||
            !is_variant(e, c[i].variant)) {
            free(c);
            return fail_at(err, n, e, g, "variant must name one of the experiment's variants");
        }
        if (!config_setting_lookup_string(g, "than", &c[i].than))
            c[i].than = baseline_of(e);
        else if (!is_variant(e, c[i].than)) {
            const char *than = c[i].than; /* points into cfg, not into c */
            free(c);
            return fail_at(err, n, e, g, "than '%s' is not one of the experiment's variants", than);
        }
        const config_setting_t *wh = config_setting_get_member(g, "where");
        if (wh && parse_where(e, wh, &c[i], err, n)) {
            free(c);
            return -1;
        }
        /* a typo in `where` would leave the claim judging nothing: refused
         * (not for a shard, whose configs are part of the experiment's) */
        if (wh && e->nconfigs && e->shard_n <= 1 && !covers_some(e, &c[i])) {
            free(c);
            return fail_at(err, n, e, wh, "where covers none of the experiment's %zu "
                                          "configurations", e->nconfigs);
        }
        const config_setting_t *sp = config_setting_get_member(g, "speedup");
        if (sp) {
            double lo = 0, hi = 0;
            const int num = config_setting_length(sp) == 2 &&
                            setting_number(config_setting_get_elem(sp, 0), &lo) &&
                            setting_number(config_setting_get_elem(sp, 1), &hi);
            if (!num || !(lo > 0) || !(hi >= lo) || !isfinite(hi)) {
                free(c);
                return fail_at(err, n, e, sp,
                               "speedup must be [lo, hi], two numbers with 0 < lo <= hi "
                               "(the reference's time over the variant's)");
            }
            c[i].has_range = 1;
            c[i].lo = lo;
            c[i].hi = hi;
        }
        if (!config_setting_lookup_string(g, "verdict", &verdict)) {
            if (!sp) {
                free(c);
                return fail_at(err, n, e, g, "a claim needs a verdict (\"faster\", \"slower\" or "
                                             "\"no difference\") or a speedup = [lo, hi]");
            }
            continue;
        }
        if (strcmp(verdict, "faster") && strcmp(verdict, "slower") && strcmp(verdict, "no difference")) {
            free(c);
            return fail_at(err, n, e, g, "verdict must be \"faster\", \"slower\" or \"no difference\"");
        }
        c[i].has_verdict = 1;
        c[i].verdict = strcmp(verdict, "faster") == 0   ? AB_FASTER
                       : strcmp(verdict, "slower") == 0 ? AB_SLOWER
                                                        : AB_NO_DIFFERENCE;
    }
    *out = c;
    *nc = (size_t)len;
    return 0;
}

int ab_expect_check(const ab_experiment *e, char *err, size_t n)
{
    config_t cfg;
    ab_claim *c;
    size_t nc;
    config_init(&cfg);
    int rc = ab_claims_load(e, &cfg, &c, &nc, err, n);
    if (rc == 0)
        free(c);
    config_destroy(&cfg);
    return rc;
}

int ab_expect_pairs(const ab_experiment *e, void (*fn)(void *, const char *, const char *),
                    void *arg)
{
    config_t cfg;
    ab_claim *c = NULL;
    size_t nc = 0;
    char err[512];
    config_init(&cfg);
    int rc = ab_claims_load(e, &cfg, &c, &nc, err, sizeof err) ? -1 : 0;
    for (size_t i = 0; rc == 0 && i < nc; i++)
        if (strcmp(c[i].than, baseline_of(e)) != 0)
            fn(arg, c[i].variant, c[i].than);
    free(c);
    config_destroy(&cfg);
    return rc;
}

static const ab_exp_variant *exp_variant(const ab_experiment *e, const char *name)
{
    for (size_t i = 0; i < e->nvariants; i++)
        if (strcmp(e->variants[i].name, name) == 0)
            return &e->variants[i];
    return NULL;
}


/* The index of the first claim for (variant, than) that covers m's
 * configuration and has a verdict (range 0) or a predicted speedup (range
 * 1); -1 when none does. */
static int claim_index(const ab_experiment *e, const ab_claim *c, size_t nc, const char *variant,
                       const char *than, const ab_rmeas *m, int range)
{
    for (size_t i = 0; i < nc; i++)
        if ((range ? c[i].has_range : c[i].has_verdict) &&
            ab_claim_names(e, variant, c[i].variant) && ab_claim_names(e, than, c[i].than) &&
            ab_claim_covers(&c[i], m))
            return (int)i;
    return -1;
}

/* The claim for (variant, than) in m's configuration and where it comes
 * from (*source): the experiment's `expect` (*index: that claim), else "no
 * difference" when both are instances of one built-in variant in one
 * timing mode (an A/A test), else none (*index -1 for both). */
static ab_verdict claim_for(const ab_experiment *e, const ab_claim *c, size_t nc, const char *variant,
                            const char *than, const ab_rmeas *m, int *source, int *index)
{
    *index = claim_index(e, c, nc, variant, than, m, 0);
    if (*index >= 0) {
        *source = AB_STATED;
        return c[*index].verdict;
    }
    const ab_exp_variant *a = exp_variant(e, variant), *b = exp_variant(e, than);
    *source = a && b && a->native && a->native == b->native && a->timing == b->timing &&
                      !a->command && !b->command
                  ? AB_AA_TEST
                  : AB_NO_CLAIM;
    return AB_NO_DIFFERENCE;
}

static const char *const outcome_name[] = {"held", "did not hold", "inconclusive", "not judged"};

const char *ab_part_outcome_name(int outcome) { return outcome_name[outcome]; }

int ab_claim_range(const ab_experiment *e, const ab_claim *c, size_t nc, const char *variant,
                   const char *than, const ab_rmeas *m, double *lo, double *hi)
{
    const int i = claim_index(e, c, nc, variant, than, m, 1);
    if (i >= 0) {
        *lo = c[i].lo;
        *hi = c[i].hi;
    }
    return i;
}

int ab_range_place(double s, double lo, double hi, double plo, double phi, int *outside)
{
    *outside = hi < plo || lo > phi;
    return s < plo ? -1 : s > phi ? 1 : 0;
}

int ab_part_range_judge(const ab_part *p)
{
    if (!p->has_range)
        return AB_NOT_JUDGED;
    const int n = p->inside + p->below + p->above;
    if (p->excluded > 0)
        return AB_NOT_HELD;
    return n > 0 && p->inside == n && p->not_compared == 0 ? AB_HELD : AB_INCONCLUSIVE;
}

/* the verdict claim's outcome (AB_NOT_JUDGED without one) */
static int verdict_judge(const ab_part *p);

int ab_part_judge(const ab_part *p)
{
    const int v = verdict_judge(p), r = ab_part_range_judge(p);
    if (v == AB_NOT_JUDGED)
        return r;
    if (r == AB_NOT_JUDGED)
        return v;
    return v == AB_NOT_HELD || r == AB_NOT_HELD         ? AB_NOT_HELD
           : v == AB_INCONCLUSIVE || r == AB_INCONCLUSIVE ? AB_INCONCLUSIVE
                                                          : AB_HELD;
}

static int verdict_judge(const ab_part *p)
{
    if (p->source == AB_NO_CLAIM)
        return AB_NOT_JUDGED;
    const int total = p->count[0] + p->count[1] + p->count[2] + p->not_compared;
    const int contradicting = p->claim == AB_FASTER   ? p->count[AB_SLOWER]
                              : p->claim == AB_SLOWER ? p->count[AB_FASTER]
                                                      : p->count[AB_FASTER] + p->count[AB_SLOWER];
    if (contradicting > 0)
        return AB_NOT_HELD;
    if (total > 0 && p->count[p->claim] == total)
        return AB_HELD;
    return AB_INCONCLUSIVE;
}

const char *ab_part_finding(const ab_part *p)
{
    const int total = p->count[0] + p->count[1] + p->count[2] + p->not_compared;
    if (total == 0 || p->not_compared == total)
        return "nothing compared";
    if (p->count[AB_FASTER] == total)
        return "faster everywhere";
    if (p->count[AB_SLOWER] == total)
        return "slower everywhere";
    if (p->count[AB_NO_DIFFERENCE] == total)
        return "no significant difference anywhere";
    if (p->count[AB_FASTER] && p->count[AB_SLOWER])
        return "faster in some configurations, slower in others";
    if (p->count[AB_FASTER])
        return "faster or no significant difference";
    if (p->count[AB_SLOWER])
        return "slower or no significant difference";
    return "no significant difference where compared";
}

static const char *claim_text(ab_verdict v)
{
    return v == AB_FASTER ? "faster" : v == AB_SLOWER ? "slower" : "no difference";
}

void ab_judged_free(ab_judged *J)
{
    free(J->parts);
    free(J->sp);
    free(J->has_sp);
    free(J->claims);
    config_destroy(&J->cfg);
}

int ab_judge_all(ab_judged *J, const ab_experiment *e, const ab_outcome *o, size_t n,
                 const ab_rmeas *const *meas, size_t nmeas)
{
    size_t nclaims = 0;
    char err[512];
    memset(J, 0, sizeof *J);
    config_init(&J->cfg);
    if (ab_claims_load(e, &J->cfg, &J->claims, &nclaims, err, sizeof err))
        J->claims = NULL, nclaims = 0; /* checked at run time; an old run's text: defaults */
    J->nclaims = nclaims;
    J->parts = calloc(n ? n : 1, sizeof *J->parts);
    J->sp = calloc(nmeas ? nmeas : 1, sizeof *J->sp);
    J->has_sp = calloc(nmeas ? nmeas : 1, sizeof *J->has_sp);
    if (!J->parts || !J->sp || !J->has_sp)
        return J->status = -1;
    for (size_t i = 0; i < nmeas; i++)
        J->has_sp[i] = strcmp(meas[i]->status, "ok") == 0 && meas[i]->n >= 2 &&
                       ab_spread_check(meas[i]->ms, meas[i]->n, &J->sp[i]) == 0;
    for (size_t i = 0; i < n; i++) {
        /* a part is named as the user names its variants: with instances,
         * V for the instance V#k a comparison stands for */
        char vn[64], rn[64];
        const char *sv = o[i].variant->variant, *sr = o[i].reference->variant;
        snprintf(vn, sizeof vn, "%.*s", (int)(e->instances > 1 ? ab_variant_name_len(sv) : strlen(sv)), sv);
        snprintf(rn, sizeof rn, "%.*s", (int)(e->instances > 1 ? ab_variant_name_len(sr) : strlen(sr)), sr);
        /* the claims covering this configuration: a part per pair and claims */
        int source, vclaim;
        double rlo = 0, rhi = 0;
        const ab_verdict claim =
            claim_for(e, J->claims, nclaims, sv, sr, o[i].variant, &source, &vclaim);
        const int rclaim =
            ab_claim_range(e, J->claims, nclaims, sv, sr, o[i].variant, &rlo, &rhi);
        ab_part *p = NULL;
        for (size_t k = 0; k < J->np && !p; k++)
            if (strcmp(J->parts[k].variant, vn) == 0 && strcmp(J->parts[k].reference, rn) == 0 &&
                J->parts[k].vclaim == vclaim && J->parts[k].rclaim == rclaim)
                p = &J->parts[k];
        if (!p) {
            p = &J->parts[J->np++];
            memcpy(p->names[0], vn, sizeof vn);
            memcpy(p->names[1], rn, sizeof rn);
            p->variant = p->names[0];
            p->reference = p->names[1];
            p->claim = claim;
            p->source = source;
            p->vclaim = vclaim;
            p->rclaim = rclaim;
            /* named by the narrower of its two claims' `where`s */
            p->where = rclaim >= 0 && *J->claims[rclaim].where_text ? J->claims[rclaim].where_text
                       : vclaim >= 0                                ? J->claims[vclaim].where_text
                                                                    : "";
            if (rclaim >= 0) {
                p->has_range = 1;
                p->range_lo = rlo;
                p->range_hi = rhi;
                p->est_min = INFINITY;
                p->est_max = 0;
            }
        }
        if (o[i].computed)
            p->count[o[i].verdict]++;
        else
            p->not_compared++;
        if (p->has_range && o[i].computed && o[i].speedup > 0) {
            const double s = o[i].speedup;
            int outside;
            const int at = ab_range_place(s, o[i].lo, o[i].hi, p->range_lo, p->range_hi, &outside);
            p->inside += at == 0;
            p->below += at < 0;
            p->above += at > 0;
            p->excluded += outside;
            p->log_sum += log(s);
            p->est_min = fmin(p->est_min, s);
            p->est_max = fmax(p->est_max, s);
        }
        for (size_t k = 0; k < nmeas; k++)
            if ((meas[k] == o[i].variant || meas[k] == o[i].reference) && J->has_sp[k] &&
                J->sp[k].wide)
                p->wide++;
    }
    return 0;
}

const char *ab_part_claim_name(const ab_part *p)
{
    return p->source == AB_NO_CLAIM  ? (p->has_range ? "a speedup range (below)" : "none stated")
           : p->source == AB_AA_TEST ? "no difference (A/A)"
                                  : claim_text(p->claim);
}

const char *ab_conclusion_overall(const int tally[4], int *judged_n)
{
    *judged_n = tally[AB_HELD] + tally[AB_NOT_HELD] + tally[AB_INCONCLUSIVE];
    if (*judged_n == 0)
        return "not judged";
    return tally[AB_NOT_HELD] == 0 && tally[AB_INCONCLUSIVE] == 0 ? "held"
           : tally[AB_NOT_HELD] == 0                           ? "inconclusive"
           : tally[AB_HELD] > 0                                ? "held in part"
                                                            : "did not hold";
}
