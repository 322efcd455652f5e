/*
 * resolution.c: the minimum resolvable shift of a measurement, the timer
 * floor of its run and timing mode (resolution.h).
 */
#include "resolution.h"
#include "db_internal.h"
#include "store.h"

double ab_min_shift_ms(sqlite3 *db, long long measurement_id)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    double f = 0;
    if (ab_db_prepare(db,
                      "SELECT t.median_ms FROM measurements m JOIN timer_floor t "
                      "ON t.run_id = m.run_id AND t.timing_mode = m.timing_mode WHERE m.id = ?",
                      &st, err))
        return 0;
    sqlite3_bind_int64(st, 1, measurement_id);
    if (sqlite3_step(st) == SQLITE_ROW)
        f = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return f > 0 ? f : 0;
}

double ab_min_shift_pair_ms(sqlite3 *db, long long measurement_a, long long measurement_b)
{
    double a = ab_min_shift_ms(db, measurement_a), b = ab_min_shift_ms(db, measurement_b);
    return a > b ? a : b;
}
