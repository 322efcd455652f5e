/*
 * walltime.c: storing, loading and printing a run's wall-time account
 * (walltime.h) in the run_walltime table.
 */
#include "walltime.h"
#include "db_internal.h"
#include "store.h"
#include "util.h"

#include <string.h>

#define COLS "total_s, timed_s, sampling_s, warmup_s, check_s, setup_s, inputs_s, ceilings_s, adapter_s, store_s"

int ab_walltime_store(sqlite3 *db, long long run_id, const ab_walltime *w, char *err)
{
    sqlite3_stmt *st = NULL;
    if (ab_db_prepare(db, "INSERT OR REPLACE INTO run_walltime (run_id, " COLS ") "
                          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                      &st, err))
        return -1;
    const double v[] = {w->total_s, w->timed_s, w->sampling_s, w->warmup_s, w->check_s,
                        w->setup_s, w->inputs_s, w->ceilings_s, w->adapter_s, w->store_s};
    sqlite3_bind_int64(st, 1, run_id);
    for (int i = 0; i < 10; i++)
        sqlite3_bind_double(st, i + 2, v[i]);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        snprintf(err, AB_ERR, "storing the wall-time account of run %lld: %s", run_id,
                 sqlite3_errmsg(db));
        return -1;
    }
    return 0;
}

int ab_walltime_load(sqlite3 *db, long long run_id, ab_walltime *w)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    memset(w, 0, sizeof *w);
    if (ab_db_prepare(db, "SELECT " COLS " FROM run_walltime WHERE run_id = ?", &st, err))
        return error("%s", err);
    sqlite3_bind_int64(st, 1, run_id);
    int found = sqlite3_step(st) == SQLITE_ROW;
    if (found) {
        double *v[] = {&w->total_s, &w->timed_s, &w->sampling_s, &w->warmup_s, &w->check_s,
                       &w->setup_s, &w->inputs_s, &w->ceilings_s, &w->adapter_s, &w->store_s};
        for (int i = 0; i < 10; i++)
            *v[i] = sqlite3_column_double(st, i);
    }
    sqlite3_finalize(st);
    return found ? 0 : 1;
}

void ab_walltime_report(FILE *out, const ab_walltime *w)
{
    const double t = w->total_s > 0 ? w->total_s : 1;
    const double known = w->sampling_s + w->warmup_s + w->check_s + w->setup_s + w->inputs_s +
                         w->ceilings_s + w->adapter_s + w->store_s;
    struct {
        const char *what;
        double s;
    } rows[] = {
        {"timed samples (the samples themselves)", w->timed_s},
        {"sampling overhead (launches, synchronisation, NVML reads around the samples)",
         w->sampling_s - w->timed_s},
        {"warm-up", w->warmup_s},
        {"correctness checks (float64 reference)", w->check_s},
        {"variant setup and teardown", w->setup_s},
        {"input generation and upload", w->inputs_s},
        {"timer floor and ceilings", w->ceilings_s},
        {"external adapters' own overhead (start-up, imports, their warm-up and check)",
         w->adapter_s},
        {"database writes", w->store_s},
        {"other (report lines, allocation, statistics of adaptive stopping)", w->total_s - known},
    };
    fprintf(out, "\n## Where the time went\n\nThe run took %.1f s of wall time; %.1f%% of it was "
                 "timed samples.\n\n| phase | s | share |\n|---|---:|---:|\n",
            w->total_s, 100 * w->timed_s / t);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        fprintf(out, "| %s | %.2f | %.1f%% |\n", rows[i].what, rows[i].s, 100 * rows[i].s / t);
}
