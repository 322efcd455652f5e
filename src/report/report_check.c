/*
 * report_check.c: the report's statement of what the correctness check
 * covered (issue 12): for a run whose measurements carry rows_total (runs
 * made since the check stored it), either "every row" or, for sampled
 * measurements, the rows checked out of B*H*S, the coverage, the
 * probability that a single wrong row escapes (kernels/check.h,
 * ab_check_escape) and the seeds. Older runs print nothing, so their
 * committed reports stay byte for byte.
 */
#include "report_check.h"
#include "check.h"

#include <stdio.h>

void ab_report_check_coverage(sqlite3 *db, long long run_id, FILE *out)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT count(*), coalesce(sum(rows_checked), 0), "
                           "coalesce(sum(rows_total), 0), "
                           "coalesce(sum(check_seed IS NOT NULL), 0), "
                           "coalesce(sum(CASE WHEN check_seed IS NOT NULL THEN rows_checked END), 0), "
                           "coalesce(sum(CASE WHEN check_seed IS NOT NULL THEN rows_total END), 0), "
                           "max(CASE WHEN check_seed IS NOT NULL THEN 1.0 - 1.0 * rows_checked / rows_total END), "
                           "group_concat(DISTINCT check_seed) "
                           "FROM measurements WHERE run_id = ? AND checked = 1 AND rows_total IS NOT NULL",
                           -1, &st, NULL) != SQLITE_OK)
        return; /* a database without the columns: an older schema, nothing to say */
    sqlite3_bind_int64(st, 1, run_id);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0) {
        const long long n = sqlite3_column_int64(st, 0);
        const long long nsampled = sqlite3_column_int64(st, 3);
        fprintf(out, "\nThis run's check (kernels/check.h): the plain error is measured against "
                     "its own float64 shadow, never against the reference; pass also needs the "
                     "L2 form (relative L2 error <= 2 x the plain's + u/2) and the two float64 "
                     "references to agree.\n");
        if (nsampled == 0) {
            fprintf(out, "\nCoverage: every row of every (b, h) slice was checked in all %lld "
                         "checked measurements (%lld rows).\n",
                    n, (long long)sqlite3_column_int64(st, 1));
        } else {
            const long long rc = sqlite3_column_int64(st, 4), rt = sqlite3_column_int64(st, 5);
            const char *seeds = (const char *)sqlite3_column_text(st, 7);
            fprintf(out,
                    "\nCoverage: %lld of %lld checked measurements compared every row; %lld "
                    "compared a fresh sample (rows 0, S-1 and the tile boundaries always): "
                    "%lld of %lld rows (%.1f%%); a single wrong row escapes a sampled check "
                    "with probability at most %.3f (1 - rows checked / rows). Seeds: %s.\n",
                    n - nsampled, n, nsampled, rc, rt, rt ? 100.0 * rc / rt : 0.0,
                    sqlite3_column_double(st, 6), seeds ? seeds : "");
        }
    }
    sqlite3_finalize(st);
}
