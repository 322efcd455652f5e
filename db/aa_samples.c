/*
 * aa_samples.c: reads the A/A calibration samples of an environment
 * (aa_samples.h).
 */
#include "aa_samples.h"
#include "db_internal.h"
#include "read.h"
#include "store.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* ab_db_each_row callback: appends (round, ms) to the ab_aa_row arg */
static int add_sample(void *arg, sqlite3_stmt *st)
{
    ab_aa_row *m = arg;
    if ((m->n & (m->n - 1)) == 0) { /* n = 0, 1, 2, 4, ...: grow to 2n (at least 256) */
        size_t cap = m->n < 128 ? 256 : 2 * m->n;
        double *x = realloc(m->ms, cap * sizeof *x);
        if (x)
            m->ms = x;
        int *r = realloc(m->round, cap * sizeof *r);
        if (r)
            m->round = r;
        if (!x || !r)
            return 1;
    }
    m->round[m->n] = sqlite3_column_int(st, 0);
    m->ms[m->n++] = sqlite3_column_double(st, 1);
    return 0;
}

/* Loads row->id's unthrottled samples. Returns 0 or -1. */
static int load_samples(sqlite3 *db, ab_aa_row *row)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    if (ab_db_prepare(db, "SELECT round, ms FROM samples WHERE measurement_id = ? AND throttled = 0",
                      &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, row->id);
    return ab_db_each_row(db, st, add_sample, row, "samples", err) ? -1 : 0;
}

static void rows_free(ab_aa_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(rows[i].ms);
        free(rows[i].round);
    }
    free(rows);
}

/* The rows of env (see aa_samples.h). Returns 0 or -1. */
static int rows_load(sqlite3 *db, const char *env, ab_aa_samples *out)
{
    int rc = -1;
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    size_t cap = 0;
    if (ab_db_prepare(db,
                      "SELECT m.id, m.run_id, m.B || ',' || m.H || ',' || m.S || ',' || m.D || ',' || "
                      "m.causal || ',' || m.dtype || ',' || m.H_kv || ',' || m.S_kv, m.timing_mode "
                      "FROM measurements m "
                      "JOIN runs r ON r.id = m.run_id JOIN experiments x ON x.id = r.experiment_id "
                      "JOIN environments v ON v.id = r.environment_id "
                      "WHERE v.hash = ? AND x.name LIKE '%-calibration' AND r.status = 'complete' "
                      "AND m.timing_mode IS NOT NULL AND m.status = 'ok' "
                      "ORDER BY m.run_id, 3, CAST(substr(m.variant, instr(m.variant, '#') + 1) AS "
                      "INTEGER), m.id",
                      &st, err))
        return -1;
    sqlite3_bind_text(st, 1, env, -1, SQLITE_TRANSIENT);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (out->n == cap) {
            cap = cap ? 2 * cap : 64;
            ab_aa_row *y = realloc(out->rows, cap * sizeof *y);
            if (!y)
                goto cleanup;
            out->rows = y;
        }
        ab_aa_row *r = &out->rows[out->n++];
        memset(r, 0, sizeof *r);
        r->id = sqlite3_column_int64(st, 0);
        r->run = sqlite3_column_int64(st, 1);
        snprintf(r->cfg, sizeof r->cfg, "%s", ab_db_text(st, 2));
        snprintf(r->mode, sizeof r->mode, "%s", ab_db_text(st, 3));
    }
    for (size_t i = 0; i < out->n; i++)
        if (load_samples(db, &out->rows[i]))
            goto cleanup;
    rc = 0;
cleanup:
    sqlite3_finalize(st);
    return rc;
}

int ab_aa_run_load(sqlite3 *db, long long run_id, ab_aa_run *out)
{
    char err[AB_ERR];
    char *text = NULL, *tmode = NULL;
    memset(out, 0, sizeof *out);
    out->run_id = run_id;
    int found = ab_run_experiment_load(db, run_id, NULL, &text, &tmode, err);
    if (found < 0)
        return error("%s", err);
    if (found == 0 && text && tmode)
        out->definition = text;
    else
        free(text);
    free(tmode);
    if (ab_run_load(db, run_id, &out->m, &out->n))
        goto fail;
    out->clk = calloc(out->n ? out->n : 1, sizeof *out->clk);
    if (!out->clk) {
        error("out of memory");
        goto fail;
    }
    for (size_t i = 0; i < out->n; i++)
        if (ab_clock_summary_load(db, out->m[i].id, &out->clk[i]))
            goto fail;
    return 0;
fail:
    ab_aa_run_free(out);
    return -1;
}

void ab_aa_run_free(ab_aa_run *r)
{
    free(r->definition);
    ab_run_free(r->m, r->n);
    free(r->clk);
    memset(r, 0, sizeof *r);
}

int ab_aa_samples_load(sqlite3 *db, const char *env_hash, ab_aa_samples *out)
{
    memset(out, 0, sizeof *out);
    out->cal_status = 1;
    if (!env_hash)
        return 0;
    if (rows_load(db, env_hash, out)) { /* no rows: no A/A resolution, as before */
        rows_free(out->rows, out->n);
        out->rows = NULL;
        out->n = 0;
    }
    long long run = 0;
    if (ab_calibration_run_for_env(db, env_hash, &run))
        out->cal_status = -1;
    else if (run)
        out->cal_status = ab_aa_run_load(db, run, &out->cal) ? -1 : 0;
    return 0;
}

void ab_aa_samples_free(ab_aa_samples *a)
{
    rows_free(a->rows, a->n);
    ab_aa_run_free(&a->cal);
    memset(a, 0, sizeof *a);
}

int ab_measurement_env_mode(sqlite3 *db, long long measurement_id, char *env, char *mode)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    int rc = -1;
    env[0] = mode[0] = 0;
    if (ab_db_prepare(db,
                      "SELECT v.hash, m.timing_mode FROM measurements m "
                      "JOIN runs r ON r.id = m.run_id JOIN environments v ON v.id = r.environment_id "
                      "WHERE m.id = ?",
                      &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, measurement_id);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) && sqlite3_column_text(st, 1)) {
        snprintf(env, 64, "%s", (const char *)sqlite3_column_text(st, 0));
        snprintf(mode, 16, "%s", (const char *)sqlite3_column_text(st, 1));
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc;
}
