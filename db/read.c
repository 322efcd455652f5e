/*
 * read.c: the read API of read.h: queries of the measurements, timer_floor
 * and clock_blocks tables for reports and commands.
 */
#include "read.h"
#include "db_internal.h"
#include "store.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ab_db_text(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? (const char *)t : "";
}

const char *ab_db_text_or_null(sqlite3_stmt *st, int i)
{
    return (const char *)sqlite3_column_text(st, i);
}

int ab_db_each_row(sqlite3 *db, sqlite3_stmt *st, int (*row)(void *arg, sqlite3_stmt *st),
                   void *arg, const char *what, char *err)
{
    int step, rc = 0;
    while ((step = sqlite3_step(st)) == SQLITE_ROW)
        if ((rc = row(arg, st)) != 0)
            break;
    if (rc == 0 && step != SQLITE_DONE) {
        snprintf(err, AB_ERR, "%.500s: %s: %s", ab_db_name(db), what, sqlite3_errmsg(db));
        rc = -1;
    }
    sqlite3_finalize(st);
    return rc;
}

int ab_meas_details_load(sqlite3 *db, long long run_id, ab_meas_detail *out, size_t n,
                         size_t *got)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    *got = 0;
    if (ab_db_prepare(db,
                      "SELECT backend, message, checked, external, warmup, graph_k, "
                      "max_abs_err, mean_abs_err, rel_l2_err, tolerance, bytes, "
                      "coalesce(peak_bytes, 0), coalesce(nonfinite, 0), "
                      "coalesce(rows_checked, -1), timing_mode, input_sets "
                      "FROM measurements WHERE run_id = ? ORDER BY id",
                      &st, err))
        return error("%s", err);
    sqlite3_bind_int64(st, 1, run_id);
    size_t k = 0;
    for (; k < n && sqlite3_step(st) == SQLITE_ROW; k++) {
        ab_meas_detail *x = &out[k];
        int i = 0;
        snprintf(x->backend, sizeof x->backend, "%s", ab_db_text(st, i++));
        /* an adapter's or plugin's words, or an imported run's: control
         * bytes escaped for the terminals and reports that print them */
        x->message = ab_printable_dup(ab_db_text(st, i++));
        x->checked = sqlite3_column_int(st, i++);
        x->external = sqlite3_column_int(st, i++);
        x->warmup = sqlite3_column_int(st, i++);
        x->graph_k = sqlite3_column_int(st, i++);
        x->max_abs_err = sqlite3_column_double(st, i++);
        x->mean_abs_err = sqlite3_column_double(st, i++);
        x->rel_l2_err = sqlite3_column_double(st, i++);
        x->tolerance = sqlite3_column_double(st, i++);
        x->bytes = sqlite3_column_double(st, i++);
        x->peak_bytes = sqlite3_column_double(st, i++);
        x->nonfinite = (long)sqlite3_column_int64(st, i++);
        x->rows_checked = (long)sqlite3_column_int64(st, i++);
        snprintf(x->mode, sizeof x->mode, "%s", ab_db_text(st, i++));
        x->input_sets = sqlite3_column_int(st, i++);
    }
    sqlite3_finalize(st);
    *got = k;
    return 0;
}

void ab_meas_details_free(ab_meas_detail *d, size_t n)
{
    for (size_t i = 0; d && i < n; i++)
        free(d[i].message);
}

double ab_timer_floor_ms(sqlite3 *db, long long run_id, const char *mode)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    double f = 0;
    if (ab_db_prepare(db, "SELECT median_ms FROM timer_floor WHERE run_id = ? AND timing_mode = ?",
                      &st, err))
        return 0;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_text(st, 2, mode, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        f = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return f;
}

