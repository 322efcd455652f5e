/*
 * devices.h: `attnbench run EXPERIMENT --devices all|0,1,...`:
 * one worker process per listed GPU, each running one cost-balanced part of
 * the experiment as its own run (own device, own fingerprint, interleaving
 * and pairing inside it), all into one database (SQLite WAL, busy timeout).
 */
#ifndef ATTNBENCH_DEVICES_H
#define ATTNBENCH_DEVICES_H

#include "experiment.h"

/* Parses the --devices list into device[0..*ndev-1]: "all" is every CUDA
 * device this process may use (the entries of CUDA_VISIBLE_DEVICES when set,
 * else the /dev/nvidiaN nodes this process can open, else the GPUs in
 * /proc/driver/nvidia/gpus; for an experiment without CUDA
 * variants on a machine without GPUs, one CPU worker); "0,1,..." are CUDA
 * device indices (0..63; repeats allowed: two workers sharing one GPU, for
 * testing only, labelled so). device holds 64 entries. 0, or -1 with the
 * reason in err. */
int ab_devices_parse(const char *list, int cuda_needed, int *device, int *ndev, char *err,
                     size_t errn);

/* Runs e (loaded from `path`) on ndev workers into the database at db_path:
 * worker i runs `attnbench run path --shard i+1/ndev --db db_path --worker
 * LABEL` with CUDA_VISIBLE_DEVICES naming its device, and its stdout (the
 * run id) captured. SIGINT, SIGTERM and SIGHUP are passed on to the workers.
 * Prints each worker's run id on stdout, in worker order, and a line per
 * worker (device, run, exit status) and the wall time on stderr. Returns 0
 * when every worker succeeded, else the first failing worker's exit status
 * (128 + signal for a worker killed by a signal), or 1 on a setup error. */
int ab_devices_run(const ab_experiment *e, const char *path, const char *db_path,
                   const int *device, int ndev);

#endif
