/*
 * test_resolution.c: the minimum resolvable shift of a measurement
 * (src/analysis/resolution.h, from the A/A samples db/aa_samples.h loads)
 * on a database written here with known samples.
 *
 * An A/A calibration run (experiment "k-calibration", complete, timing mode
 * "hot") holds instances k#1 and k#2 of one configuration, 8 rounds of 3
 * samples each: k#1 at 1 ms, k#2 at exactly 1.02 ms in every round. The
 * pair's paired speedup is 1.02 in every round (median over rounds of the
 * per-round log ratio), so the A/A resolution is |1.02 - 1| = 0.02 (the
 * definition in resolution.h, computed by hand). A second run of another
 * experiment in the same environment and mode measures variant v with
 * median 10 ms. Its minimum resolvable shift is the resolution times ITS
 * median: 0.02 x 10 ms = 0.2 ms (not the calibration's median, 1.01 ms,
 * which would give 0.0202 ms). A measurement in another timing mode has
 * no calibration: 0. The pair's minimum shift is the larger of the two.
 */
#include "aa_samples.h"
#include "resolution.h"
#include "store.h"

#include <math.h>
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

/* one measurement of variant at S, 8 rounds x 3 samples at ms (each round's
 * samples ms x (1, 1, 1): every round's median is ms) */
static sqlite3_int64 put(sqlite3 *db, sqlite3_int64 run, const char *variant, const char *mode,
                         double ms)
{
    ab_sample s[24];
    for (int i = 0; i < 24; i++)
        s[i] = (ab_sample){ms, i / 3, 0.01 * i, 0};
    ab_measurement m = {0};
    m.run_id = run;
    m.variant = variant;
    m.backend = "cpu";
    m.shape = (ab_shape){1, 2, 64, 32, 0, AB_FP32, 0, 0, AB_FWD};
    m.warmup = 1;
    m.timing_mode = mode;
    m.graph_k = 1;
    m.status = "ok";
    m.flops = 1.0;
    m.bytes = 1.0;
    m.stop_reason = "fixed";
    sqlite3_int64 id = 0;
    char err[AB_ERR];
    CHECK(ab_db_put_measurement(db, &m, s, 24, NULL, 0, &id, err) == 0, "%s", err);
    return id;
}

int main(void)
{
    char dir[] = "/tmp/attnbench-resolution-XXXXXX", path[80], err[AB_ERR];
    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof path, "%s/r.db", dir);
    sqlite3 *db = NULL;
    CHECK(ab_db_open(path, 0, &db, err) == 0, "open: %s", err);
    sqlite3_int64 env, xcal, xrun, cal, run;
    CHECK(ab_db_put_environment(db, "e0e0e0e0e0e0e0e0", "{\"gpu\":null}", &env, err) == 0, "%s", err);
    CHECK(ab_db_put_experiment(db, "k-calibration", "k.cfg", "name = \"k-calibration\";", "c1", &xcal,
                               err) == 0, "%s", err);
    CHECK(ab_db_put_experiment(db, "x", "x.cfg", "name = \"x\";", "x1", &xrun, err) == 0, "%s", err);
    CHECK(ab_db_begin_run(db, xcal, env, "attnbench calibrate k.cfg", "hot", &cal, err) == 0, "%s", err);
    put(db, cal, "k#1", "hot", 1.0);
    put(db, cal, "k#2", "hot", 1.02);
    CHECK(ab_db_end_run(db, cal, "complete", err) == 0, "%s", err);
    CHECK(ab_db_begin_run(db, xrun, env, "attnbench run x.cfg", "hot", &run, err) == 0, "%s", err);
    put(db, run, "v", "hot", 10.0);
    put(db, run, "w", "hot", 20.0);
    sqlite3_int64 c = put(db, run, "u", "cold", 10.0);
    CHECK(ab_db_end_run(db, run, "complete", err) == 0, "%s", err);

    /* the A/A samples of the environment (db/), the groups of each timing
     * mode (src/analysis/) */
    ab_aa_samples aa;
    CHECK(ab_aa_samples_load(db, "e0e0e0e0e0e0e0e0", &aa) == 0 && aa.n == 2,
          "A/A rows %zu, want the 2 instances", aa.n);
    CHECK(aa.cal_status == 0 && aa.cal.run_id == cal && aa.cal.n == 2,
          "latest calibration run: status %d, run %lld, %zu measurements", aa.cal_status,
          aa.cal.run_id, aa.cal.n);
    ab_aa_groups hot, cold;
    ab_aa_groups_build(&aa, "hot", &hot);
    ab_aa_groups_build(&aa, "cold", &cold);
    double msv[24], msw[24];
    for (int i = 0; i < 24; i++) {
        msv[i] = 10.0;
        msw[i] = 20.0;
    }
    ab_resolution r;
    ab_aa_resolution(&hot, msv, 24, &r);
    CHECK(fabs(r.rel - 0.02) < 1e-12, "A/A resolution %.15g, want 0.02", r.rel);
    CHECK(r.pairs == 1 && r.calibration_run == cal, "pairs %d, calibration run %lld", r.pairs,
          r.calibration_run);
    CHECK(fabs(r.median_ms - 10.0) < 1e-12, "measurement median %.15g, want 10", r.median_ms);
    CHECK(fabs(r.aa_median_ms - sqrt(1.02)) < 1e-12, "A/A median %.15g, want sqrt(1.02)",
          r.aa_median_ms);
    double sv = ab_aa_min_shift_ms(&hot, msv, 24), sw = ab_aa_min_shift_ms(&hot, msw, 24);
    CHECK(fabs(sv - 0.2) < 1e-12, "minimum shift of the 10 ms measurement %.15g ms, want 0.2", sv);
    CHECK(fabs(sw - 0.4) < 1e-12, "minimum shift of the 20 ms measurement %.15g ms, want 0.4", sw);
    CHECK(ab_aa_min_shift_ms(&cold, msv, 24) == 0, "a timing mode without calibration: %g, want 0",
          ab_aa_min_shift_ms(&cold, msv, 24));
    char hash[64], mode[16];
    CHECK(ab_measurement_env_mode(db, c, hash, mode) == 0 && strcmp(mode, "cold") == 0 &&
              strcmp(hash, "e0e0e0e0e0e0e0e0") == 0,
          "measurement %lld: environment %s, mode %s", (long long)c, hash, mode);
    ab_aa_samples_free(&aa);
    ab_db_close(db);

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("ok: A/A resolution 0.02 times each measurement's own median\n");
    return 0;
}
