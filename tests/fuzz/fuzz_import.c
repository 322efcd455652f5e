/*
 * fuzz_import.c: libFuzzer harness for `attnbench import` (db/transfer.c,
 * db/import_check.c): any bytes, parsed as JSON and imported into an
 * in-memory attnbench database, must be imported whole or refused with a
 * message, never crash; the database must stay consistent (no sample
 * without its measurement, no measurement without its run).
 */
#include "store.h"
#include "transfer.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static sqlite3 *db;

static long scalar(const char *sql)
{
    sqlite3_stmt *st = NULL;
    long v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = (long)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[AB_ERR];
    if (!db) {
        freopen("/dev/null", "w", stderr); /* refusals print one line each */
        if (ab_db_open(":memory:", 0, &db, err))
            abort();
    }
    json_error_t jerr;
    json_t *doc = json_loadb((const char *)data, size, 0, &jerr);
    if (!doc)
        return 0;
    size_t added, present;
    long runs = scalar("SELECT count(*) FROM runs");
    int rc = ab_import_doc(db, doc, "fuzz.json", &added, &present);
    long after = scalar("SELECT count(*) FROM runs");
    if (rc != 0 && after != runs)
        abort(); /* a refused import wrote runs */
    if (rc == 0 && after != runs + (long)added)
        abort();
    if (scalar("SELECT count(*) FROM samples s LEFT JOIN measurements m ON m.id = s.measurement_id "
               "WHERE m.id IS NULL") != 0 ||
        scalar("SELECT count(*) FROM measurements m LEFT JOIN runs r ON r.id = m.run_id "
               "WHERE r.id IS NULL") != 0)
        abort();
    json_decref(doc);
    return 0;
}
