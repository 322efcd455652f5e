/*
 * shard.c: an experiment's configurations split into cost-balanced parts
 * (shard_plan.h) and the part a run measured stored with it (the report's
 * line about it is src/report/run_rows.c's). See shard.h.
 */
#include "shard.h"

#include "runmeta.h"
#include "shard_plan.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void ab_shard_costs(const ab_experiment *e, double *cost)
{
    for (size_t c = 0; c < e->nconfigs; c++)
        cost[c] = ab_attention_flops(&e->configs[c]) * (double)e->nvariants;
}

int ab_shard_parts(const ab_experiment *e, int n, size_t *part_of)
{
    double *cost = malloc((e->nconfigs ? e->nconfigs : 1) * sizeof *cost);
    if (!cost)
        return -1;
    ab_shard_costs(e, cost);
    int rc = ab_shard_plan(cost, e->nconfigs, (size_t)n, part_of);
    free(cost);
    return rc;
}

int ab_shard_select(ab_experiment *e, int k, int n, char *err, size_t errn)
{
    size_t *part = malloc((e->nconfigs ? e->nconfigs : 1) * sizeof *part), kept = 0;
    if (!part || ab_shard_parts(e, n, part)) {
        free(part);
        snprintf(err, errn, "out of memory splitting %s", e->path);
        return -1;
    }
    for (size_t c = 0; c < e->nconfigs; c++)
        if (part[c] == (size_t)(k - 1))
            e->configs[kept++] = e->configs[c];
    free(part);
    if (kept == 0) {
        snprintf(err, errn,
                 "%s: shard %d/%d is empty: the experiment has %zu configurations, so at most "
                 "%zu parts",
                 e->path, k, n, e->nconfigs, e->nconfigs);
        return -1;
    }
    e->nconfigs = kept;
    e->shard_k = k;
    e->shard_n = n;
    return 0;
}

int ab_shard_record(sqlite3 *db, ab_id run_id, const ab_experiment *e, char *err)
{
    if (!e->shard_n && !e->worker)
        return 0;
    return ab_run_shard_store(db, run_id, e->shard_k, e->shard_n, e->hash, e->worker, err);
}

int ab_shard_of_run(sqlite3 *db, ab_id run_id, int *k, int *n, char *err)
{
    return ab_run_shard_load(db, run_id, k, n, err);
}
