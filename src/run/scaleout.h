/*
 * scaleout.h: the scale-out options of `attnbench run`: --shard
 * K/N, a Slurm job-array task's part, --devices (one worker per GPU) and the
 * workers' --worker label, applied to a loaded experiment.
 */
#ifndef ATTNBENCH_SCALEOUT_H
#define ATTNBENCH_SCALEOUT_H

#include <stddef.h>

#include "experiment.h"

/* Applies the options to e (loaded from path, validated): with devices_s,
 * runs the workers (devices.h) and returns their exit status; otherwise
 * selects the part given by shard_s ("K/N"), or else by the Slurm array
 * variables (shard_plan.h), keeps worker as e's label, writes " --shard K/N"
 * (or "") to shard_cmd for the run's stored command and returns -1: the
 * caller runs e. Returns 2 on a usage error and 1 on another error (message
 * printed), 0 or a worker's status after --devices. */
int ab_run_scaleout(ab_experiment *e, const char *path, const char *db_path, const char *shard_s,
                    const char *devices_s, const char *worker, char *shard_cmd, size_t n);

#endif
