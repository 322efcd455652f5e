/*
 * db_internal.h: helpers private to db/: preparing a statement with the
 * database's name in the message, and stepping a statement through a row
 * callback. Outside db/ no file prepares SQL (only `attnbench query` runs
 * the user's own statements); code there calls the functions of store.h,
 * read.h, runlist.h, runmeta.h and transfer.h.
 */
#ifndef ATTNBENCH_DB_INTERNAL_H
#define ATTNBENCH_DB_INTERNAL_H

#include <sqlite3.h>

/* Prepares sql into *st; on failure, 0 statements and -1 with
 * "<database file>: <SQLite's message>" in err (AB_ERR bytes). */
int ab_db_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, char *err);

/* Steps the prepared (and bound) statement st to its end, calling
 * row(arg, st) on each row, then finalizes st (always). A nonzero return
 * of row stops the loop and is returned. Returns 0 when every row was read,
 * row's nonzero, or -1 on a step error with "<what>: <SQLite's message>" in
 * err (AB_ERR bytes). */
int ab_db_each_row(sqlite3 *db, sqlite3_stmt *st, int (*row)(void *arg, sqlite3_stmt *st),
                   void *arg, const char *what, char *err);

/* Column i of the current row as text, "" for NULL. */
const char *ab_db_text(sqlite3_stmt *st, int i);

/* Column i of the current row as text, NULL for NULL. */
const char *ab_db_text_or_null(sqlite3_stmt *st, int i);

/* SQL: column col names variant param p, itself or one of its instances
 * "p#k" (k decimal digits; `instances`, src/run/experiment.h): what a user
 * names a variant by matches every instance of it. */
#define AB_SQL_IS_VARIANT(col, p)                                                          \
    "(" col " = " p " OR (substr(" col ", 1, length(" p ") + 1) = " p " || '#' AND length(" col \
    ") > length(" p ") + 1 AND substr(" col ", length(" p ") + 2) NOT GLOB '*[^0-9]*'))"

#endif
