/*
 * transfer.c: the transfer library of transfer.h, moving runs between
 * databases: the JSON export of one run and the CSV export of runs (the
 * sending half, `attnbench export`), the import of an export and the merge
 * of another database (the receiving half, `attnbench import` and
 * `attnbench merge`): runs keep their uuid, environments and experiments are
 * deduplicated by hash, ids are remapped, one transaction per run, and a run
 * already present is skipped, so importing or merging twice changes nothing.
 *
 * What a run is, table by table (db/schema.c): its row of runs; per run,
 * timer_floor and run_walltime; per measurement, samples, clock_blocks and
 * grad_checks. Every one of them travels in both export/import and merge
 * (tests/db/transfer_roundtrip.sh compares every table after both). Shared
 * between runs and deduplicated by hash: environments and experiments.
 */
#include "transfer.h"
#include "import_check.h"
#include "db_internal.h"
#include "store.h"
#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the sending half: export --------------------------------------------- */

static int has_column(sqlite3 *db, const char *schema, const char *table, const char *column);

static json_t *column_value(sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER:
        return json_integer((json_int_t)sqlite3_column_int64(st, i));
    case SQLITE_FLOAT:
        return json_real(sqlite3_column_double(st, i));
    case SQLITE_NULL:
        return json_null();
    default:
        return json_string((const char *)sqlite3_column_text(st, i));
    }
}

/* Rows of sql (one int64 parameter) as an array of objects, without the
 * columns named in drop (NULL-terminated). NULL after printing an error. */
static json_t *rows(sqlite3 *db, const char *sql, sqlite3_int64 id, const char *const *drop)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    if (ab_db_prepare(db, sql, &st, err)) {
        error("%s", err);
        return NULL;
    }
    sqlite3_bind_int64(st, 1, id);
    json_t *arr = json_array();
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *o = json_object();
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            const char *name = sqlite3_column_name(st, c);
            int skip = 0;
            for (const char *const *d = drop; d && *d; d++)
                skip |= strcmp(*d, name) == 0;
            if (!skip)
                json_object_set_new(o, name, column_value(st, c));
        }
        json_array_append_new(arr, o);
    }
    if (rc != SQLITE_DONE) {
        error("%s: %s", ab_db_name(db), sqlite3_errmsg(db));
        json_decref(arr);
        arr = NULL;
    }
    sqlite3_finalize(st);
    return arr;
}

json_t *ab_export_run(sqlite3 *db, long long run_id)
{
    static const char *const run_drop[] = {"id", "experiment_id", "environment_id", NULL};
    static const char *const m_drop[] = {"run_id", NULL};
    static const char *const child_drop[] = {"measurement_id", "run_id", NULL};
    static const char *const none[] = {NULL};
    json_t *runs = rows(db, "SELECT * FROM runs WHERE id = ?", run_id, run_drop);
    if (!runs || json_array_size(runs) != 1) {
        json_decref(runs);
        if (runs)
            error("no run %lld in the database", run_id);
        return NULL;
    }
    json_t *run = json_incref(json_array_get(runs, 0));
    json_decref(runs);
    json_t *x = rows(db,
                     "SELECT x.name, x.path, x.definition, x.hash FROM experiments x "
                     "JOIN runs r ON r.experiment_id = x.id WHERE r.id = ?",
                     run_id, none);
    json_t *v = rows(db,
                     "SELECT v.hash, v.fingerprint FROM environments v "
                     "JOIN runs r ON r.environment_id = v.id WHERE r.id = ?",
                     run_id, none);
    json_t *tf = rows(db, "SELECT * FROM timer_floor WHERE run_id = ? ORDER BY timing_mode",
                      run_id, child_drop);
    /* the wall-time account: one row or none (a run from before it, or one
     * that never finished); a database of an older schema, opened read-only
     * and not migrated, may have no such table */
    json_t *wt = has_column(db, "main", "run_walltime", "run_id")
                     ? rows(db, "SELECT * FROM run_walltime WHERE run_id = ?", run_id, child_drop)
                     : json_array();
    const int grads = has_column(db, "main", "grad_checks", "grad");
    json_t *ms = rows(db, "SELECT * FROM measurements WHERE run_id = ? ORDER BY id", run_id,
                      m_drop);
    if (!x || !v || !tf || !wt || !ms || json_array_size(x) != 1 || json_array_size(v) != 1)
        goto fail;
    json_t *env = json_array_get(v, 0);
    json_t *fp = json_loads(json_string_value(json_object_get(env, "fingerprint")), 0, NULL);
    if (!fp) {
        error("run %lld: stored fingerprint is not JSON", run_id);
        goto fail;
    }
    json_object_set_new(env, "fingerprint", fp);
    json_object_set(run, "experiment", json_array_get(x, 0));
    json_object_set(run, "environment", env);
    json_object_set(run, "timer_floor", tf);
    if (json_array_size(wt) == 1)
        json_object_set(run, "run_walltime", json_array_get(wt, 0));
    size_t i;
    json_t *m;
    json_array_foreach(ms, i, m) {
        sqlite3_int64 mid = json_integer_value(json_object_get(m, "id"));
        json_t *s = rows(db, "SELECT * FROM samples WHERE measurement_id = ? ORDER BY idx", mid,
                         child_drop);
        json_t *cb = rows(db,
                          "SELECT * FROM clock_blocks WHERE measurement_id = ? "
                          "ORDER BY first_idx, round",
                          mid, child_drop);
        /* the gradient checks of a checked backward pass, one per gradient */
        json_t *gc = grads ? rows(db,
                                  "SELECT * FROM grad_checks WHERE measurement_id = ? "
                                  "ORDER BY grad",
                                  mid, child_drop)
                           : json_array();
        if (!s || !cb || !gc) {
            json_decref(s);
            json_decref(cb);
            json_decref(gc);
            goto fail;
        }
        json_object_set_new(m, "samples", s);
        json_object_set_new(m, "clock_blocks", cb);
        if (json_array_size(gc))
            json_object_set_new(m, "grad_checks", gc);
        else
            json_decref(gc);
        json_object_del(m, "id");
    }
    json_object_set(run, "measurements", ms);
    json_decref(x);
    json_decref(v);
    json_decref(tf);
    json_decref(wt);
    json_decref(ms);
    return run;
fail:
    json_decref(run);
    json_decref(x);
    json_decref(v);
    json_decref(tf);
    json_decref(wt);
    json_decref(ms);
    return NULL;
}

