/*
 * test_migrate.c: a database at schema version 1 opened by the current
 * code. The version-1 schema is tests/db/schema_v1.sql (migration 0 -> 1 as
 * first released); the test fills it with one run of two measurements
 * through plain SQL of that version, sets user_version = 1, then opens it
 * with ab_db_open (read-write, and a second copy read-only: a read-only
 * open reads a migrated copy in memory and leaves the file at version 1)
 * and reads the rows back through db/'s
 * read API: the run list, the run header, the measurements with their
 * samples (and H_kv = H, S_kv = S from the migration that rebuilds the
 * measurements table). Expected values are the values written; the expected version is
 * ab_schema_count() (every migration applied). Also: check_seed and
 * rows_total written at the version that added them survive the later
 * migrations that rebuild the measurements table.
 * Usage: test_migrate SCHEMA_V1_SQL
 */
#include "read.h"
#include "runlist.h"
#include "runmeta.h"
#include "rundata.h"
#include "schema.h"
#include "store.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures = 0;
#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);            \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            failures++;                                                     \
        }                                                                   \
    } while (0)

/* one run of experiment "v1", measurements of cpu_a (3 samples) and cpu_b
 * (2 samples, one throttled) at B=1 H=2 S=128 D=64 fp32, non-causal */
static const char rows_v1[] =
    "INSERT INTO environments (id, hash, fingerprint) VALUES "
    "  (1, '00000000000000e1', '{\"build\":{\"commit\":\"abc1234\"},\"gpu\":null}');\n"
    "INSERT INTO experiments (id, name, path, definition, hash) VALUES "
    "  (1, 'v1', 'experiments/v1.cfg', 'name = \"v1\";', '00000000000000f1');\n"
    "INSERT INTO runs (id, uuid, experiment_id, environment_id, started_at, finished_at, status, "
    "  command, timing_mode) VALUES (1, 'uuid-v1', 1, 1, '2026-11-21T10:00:00Z', "
    "  '2026-11-21T10:01:00Z', 'complete', 'attnbench run experiments/v1.cfg', 'host');\n"
    "INSERT INTO measurements (id, run_id, variant, backend, B, H, S, D, causal, dtype, warmup, "
    "  timing_mode, status, checked, flops, bytes, stop_reason) VALUES "
    "  (1, 1, 'cpu_a', 'cpu', 1, 2, 128, 64, 0, 'fp32', 2, 'host', 'ok', 1, 8388608, 131072, "
    "   'samples'),"
    "  (2, 1, 'cpu_b', 'cpu', 1, 2, 128, 64, 0, 'fp32', 2, 'host', 'ok', 1, 8388608, 131072, "
    "   'samples');\n"
    "INSERT INTO samples (measurement_id, idx, ms, round, t_s, throttled) VALUES "
    "  (1, 0, 1.5, 0, 0.1, 0), (1, 1, 1.25, 1, 0.2, 0), (1, 2, 1.75, 2, 0.3, 0),"
    "  (2, 0, 2.5, 0, 0.15, 0), (2, 1, 9.0, 1, 0.25, 1);\n"
    "PRAGMA user_version = 1;\n";

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    } else if (s) {
        s[n] = '\0';
    }
    fclose(f);
    return s;
}

/* Writes a version-1 database with rows_v1 at path. 0 or -1. */
static int make_v1(const char *path, const char *schema)
{
    sqlite3 *db = NULL;
    char *msg = NULL;
    int rc = -1;
    if (sqlite3_open(path, &db) != SQLITE_OK)
        goto cleanup;
    if (sqlite3_exec(db, schema, NULL, NULL, &msg) != SQLITE_OK ||
        sqlite3_exec(db, rows_v1, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "making the version-1 database: %s\n", msg ? msg : "?");
        goto cleanup;
    }
    rc = 0;
cleanup:
    sqlite3_free(msg);
    sqlite3_close(db);
    return rc;
}

