/*
 * provenance.c: each variant's provenance in a run (provenance.h), from
 * the experiment as it ran and the adapter_env column of its measurements.
 */
#include "provenance.h"

#include "read.h"
#include "store.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* The provenance entry of variant v, from its first adapter env (JSON
 * text or NULL) and the count of distinct ones. */
static json_t *entry(const ab_exp_variant *v, const char *env, long long distinct)
{
    json_t *envj = env ? json_loads(env, 0, NULL) : NULL;
    json_t *o;
    if (v->library) {
        json_t *p = json_object_get(envj, "plugin");
        o = json_pack("{s:s, s:s, s:O, s:O, s:O}", "route", "plugin", "library", v->library,
                      "path", json_object_get(p, "library") ?: json_null(),
                      "size", json_object_get(p, "size") ?: json_null(),
                      "sha256", json_object_get(p, "sha256") ?: json_null());
    } else if (v->command) {
        o = json_pack("{s:s, s:s, s:i, s:O, s:I}", "route", "adapter", "command", v->command,
                      "protocol", v->protocol, "version", envj ? envj : json_null(),
                      "versions", (json_int_t)distinct);
    } else {
        o = json_pack("{s:s, s:s}", "route", "built-in", "variant",
                      v->native ? v->native->name : v->name);
    }
    json_decref(envj);
    return o ? o : json_null();
}

/* The provenance of e's variants from venvs[0..n) (each measured
 * variant's adapter record). */
static json_t *from_envs(const ab_experiment *e, const ab_variant_env *venvs, size_t n)
{
    json_t *prov = json_object();
    for (size_t i = 0; prov && i < e->nvariants; i++) {
        const ab_exp_variant *v = &e->variants[i];
        const ab_variant_env *x = NULL;
        for (size_t k = 0; k < n && !x; k++)
            if (strcmp(venvs[k].variant, v->name) == 0)
                x = &venvs[k];
        json_object_set_new(prov, v->name, entry(v, x ? x->first : NULL, x ? x->distinct : 0));
    }
    return prov;
}

json_t *ab_provenance_load(sqlite3 *db, long long run_id, const ab_experiment *e, char *err)
{
    ab_variant_env *v = NULL;
    size_t n = 0;
    if (ab_variant_envs_load(db, run_id, &v, &n, err)) {
        ab_variant_envs_free(v, n);
        return NULL;
    }
    json_t *prov = from_envs(e, v, n);
    ab_variant_envs_free(v, n);
    if (!prov)
        snprintf(err, AB_ERR, "out of memory reading the provenance");
    return prov;
}

json_t *ab_provenance_of_record(const ab_run_record *rec, const ab_experiment *e)
{
    return rec->venvs_status ? NULL : from_envs(e, rec->venvs, rec->nvenvs);
}

/* The version line as one compact JSON text (malloc'd) or NULL. */
static char *compact(const json_t *j)
{
    return j && !json_is_null(j) ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
}

static void describe(FILE *out, const json_t *o, int markdown)
{
    const char *route = json_string_value(json_object_get(o, "route")) ?: "?";
    const char *q = markdown ? "`" : "";
    if (strcmp(route, "plugin") == 0) {
        const char *path = json_string_value(json_object_get(o, "path"));
        const char *sha = json_string_value(json_object_get(o, "sha256"));
        fprintf(out, "library %s%s%s", q, path ? path : json_string_value(json_object_get(o, "library")), q);
        if (!path)
            fprintf(out, " (not loaded: no measurement holds its record)");
        if (sha)
            fprintf(out, ", SHA-256 %s%s%s", q, sha, q);
        else if (path)
            fprintf(out, ", no SHA-256 (attnbench built without libcrypto)");
        if (json_is_integer(json_object_get(o, "size")))
            fprintf(out, ", %lld bytes", (long long)json_integer_value(json_object_get(o, "size")));
    } else if (strcmp(route, "adapter") == 0) {
        char *ver = compact(json_object_get(o, "version"));
        fprintf(out, "command %s%s%s (protocol %lld); version line %s%s%s", q,
                json_string_value(json_object_get(o, "command")) ?: "", q,
                (long long)json_integer_value(json_object_get(o, "protocol")), ver ? q : "",
                ver ? ver : "none (no measurement stored one)", ver ? q : "");
        long long n = json_integer_value(json_object_get(o, "versions"));
        if (n > 1)
            fprintf(out, " (%lld different ones in this run)", n);
        free(ver);
    } else {
        fprintf(out, "built in (%s%s%s), this build's commit in the fingerprint", q,
                json_string_value(json_object_get(o, "variant")) ?: "?", q);
    }
}

void ab_provenance_markdown(FILE *out, const json_t *prov)
{
    if (!json_object_size(prov))
        return;
    fprintf(out, "\n| variant | route | what ran |\n|---|---|---|\n");
    const char *name;
    json_t *o;
    json_object_foreach((json_t *)prov, name, o) {
        char cell[2048];
        FILE *m = fmemopen(cell, sizeof cell, "w");
        if (!m)
            continue;
        describe(m, o, 1);
        fclose(m);
        cell[sizeof cell - 1] = '\0';
        for (char *c = cell; *c; c++) /* a command's '|' would end the cell */
            if (*c == '|')
                *c = '/';
        /* the name in backticks: a row never reads as that variant's results row */
        fprintf(out, "| `%s` | %s | %s |\n", name,
                json_string_value(json_object_get(o, "route")) ?: "?", cell);
    }
}

void ab_provenance_text(FILE *out, const json_t *prov)
{
    if (!json_object_size(prov))
        return;
    fprintf(out, "provenance\n");
    const char *name;
    json_t *o;
    json_object_foreach((json_t *)prov, name, o) {
        fprintf(out, "  %-22s %-9s ", name, json_string_value(json_object_get(o, "route")) ?: "?");
        describe(out, o, 0);
        fprintf(out, "\n");
    }
    fprintf(out, "\n");
}