static void csv_field(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n\r")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
}

int ab_export_csv(sqlite3 *db, const long long *ids, size_t n, FILE *out)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    if (ab_db_prepare(db,
                      "SELECT r.uuid, x.name, m.variant, m.B, m.H, m.S, m.D, m.causal, m.dtype, "
                      "m.status, s.idx, s.ms, s.round, s.t_s, s.throttled FROM samples s "
                      "JOIN measurements m ON m.id = s.measurement_id JOIN runs r ON r.id = m.run_id "
                      "JOIN experiments x ON x.id = r.experiment_id WHERE r.id = ? "
                      "ORDER BY m.id, s.idx",
                      &st, err))
        return error("%s", err);
    fprintf(out, "run_uuid,experiment,variant,B,H,S,D,causal,dtype,status,idx,ms,round,t_s,throttled\n");
    for (size_t k = 0; k < n; k++) {
        sqlite3_bind_int64(st, 1, ids[k]);
        int step;
        while ((step = sqlite3_step(st)) == SQLITE_ROW) {
            for (int c = 0; c < 15; c++) {
                if (c)
                    fputc(',', out);
                if (sqlite3_column_type(st, c) == SQLITE_NULL)
                    continue;
                if (sqlite3_column_type(st, c) == SQLITE_FLOAT)
                    fprintf(out, "%.17g", sqlite3_column_double(st, c));
                else
                    csv_field(out, (const char *)sqlite3_column_text(st, c));
            }
            fputc('\n', out);
        }
        if (step != SQLITE_DONE) {
            error("%s: reading samples: %s", ab_db_name(db), sqlite3_errmsg(db));
            sqlite3_finalize(st);
            return -1;
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return 0;
}

/* ---- the receiving half: import and merge --------------------------------- */

static int exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        error("%s: %s", ab_db_name(db), msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

/* 1 when `column` is a column of schema.table */
static int has_column(sqlite3 *db, const char *schema, const char *table, const char *column)
{
    sqlite3_stmt *st = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1, ?2) WHERE name = ?3", -1,
                           &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, column, -1, SQLITE_STATIC);
    found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

/* The columns of main's tables, read once per import (pragma_table_info
 * prepared for every key of every object made an import of many small runs
 * spend most of its time compiling SQL): table -> {column: true}. Reset at
 * the start and end of each import, so it never outlives the connection. */
static json_t *main_columns = NULL;

static void main_columns_reset(void)
{
    json_decref(main_columns);
    main_columns = NULL;
}

/* 1 when `column` is a column of main.table, 0 when not, -1 on error */
static int main_has_column(sqlite3 *db, const char *table, const char *column)
{
    if (!main_columns && !(main_columns = json_object()))
        return -1;
    json_t *cols = json_object_get(main_columns, table);
    if (!cols) {
        sqlite3_stmt *st = NULL;
        if (!(cols = json_object()) ||
            sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1, 'main')", -1, &st,
                               NULL) != SQLITE_OK) {
            json_decref(cols);
            return -1;
        }
        sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
        while (sqlite3_step(st) == SQLITE_ROW)
            json_object_set_new(cols, (const char *)sqlite3_column_text(st, 0), json_true());
        sqlite3_finalize(st);
        if (json_object_set_new(main_columns, table, cols))
            return -1;
    }
    return json_object_get(cols, column) != NULL;
}

