/*
 * provenance.c: each variant's provenance in a run (provenance.h), from
 * the experiment as it ran and the adapter_env column of its measurements.
 */
#include "provenance.h"

#include "store.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* The first non-null adapter_env of variant in run_id and the number of
 * distinct ones: 0 with *first (malloc'd, or NULL when none), -1 on error. */
static int first_env(sqlite3 *db, long long run_id, const char *variant, char **first,
                     long long *distinct, char *err)
{
    sqlite3_stmt *st = NULL;
    *first = NULL;
    *distinct = 0;
    int rc = sqlite3_prepare_v2(db,
                                "SELECT (SELECT adapter_env FROM measurements WHERE run_id = ?1 "
                                "AND variant = ?2 AND adapter_env IS NOT NULL ORDER BY id LIMIT 1), "
                                "(SELECT count(DISTINCT adapter_env) FROM measurements WHERE "
                                "run_id = ?1 AND variant = ?2)",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        goto cleanup;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_text(st, 2, variant, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        *first = t ? strdup((const char *)t) : NULL;
        *distinct = sqlite3_column_int64(st, 1);
        rc = SQLITE_OK;
    }
cleanup:
    if (rc != SQLITE_OK)
        snprintf(err, AB_ERR, "reading the provenance of %s: %s", variant, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : -1;
}

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

json_t *ab_provenance_load(sqlite3 *db, long long run_id, const ab_experiment *e, char *err)
{
    json_t *prov = json_object();
    for (size_t i = 0; prov && i < e->nvariants; i++) {
        const ab_exp_variant *v = &e->variants[i];
        char *env = NULL;
        long long distinct = 0;
        if (first_env(db, run_id, v->name, &env, &distinct, err)) {
            json_decref(prov);
            return NULL;
        }
        json_object_set_new(prov, v->name, entry(v, env, distinct));
        free(env);
    }
    if (!prov)
        snprintf(err, AB_ERR, "out of memory reading the provenance");
    return prov;
}

json_t *ab_provenance_of_record(const ab_run_record *rec, const ab_experiment *e)
{
    if (rec->venvs_status)
        return NULL;
    json_t *prov = json_object();
    for (size_t i = 0; prov && i < e->nvariants; i++) {
        const ab_exp_variant *v = &e->variants[i];
        const ab_variant_env *x = ab_run_record_variant_env(rec, v->name);
        json_object_set_new(prov, v->name, entry(v, x ? x->first : NULL, x ? x->distinct : 0));
    }
    return prov;
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
