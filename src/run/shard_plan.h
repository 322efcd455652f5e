/*
 * shard_plan.h: splitting a list of jobs with predicted costs into N parts,
 * and reading which part this process runs: `--shard K/N` or a
 * Slurm job-array task. Pure functions of their inputs (and, for Slurm, of
 * the environment), so every task of an array computes the same split.
 */
#ifndef ATTNBENCH_SHARD_PLAN_H
#define ATTNBENCH_SHARD_PLAN_H

#include <stddef.h>

/* Longest processing time first (Graham 1969, "Bounds on multiprocessing
 * timing anomalies", SIAM J. Appl. Math. 17(2)): jobs sorted by cost,
 * largest first, ties by index (gsl_sort_index on the costs is not stable,
 * so the order is our own comparison); each goes to the part with the
 * smallest load so far, ties to the lowest part. The largest load is at most
 * (4/3 - 1/(3 parts)) times the optimum. cost[i] >= 0 (finite); part_of[i]
 * receives the 0-based part of job i. Deterministic: the same costs give the
 * same split on every machine. Returns 0, or -1 (parts == 0, a negative or
 * non-finite cost, out of memory). */
int ab_shard_plan(const double *cost, size_t n, size_t parts, size_t *part_of);

/* Parses "K/N" (1 <= K <= N <= 4096). 0, or -1 with the reason in err. */
int ab_shard_parse(const char *s, int *k, int *n, char *err, size_t errn);

/* The part of a Slurm job-array task: SLURM_ARRAY_TASK_ID with
 * SLURM_ARRAY_TASK_MIN and either SLURM_ARRAY_TASK_MAX or
 * SLURM_ARRAY_TASK_COUNT (SLURM_ARRAY_TASK_STEP, default 1, for arrays like
 * 0-6:2): K = (ID - MIN) / STEP + 1, N = COUNT or (MAX - MIN) / STEP + 1.
 * Returns 1 with *k, *n set when SLURM_ARRAY_TASK_ID is set and consistent,
 * 0 when it is not set (not an array task), -1 with the reason in err when
 * the variables are malformed or contradictory. */
int ab_shard_from_slurm(int *k, int *n, char *err, size_t errn);

#endif
