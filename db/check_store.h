/*
 * check_store.h: what the correctness check adds to a stored measurement
 * (kernels/check.h): the seed of its row sample and the rows it could have
 * checked, so a report states the coverage and the escape probability of a
 * single wrong row. Columns measurements.check_seed and
 * measurements.rows_total (schema migration "check coverage").
 */
#ifndef ATTNBENCH_CHECK_STORE_H
#define ATTNBENCH_CHECK_STORE_H

#include <sqlite3.h>

#include "ab_id.h"

/* Sets measurement id's check seed (0: every row was checked, stored as
 * NULL) and rows_total (B * H * S). Returns 0, or -1 with err (AB_ERR). */
int ab_db_put_check(sqlite3 *db, ab_id id, unsigned long seed, long rows_total,
                    char *err);

#endif
