/*
 * claims.c: the experiment's claims (`expect`), parsed and checked
 * (claims.h); the conclusion (src/report/conclusion.c) judges them from the
 * analysis's verdicts.
 */
#include "claims.h"

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
        if (!config_setting_lookup_string(g, "verdict", &verdict) ||
            (strcmp(verdict, "faster") && strcmp(verdict, "slower") && strcmp(verdict, "no difference"))) {
            free(c);
            return fail_at(err, n, e, g, "verdict must be \"faster\", \"slower\" or \"no difference\"");
        }
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