static long long version(sqlite3 *db)
{
    sqlite3_stmt *st;
    long long v = -1;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static int count_run(void *arg, const ab_run_row *r)
{
    int *n = arg;
    (*n)++;
    CHECK(r->id == 1 && strcmp(r->uuid, "uuid-v1") == 0, "run row %lld '%s'", r->id, r->uuid);
    CHECK(strcmp(r->experiment, "v1") == 0, "experiment '%s'", r->experiment);
    CHECK(strcmp(r->status, "complete") == 0, "status '%s'", r->status);
    CHECK(strcmp(r->gpu, "CPU only") == 0, "gpu '%s'", r->gpu);
    CHECK(r->commit && strcmp(r->commit, "abc1234") == 0, "commit '%s'", r->commit ? r->commit : "(null)");
    CHECK(r->measurements == 2 && r->not_ok == 0, "measurements %lld, not ok %lld",
          r->measurements, r->not_ok);
    return 0;
}

/* Reads the migrated database back through the read API. */
static void read_back(sqlite3 *db, const char *label)
{
    char err[AB_ERR];
    CHECK(version(db) == ab_schema_count(), "%s: user_version %lld, expected %d", label,
          version(db), ab_schema_count());
    int nruns = 0;
    ab_run_filter f = {0};
    CHECK(ab_runs_each(db, &f, count_run, &nruns, err) == 0, "%s: runs: %s", label, err);
    CHECK(nruns == 1, "%s: %d runs listed", label, nruns);

    ab_run_header h;
    if (ab_run_header_load(db, 1, &h) == 0) {
        CHECK(strcmp(h.command, "attnbench run experiments/v1.cfg") == 0, "%s: command '%s'",
              label, h.command);
        CHECK(strcmp(h.exp_path, "experiments/v1.cfg") == 0 && strcmp(h.exp_name, "v1") == 0,
              "%s: experiment '%s' '%s'", label, h.exp_path, h.exp_name);
        CHECK(strcmp(h.env_hash, "00000000000000e1") == 0, "%s: env hash '%s'", label, h.env_hash);
        CHECK(h.peak_gemm_tflops == 0 && h.monitored == 0, "%s: columns added later not 0",
              label);
        ab_run_header_free(&h);
    } else {
        CHECK(0, "%s: no header for run 1", label);
    }

    ab_rmeas *m = NULL;
    size_t n = 0;
    if (ab_run_load(db, 1, &m, &n) == 0) {
        CHECK(n == 2, "%s: %zu measurements", label, n);
        if (n == 2) {
            CHECK(strcmp(m[0].variant, "cpu_a") == 0 && m[0].n == 3 && m[0].ms[0] == 1.5 &&
                      m[0].ms[1] == 1.25 && m[0].ms[2] == 1.75,
                  "%s: cpu_a samples", label);
            CHECK(m[0].B == 1 && m[0].H == 2 && m[0].S == 128 && m[0].D == 64 && !m[0].causal &&
                      strcmp(m[0].dtype, "fp32") == 0 && m[0].flops == 8388608,
                  "%s: cpu_a configuration", label);
            CHECK(m[0].rounds == 3 && m[0].round[2] == 2, "%s: cpu_a rounds %d", label,
                  m[0].rounds);
            /* the throttled sample is left out and counted */
            CHECK(strcmp(m[1].variant, "cpu_b") == 0 && m[1].n == 1 && m[1].ms[0] == 2.5 &&
                      m[1].throttled == 1,
                  "%s: cpu_b samples n=%zu throttled=%ld", label, m[1].n, m[1].throttled);
            CHECK(strcmp(m[0].stop, "samples") == 0, "%s: stop '%s'", label, m[0].stop);
            /* the H_kv/S_kv rebuild of measurements: H_kv = H, S_kv = S for older rows,
             * the samples (children of the rebuilt table) all kept */
            CHECK(m[0].H_kv == 2 && m[0].S_kv == 128 && m[1].H_kv == 2 && m[1].S_kv == 128,
                  "%s: H_kv %d S_kv %d after the migration", label, m[0].H_kv, m[0].S_kv);
            /* the pass rebuild: older rows timed the forward pass */
            CHECK(strcmp(m[0].pass, "fwd") == 0 && strcmp(m[1].pass, "fwd") == 0,
                  "%s: pass '%s' after the migration", label, m[0].pass);
        }
        ab_run_free(m, n);
    } else {
        CHECK(0, "%s: ab_run_load failed", label);
    }
    /* columns of later migrations read as absent */
    char *rs = ab_run_settings_text(db, 1);
    CHECK(rs == NULL, "%s: run settings '%s' on a version-1 run", label, rs);
    free(rs);
    int k = 0, sn = 0;
    CHECK(ab_run_shard_load(db, 1, &k, &sn, err) == 0, "%s: a version-1 run has a shard", label);
}

/* The check figures of migrations after the one that added them: a
 * database taken from version 1 up to the migration that adds check_seed
 * and rows_total, given values in them (as a run of that version wrote),
 * then opened (read-write, and a copy read-only: the rest migrated, the
 * measurements table rebuilt twice). Every later migration must carry the
 * values over. Expected: the values written. */
static void check_figures_survive(const char *dir, const char *schema_path)
{
    for (int ro = 0; ro <= 1; ro++) {
        char path[128], err[AB_ERR];
        snprintf(path, sizeof path, "%s/figures%d.db", dir, ro);
        sqlite3 *x = NULL;
        char *msg = NULL, *sch = slurp(schema_path);
        int ok = sch && sqlite3_open(path, &x) == SQLITE_OK &&
                 sqlite3_exec(x, sch, NULL, NULL, &msg) == SQLITE_OK &&
                 sqlite3_exec(x, rows_v1, NULL, NULL, &msg) == SQLITE_OK;
        int at = 0;
        for (int m = 1; ok && m < ab_schema_count() && !at; m++) {
            ok = sqlite3_exec(x, ab_schema_migration(m), NULL, NULL, &msg) == SQLITE_OK;
            if (strstr(ab_schema_migration(m), "ADD COLUMN rows_total"))
                at = m + 1;
        }
        CHECK(at > 0 && at < ab_schema_count(), "no migration adds rows_total before the last");
        char pv[160];
        snprintf(pv, sizeof pv,
                 "UPDATE measurements SET rows_total = 256 + id, check_seed = 4242 + id; "
                 "PRAGMA user_version = %d;", at);
        ok = ok && sqlite3_exec(x, pv, NULL, NULL, &msg) == SQLITE_OK;
        CHECK(ok, "making the database at version %d: %s", at, msg ? msg : "?");
        sqlite3_free(msg);
        sqlite3_close(x);
        free(sch);
        sqlite3 *db = NULL;
        if (!ok || ab_db_open(path, ro, &db, err) != 0) {
            CHECK(0, "opening the version-%d database: %s", at, err);
            continue;
        }
        sqlite3_stmt *st = NULL;
        int rows = 0;
        if (sqlite3_prepare_v2(db, "SELECT id, rows_total, check_seed FROM measurements ORDER BY id",
                               -1, &st, NULL) == SQLITE_OK)
            while (sqlite3_step(st) == SQLITE_ROW) {
                long long id = sqlite3_column_int64(st, 0);
                rows++;
                CHECK(sqlite3_column_type(st, 1) == SQLITE_INTEGER &&
                          sqlite3_column_int64(st, 1) == 256 + id,
                      "%s: measurement %lld: rows_total %s after migrating from version %d, want %lld",
                      ro ? "read-only" : "read-write", id,
                      (const char *)sqlite3_column_text(st, 1) ? (const char *)sqlite3_column_text(st, 1)
                                                               : "NULL",
                      at, 256 + id);
                CHECK(sqlite3_column_int64(st, 2) == 4242 + id,
                      "measurement %lld: check_seed %lld, want %lld", id,
                      (long long)sqlite3_column_int64(st, 2), 4242 + id);
            }
        sqlite3_finalize(st);
        CHECK(rows == 2, "%d measurements after the migration, want 2", rows);
        ab_db_close(db);
        const char *sfx[] = {"", "-wal", "-shm"};
        for (int i = 0; i < 3; i++) {
            char q[140];
            snprintf(q, sizeof q, "%s%s", path, sfx[i]);
            unlink(q);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_migrate SCHEMA_V1_SQL\n");
        return 2;
    }
    char *schema = slurp(argv[1]);
    if (!schema) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    char dir[] = "/tmp/attnbench-migrate-XXXXXX", rw[96], ro[96], err[AB_ERR];
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(rw, sizeof rw, "%s/rw.db", dir);
    snprintf(ro, sizeof ro, "%s/ro.db", dir);
    if (make_v1(rw, schema) || make_v1(ro, schema)) {
        free(schema);
        return 1;
    }
    free(schema);

    sqlite3 *db = NULL;
    if (ab_db_open(rw, 0, &db, err) == 0) {
        read_back(db, "read-write");
        ab_db_close(db);
    } else {
        CHECK(0, "opening the version-1 database read-write: %s", err);
    }
    db = NULL;
    if (ab_db_open(ro, 1, &db, err) == 0) {
        read_back(db, "read-only");
        ab_db_close(db);
    } else {
        CHECK(0, "opening the version-1 database read-only: %s", err);
    }
    /* a read-only open reads a migrated copy: the file stays at version 1
     * (read back with SQLite itself, not through db/) */
    {
        sqlite3 *x = NULL;
        sqlite3_stmt *st = NULL;
        int v = -1;
        if (sqlite3_open_v2(ro, &x, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
            sqlite3_prepare_v2(x, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
        sqlite3_close(x);
        CHECK(v == 1, "the read-only open changed the file's schema version to %d", v);
    }
    /* reopening the migrated file applies nothing and still reads */
    db = NULL;
    if (ab_db_open(rw, 1, &db, err) == 0) {
        read_back(db, "reopened");
        ab_db_close(db);
    } else {
        CHECK(0, "reopening: %s", err);
    }

    /* a database at the version before the measurements rebuild that lacks
     * check_seed and rows_total (another branch numbered its migrations
     * differently: aa-calibration/calibration.db): the rebuild adds them first */
    char odd[112];
    snprintf(odd, sizeof odd, "%s/odd.db", dir);
    {
        sqlite3 *x = NULL;
        char *msg = NULL, *sch = slurp(argv[1]);
        int ok = sch && sqlite3_open(odd, &x) == SQLITE_OK &&
                 sqlite3_exec(x, sch, NULL, NULL, &msg) == SQLITE_OK &&
                 sqlite3_exec(x, rows_v1, NULL, NULL, &msg) == SQLITE_OK;
        for (int m = 1; ok && m < ab_schema_count() - 1; m++)
            ok = sqlite3_exec(x, ab_schema_migration(m), NULL, NULL, &msg) == SQLITE_OK;
        char pv[64];
        snprintf(pv, sizeof pv, "PRAGMA user_version = %d;", ab_schema_count() - 1);
        ok = ok &&
             sqlite3_exec(x, "ALTER TABLE measurements DROP COLUMN check_seed;"
                             "ALTER TABLE measurements DROP COLUMN rows_total;",
                          NULL, NULL, &msg) == SQLITE_OK &&
             sqlite3_exec(x, pv, NULL, NULL, &msg) == SQLITE_OK;
        CHECK(ok, "making the odd database: %s", msg ? msg : "?");
        sqlite3_free(msg);
        sqlite3_close(x);
        free(sch);
        db = NULL;
        if (ok && ab_db_open(odd, 0, &db, err) == 0) {
            read_back(db, "odd numbering");
            ab_db_close(db);
        } else if (ok) {
            CHECK(0, "opening a database without check_seed before the rebuild: %s", err);
        }
        for (int i = 0; i < 3; i++) {
            char q[128];
            snprintf(q, sizeof q, "%s%s", odd, i == 0 ? "" : i == 1 ? "-wal" : "-shm");
            unlink(q);
        }
    }

    check_figures_survive(dir, argv[1]);

    const char *suffix[] = {"", "-wal", "-shm"};
    char p[128];
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s%s", rw, suffix[i]);
        unlink(p);
        snprintf(p, sizeof p, "%s%s", ro, suffix[i]);
        unlink(p);
    }
    rmdir(dir);
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    else
        printf("ok: a version-1 database migrates to version %d (read-write and read-only) and "
               "its run, measurements and samples read back\n",
               ab_schema_count());
    return failures ? 1 : 0;
}
