/*
 * cmd_status.c: `attnbench status EXPERIMENT [--plan N] [--db PATH]` (issue
 * 20): which parts of a split experiment (by the hash of its file) the
 * database holds: complete, interrupted, failed, abandoned, running or
 * missing, with the command that completes each part that is not complete.
 * --plan N prints the split itself: each part's configurations and predicted
 * cost (shard.h), without the database.
 */
#include "commands.h"
#include "experiment.h"
#include "liveness.h"
#include "runlist.h"
#include "shard.h"
#include "store.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int print_plan(const ab_experiment *e, int n)
{
    size_t *part = malloc((e->nconfigs ? e->nconfigs : 1) * sizeof *part);
    double *cost = malloc((e->nconfigs ? e->nconfigs : 1) * sizeof *cost);
    if (!part || !cost || ab_shard_parts(e, n, part)) {
        free(part);
        free(cost);
        return error("out of memory") ? 1 : 1;
    }
    ab_shard_costs(e, cost);
    double total = 0;
    for (size_t c = 0; c < e->nconfigs; c++)
        total += cost[c];
    printf("%s (hash %s): %zu configurations x %zu variants in %d parts, cost = forward "
           "FLOPs x variants\n",
           e->name, e->hash, e->nconfigs, e->nvariants, n);
    printf("part  configurations  cost (GFLOP)  share\n");
    for (int k = 0; k < n; k++) {
        double load = 0;
        size_t cnt = 0;
        for (size_t c = 0; c < e->nconfigs; c++)
            if (part[c] == (size_t)k) {
                load += cost[c];
                cnt++;
            }
        printf("%4d  %14zu  %12.4f  %5.1f%%  ", k + 1, cnt, load * 1e-9,
               total > 0 ? 100 * load / total : 0.0);
        for (size_t c = 0; c < e->nconfigs; c++)
            if (part[c] == (size_t)k)
                printf(" %zu", c + 1);
        printf("\n");
    }
    free(part);
    free(cost);
    return 0;
}

typedef struct part_state {
    int nruns;
    long long best_run; /* the run that completes it, or the one to resume */
    char state[32];         /* complete / interrupted / failed / abandoned / running / missing */
    char worker[128];
    long measurements;
} part_state;

/* rank of a run status for choosing the run that speaks for a part */
static int rank(const char *s)
{
    const char *order[] = {"complete", "running", "interrupted", "abandoned", "failed"};
    for (int i = 0; i < 5; i++)
        if (strcmp(s, order[i]) == 0)
            return i;
    return 5;
}

/* The parts of one split as its runs fill them in (ab_experiment_part_runs_each). */
typedef struct parts_ctx {
    part_state *parts;
    int n;
} parts_ctx;

static int add_part_run(void *arg, const ab_part_run *r)
{
    parts_ctx *c = arg;
    if (r->shard_k < 1 || r->shard_k > c->n)
        return 0;
    part_state *p = &c->parts[r->shard_k - 1];
    const char *shown = ab_run_status_shown(r->status, r->host, r->pid, r->proc_start, r->boot_id);
    p->nruns++;
    if (p->nruns == 1 || rank(shown) < rank(p->state)) {
        p->best_run = r->id;
        snprintf(p->state, sizeof p->state, "%s", shown);
        snprintf(p->worker, sizeof p->worker, "%s", r->worker ? r->worker : "");
        p->measurements = r->measurements;
    }
    return 0;
}