static int run_exists(sqlite3 *db, const char *uuid)
{
    sqlite3_stmt *st = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM main.runs WHERE uuid = ?", -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, uuid, -1, SQLITE_STATIC);
    found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

/* A JSON integer or boolean as an integer (causal is written either way). */
static sqlite3_int64 json_int_or_bool(const json_t *x)
{
    return json_is_boolean(x) ? json_is_true(x) : (sqlite3_int64)json_integer_value(x);
}

/* Whether the run object `run` holds what the database's run with its uuid
 * holds: the same status, the same measurements (by variant and
 * configuration) with the same status and the same samples, bit for bit
 * (the export writes 17 significant digits, so a latency reads back
 * exactly). *id gets the database's run id. 1 when the same, 0 when not
 * (why, one phrase, in why), -1 on a database error. */
static int same_run(sqlite3 *db, json_t *run, sqlite3_int64 *id, char *why, size_t n)
{
    sqlite3_stmt *r = NULL, *m = NULL, *smp = NULL;
    int rc = -1;
    const char *uuid = json_string_value(json_object_get(run, "uuid"));
    const char *status = json_string_value(json_object_get(run, "status"));
    json_t *ms = json_object_get(run, "measurements");
    if (sqlite3_prepare_v2(db,
                           "SELECT id, status, (SELECT count(*) FROM main.measurements m WHERE "
                           "m.run_id = r.id) FROM main.runs r WHERE uuid = ?",
                           -1, &r, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "SELECT id, status FROM main.measurements WHERE run_id = ?1 AND "
                           "variant = ?2 AND B = ?3 AND H = ?4 AND S = ?5 AND D = ?6 AND "
                           "causal = ?7 AND dtype = ?8 AND H_kv = ?9 AND S_kv = ?10 AND pass = ?11",
                           -1, &m, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT ms FROM main.samples WHERE measurement_id = ? ORDER BY idx",
                           -1, &smp, NULL) != SQLITE_OK)
        goto done;
    sqlite3_bind_text(r, 1, uuid, -1, SQLITE_STATIC);
    if (sqlite3_step(r) != SQLITE_ROW)
        goto done;
    *id = sqlite3_column_int64(r, 0);
    rc = 0;
    const char *have = (const char *)sqlite3_column_text(r, 1);
    if (!status || !have || strcmp(status, have) != 0) {
        snprintf(why, n, "status '%s' there, '%s' in the file", have ? have : "?",
                 status ? status : "?");
        goto done;
    }
    if ((size_t)sqlite3_column_int64(r, 2) != json_array_size(ms)) {
        snprintf(why, n, "%lld measurements there, %zu in the file",
                 (long long)sqlite3_column_int64(r, 2), json_array_size(ms));
        goto done;
    }
    size_t i;
    json_t *x;
    json_array_foreach(ms, i, x) {
        json_t *hkv = json_object_get(x, "H_kv"), *skv = json_object_get(x, "S_kv"),
               *pass = json_object_get(x, "pass"), *samples = json_object_get(x, "samples");
        const char *variant = json_string_value(json_object_get(x, "variant"));
        sqlite3_reset(m);
        sqlite3_bind_int64(m, 1, *id);
        sqlite3_bind_text(m, 2, variant, -1, SQLITE_STATIC);
        sqlite3_bind_int64(m, 3, json_int_or_bool(json_object_get(x, "B")));
        sqlite3_bind_int64(m, 4, json_int_or_bool(json_object_get(x, "H")));
        sqlite3_bind_int64(m, 5, json_int_or_bool(json_object_get(x, "S")));
        sqlite3_bind_int64(m, 6, json_int_or_bool(json_object_get(x, "D")));
        sqlite3_bind_int64(m, 7, json_int_or_bool(json_object_get(x, "causal")));
        sqlite3_bind_text(m, 8, json_string_value(json_object_get(x, "dtype")), -1, SQLITE_STATIC);
        /* an export from before H_kv, S_kv and pass: H, S and 'fwd' */
        sqlite3_bind_int64(m, 9, json_int_or_bool(hkv ? hkv : json_object_get(x, "H")));
        sqlite3_bind_int64(m, 10, json_int_or_bool(skv ? skv : json_object_get(x, "S")));
        sqlite3_bind_text(m, 11, pass ? json_string_value(pass) : "fwd", -1, SQLITE_STATIC);
        int step = sqlite3_step(m);
        if (step != SQLITE_ROW && step != SQLITE_DONE) {
            rc = -1;
            goto done;
        }
        const char *mstatus = json_string_value(json_object_get(x, "status"));
        if (step == SQLITE_DONE || !mstatus ||
            strcmp(mstatus, (const char *)sqlite3_column_text(m, 1)) != 0) {
            snprintf(why, n, "measurements[%zu] (%s) %s", i, variant ? variant : "?",
                     step == SQLITE_DONE ? "is not there" : "has another status there");
            goto done;
        }
        sqlite3_reset(smp);
        sqlite3_bind_int64(smp, 1, sqlite3_column_int64(m, 0));
        size_t k = 0;
        while ((step = sqlite3_step(smp)) == SQLITE_ROW) {
            json_t *one = json_array_get(samples, k);
            if (!one || sqlite3_column_double(smp, 0) != json_number_value(json_object_get(one, "ms")))
                break;
            k++;
        }
        if (step != SQLITE_ROW && step != SQLITE_DONE) {
            rc = -1;
            goto done;
        }
        if (step == SQLITE_ROW || k != json_array_size(samples)) {
            snprintf(why, n, "measurements[%zu] (%s) has other samples there (sample %zu differs)",
                     i, variant ? variant : "?", k);
            goto done;
        }
    }
    rc = 1;
done:
    sqlite3_finalize(r);
    sqlite3_finalize(m);
    sqlite3_finalize(smp);
    return rc;
}

static int is_skipped(const char *key, const char *const *skip)
{
    for (; skip && *skip; skip++)
        if (strcmp(key, *skip) == 0)
            return 1;
    return 0;
}

/* Inserts the objects of arr into table: their scalar members (but those in
 * skip) as columns, each checked against the table, plus up to two fixed
 * integer columns. *last gets the rowid of the last row. */
static int insert_objects(sqlite3 *db, const char *table, json_t *arr, const char *const *skip,
                          const char *f1, sqlite3_int64 v1, const char *f2, sqlite3_int64 v2,
                          sqlite3_int64 *last)
{
    if (!json_is_array(arr))
        return error("import: %s: expected an array", table);
    if (json_array_size(arr) == 0)
        return 0;
    json_t *first = json_array_get(arr, 0);
    if (!json_is_object(first))
        return error("import: %s: expected objects", table);
    size_t cap = json_object_size(first) + 2, nk = 0;
    const char **keys = calloc(cap, sizeof *keys);
    char *sql = malloc(64 + cap * 80);
    if (!keys || !sql) {
        free(keys);
        free(sql);
        return error("out of memory");
    }
    int rc = -1;
    sqlite3_stmt *st = NULL;
    const char *key;
    json_t *val;
    json_object_foreach(first, key, val) {
        if (json_is_object(val) || json_is_array(val) || is_skipped(key, skip) ||
            (f1 && strcmp(key, f1) == 0) || (f2 && strcmp(key, f2) == 0))
            continue;
        if (strlen(key) > 64 || main_has_column(db, table, key) != 1) {
            error("import: '%.64s' is not a column of %s (an export from a newer attnbench?)",
                  key, table);
            goto done;
        }
        keys[nk++] = key;
    }
    char *p = sql;
    p += sprintf(p, "INSERT INTO main.%s(", table);
    for (size_t k = 0; k < nk; k++)
        p += sprintf(p, "%s\"%s\"", k ? ", " : "", keys[k]);
    if (f1)
        p += sprintf(p, "%s\"%s\"", nk ? ", " : "", f1);
    if (f2)
        p += sprintf(p, ", \"%s\"", f2);
    p += sprintf(p, ") VALUES (");
    size_t nparam = nk + (f1 != NULL) + (f2 != NULL);
    for (size_t k = 0; k < nparam; k++)
        p += sprintf(p, "%s?", k ? ", " : "");
    sprintf(p, ")");
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        error("import: %s: %s", table, sqlite3_errmsg(db));
        goto done;
    }
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o) {
        if (!json_is_object(o)) {
            error("import: %s: expected objects", table);
            goto done;
        }
        for (size_t k = 0; k < nk; k++) {
            json_t *x = json_object_get(o, keys[k]);
            int pi = (int)k + 1;
            if (json_is_integer(x))
                sqlite3_bind_int64(st, pi, json_integer_value(x));
            else if (json_is_real(x))
                sqlite3_bind_double(st, pi, json_real_value(x));
            else if (json_is_string(x))
                sqlite3_bind_text(st, pi, json_string_value(x), -1, SQLITE_STATIC);
            else if (json_is_boolean(x))
                sqlite3_bind_int(st, pi, json_is_true(x));
            else
                sqlite3_bind_null(st, pi);
        }
        if (f1)
            sqlite3_bind_int64(st, (int)nk + 1, v1);
        if (f2)
            sqlite3_bind_int64(st, (int)nk + 2, v2);
        if (sqlite3_step(st) != SQLITE_DONE) {
            error("import: %s: %s", table, sqlite3_errmsg(db));
            goto done;
        }
        sqlite3_reset(st);
        if (last)
            *last = sqlite3_last_insert_rowid(db);
    }
    rc = 0;