int ab_timer_floors_load(sqlite3 *db, long long run_id, ab_timer_floor_row *rows, int max)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    if (ab_db_prepare(db,
                      "SELECT timing_mode, median_ms, n FROM timer_floor WHERE run_id = ? "
                      "ORDER BY timing_mode",
                      &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    int k = 0;
    while (k < max && sqlite3_step(st) == SQLITE_ROW) {
        snprintf(rows[k].mode, sizeof rows[k].mode, "%s", ab_db_text(st, 0));
        rows[k].median_ms = sqlite3_column_double(st, 1);
        rows[k].n = sqlite3_column_int64(st, 2);
        k++;
    }
    sqlite3_finalize(st);
    return k;
}

int ab_clock_totals_load(sqlite3 *db, long long run_id, ab_clock_totals *out)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    memset(out, 0, sizeof *out);
    if (ab_db_prepare(db,
                      "SELECT count(*), coalesce(sum(throttled),0), coalesce(sum(power_capped),0), "
                      "min(min(sm_mhz_before, sm_mhz_after)), max(max(sm_mhz_before, sm_mhz_after)), "
                      "max(temp_c), max(power_w), min(mem_mhz), max(mem_mhz) "
                      "FROM clock_blocks c JOIN measurements m ON m.id = c.measurement_id "
                      "WHERE m.run_id = ?",
                      &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    int rc = -1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        out->blocks = sqlite3_column_int64(st, 0);
        out->throttled = sqlite3_column_int64(st, 1);
        out->power_capped = sqlite3_column_int64(st, 2);
        out->sm_mhz_min = sqlite3_column_int(st, 3);
        out->sm_mhz_max = sqlite3_column_int(st, 4);
        out->temp_c_max = sqlite3_column_int(st, 5);
        out->power_w_max = sqlite3_column_double(st, 6);
        out->mem_mhz_min = sqlite3_column_int(st, 7);
        out->mem_mhz_max = sqlite3_column_int(st, 8);
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc;
}

int ab_run_header_load(sqlite3 *db, long long run_id, ab_run_header *h)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    memset(h, 0, sizeof *h);
    if (ab_db_prepare(db,
                      "SELECT r.uuid, r.started_at, coalesce(r.finished_at, '—'), "
                      "ab_run_status(r.status, r.host, r.pid, r.proc_start, r.boot_id), "
                      "r.command, r.timing_mode, x.name, x.path, x.definition, x.hash, "
                      "v.fingerprint, v.hash, r.clocks_monitored, coalesce(r.peak_gemm_tflops, 0), "
                      "coalesce(r.peak_copy_gbs, 0) FROM runs r "
                      "JOIN experiments x ON x.id = r.experiment_id "
                      "JOIN environments v ON v.id = r.environment_id WHERE r.id = ?",
                      &st, err))
        return error("%s", err);
    sqlite3_bind_int64(st, 1, run_id);
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return error("no run %lld in the database (attnbench runs lists them)", run_id);
    }
    h->uuid = strdup(ab_db_text(st, 0));
    h->started = strdup(ab_db_text(st, 1));
    h->finished = strdup(ab_db_text(st, 2));
    h->status = strdup(ab_db_text(st, 3));
    h->command = strdup(ab_db_text(st, 4));
    h->mode = strdup(ab_db_text(st, 5));
    h->exp_path = strdup(ab_db_text(st, 7));
    h->definition = strdup(ab_db_text(st, 8));
    h->exp_hash = strdup(ab_db_text(st, 9));
    h->fingerprint = strdup(ab_db_text(st, 10));
    h->env_hash = strdup(ab_db_text(st, 11));
    h->monitored = sqlite3_column_int(st, 12);
    h->peak_gemm_tflops = sqlite3_column_double(st, 13);
    h->peak_copy_gbs = sqlite3_column_double(st, 14);
    h->exp_name = strdup(ab_db_text(st, 6));
    sqlite3_finalize(st);
    return 0;
}