int cmd_status(int argc, char **argv)
{
    const char *path = NULL, *db_flag = NULL, *v;
    int missing = 0, plan = 0;
    for (int i = 1; i < argc; i++) {
        if ((v = ab_opt(argc, argv, &i, "--db", &missing)))
            db_flag = v;
        else if (missing)
            return error("status: --db needs a path") ? 2 : 2;
        else if ((v = ab_opt(argc, argv, &i, "--plan", &missing))) {
            long long p;
            if (ab_parse_count(v, 1, 4096, &p))
                return error("status: --plan must be a number of parts in 1..4096, not '%s'", v)
                           ? 2 : 2;
            plan = (int)p;
        } else if (missing)
            return error("status: --plan needs a number of parts") ? 2 : 2;
        else if (argv[i][0] == '-' || path)
            return error("status: unexpected argument '%s' (attnbench help status)", argv[i])
                       ? 2 : 2;
        else
            path = argv[i];
    }
    if (!path)
        return error("status: missing EXPERIMENT (attnbench help status)") ? 2 : 2;

    char err[AB_ERR];
    ab_experiment e;
    /* loaded, not validated: the split needs only the file, not this build's variants */
    if (ab_experiment_load(path, &e, err, sizeof err)) {
        error("%s", err);
        return 1;
    }
    if (plan) {
        int r = print_plan(&e, plan);
        ab_experiment_free(&e);
        return r;
    }
    const char *db_path = ab_db_path(db_flag);
    sqlite3 *db = NULL;
    part_state *parts = NULL;
    int rc = 1, nsplits = 0, done_any = 0;
    if (ab_db_open(db_path, 1, &db, err)) {
        error("%s", err);
        goto cleanup;
    }
    /* every split of this experiment the database holds (0: whole runs) */
    int splits[64];
    if (ab_experiment_splits(db, e.hash, splits, 64, &nsplits, err)) {
        error("%s", err);
        goto cleanup;
    }
    printf("experiment %s (%s, hash %s): %zu configurations x %zu variants, database %s\n",
           e.name, path, e.hash, e.nconfigs, e.nvariants, db_path);
    if (nsplits == 0) {
        printf("no run of this experiment (by hash) in the database\nto run it:\n"
               "  attnbench run %s --db %s\n",
               path, db_path);
        rc = 3;
        goto cleanup;
    }
    for (int s = 0; s < nsplits; s++) {
        int n = splits[s] ? splits[s] : 1, complete = 0;
        size_t *part_of = malloc((e.nconfigs ? e.nconfigs : 1) * sizeof *part_of);
        free(parts);
        parts = calloc((size_t)n, sizeof *parts);
        if (!parts || !part_of || ab_shard_parts(&e, n, part_of)) {
            free(part_of);
            error("out of memory");
            goto cleanup;
        }
        for (int k = 0; k < n; k++)
            strcpy(parts[k].state, "missing");
        parts_ctx pc = {parts, n};
        if (ab_experiment_part_runs_each(db, e.hash, splits[s], add_part_run, &pc, err)) {
            free(part_of);
            error("%s", err);
            goto cleanup;
        }
        if (splits[s])
            printf("\nsplit into %d parts:\n", n);
        else
            printf("\nwhole-experiment runs:\n");
        printf("part  configurations  measurements  runs  state        run  worker\n");
        for (int k = 0; k < n; k++) {
            size_t cnt = 0;
            for (size_t c = 0; c < e.nconfigs; c++)
                cnt += part_of[c] == (size_t)k;
            part_state *p = &parts[k];
            complete += strcmp(p->state, "complete") == 0;
            char runbuf[24] = "-";
            if (p->nruns)
                snprintf(runbuf, sizeof runbuf, "%lld", (long long)p->best_run);
            char worker[600];
            printf("%4d  %14zu  %5ld of %-4zu  %4d  %-11s  %3s  %s\n", k + 1, cnt,
                   p->measurements, cnt * e.nvariants, p->nruns, p->state, runbuf,
                   p->worker[0] ? ab_printable(p->worker, worker, sizeof worker) : "-");
        }
        printf("%d of %d parts complete%s\n", complete, n,
               complete == n ? ": the experiment is complete" : "");
        if (complete < n) {
            printf("to complete it:\n");
            for (int k = 0; k < n; k++) {
                part_state *p = &parts[k];
                if (strcmp(p->state, "complete") == 0)
                    continue;
                /* a --devices worker's run resumes on its own GPU */
                char prefix[96] = "";
                if (strncmp(p->worker, "cuda:", 5) == 0)
                    snprintf(prefix, sizeof prefix, "CUDA_VISIBLE_DEVICES=%.*s ",
                             (int)strcspn(p->worker + 5, " "), p->worker + 5);
                if (strcmp(p->state, "missing") == 0 && splits[s])
                    printf("  attnbench run %s --shard %d/%d --db %s\n", path, k + 1, n, db_path);
                else if (strcmp(p->state, "missing") == 0)
                    printf("  attnbench run %s --db %s\n", path, db_path);
                else if (strcmp(p->state, "running") == 0)
                    printf("  # part %d: run %lld is still running; wait for it\n", k + 1,
                           (long long)p->best_run);
                else
                    printf("  %sattnbench resume %lld --db %s\n", prefix, (long long)p->best_run,
                           db_path);
            }
        }
        done_any |= complete == n;
        free(part_of);
    }
    rc = done_any ? 0 : 3;
cleanup:
    free(parts);
    ab_db_close(db);
    ab_experiment_free(&e);
    return rc;
}
