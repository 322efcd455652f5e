/*
 * test_db.c: the SQLite store on a temporary file: schema creation and
 * version, a full round trip (environment, experiment, run, measurement,
 * samples, clock blocks, timer floor), idempotent environment/experiment
 * keys, reopening (migrations are not re-applied), read-only opening, the
 * UNIQUE constraint on a duplicate measurement leaving earlier rows intact,
 * and refusal of a file that is not a database. Expected values are the
 * values written.
 */
#include "store.h"

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

static long long scalar(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    long long v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

int main(void)
{
    char path[] = "/tmp/attnbench-test-XXXXXX", dbpath[64], err[AB_ERR];
    if (!mkdtemp(path))
        return 1;
    snprintf(dbpath, sizeof dbpath, "%s/t.db", path);
    sqlite3 *db = NULL;

    CHECK(ab_db_open(dbpath, 1, &db, err) != 0, "read-only open of a missing file succeeded");
    CHECK(ab_db_open(dbpath, 0, &db, err) == 0, "open: %s", err);
    CHECK(scalar(db, "PRAGMA user_version") == ab_db_schema_version(), "schema version");
    CHECK(scalar(db, "PRAGMA foreign_keys") == 1, "foreign keys off");

    sqlite3_int64 env1, env2, exp1, exp2, run, mid, mid2;
    CHECK(ab_db_put_environment(db, "abc", "{\"gpu\":null}", &env1, err) == 0, "%s", err);
    CHECK(ab_db_put_environment(db, "abc", "{\"gpu\":null}", &env2, err) == 0, "%s", err);
    CHECK(env1 == env2, "same hash, different environment ids");
    CHECK(ab_db_put_experiment(db, "x", "x.cfg", "name = \"x\";", "h1", &exp1, err) == 0, "%s", err);
    CHECK(ab_db_put_experiment(db, "x", "x.cfg", "name = \"x\";", "h1", &exp2, err) == 0, "%s", err);
    CHECK(exp1 == exp2, "same experiment stored twice");
    CHECK(ab_db_begin_run(db, exp1, env1, "attnbench run x.cfg", "hot", &run, err) == 0, "%s", err);

    ab_sample s[5];
    const double ms[5] = {0.125, 0.0135, 1e-3, 42.0, 0.0625};
    for (int i = 0; i < 5; i++)
        s[i] = (ab_sample){ms[i], i / 2, 0.5 * i, i == 3};
    ab_clock_block cb = {0, 0, 5, 1980, 1975, 3201, 55, 420.5, 0x4, 0, 1};
    ab_measurement m = {0};
    m.run_id = run;
    m.variant = "cuda_naive";
    m.backend = "cuda";
    m.shape = (ab_shape){2, 3, 17, 64, 1, AB_BF16, 0, 0};
    m.warmup = 3;
    m.timing_mode = "hot";
    m.graph_k = 1;
    m.status = "ok";
    m.checked = 1;
    m.max_abs_err = 1e-3;
    m.tolerance = 2e-3;
    m.flops = 1.0;
    m.bytes = 2.0;
    m.stop_reason = "fixed";
    CHECK(ab_db_put_measurement(db, &m, s, 5, &cb, 1, &mid, err) == 0, "%s", err);
    CHECK(ab_db_put_timer_floor(db, run, "hot", 200, 0.0021, err) == 0, "%s", err);
    /* a duplicate (run, variant, configuration) is refused, and rolls back */
    CHECK(ab_db_put_measurement(db, &m, s, 5, &cb, 1, &mid2, err) != 0, "duplicate accepted");
    CHECK(scalar(db, "SELECT count(*) FROM samples") == 5, "rollback left samples");
    CHECK(ab_db_end_run(db, run, "complete", err) == 0, "%s", err);
    ab_db_close(db);

    /* reopen read-write (no migration re-applied) then read-only */
    CHECK(ab_db_open(dbpath, 0, &db, err) == 0, "reopen: %s", err);
    ab_db_close(db);
    CHECK(ab_db_open(dbpath, 1, &db, err) == 0, "read-only open: %s", err);
    double *got = NULL;
    size_t n = 0;
    CHECK(ab_db_samples(db, mid, 1, &got, &n, err) == 0 && n == 5, "samples: %s", err);
    for (size_t i = 0; got && i < n && i < 5; i++)
        CHECK(got[i] == ms[i], "sample %zu: %g != %g", i, got[i], ms[i]);
    free(got);
    CHECK(ab_db_samples(db, mid, 0, &got, &n, err) == 0 && n == 4, "throttled sample not excluded");
    free(got);
    CHECK(scalar(db, "SELECT B * 1000000 + H * 10000 + S * 100 + causal FROM measurements") ==
              2031701, "shape round trip");
    CHECK(scalar(db, "SELECT count(*) FROM measurements WHERE dtype = 'bf16'") == 1, "dtype");
    CHECK(scalar(db, "SELECT sm_mhz_before FROM clock_blocks") == 1980, "clock block");
    CHECK(scalar(db, "SELECT count(*) FROM runs WHERE status = 'complete' AND finished_at IS NOT NULL") == 1,
          "run end");
    CHECK(scalar(db, "SELECT length(uuid) FROM runs") == 36, "run uuid");
    CHECK(sqlite3_exec(db, "DELETE FROM samples", NULL, NULL, NULL) != SQLITE_OK,
          "read-only database accepted a write");
    ab_db_close(db);

    /* not a database */
    char junk[80];
    snprintf(junk, sizeof junk, "%s/junk.db", path);
    FILE *f = fopen(junk, "w");
    fputs("definitely not sqlite, and long enough to be read as a header.......\n", f);
    fclose(f);
    CHECK(ab_db_open(junk, 0, &db, err) != 0 && strstr(err, "not an attnbench database"),
          "junk accepted: %s", err);

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", path);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", path);
    printf("test_db: %s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