done:
    sqlite3_finalize(st);
    free(keys);
    free(sql);
    return rc;
}

static int import_body(sqlite3 *db, json_t *run)
{
    static const char *const run_skip[] = {"id", "experiment_id", "environment_id", NULL};
    static const char *const m_skip[] = {"id", "run_id", NULL};
    static const char *const child_skip[] = {"measurement_id", "run_id", NULL};
    char err[AB_ERR];
    json_t *x = json_object_get(run, "experiment"), *v = json_object_get(run, "environment");
    const char *xname = json_string_value(json_object_get(x, "name")),
               *xpath = json_string_value(json_object_get(x, "path")),
               *xdef = json_string_value(json_object_get(x, "definition")),
               *xhash = json_string_value(json_object_get(x, "hash")),
               *vhash = json_string_value(json_object_get(v, "hash"));
    json_t *fp = json_object_get(v, "fingerprint");
    if (!xname || !xpath || !xdef || !xhash || !vhash || !json_is_object(fp))
        return error("import: run lacks its experiment (name, path, definition, hash) or "
                     "environment (hash, fingerprint)");
    char *fp_text = json_dumps(fp, JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(17));
    sqlite3_int64 xid, vid, rid, mid;
    int rc = -1;
    if (!fp_text)
        return error("out of memory");
    if (ab_db_put_experiment(db, xname, xpath, xdef, xhash, &xid, err) ||
        ab_db_put_environment(db, vhash, fp_text, &vid, err)) {
        error("%s", err);
        goto done;
    }
    json_t *one = json_pack("[O]", run);
    int bad = insert_objects(db, "runs", one, run_skip, "experiment_id", xid, "environment_id",
                             vid, &rid);
    json_decref(one);
    if (bad)
        goto done;
    json_t *tf = json_object_get(run, "timer_floor");
    if (tf && insert_objects(db, "timer_floor", tf, child_skip, "run_id", rid, NULL, 0, NULL))
        goto done;
    json_t *wt = json_object_get(run, "run_walltime");
    if (wt) {
        one = json_pack("[O]", wt);
        bad = insert_objects(db, "run_walltime", one, child_skip, "run_id", rid, NULL, 0, NULL);
        json_decref(one);
        if (bad)
            goto done;
    }
    json_t *ms = json_object_get(run, "measurements"), *m;
    size_t i;
    if (!json_is_array(ms)) {
        error("import: run has no measurements array");
        goto done;
    }
    json_array_foreach(ms, i, m) {
        /* an export from before H_kv and S_kv: multi-head, S_kv = S */
        if (json_is_object(m) && !json_object_get(m, "H_kv") && json_object_get(m, "H"))
            json_object_set(m, "H_kv", json_object_get(m, "H"));
        if (json_is_object(m) && !json_object_get(m, "S_kv") && json_object_get(m, "S"))
            json_object_set(m, "S_kv", json_object_get(m, "S"));
        one = json_pack("[O]", m);
        bad = insert_objects(db, "measurements", one, m_skip, "run_id", rid, NULL, 0, &mid);
        json_decref(one);
        if (bad)
            goto done;
        json_t *s = json_object_get(m, "samples"), *cb = json_object_get(m, "clock_blocks"),
               *gc = json_object_get(m, "grad_checks");
        if ((s && insert_objects(db, "samples", s, child_skip, "measurement_id", mid, NULL, 0, NULL)) ||
            (cb && insert_objects(db, "clock_blocks", cb, child_skip, "measurement_id", mid, NULL,
                                  0, NULL)) ||
            (gc && insert_objects(db, "grad_checks", gc, child_skip, "measurement_id", mid, NULL,
                                  0, NULL)))
            goto done;
    }
    rc = 0;
done:
    free(fp_text);
    return rc;
}