void ab_run_header_free(ab_run_header *h)
{
    free(h->uuid);
    free(h->started);
    free(h->finished);
    free(h->status);
    free(h->command);
    free(h->mode);
    free(h->exp_path);
    free(h->definition);
    free(h->exp_hash);
    free(h->fingerprint);
    free(h->env_hash);
    free(h->exp_name);
    memset(h, 0, sizeof *h);
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

int ab_adapter_envs_load(sqlite3 *db, long long run_id, ab_adapter_env **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    size_t cap = 0;
    if (ab_db_prepare(db,
                      "SELECT variant, adapter_env FROM measurements WHERE run_id = ? AND "
                      "external = 1 AND adapter_env IS NOT NULL GROUP BY variant, adapter_env "
                      "ORDER BY min(id)",
                      &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    int rc = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 8;
            ab_adapter_env *y = realloc(*out, cap * sizeof *y);
            if (!y) {
                rc = -1;
                break;
            }
            *out = y;
        }
        ab_adapter_env *e = &(*out)[(*n)++];
        e->variant = strdup(ab_db_text(st, 0));
        e->env = strdup(ab_db_text(st, 1));
    }
    sqlite3_finalize(st);
    return rc;
}

int ab_variant_envs_load(sqlite3 *db, long long run_id, ab_variant_env **out, size_t *n,
                         char *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    int rc = sqlite3_prepare_v2(db,
                                "SELECT m.variant, (SELECT adapter_env FROM measurements x WHERE "
                                "x.run_id = ?1 AND x.variant = m.variant AND x.adapter_env IS NOT "
                                "NULL ORDER BY x.id LIMIT 1), count(DISTINCT m.adapter_env) "
                                "FROM measurements m WHERE m.run_id = ?1 GROUP BY m.variant",
                                -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, run_id);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            if (*n == cap) {
                cap = cap ? 2 * cap : 16;
                ab_variant_env *y = realloc(*out, cap * sizeof *y);
                if (!y)
                    break;
                *out = y;
            }
            ab_variant_env *v = &(*out)[(*n)++];
            v->variant = strdup(ab_db_text(st, 0));
            v->first = dup_or_null(ab_db_text_or_null(st, 1));
            v->distinct = sqlite3_column_int64(st, 2);
        }
        if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
    }
    if (rc == SQLITE_ROW)
        snprintf(err, AB_ERR, "out of memory reading the provenance");
    else if (rc != SQLITE_OK)
        snprintf(err, AB_ERR, "reading the provenance: %s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : -1;
}

void ab_adapter_envs_free(ab_adapter_env *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) {
        free(v[i].variant);
        free(v[i].env);
    }
    free(v);
}

void ab_variant_envs_free(ab_variant_env *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) {
        free(v[i].variant);
        free(v[i].first);
    }
    free(v);
}

int ab_run_experiment_load(sqlite3 *db, long long run_id, char **path, char **definition,
                           char **timing_mode, char *err)
{
    sqlite3_stmt *st = NULL;
    if (ab_db_prepare(db,
                      "SELECT x.path, x.definition, r.timing_mode FROM runs r JOIN experiments x "
                      "ON x.id = r.experiment_id WHERE r.id = ?",
                      &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    int rc = 1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        if (path)
            *path = strdup(ab_db_text(st, 0));
        if (definition)
            *definition = strdup(ab_db_text(st, 1));
        if (timing_mode)
            *timing_mode = strdup(ab_db_text(st, 2));
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc;
}

int ab_calibration_run_for_env(sqlite3 *db, const char *env_hash, long long *run)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    *run = 0;
    if (ab_db_prepare(db,
                      "SELECT r.id FROM runs r JOIN experiments x ON x.id = r.experiment_id "
                      "JOIN environments v ON v.id = r.environment_id WHERE v.hash = ? AND "
                      "x.name LIKE '%-calibration' AND r.status = 'complete' ORDER BY r.id DESC "
                      "LIMIT 1",
                      &st, err))
        return -1;
    sqlite3_bind_text(st, 1, env_hash, -1, SQLITE_STATIC);
    *run = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return 0;
}

int ab_check_coverage_load(sqlite3 *db, long long run_id, ab_check_coverage *c)
{
    sqlite3_stmt *st = NULL;
    memset(c, 0, sizeof *c);
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
        return 1; /* a database without the columns: an older schema */
    sqlite3_bind_int64(st, 1, run_id);
    int rc = 1;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0) {
        c->n = sqlite3_column_int64(st, 0);
        c->rows_checked = sqlite3_column_int64(st, 1);
        c->nsampled = sqlite3_column_int64(st, 3);
        c->sampled_checked = sqlite3_column_int64(st, 4);
        c->sampled_total = sqlite3_column_int64(st, 5);
        c->max_escape = sqlite3_column_double(st, 6);
        c->seeds = strdup(ab_db_text(st, 7));
        rc = c->seeds ? 0 : 1;
    }
    sqlite3_finalize(st);
    return rc;
}

