/*
 * cmd_export.c: `attnbench export RUN... --format json|csv [-o FILE]`.
 *
 * JSON (jansson): {"attnbench_export": 1, "schema_version": N, "runs": [...]},
 * one object per run: its own columns (uuid, times, status, command, ...),
 * "experiment" (name, path, definition text, hash), "environment" (hash and
 * the fingerprint object), "timer_floor" rows and "measurements", each with
 * its columns, "samples" and "clock_blocks" rows. Database ids are left out:
 * a run is identified by its uuid, environments and experiments by their
 * hashes, so `attnbench import` can remap everything. Column sets are read
 * from the database (SELECT *), so new columns travel without code changes.
 * Reals are written with 17 significant digits: an export/import round trip
 * keeps every sample bit for bit.
 *
 * CSV (RFC 4180): one row per sample: run_uuid, experiment, variant, B, H,
 * S, D, causal, dtype, status, idx, ms, round, t_s, throttled.
 */
#include "commands.h"
#include "outfile.h"
#include "rundata.h"
#include "store.h"
#include "transfer.h"
#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    json_t *ms = rows(db, "SELECT * FROM measurements WHERE run_id = ? ORDER BY id", run_id,
                      m_drop);
    if (!x || !v || !tf || !ms || json_array_size(x) != 1 || json_array_size(v) != 1)
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
        if (!s || !cb) {
            json_decref(s);
            json_decref(cb);
            goto fail;
        }
        json_object_set_new(m, "samples", s);
        json_object_set_new(m, "clock_blocks", cb);
        json_object_del(m, "id");
    }
    json_object_set(run, "measurements", ms);
    json_decref(x);
    json_decref(v);
    json_decref(tf);
    json_decref(ms);
    return run;
fail:
    json_decref(run);
    json_decref(x);
    json_decref(v);
    json_decref(tf);
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

static int export_csv(sqlite3 *db, const long long *ids, size_t n, FILE *out)
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
            error("%s: reading samples: %s", sqlite3_db_filename(db, "main"), sqlite3_errmsg(db));
            sqlite3_finalize(st);
            return -1;
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return 0;
}

int cmd_export(int argc, char **argv)
{
    const char *db_flag = NULL, *format = "json", *outpath = "-", *v;
    const char **run_args = calloc(argc, sizeof *run_args);
    int missing, nruns = 0, rc = 1;
    if (!run_args)
        return error("out of memory") ? 1 : 1;
    for (int i = 1; i < argc; i++) {
        if ((v = ab_opt(argc, argv, &i, "--db", &missing)))
            db_flag = v;
        else if ((v = ab_opt(argc, argv, &i, "--format", &missing)))
            format = v;
        else if ((v = ab_opt(argc, argv, &i, "-o", &missing)))
            outpath = v;
        else if (missing || argv[i][0] == '-') {
            error("export: %s '%s' (attnbench help export)",
                  missing ? "missing value for" : "unknown option", argv[i]);
            free(run_args);
            return 2;
        } else
            run_args[nruns++] = argv[i];
    }
    if (strcmp(format, "json") != 0 && strcmp(format, "csv") != 0) {
        free(run_args);
        return ab_usage("export: --format is json or csv, not '%s'", format);
    }
    if (nruns == 0) {
        free(run_args);
        return ab_usage("export: which runs? (attnbench runs lists them)");
    }
    char err[AB_ERR];
    sqlite3 *db = NULL;
    long long *ids = calloc(nruns, sizeof *ids);
    json_t *doc = NULL;
    FILE *out = NULL;
    ab_outfile of = {0};
    if (!ids || ab_db_open(ab_db_path(db_flag), 1, &db, err)) {
        error("%s", ids ? err : "out of memory");
        goto done;
    }
    for (int k = 0; k < nruns; k++)
        if (ab_run_resolve(db, run_args[k], &ids[k]))
            goto done;
    if (strcmp(format, "json") == 0) {
        json_t *arr = json_array();
        doc = json_pack("{s:i, s:i, s:o}", "attnbench_export", AB_EXPORT_VERSION,
                        "schema_version", ab_db_schema_version(), "runs", arr);
        for (int k = 0; k < nruns; k++) {
            json_t *r = ab_export_run(db, ids[k]);
            if (!r)
                goto done;
            json_array_append_new(arr, r);
        }
    }
    /* a temporary file beside the target, renamed on success; never the
     * database or another SQLite file */
    if (ab_out_open(&of, outpath, ab_db_path(db_flag)))
        goto done;
    out = of.f;
    if (doc) {
        if (json_dumpf(doc, out, JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(17)) ||
            fputc('\n', out) == EOF) {
            error("export: writing %s failed: %s",
                  strcmp(outpath, "-") == 0 ? "standard output" : outpath, strerror(errno));
            goto done;
        }
    } else if (export_csv(db, ids, nruns, out)) {
        goto done;
    }
    if (ab_db_damage(err)) {
        error("%s; nothing exported", err);
        goto done;
    }
    rc = ab_out_commit(&of) ? 1 : 0;
done:
    if (rc)
        ab_out_abort(&of);
    json_decref(doc);
    free(ids);
    free(run_args);
    ab_db_close(db);
    return rc;
}
