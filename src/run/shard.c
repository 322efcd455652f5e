/*
 * shard.c: an experiment's configurations split into cost-balanced parts
 * (shard_plan.h), the part a run measured stored with it, and the report's
 * line about it. See shard.h.
 */
#include "shard.h"

#include "shard_plan.h"
#include "store.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void ab_shard_costs(const ab_experiment *e, double *cost)
{
    for (size_t c = 0; c < e->nconfigs; c++)
        cost[c] = ab_attention_flops(&e->configs[c]) * (double)e->nvariants;
}

int ab_shard_parts(const ab_experiment *e, int n, size_t *part_of)
{
    double *cost = malloc((e->nconfigs ? e->nconfigs : 1) * sizeof *cost);
    if (!cost)
        return -1;
    ab_shard_costs(e, cost);
    int rc = ab_shard_plan(cost, e->nconfigs, (size_t)n, part_of);
    free(cost);
    return rc;
}

int ab_shard_select(ab_experiment *e, int k, int n, char *err, size_t errn)
{
    size_t *part = malloc((e->nconfigs ? e->nconfigs : 1) * sizeof *part), kept = 0;
    if (!part || ab_shard_parts(e, n, part)) {
        free(part);
        snprintf(err, errn, "out of memory splitting %s", e->path);
        return -1;
    }
    for (size_t c = 0; c < e->nconfigs; c++)
        if (part[c] == (size_t)(k - 1))
            e->configs[kept++] = e->configs[c];
    free(part);
    if (kept == 0) {
        snprintf(err, errn,
                 "%s: shard %d/%d is empty: the experiment has %zu configurations, so at most "
                 "%zu parts",
                 e->path, k, n, e->nconfigs, e->nconfigs);
        return -1;
    }
    e->nconfigs = kept;
    e->shard_k = k;
    e->shard_n = n;
    return 0;
}

int ab_shard_record(sqlite3 *db, sqlite3_int64 run_id, const ab_experiment *e, char *err)
{
    if (!e->shard_n && !e->worker)
        return 0;
    sqlite3_stmt *st = NULL;
    if (ab_db_prepare(db,
                      "UPDATE runs SET shard_k = ?, shard_n = ?, shard_hash = ?, worker = ? "
                      "WHERE id = ?",
                      &st, err))
        return -1;
    if (e->shard_n) {
        sqlite3_bind_int(st, 1, e->shard_k);
        sqlite3_bind_int(st, 2, e->shard_n);
        sqlite3_bind_text(st, 3, e->hash, -1, SQLITE_STATIC);
    }
    if (e->worker)
        sqlite3_bind_text(st, 4, e->worker, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, run_id);
    int rc = 0;
    if (sqlite3_step(st) != SQLITE_DONE) {
        snprintf(err, AB_ERR, "recording the shard of run %lld: %s", (long long)run_id,
                 sqlite3_errmsg(db));
        rc = -1;
    }
    sqlite3_finalize(st);
    return rc;
}

int ab_shard_of_run(sqlite3 *db, sqlite3_int64 run_id, int *k, int *n, char *err)
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

void ab_shard_report_row(FILE *out, sqlite3 *db, sqlite3_int64 run_id)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT r.shard_k, r.shard_n, r.shard_hash, r.worker, x.path, "
                           "(SELECT count(*) FROM runs o WHERE o.shard_hash = r.shard_hash "
                           " AND o.shard_n = r.shard_n AND o.id <> r.id) "
                           "FROM runs r JOIN experiments x ON x.id = r.experiment_id "
                           "WHERE r.id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return; /* a database older than the shard columns: no row */
    sqlite3_bind_int64(st, 1, run_id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char *worker = (const char *)sqlite3_column_text(st, 3);
        if (sqlite3_column_type(st, 1) != SQLITE_NULL)
            fprintf(out,
                    "| shard | part %d of %d of experiment %s: this report covers only this "
                    "part's configurations; the other parts are separate runs (%d in this "
                    "database), `attnbench status %s` lists them%s%s |\n",
                    sqlite3_column_int(st, 0), sqlite3_column_int(st, 1),
                    (const char *)sqlite3_column_text(st, 2), sqlite3_column_int(st, 5),
                    (const char *)sqlite3_column_text(st, 4), worker ? "; worker " : "",
                    worker ? worker : "");
    }
    sqlite3_finalize(st);
}
