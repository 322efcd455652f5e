/*
 * clocks.c: per-measurement clock and power summaries from the clock_blocks
 * table (clocks.h). Medians by GSL (type 7, as every median in attnbench).
 */
#include "clocks.h"
#include "db_internal.h"
#include "store.h"
#include "util.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int ab_clock_summary_load(sqlite3 *db, long long measurement_id, ab_clock_summary *out)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    size_t cap = 64, n = 0, capped = 0;
    double *sm = malloc(cap * sizeof *sm), *pw = malloc(cap * sizeof *pw);
    int rc = -1;
    memset(out, 0, sizeof *out);
    if (!sm || !pw) {
        error("out of memory");
        goto cleanup;
    }
    if (ab_db_prepare(db,
                      "SELECT coalesce(sm_mhz_before, 0), coalesce(sm_mhz_after, 0), "
                      "coalesce(power_w, 0), power_capped FROM clock_blocks "
                      "WHERE measurement_id = ? ORDER BY first_idx",
                      &st, err)) {
        error("%s", err);
        goto cleanup;
    }
    sqlite3_bind_int64(st, 1, measurement_id);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (n == cap) {
            double *a = realloc(sm, 2 * cap * sizeof *a);
            if (a)
                sm = a;
            double *b = a ? realloc(pw, 2 * cap * sizeof *b) : NULL;
            if (b)
                pw = b;
            if (!a || !b) {
                error("out of memory");
                goto cleanup;
            }
            cap *= 2;
        }
        sm[n] = 0.5 * (sqlite3_column_double(st, 0) + sqlite3_column_double(st, 1));
        pw[n] = sqlite3_column_double(st, 2);
        capped += sqlite3_column_int(st, 3) != 0;
        n++;
    }
    if (n) {
        gsl_sort(sm, 1, n);
        gsl_sort(pw, 1, n);
        out->blocks = (int)n;
        out->sm_mhz = gsl_stats_median_from_sorted_data(sm, 1, n);
        out->power_w = gsl_stats_median_from_sorted_data(pw, 1, n);
        out->capped_share = (double)capped / (double)n;
    }
    rc = 0;
cleanup:
    sqlite3_finalize(st);
    free(sm);
    free(pw);
    return rc;
}

int ab_run_max_sm_mhz(sqlite3 *db, long long run_id, double *mhz)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    *mhz = 0;
    if (ab_db_prepare(db,
                      "SELECT coalesce(max(max(coalesce(sm_mhz_before, 0), coalesce(sm_mhz_after, 0))), 0) "
                      "FROM clock_blocks c JOIN measurements m ON m.id = c.measurement_id "
                      "WHERE m.run_id = ?",
                      &st, err))
        return error("%s", err);
    sqlite3_bind_int64(st, 1, run_id);
    if (sqlite3_step(st) == SQLITE_ROW)
        *mhz = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return 0;
}

double ab_clock_normalised_ms(double ms, double sm_mhz, double ref_mhz)
{
    if (!(sm_mhz > 0) || !(ref_mhz > 0))
        return NAN;
    return ms * sm_mhz / ref_mhz;
}

int ab_clocks_differ(const ab_clock_summary *a, const ab_clock_summary *b)
{
    if (!a || !b || !(a->sm_mhz > 0) || !(b->sm_mhz > 0))
        return 0;
    return fabs(a->sm_mhz - b->sm_mhz) / fmax(a->sm_mhz, b->sm_mhz) > 0.02;
}
