/*
 * run_record.c: loads one run for the report (run_record.h).
 */
#include "run_record.h"
#include "db_internal.h"
#include "store.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

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
    ab_adapter_envs_load(db, run_id, &rec->envs, &rec->nenvs);
    rec->venvs_status = ab_variant_envs_load(db, run_id, &rec->venvs, &rec->nvenvs, rec->venvs_err);
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
    ab_adapter_envs_free(rec->envs, rec->nenvs);
    ab_variant_envs_free(rec->venvs, rec->nvenvs);
    ab_aa_samples_free(&rec->aa);
    memset(rec, 0, sizeof *rec);
}
