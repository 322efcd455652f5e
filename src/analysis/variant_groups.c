/*
 * variant_groups.c: a run's measurements grouped by the variant a user
 * names, instances V#k under V (variant_groups.h).
 */
#include "variant_groups.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t ab_variant_name_len(const char *stored)
{
    const char *h = strrchr(stored, '#');
    if (!h || h == stored || !h[1])
        return strlen(stored);
    for (const char *p = h + 1; *p; p++)
        if (*p < '0' || *p > '9')
            return strlen(stored);
    return (size_t)(h - stored);
}

/* The instance number of a stored name "V#k" (0 for V alone). */
static long instance_no(const char *stored)
{
    size_t len = ab_variant_name_len(stored);
    return stored[len] == '#' ? strtol(stored + len + 1, NULL, 10) : 0;
}

ab_variant_group *ab_variant_group_find(ab_variant_group *g, size_t n, const char *v,
                                        const ab_rmeas *x)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(g[i].variant, v) == 0 && ab_rmeas_same_config(g[i].m[0], x))
            return &g[i];
    return NULL;
}

int ab_variant_groups(ab_rmeas *m, size_t n, ab_variant_group **out, size_t *nout)
{
    ab_variant_group *g = calloc(n ? n : 1, sizeof *g);
    size_t ng = 0;
    if (!g)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char v[64];
        size_t len = ab_variant_name_len(m[i].variant);
        snprintf(v, sizeof v, "%.*s", (int)len, m[i].variant);
        ab_variant_group *x = ab_variant_group_find(g, ng, v, &m[i]);
        if (!x) {
            x = &g[ng++];
            snprintf(x->variant, sizeof x->variant, "%s", v);
            x->instances = m[i].variant[len] == '#';
        }
        ab_rmeas **nm = realloc(x->m, (x->k + 1) * sizeof *nm);
        if (!nm) {
            ab_variant_groups_free(g, ng);
            return -1;
        }
        x->m = nm;
        /* in instance order */
        size_t at = x->k++;
        while (at > 0 && instance_no(x->m[at - 1]->variant) > instance_no(m[i].variant)) {
            x->m[at] = x->m[at - 1];
            at--;
        }
        x->m[at] = &m[i];
    }
    *out = g;
    *nout = ng;
    return 0;
}

void ab_variant_groups_free(ab_variant_group *g, size_t n)
{
    for (size_t i = 0; g && i < n; i++)
        free(g[i].m);
    free(g);
}

const ab_rmeas *ab_variant_group_failed(const ab_variant_group *g)
{
    for (size_t j = 0; j < g->k; j++)
        if (strcmp(g->m[j]->status, "ok") != 0)
            return g->m[j];
    return NULL;
}

size_t ab_variant_group_min_n(const ab_variant_group *g)
{
    size_t n = g->k ? g->m[0]->n : 0;
    for (size_t j = 1; j < g->k; j++)
        if (g->m[j]->n < n)
            n = g->m[j]->n;
    return n;
}

void ab_variant_group_samples(const ab_variant_group *g, ab_instance_sample *s)
{
    for (size_t j = 0; j < g->k; j++)
        s[j] = (ab_instance_sample){g->m[j]->ms, g->m[j]->round, g->m[j]->n};
}