int ab_import_run(sqlite3 *db, json_t *run, int *added)
{
    const char *uuid = json_string_value(json_object_get(run, "uuid"));
    *added = 0;
    if (!uuid)
        return error("import: a run without a uuid");
    /* the uuid is looked up inside the write transaction: a concurrent
     * import of the same run waits for ours and then finds it present */
    char err[AB_ERR];
    if (ab_db_begin(db, err))
        return error("import: run %s: %s", uuid, err);
    int ex = run_exists(db, uuid);
    if (ex > 0) {
        char why[256];
        sqlite3_int64 id = 0;
        int same = same_run(db, run, &id, why, sizeof why);
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        if (same < 0)
            return error("%s: %s", ab_db_name(db), sqlite3_errmsg(db));
        return same ? 0
                    : error("import: run %s is already in %s as run %lld with other results "
                            "(%s); nothing imported",
                            uuid, ab_db_name(db), (long long)id, why);
    }
    if (ex) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return error("%s: %s", ab_db_name(db), sqlite3_errmsg(db));
    }
    main_columns_reset();
    int bad = import_body(db, run) || exec(db, "COMMIT");
    main_columns_reset();
    if (bad) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return error("import: run %s not imported (nothing of it was written)", uuid);
    }
    *added = 1;
    return 0;
}

