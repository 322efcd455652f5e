/*
 * shard.h: one experiment split into parts that separate processes, GPUs or
 * Slurm array tasks run as separate runs: which configurations a
 * part holds, and the part recorded with its run (runs.shard_k, shard_n,
 * shard_hash, worker) so that `attnbench status` and reports can tell which
 * parts of which experiment a database holds.
 */
#ifndef ATTNBENCH_SHARD_H
#define ATTNBENCH_SHARD_H

#include <sqlite3.h>
#include <stdio.h>

#include "ab_id.h"

#include "experiment.h"

/* Predicted cost of each configuration of e: its forward FLOPs
 * (ab_attention_flops: 4·B·H·S²·D, halved when causal) times the number of
 * variants the experiment lists. Independent of the build (a variant absent
 * here costs the same), so every machine computes the same split.
 * cost holds e->nconfigs entries. */
void ab_shard_costs(const ab_experiment *e, double *cost);

/* The 0-based part of each configuration of e when split into n parts
 * (ab_shard_plan over ab_shard_costs). part_of holds e->nconfigs entries;
 * 0 or -1 (out of memory). */
int ab_shard_parts(const ab_experiment *e, int n, size_t *part_of);

/* Keeps in e only the configurations of part k (1-based) of n, in their
 * order in the file, and sets e->shard_k, shard_n. Returns 0, or -1 with a
 * message in err (an empty part: n larger than the configurations the part
 * could get). */
int ab_shard_select(ab_experiment *e, int k, int n, char *err, size_t errn);

/* Stores e's part and worker with run run_id (nothing when e is not split
 * and has no worker label). 0, or -1 with err (AB_ERR bytes). */
int ab_shard_record(sqlite3 *db, ab_id run_id, const ab_experiment *e, char *err);

/* Reads the part of run run_id: 1 with *k, *n set when it ran one part, 0
 * when it ran the whole experiment, -1 on a database error (err). */
int ab_shard_of_run(sqlite3 *db, ab_id run_id, int *k, int *n, char *err);

#endif
