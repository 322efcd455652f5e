/*
 * test_clocks.c: the clock and power summaries of db/clocks.h on a
 * clock_blocks table built here, with the expected values worked by hand
 * next to each check: medians of (SM before + after) / 2 and of power over a
 * measurement's blocks, the share of blocks at the power cap, the run's
 * highest SM clock, clock normalisation and the 2% rule.
 */
#include "clocks.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>

static int failures = 0;
#define CHECK(c, ...)                                                                   \
    do {                                                                                \
        if (!(c)) {                                                                     \
            failures++;                                                                 \
            fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #c);              \
            fprintf(stderr, __VA_ARGS__);                                               \
            fputc('\n', stderr);                                                        \
        }                                                                               \
    } while (0)

int main(void)
{
    sqlite3 *db = NULL;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK)
        return 1;
    const char *sql =
        "CREATE TABLE measurements (id INTEGER PRIMARY KEY, run_id INTEGER);"
        "CREATE TABLE clock_blocks (measurement_id INTEGER, round INTEGER, first_idx INTEGER,"
        " n INTEGER, sm_mhz_before INTEGER, sm_mhz_after INTEGER, mem_mhz INTEGER,"
        " temp_c INTEGER, power_w REAL, reasons INTEGER, throttled INTEGER, power_capped INTEGER);"
        "INSERT INTO measurements VALUES (1, 7), (2, 7), (3, 7);"
        /* measurement 1: block clocks (1980+1980)/2 = 1980, (1845+1875)/2 = 1860,
         * (1680+1700)/2 = 1690, (1980+1960)/2 = 1970 -> sorted 1690 1860 1970
         * 1980, median (1860+1970)/2 = 1915; power 700 650 690 420 -> sorted
         * 420 650 690 700, median 670; capped 3 of 4 = 0.75 */
        "INSERT INTO clock_blocks VALUES (1,0,0,2,1980,1980,3201,50,700,4,0,1),"
        " (1,1,2,2,1845,1875,3201,50,650,4,0,1), (1,2,4,2,1680,1700,3201,51,690,4,0,1),"
        " (1,3,6,2,1980,1960,3201,51,420,0,0,0);"
        /* measurement 2: one block at 1950 (1940+1960), 300 W, not capped */
        "INSERT INTO clock_blocks VALUES (2,0,0,2,1940,1960,3201,45,300,0,0,0);";
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(stderr, "setup: %s\n", sqlite3_errmsg(db));
        return 1;
    }
    ab_clock_summary a, b, c;
    CHECK(ab_clock_summary_load(db, 1, &a) == 0, "load 1");
    CHECK(a.blocks == 4 && a.sm_mhz == 1915 && a.power_w == 670 && a.capped_share == 0.75,
          "m1: %d blocks, %g MHz, %g W, %g capped", a.blocks, a.sm_mhz, a.power_w, a.capped_share);
    CHECK(ab_clock_summary_load(db, 2, &b) == 0, "load 2");
    CHECK(b.blocks == 1 && b.sm_mhz == 1950 && b.power_w == 300 && b.capped_share == 0,
          "m2: %d blocks, %g MHz", b.blocks, b.sm_mhz);
    CHECK(ab_clock_summary_load(db, 3, &c) == 0 && c.blocks == 0 && c.sm_mhz == 0, "m3: none");
    double mx = 0;
    CHECK(ab_run_max_sm_mhz(db, 7, &mx) == 0 && mx == 1980, "run max %g, want 1980", mx);
    CHECK(ab_run_max_sm_mhz(db, 8, &mx) == 0 && mx == 0, "no blocks: %g", mx);
    /* 1.5 ms at 1915 MHz, scaled to 1980: 1.5 * 1915 / 1980 = 1.450757... */
    CHECK(fabs(ab_clock_normalised_ms(1.5, 1915, 1980) - 1.5 * 1915.0 / 1980.0) < 1e-15, "norm");
    CHECK(isnan(ab_clock_normalised_ms(1.5, 0, 1980)), "unknown clock: NaN");
    /* |1915 - 1950| / 1950 = 1.79% <= 2%: not flagged; 1690 vs 1980: 14.6% */
    CHECK(!ab_clocks_differ(&a, &b), "1915 vs 1950 within 2%%");
    ab_clock_summary low = {1, 1690, 0, 0}, high = {1, 1980, 0, 0};
    CHECK(ab_clocks_differ(&low, &high), "1690 vs 1980");
    CHECK(!ab_clocks_differ(&c, &high), "unknown clock never differs");
    sqlite3_close(db);
    printf("test_clocks: %d failures\n", failures);
    return failures ? 1 : 0;
}