/* "a", "b", ... : the columns of main.table present in other.table too,
 * but those in skip */
static char *common_columns(sqlite3 *db, const char *table, const char *const *skip)
{
    sqlite3_stmt *st = NULL;
    size_t cap = 1024, len = 0;
    char *out = malloc(cap);
    if (!out || sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1, 'main') ORDER BY cid",
                                   -1, &st, NULL) != SQLITE_OK) {
        free(out);
        return NULL;
    }
    out[0] = '\0';
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(st, 0);
        if (is_skipped(c, skip) || !has_column(db, "other", table, c))
            continue;
        if (len + strlen(c) + 8 > cap) {
            char *n = realloc(out, cap *= 2);
            if (!n) {
                free(out);
                sqlite3_finalize(st);
                return NULL;
            }
            out = n;
        }
        len += sprintf(out + len, "%s\"%s\"", len ? ", " : "", c);
    }
    sqlite3_finalize(st);
    if (step != SQLITE_DONE) { /* never a shorter column list: columns would be dropped */
        free(out);
        return NULL;
    }
    return out;
}

/* one statement with up to three int64 parameters; *last gets the rowid */
static int exec3(sqlite3 *db, const char *sql, sqlite3_int64 a, sqlite3_int64 b, sqlite3_int64 *last)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return error("merge: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(st, 1, a);
    if (sqlite3_bind_parameter_count(st) > 1)
        sqlite3_bind_int64(st, 2, b);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : error("merge: %s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    if (rc == 0 && last)
        *last = sqlite3_last_insert_rowid(db);
    return rc;
}

typedef struct merge_sql {
    char *run, *tf, *meas, *samp, *cb;
    char *gc; /* NULL: the other database has no grad_checks table (before schema 11) */
} merge_sql;

static int merge_run(sqlite3 *db, const merge_sql *q, sqlite3_int64 orun)
{
    sqlite3_int64 rid, mid;
    if (exec3(db,
              "INSERT OR IGNORE INTO main.environments(hash, fingerprint) SELECT v.hash, "
              "v.fingerprint FROM other.environments v JOIN other.runs r ON r.environment_id = "
              "v.id WHERE r.id = ?1",
              orun, 0, NULL) ||
        exec3(db,
              "INSERT OR IGNORE INTO main.experiments(name, path, definition, hash) SELECT x.name, "
              "x.path, x.definition, x.hash FROM other.experiments x JOIN other.runs r ON "
              "r.experiment_id = x.id WHERE r.id = ?1",
              orun, 0, NULL) ||
        exec3(db, q->run, orun, 0, &rid) || exec3(db, q->tf, rid, orun, NULL))
        return -1;
    /* the wall-time account, when the other database has one */
    if (has_column(db, "other", "run_walltime", "total_s") == 1 &&
        exec3(db,
              "INSERT INTO main.run_walltime(run_id, total_s, timed_s, sampling_s, warmup_s, "
              "check_s, setup_s, inputs_s, ceilings_s, adapter_s, store_s) SELECT ?1, total_s, "
              "timed_s, sampling_s, warmup_s, check_s, setup_s, inputs_s, ceilings_s, adapter_s, "
              "store_s FROM other.run_walltime WHERE run_id = ?2",
              rid, orun, NULL))
        return -1;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT id FROM other.measurements WHERE run_id = ? ORDER BY id", -1,
                           &st, NULL) != SQLITE_OK)
        return error("merge: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(st, 1, orun);
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        sqlite3_int64 om = sqlite3_column_int64(st, 0);
        rc = exec3(db, q->meas, rid, om, &mid) || exec3(db, q->samp, mid, om, NULL) ||
             exec3(db, q->cb, mid, om, NULL) || (q->gc && exec3(db, q->gc, mid, om, NULL));
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = error("merge: %s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc ? -1 : 0;
}

int ab_merge_db(sqlite3 *db, const char *other_path, ab_merge_counts *c)
{
    static const char *const run_skip[] = {"id", "experiment_id", "environment_id", NULL};
    static const char *const m_skip[] = {"id", "run_id", NULL};
    static const char *const child_skip[] = {"measurement_id", "run_id", NULL};
    memset(c, 0, sizeof *c);
    FILE *probe = fopen(other_path, "rb");
    if (!probe)
        return error("merge: cannot read %s: %s", other_path, strerror(errno));
    fclose(probe);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "ATTACH DATABASE ? AS other", -1, &st, NULL) != SQLITE_OK)
        return error("merge: %s", sqlite3_errmsg(db));
    sqlite3_bind_text(st, 1, other_path, -1, SQLITE_STATIC);
    int ok = sqlite3_step(st) == SQLITE_DONE;
    sqlite3_finalize(st);
    if (!ok)
        return error("merge: cannot attach %s: %s", other_path, sqlite3_errmsg(db));
    int rc = -1, version = -1;
    merge_sql q = {0};
    char *rc_cols = common_columns(db, "runs", run_skip),
         *tf_cols = common_columns(db, "timer_floor", child_skip),
         *m_cols = common_columns(db, "measurements", m_skip),
         *s_cols = common_columns(db, "samples", child_skip),
         *cb_cols = common_columns(db, "clock_blocks", child_skip),
         *gc_cols = common_columns(db, "grad_checks", child_skip);
    if (sqlite3_prepare_v2(db, "PRAGMA other.user_version", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    st = NULL;
    char qerr[AB_ERR];
    if (version >= 0 && ab_db_quick_check(db, "other", other_path, qerr)) {
        error("merge: %s", qerr);
        goto done;
    }
    if (version < 0) {
        error("merge: %s: schema version %d (PRAGMA user_version) is not one attnbench writes "
              "(0 to %d): not an attnbench database, or a damaged one",
              other_path, version, ab_db_schema_version());
        goto done;
    }
    if (version < 2 || version > ab_db_schema_version()) {
        error("merge: %s is not an attnbench database this build can merge (schema version %d; "
              "2 to %d; open it read-write once with a newer attnbench to migrate)",
              other_path, version, ab_db_schema_version());
        goto done;
    }
    if (!rc_cols || !tf_cols || !m_cols || !s_cols || !cb_cols || !gc_cols) {
        error("out of memory");
        goto done;
    }
#define FMT(dst, ...)                                                                       \
    do {                                                                                   \
        size_t n_ = (size_t)snprintf(NULL, 0, __VA_ARGS__) + 1;                            \
        if (!(dst = malloc(n_)))                                                           \
            goto done;                                                                     \
        snprintf(dst, n_, __VA_ARGS__);                                                    \
    } while (0)
    FMT(q.run,
        "INSERT INTO main.runs(%s, experiment_id, environment_id) SELECT %s, "
        "(SELECT x.id FROM main.experiments x WHERE x.hash = ox.hash), "
        "(SELECT v.id FROM main.environments v WHERE v.hash = ov.hash) "
        "FROM other.runs r JOIN other.experiments ox ON ox.id = r.experiment_id "
        "JOIN other.environments ov ON ov.id = r.environment_id WHERE r.id = ?1",
        rc_cols, rc_cols);
    FMT(q.tf, "INSERT INTO main.timer_floor(run_id, %s) SELECT ?1, %s FROM other.timer_floor "
              "WHERE run_id = ?2", tf_cols, tf_cols);
    /* a database from before H_kv and S_kv: multi-head attention, S_kv = S */
    const int old_kv = !has_column(db, "other", "measurements", "H_kv");
    FMT(q.meas, "INSERT INTO main.measurements(run_id, %s%s) SELECT ?1, %s%s FROM other.measurements "
                "WHERE id = ?2", m_cols, old_kv ? ", H_kv, S_kv" : "", m_cols,
                old_kv ? ", H, S" : "");
    FMT(q.samp, "INSERT INTO main.samples(measurement_id, %s) SELECT ?1, %s FROM other.samples "
                "WHERE measurement_id = ?2 ORDER BY idx", s_cols, s_cols);
    FMT(q.cb, "INSERT INTO main.clock_blocks(measurement_id, %s) SELECT ?1, %s FROM "
              "other.clock_blocks WHERE measurement_id = ?2 ORDER BY rowid", cb_cols, cb_cols);
    /* the gradient checks of backward passes, where the other database has them */
    if (has_column(db, "other", "grad_checks", "grad") == 1)
        FMT(q.gc, "INSERT INTO main.grad_checks(measurement_id, %s) SELECT ?1, %s FROM "
                  "other.grad_checks WHERE measurement_id = ?2 ORDER BY grad", gc_cols, gc_cols);
#undef FMT
    /* a 'running' run whose process is gone (abandoned) is merged as it is;
     * one still running, or on a host we cannot see, is skipped and
     * counted. A database from before liveness was recorded cannot say
     * which: its unfinished runs are merged as they are (shown 'running';
     * `resume RUN --force` completes one), each said on stderr, never
     * dropped. */
    const int liveness = has_column(db, "other", "runs", "boot_id");
    const char *runs_sql = liveness
                               ? "SELECT id, uuid, ab_run_status(status, host, pid, proc_start, "
                                 "boot_id) FROM other.runs ORDER BY id"
                               : "SELECT id, uuid, status FROM other.runs ORDER BY id";
    if (sqlite3_prepare_v2(db, runs_sql, -1, &st, NULL) != SQLITE_OK) {
        error("merge: %s", sqlite3_errmsg(db));
        goto done;
    }
    rc = 0;
    int step = SQLITE_DONE;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        sqlite3_int64 orun = sqlite3_column_int64(st, 0);
        const char *uuid = (const char *)sqlite3_column_text(st, 1);
        const int unfinished = strcmp((const char *)sqlite3_column_text(st, 2), "running") == 0;
        if (unfinished && liveness) {
            c->runs_skipped_running++;
            continue;
        }
        char err[AB_ERR];
        if (ab_db_begin(db, err)) {
            rc = error("merge: run %s: %s", uuid, err);
            break;
        }
        int ex = run_exists(db, uuid);
        if (ex) {
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
            c->runs_present += ex > 0;
            if (ex < 0)
                rc = error("%s: %s", ab_db_name(db), sqlite3_errmsg(db));
            continue;
        }
        if (merge_run(db, &q, orun) || exec(db, "COMMIT")) {
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
            rc = error("merge: run %s not merged (nothing of it was written)", uuid);
            break;
        }
        c->runs_added++;
        if (unfinished) {
            c->runs_unfinished++;
            fprintf(stderr,
                    "attnbench: merge: run %s of %s is 'running' in a database from before "
                    "liveness was recorded (its process cannot be checked): merged as it is; "
                    "'attnbench resume RUN --force' completes it\n",
                    uuid, other_path);
        }
    }
    if (rc == 0 && step != SQLITE_DONE && step != SQLITE_ROW)
        rc = error("merge: reading the runs of %s: %s", other_path, sqlite3_errmsg(db));
done:
    sqlite3_finalize(st);
    free(q.run);
    free(q.tf);
    free(q.meas);
    free(q.samp);
    free(q.cb);
    free(q.gc);
    free(rc_cols);
    free(tf_cols);
    free(m_cols);
    free(s_cols);
    free(cb_cols);
    free(gc_cols);
    sqlite3_exec(db, "DETACH DATABASE other", NULL, NULL, NULL);
    return rc;
}