int ab_run_experiment_name(sqlite3 *db, long long run_id, char *name, size_t n, char *err)
{
    sqlite3_stmt *st = NULL;
    if (ab_db_prepare(db,
                      "SELECT x.name FROM runs r JOIN experiments x ON x.id = r.experiment_id "
                      "WHERE r.id = ?",
                      &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    int rc = 1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        snprintf(name, n, "%s", ab_db_text(st, 0));
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc;
}

char *ab_run_fingerprint_text(sqlite3 *db, long long run_id)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    char *fp = NULL;
    if (ab_db_prepare(db,
                      "SELECT v.fingerprint FROM runs r JOIN environments v "
                      "ON v.id = r.environment_id WHERE r.id = ?",
                      &st, err))
        return NULL;
    sqlite3_bind_int64(st, 1, run_id);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        fp = strdup(ab_db_text(st, 0));
    sqlite3_finalize(st);
    return fp;
}

int ab_history_load(sqlite3 *db, const char *variant, const ab_config_pat *pat,
                    ab_history_point **out, size_t *nout, char *err)
{
    sqlite3_stmt *st = NULL;
    *out = NULL;
    *nout = 0;
    if (ab_db_prepare(db,
                      "SELECT r.id, m.id, r.started_at, "
                      "coalesce(json_extract(v.fingerprint, '$.build.commit'), '?'), "
                      "coalesce(json_extract(v.fingerprint, '$.gpu.name'), 'CPU only'), v.hash, "
                      "m.causal, m.dtype, v.fingerprint FROM measurements m "
                      "JOIN runs r ON r.id = m.run_id JOIN environments v ON v.id = r.environment_id "
                      "WHERE " AB_SQL_IS_VARIANT("m.variant", "?1") " AND m.B = ?2 AND m.H = ?3 AND m.S = ?4 AND m.D = ?5 "
                      "AND (?6 < 0 OR m.causal = ?6) AND (?7 = '' OR m.dtype = ?7) "
                      "AND m.H_kv = (CASE WHEN ?8 > 0 THEN ?8 ELSE m.H END) "
                      "AND m.S_kv = (CASE WHEN ?9 > 0 THEN ?9 ELSE m.S END) AND m.pass = ?10 "
                      "AND m.status = 'ok' ORDER BY r.started_at, r.id, m.id",
                      &st, err))
        return -1;
    sqlite3_bind_text(st, 1, variant, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, pat->B);
    sqlite3_bind_int(st, 3, pat->H);
    sqlite3_bind_int(st, 4, pat->S);
    sqlite3_bind_int(st, 5, pat->D);
    sqlite3_bind_int(st, 6, pat->causal);
    sqlite3_bind_text(st, 7, pat->dtype, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 8, pat->H_kv);
    sqlite3_bind_int(st, 9, pat->S_kv);
    sqlite3_bind_text(st, 10, pat->pass[0] ? pat->pass : "fwd", -1, SQLITE_STATIC);
    size_t n = 0, cap = 16;
    ab_history_point *p = calloc(cap, sizeof *p);
    while (p && sqlite3_step(st) == SQLITE_ROW) {
        if (n == cap) {
            ab_history_point *np = realloc(p, 2 * cap * sizeof *p);
            if (!np)
                break;
            p = np;
            cap *= 2;
        }
        ab_history_point *x = &p[n++];
        memset(x, 0, sizeof *x);
        x->run = sqlite3_column_int64(st, 0);
        x->mid = sqlite3_column_int64(st, 1);
        snprintf(x->date, sizeof x->date, "%s", ab_db_text(st, 2));
        snprintf(x->commit, sizeof x->commit, "%s", ab_db_text(st, 3));
        snprintf(x->gpu, sizeof x->gpu, "%s", ab_db_text(st, 4));
        snprintf(x->env, sizeof x->env, "%s", ab_db_text(st, 5));
        x->causal = sqlite3_column_int(st, 6);
        snprintf(x->dtype, sizeof x->dtype, "%s", ab_db_text(st, 7));
        x->fp = strdup(ab_db_text(st, 8));
    }
    sqlite3_finalize(st);
    *out = p;
    *nout = p ? n : 0;
    return 0;
}

int ab_grad_checks_load(sqlite3 *db, long long run_id, ab_grad_entry **out, size_t *n, char *err)
{
    sqlite3_stmt *st = NULL;
    *out = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT m.id, m.variant, m.B, m.H, m.S, m.D, m.causal, m.dtype, m.H_kv, "
                           "m.S_kv, m.pass, g.grad, g.max_abs_err, g.rel_l2_err, "
                           "g.plain_max_abs_err, g.tolerance, g.nonfinite, g.pass "
                           "FROM grad_checks g JOIN measurements m ON m.id = g.measurement_id "
                           "WHERE m.run_id = ? ORDER BY m.id, "
                           "CASE g.grad WHEN 'dQ' THEN 0 WHEN 'dK' THEN 1 ELSE 2 END",
                           -1, &st, NULL) != SQLITE_OK)
        return 0; /* no grad_checks table: an older schema, nothing to show */
    sqlite3_bind_int64(st, 1, run_id);
    size_t cap = 0;
    ab_grad_entry *e = NULL;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            ab_grad_entry *ne = realloc(e, cap * sizeof *e);
            if (!ne) {
                free(e);
                sqlite3_finalize(st);
                snprintf(err, AB_ERR, "out of memory");
                return -1;
            }
            e = ne;
        }
        ab_grad_entry *x = &e[(*n)++];
        memset(x, 0, sizeof *x);
        ab_rmeas *r = &x->cfg;
        x->measurement_id = sqlite3_column_int64(st, 0);
        snprintf(x->variant, sizeof x->variant, "%s", ab_db_text(st, 1));
        r->B = sqlite3_column_int(st, 2);
        r->H = sqlite3_column_int(st, 3);
        r->S = sqlite3_column_int(st, 4);
        r->D = sqlite3_column_int(st, 5);
        r->causal = sqlite3_column_int(st, 6);
        snprintf(r->dtype, sizeof r->dtype, "%s", ab_db_text(st, 7));
        r->H_kv = sqlite3_column_int(st, 8);
        r->S_kv = sqlite3_column_int(st, 9);
        snprintf(r->pass, sizeof r->pass, "%s", ab_db_text(st, 10));
        snprintf(x->grad, sizeof x->grad, "%s", ab_db_text(st, 11));
        x->max_abs_err = sqlite3_column_double(st, 12);
        x->rel_l2_err = sqlite3_column_double(st, 13);
        x->plain_max_abs_err = sqlite3_column_double(st, 14);
        x->tolerance = sqlite3_column_double(st, 15);
        x->nonfinite = sqlite3_column_int64(st, 16);
        x->pass = sqlite3_column_int(st, 17);
    }
    sqlite3_finalize(st);
    if (step != SQLITE_DONE) {
        free(e);
        snprintf(err, AB_ERR, "%s: reading the gradient checks: %s", ab_db_name(db),
                 sqlite3_errmsg(db));
        return -1;
    }
    *out = e;
    return 0;
}
