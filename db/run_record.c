/*
 * run_record.c: loads one run for the report (run_record.h).
 */
#include "run_record.h"
#include "db_internal.h"
#include "store.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

/* The distinct (variant, adapter env) of external measurements, in order
 * of first measurement. */
static int envs_load(sqlite3 *db, long long run_id, ab_run_record *rec)
{
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
        if (rec->nenvs == cap) {
            cap = cap ? 2 * cap : 8;
            ab_adapter_env *y = realloc(rec->envs, cap * sizeof *y);
            if (!y) {
                rc = -1;
                break;
            }
            rec->envs = y;
        }
        ab_adapter_env *e = &rec->envs[rec->nenvs++];
        e->variant = strdup(ab_db_text(st, 0));
        e->env = strdup(ab_db_text(st, 1));
    }
    sqlite3_finalize(st);
    return rc;
}

/* Per variant: its first non-null adapter_env and the count of distinct
 * ones (provenance, src/run/provenance.h). */
static int venvs_load(sqlite3 *db, long long run_id, ab_run_record *rec)
{
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
            if (rec->nvenvs == cap) {
                cap = cap ? 2 * cap : 16;
                ab_variant_env *y = realloc(rec->venvs, cap * sizeof *y);
                if (!y)
                    break;
                rec->venvs = y;
            }
            ab_variant_env *v = &rec->venvs[rec->nvenvs++];
            v->variant = strdup(ab_db_text(st, 0));
            v->first = dup_or_null(ab_db_text_or_null(st, 1));
            v->distinct = sqlite3_column_int64(st, 2);
        }
        if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
    }
    if (rc != SQLITE_OK)
        snprintf(rec->venvs_err, sizeof rec->venvs_err, "reading the provenance: %s",
                 sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : -1;
}

int ab_run_record_load(sqlite3 *db, long long run_id, ab_run_record *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->run_id = run_id;
    if (ab_run_header_load(db, run_id, &rec->h))
        return -1;
    if (ab_run_load(db, run_id, &rec->m, &rec->n))
        return -1;
    rec->d = calloc(rec->n ? rec->n : 1, sizeof *rec->d);
    rec->clk = calloc(rec->n ? rec->n : 1, sizeof *rec->clk);
    if (!rec->d || !rec->clk)
        return error("out of memory");
    if (ab_meas_details_load(db, run_id, rec->d, rec->n, &rec->nd))
        return -1;
    for (size_t i = 0; i < rec->n; i++)
        if (ab_clock_summary_load(db, rec->m[i].id, &rec->clk[i]))
            return -1;
    rec->nfloors = ab_timer_floors_load(db, run_id, rec->floors, AB_RECORD_MAX_FLOORS);
    rec->have_totals = rec->h.monitored && ab_clock_totals_load(db, run_id, &rec->totals) == 0;
    rec->max_sm_mhz_status = ab_run_max_sm_mhz(db, run_id, &rec->max_sm_mhz);
    rec->settings = ab_run_settings_text(db, run_id);
    rec->walltime_status = ab_walltime_load(db, run_id, &rec->wall);
    rec->walltime_variants_status = ab_walltime_variants_load(db, run_id, &rec->wv, &rec->nwv);
    rec->coverage_status = ab_check_coverage_load(db, run_id, &rec->cov);
    rec->grads_status = ab_grad_checks_load(db, run_id, &rec->grads, &rec->ngrads, rec->grads_err);
    envs_load(db, run_id, rec);
    rec->venvs_status = venvs_load(db, run_id, rec);
    rec->shard_status = ab_run_shard_info_load(db, run_id, &rec->shard);
    ab_aa_samples_load(db, rec->h.env_hash, &rec->aa);
    return 0;
}

void ab_run_record_free(ab_run_record *rec)
{
    ab_run_header_free(&rec->h);
    ab_run_free(rec->m, rec->n);
    ab_meas_details_free(rec->d, rec->nd);
    free(rec->d);
    free(rec->clk);
    free(rec->settings);
    free(rec->wv);
    if (rec->coverage_status == 0)
        free(rec->cov.seeds);
    free(rec->grads);
    for (size_t i = 0; i < rec->nenvs; i++) {
        free(rec->envs[i].variant);
        free(rec->envs[i].env);
    }
    free(rec->envs);
    for (size_t i = 0; i < rec->nvenvs; i++) {
        free(rec->venvs[i].variant);
        free(rec->venvs[i].first);
    }
    free(rec->venvs);
    ab_aa_samples_free(&rec->aa);
    memset(rec, 0, sizeof *rec);
}

const ab_variant_env *ab_run_record_variant_env(const ab_run_record *rec, const char *variant)
{
    for (size_t i = 0; i < rec->nvenvs; i++)
        if (strcmp(rec->venvs[i].variant, variant) == 0)
            return &rec->venvs[i];
    return NULL;
}