int ab_import_doc(sqlite3 *db, json_t *doc, const char *file, size_t *added_out,
                  size_t *present_out)
{
    char err[AB_ERR];
    json_t *runs = json_object_get(doc, "runs");
    *added_out = *present_out = 0;
    if (ab_import_check(doc, err, sizeof err))
        return error("import: %s: %s; nothing imported", file, err);
    /* the whole file in one transaction: all of it or nothing. Each uuid is
     * looked up inside it, so concurrent imports of the same file count the
     * other's runs as already present. */
    size_t i, added = 0, present = 0;
    json_t *run;
    int rc = 0;
    if (ab_db_begin(db, err))
        return error("import: %s", err);
    main_columns_reset();
    json_array_foreach(runs, i, run) {
        const char *uuid = json_string_value(json_object_get(run, "uuid"));
        int ex = run_exists(db, uuid);
        if (ex > 0) {
            /* present: the same results, or an error naming both */
            char why[256];
            sqlite3_int64 id = 0;
            int same = same_run(db, run, &id, why, sizeof why);
            if (same <= 0) {
                if (same < 0)
                    error("%s: %s", ab_db_name(db), sqlite3_errmsg(db));
                else
                    error("import: %s: runs[%zu] (uuid %s) is already in %s as run %lld with "
                          "other results (%s)",
                          file, i, uuid, ab_db_name(db), (long long)id, why);
                rc = -1;
                break;
            }
        }
        if (ex < 0 || (!ex && import_body(db, run))) {
            if (ex < 0)
                error("%s: %s", ab_db_name(db), sqlite3_errmsg(db));
            rc = -1;
            break;
        }
        added += !ex;
        present += ex > 0;
    }
    main_columns_reset();
    if (rc == 0 && exec(db, "COMMIT"))
        rc = -1;
    if (rc) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return error("import: %s: nothing imported (the database is as it was)", file);
    }
    *added_out = added;
    *present_out = present;
    return 0;
}
