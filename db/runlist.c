/*
 * runlist.c: the run lists of runlist.h (`attnbench runs`, `attnbench
 * status`) as queries of the runs, experiments, environments and
 * measurements tables.
 */
#include "runlist.h"

#include "db_internal.h"
#include "store.h"
#include "util.h"

typedef struct runs_ctx {
    int (*fn)(void *arg, const ab_run_row *r);
    void *arg;
} runs_ctx;

static int run_row(void *arg, sqlite3_stmt *st)
{
    runs_ctx *c = arg;
    ab_run_row r = {
        .id = sqlite3_column_int64(st, 0),
        .experiment = ab_db_text(st, 1),
        .started = ab_db_text(st, 2),
        .gpu = ab_db_text(st, 3),
        .status = ab_db_text(st, 4),
        .measurements = sqlite3_column_int64(st, 5),
        .not_ok = sqlite3_column_int64(st, 6),
        .uuid = ab_db_text(st, 7),
        .finished = ab_db_text_or_null(st, 8),
        .commit = ab_db_text_or_null(st, 9),
        .env_hash = ab_db_text(st, 10),
    };
    return c->fn(c->arg, &r);
}

int ab_runs_each(sqlite3 *db, const ab_run_filter *f,
                 int (*fn)(void *arg, const ab_run_row *r), void *arg, char *err)
{
    sqlite3_stmt *st = NULL;
    /* unset filters bind NULL and pass */
    if (ab_db_prepare(db,
                      "SELECT r.id, x.name, r.started_at, "
                      "coalesce(json_extract(v.fingerprint, '$.gpu.name'), 'CPU only'), "
                      "ab_run_status(r.status, r.host, r.pid, r.proc_start, r.boot_id), "
                      "(SELECT count(*) FROM measurements m WHERE m.run_id = r.id), "
                      "(SELECT count(*) FROM measurements m WHERE m.run_id = r.id AND m.status != 'ok'), "
                      "r.uuid, r.finished_at, json_extract(v.fingerprint, '$.build.commit'), v.hash "
                      "FROM runs r JOIN experiments x ON x.id = r.experiment_id "
                      "JOIN environments v ON v.id = r.environment_id "
                      "WHERE (?1 IS NULL OR x.name = ?1) "
                      "AND (?2 IS NULL OR EXISTS (SELECT 1 FROM measurements m "
                      "     WHERE m.run_id = r.id AND " AB_SQL_IS_VARIANT("m.variant", "?2") ")) "
                      "AND (?3 IS NULL OR instr(lower(coalesce(json_extract(v.fingerprint, "
                      "     '$.gpu.name'), 'CPU only')), lower(?3)) > 0) "
                      "AND (?4 IS NULL OR r.started_at >= ?4) "
                      "AND (?5 IS NULL OR substr(coalesce(json_extract(v.fingerprint, "
                      "     '$.build.commit'), ''), 1, length(?5)) = ?5) "
                      "ORDER BY r.id",
                      &st, err))
        return -1;
    const char *filters[5] = {f->experiment, f->variant, f->gpu, f->since, f->commit};
    for (int k = 0; k < 5; k++)
        if (filters[k])
            sqlite3_bind_text(st, k + 1, filters[k], -1, SQLITE_STATIC);
    runs_ctx c = {fn, arg};
    return ab_db_each_row(db, st, run_row, &c, "reading the runs", err);
}

typedef struct splits_ctx {
    int *splits, max, *n;
} splits_ctx;

static int split_row(void *arg, sqlite3_stmt *st)
{
    splits_ctx *c = arg;
    if (*c->n >= c->max)
        return 1;
    c->splits[(*c->n)++] = sqlite3_column_int(st, 0);
    return 0;
}

int ab_experiment_splits(sqlite3 *db, const char *hash, int *splits, int max, int *n, char *err)
{
    sqlite3_stmt *st = NULL;
    *n = 0;
    if (ab_db_prepare(db,
                      "SELECT DISTINCT coalesce(r.shard_n, 0) FROM runs r JOIN experiments x ON "
                      "x.id = r.experiment_id WHERE x.hash = ?1 OR r.shard_hash = ?1 OR "
                      "ab_experiment_hash(x.definition) = ?1 ORDER BY 1",
                      &st, err))
        return -1;
    sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
    splits_ctx c = {splits, max, n};
    return ab_db_each_row(db, st, split_row, &c, "reading the splits", err) < 0 ? -1 : 0;
}

typedef struct parts_ctx {
    int (*fn)(void *arg, const ab_part_run *r);
    void *arg;
} parts_ctx;

static int part_row(void *arg, sqlite3_stmt *st)
{
    parts_ctx *c = arg;
    ab_part_run r = {
        .id = sqlite3_column_int64(st, 0),
        .status = ab_db_text_or_null(st, 1),
        .shard_k = sqlite3_column_int(st, 2),
        .worker = ab_db_text_or_null(st, 3),
        .host = ab_db_text_or_null(st, 4),
        .pid = (long)sqlite3_column_int64(st, 5),
        .proc_start = ab_db_text_or_null(st, 6),
        .boot_id = ab_db_text_or_null(st, 7),
        .measurements = (long)sqlite3_column_int64(st, 8),
    };
    return c->fn(c->arg, &r);
}

int ab_experiment_part_runs_each(sqlite3 *db, const char *hash, int split_n,
                                 int (*fn)(void *arg, const ab_part_run *r), void *arg,
                                 char *err)
{
    sqlite3_stmt *st = NULL;
    if (ab_db_prepare(db,
                      "SELECT r.id, r.status, coalesce(r.shard_k, 1), r.worker, r.host, r.pid, "
                      "r.proc_start, r.boot_id, (SELECT count(*) FROM measurements m WHERE "
                      "m.run_id = r.id) FROM runs r JOIN experiments x ON x.id = r.experiment_id "
                      "WHERE (x.hash = ?1 OR r.shard_hash = ?1 OR ab_experiment_hash(x.definition) = ?1) "
                      "AND coalesce(r.shard_n, 0) = ?2 "
                      "ORDER BY r.id",
                      &st, err))
        return -1;
    sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, split_n);
    parts_ctx c = {fn, arg};
    return ab_db_each_row(db, st, part_row, &c, "reading the runs of the experiment", err);
}
