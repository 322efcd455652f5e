/*
 * shard_plan.c: the deterministic cost-balanced split of an experiment's
 * configurations into parts (LPT, Graham 1969), `--shard K/N` parsing and the
 * Slurm job-array variables. See shard_plan.h.
 */
#include "shard_plan.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct job {
    double cost;
    size_t i;
} job;

/* largest cost first, then lowest index: a total order, so qsort's lack of
 * stability cannot change the split */
static int cmp_job(const void *a, const void *b)
{
    const job *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost > y->cost ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

int ab_shard_plan(const double *cost, size_t n, size_t parts, size_t *part_of)
{
    if (parts == 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!(cost[i] >= 0) || !isfinite(cost[i]))
            return -1;
    job *jobs = malloc((n ? n : 1) * sizeof *jobs);
    double *load = calloc(parts, sizeof *load);
    int rc = -1;
    if (!jobs || !load)
        goto cleanup;
    for (size_t i = 0; i < n; i++)
        jobs[i] = (job){cost[i], i};
    qsort(jobs, n, sizeof *jobs, cmp_job);
    for (size_t j = 0; j < n; j++) {
        size_t best = 0;
        for (size_t p = 1; p < parts; p++)
            if (load[p] < load[best])
                best = p;
        load[best] += jobs[j].cost;
        part_of[jobs[j].i] = best;
    }
    rc = 0;
cleanup:
    free(jobs);
    free(load);
    return rc;
}

/* a decimal integer in [lo, hi] filling the whole string */
static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)*s)) /* strtol would skip blanks and take a sign */
        return -1;
    long v = strtol(s, &end, 10);
    if (*end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int ab_shard_parse(const char *s, int *k, int *n, char *err, size_t errn)
{
    char a[32] = "";
    const char *slash = s ? strchr(s, '/') : NULL;
    long kv, nv;
    if (slash && (size_t)(slash - s) < sizeof a)
        memcpy(a, s, (size_t)(slash - s));
    /* the whole argument: K, one '/', N and nothing else ("1/2 junk" is refused) */
    if (!slash || parse_int(a, 1, 4096, &kv) || parse_int(slash + 1, 1, 4096, &nv) || kv > nv) {
        snprintf(err, errn, "--shard must be K/N with 1 <= K <= N <= 4096 (got '%s')",
                 s ? s : "");
        return -1;
    }
    *k = (int)kv;
    *n = (int)nv;
    return 0;
}

int ab_shard_from_slurm(int *k, int *n, char *err, size_t errn)
{
    const char *id_s = getenv("SLURM_ARRAY_TASK_ID"), *min_s = getenv("SLURM_ARRAY_TASK_MIN"),
               *max_s = getenv("SLURM_ARRAY_TASK_MAX"), *count_s = getenv("SLURM_ARRAY_TASK_COUNT"),
               *step_s = getenv("SLURM_ARRAY_TASK_STEP");
    long id, min, max = -1, count = -1, step = 1;
    if (!id_s)
        return 0;
    if (parse_int(id_s, 0, 100000000, &id)) {
        snprintf(err, errn, "SLURM_ARRAY_TASK_ID must be a non-negative integer (got '%s')", id_s);
        return -1;
    }
    if (!min_s || parse_int(min_s, 0, 100000000, &min)) {
        snprintf(err, errn, "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_MIN is %s%s%s",
                 min_s ? "'" : "missing", min_s ? min_s : "", min_s ? "', not an integer" : "");
        return -1;
    }
    if (step_s && parse_int(step_s, 1, 100000000, &step)) {
        snprintf(err, errn, "SLURM_ARRAY_TASK_STEP must be a positive integer (got '%s')", step_s);
        return -1;
    }
    if (max_s && parse_int(max_s, 0, 100000000, &max)) {
        snprintf(err, errn, "SLURM_ARRAY_TASK_MAX must be a non-negative integer (got '%s')", max_s);
        return -1;
    }
    if (count_s && parse_int(count_s, 1, 4096, &count)) {
        snprintf(err, errn, "SLURM_ARRAY_TASK_COUNT must be an integer in [1, 4096] (got '%s')",
                 count_s);
        return -1;
    }
    if (max < 0 && count < 0) {
        snprintf(err, errn, "SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_MAX nor "
                            "SLURM_ARRAY_TASK_COUNT is");
        return -1;
    }
    if (max >= 0 && (max < min || (max - min) % step)) {
        snprintf(err, errn, "SLURM_ARRAY_TASK_MAX %ld is not MIN %ld plus a multiple of STEP %ld",
                 max, min, step);
        return -1;
    }
    long parts = max >= 0 ? (max - min) / step + 1 : count;
    if (count >= 0 && count != parts) {
        snprintf(err, errn, "SLURM_ARRAY_TASK_COUNT %ld disagrees with MIN %ld, MAX %ld, STEP %ld "
                            "(%ld tasks): a sparse array (1,5,9) cannot be a shard split; use "
                            "--shard K/N",
                 count, min, max, step, parts);
        return -1;
    }
    if (parts > 4096 || id < min || (id - min) % step || (id - min) / step >= parts) {
        snprintf(err, errn, "SLURM_ARRAY_TASK_ID %ld is not one of the array's %ld tasks "
                            "(MIN %ld, STEP %ld)",
                 id, parts, min, step);
        return -1;
    }
    *k = (int)((id - min) / step + 1);
    *n = (int)parts;
    return 1;
}
