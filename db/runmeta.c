/*
 * runmeta.c: the run-row columns of runmeta.h: run_settings, shard_k,
 * shard_n, shard_hash, worker, and the columns a resume reads.
 */
#include "runmeta.h"

#include "db_internal.h"
#include "store.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs one UPDATE whose last parameter is the run id, after bind() bound the
 * others. */
static int update_run(sqlite3 *db, const char *sql, long long run_id, int nparams,
                      void (*bind)(sqlite3_stmt *st, const void *arg), const void *arg,
                      const char *what, char *err)
{
    sqlite3_stmt *st = NULL;
    if (ab_db_prepare(db, sql, &st, err))
        return -1;
    bind(st, arg);
    sqlite3_bind_int64(st, nparams, run_id);
    int rc = 0;
    if (sqlite3_step(st) != SQLITE_DONE) {
        snprintf(err, AB_ERR, "%s of run %lld: %s", what, run_id, sqlite3_errmsg(db));
        rc = -1;
    }
    sqlite3_finalize(st);
    return rc;
}

static void bind_text1(sqlite3_stmt *st, const void *arg)
{
    sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
}

int ab_run_settings_store(sqlite3 *db, long long run_id, const char *json_text, char *err)
{
    return update_run(db, "UPDATE runs SET run_settings = ? WHERE id = ?", run_id, 2, bind_text1,
                      json_text, "storing the run settings", err);
}

typedef struct path_value {
    const char *path, *value;
} path_value;

static void bind_path_value(sqlite3_stmt *st, const void *arg)
{
    const path_value *pv = arg;
    sqlite3_bind_text(st, 1, pv->path, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, pv->value, -1, SQLITE_STATIC);
}

int ab_run_settings_set(sqlite3 *db, long long run_id, const char *path,
                        const char *json_value, char *err)
{
    path_value pv = {path, json_value};
    char what[96];
    snprintf(what, sizeof what, "storing %s in the run settings", path);
    return update_run(db,
                      "UPDATE runs SET run_settings = json_set(run_settings, ?, json(?)) "
                      "WHERE id = ? AND run_settings IS NOT NULL",
                      run_id, 3, bind_path_value, &pv, what, err);
}

char *ab_run_settings_text(sqlite3 *db, long long run_id)
{
    sqlite3_stmt *st = NULL;
    char *s = NULL;
    /* prepared without ab_db_prepare: an older schema has no such column,
     * which is not an error here */
    if (sqlite3_prepare_v2(db, "SELECT run_settings FROM runs WHERE id = ?", -1, &st, NULL) !=
        SQLITE_OK) {
        sqlite3_finalize(st);
        return NULL;
    }
    sqlite3_bind_int64(st, 1, run_id);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT)
        s = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return s;
}

typedef struct shard_cols {
    int k, n;
    const char *hash, *worker;
} shard_cols;

static void bind_shard(sqlite3_stmt *st, const void *arg)
{
    const shard_cols *c = arg;
    if (c->n) {
        sqlite3_bind_int(st, 1, c->k);
        sqlite3_bind_int(st, 2, c->n);
        sqlite3_bind_text(st, 3, c->hash, -1, SQLITE_STATIC);
    }
    if (c->worker)
        sqlite3_bind_text(st, 4, c->worker, -1, SQLITE_STATIC);
}

int ab_run_shard_store(sqlite3 *db, long long run_id, int k, int n, const char *hash,
                       const char *worker, char *err)
{
    shard_cols c = {k, n, hash, worker};
    return update_run(db,
                      "UPDATE runs SET shard_k = ?, shard_n = ?, shard_hash = ?, worker = ? "
                      "WHERE id = ?",
                      run_id, 5, bind_shard, &c, "recording the shard", err);
}

int ab_run_shard_load(sqlite3 *db, long long run_id, int *k, int *n, char *err)
{
    sqlite3_stmt *st = NULL;
    if (ab_db_prepare(db, "SELECT shard_k, shard_n FROM runs WHERE id = ?", &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    int rc = 0;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 1) != SQLITE_NULL) {
        *k = sqlite3_column_int(st, 0);
        *n = sqlite3_column_int(st, 1);
        rc = 1;
    }
    sqlite3_finalize(st);
    return rc;
}

int ab_run_shard_info_load(sqlite3 *db, long long run_id, ab_run_shard_info *s)
{
    sqlite3_stmt *st = NULL;
    memset(s, 0, sizeof *s);
    if (sqlite3_prepare_v2(db,
                           "SELECT r.shard_k, r.shard_n, r.shard_hash, r.worker, x.path, "
                           "(SELECT count(*) FROM runs o WHERE o.shard_hash = r.shard_hash "
                           " AND o.shard_n = r.shard_n AND o.id <> r.id) "
                           "FROM runs r JOIN experiments x ON x.id = r.experiment_id "
                           "WHERE r.id = ?",
                           -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return 0; /* a database older than the shard columns */
    }
    sqlite3_bind_int64(st, 1, run_id);
    int rc = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char *worker = ab_db_text_or_null(st, 3);
        s->has_worker = worker != NULL;
        snprintf(s->worker, sizeof s->worker, "%s", worker ? worker : "");
        if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
            s->k = sqlite3_column_int(st, 0);
            s->n = sqlite3_column_int(st, 1);
            snprintf(s->hash, sizeof s->hash, "%s", ab_db_text(st, 2));
            snprintf(s->exp_path, sizeof s->exp_path, "%s", ab_db_text(st, 4));
            s->others = sqlite3_column_int(st, 5);
            rc = 1;
        }
    }
    sqlite3_finalize(st);
    return rc;
}

int ab_run_resume_row_load(sqlite3 *db, long long run_id, ab_run_resume_row *r, char *err)
{
    sqlite3_stmt *st = NULL;
    memset(r, 0, sizeof *r);
    if (ab_db_prepare(db,
                      "SELECT r.status, r.host, r.pid, r.proc_start, r.boot_id, x.path, "
                      "x.definition, r.command FROM runs r JOIN experiments x ON "
                      "x.id = r.experiment_id WHERE r.id = ?",
                      &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    int step = sqlite3_step(st), rc = 0;
    if (step == SQLITE_DONE) {
        rc = 1;
    } else if (step != SQLITE_ROW) {
        snprintf(err, AB_ERR, "%.500s: reading run %lld: %s", ab_db_name(db), run_id,
                 sqlite3_errmsg(db));
        rc = -1;
    } else {
        r->status = strdup(ab_db_text(st, 0));
        r->host = strdup(ab_db_text(st, 1));
        r->pid = (long)sqlite3_column_int64(st, 2);
        r->proc_start = strdup(ab_db_text(st, 3));
        r->boot_id = strdup(ab_db_text(st, 4));
        r->exp_path = strdup(ab_db_text(st, 5));
        r->definition = strdup(ab_db_text(st, 6));
        r->command = strdup(ab_db_text(st, 7));
        if (!r->status || !r->host || !r->proc_start || !r->boot_id || !r->exp_path ||
            !r->definition || !r->command) {
            ab_run_resume_row_free(r);
            snprintf(err, AB_ERR, "out of memory");
            rc = -1;
        }
    }
    sqlite3_finalize(st);
    return rc;
}

void ab_run_resume_row_free(ab_run_resume_row *r)
{
    free(r->status);
    free(r->host);
    free(r->proc_start);
    free(r->boot_id);
    free(r->exp_path);
    free(r->definition);
    free(r->command);
    memset(r, 0, sizeof *r);
}
