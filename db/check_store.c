/*
 * check_store.c: the check's seed and coverage of one measurement
 * (check_store.h), written after the measurement row itself.
 */
#include "check_store.h"
#include "store.h"

#include <stdio.h>

int ab_db_put_check(sqlite3 *db, sqlite3_int64 id, unsigned long seed, long rows_total,
                    char *err)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(db, "UPDATE measurements SET check_seed = ?, rows_total = ? WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, AB_ERR, "storing the check's coverage: %s", sqlite3_errmsg(db));
        goto cleanup;
    }
    if (seed)
        sqlite3_bind_int64(st, 1, (sqlite3_int64)seed);
    else
        sqlite3_bind_null(st, 1);
    sqlite3_bind_int64(st, 2, rows_total);
    sqlite3_bind_int64(st, 3, id);
    if (sqlite3_step(st) != SQLITE_DONE) {
        snprintf(err, AB_ERR, "storing the check's coverage: %s", sqlite3_errmsg(db));
        goto cleanup;
    }
    rc = 0;
cleanup:
    sqlite3_finalize(st);
    return rc;
}
