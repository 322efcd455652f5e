/*
 * ab_id.h: the type of a row id in attnbench's store (runs, environments,
 * experiments, measurements), so that code outside db/ names ids without
 * naming SQLite. It is SQLite's 64-bit rowid type (sqlite3_int64 is
 * `long long` on every platform attnbench builds on; store.c checks this at
 * compile time).
 */
#ifndef ATTNBENCH_AB_ID_H
#define ATTNBENCH_AB_ID_H

typedef long long ab_id;

#endif
