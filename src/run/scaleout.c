/*
 * scaleout.c: `attnbench run`'s --shard, Slurm array and --devices handling.
 * See scaleout.h.
 */
#include "scaleout.h"

#include "devices.h"
#include "shard.h"
#include "shard_plan.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

int ab_run_scaleout(ab_experiment *e, const char *path, const char *db_path, const char *shard_s,
                    const char *devices_s, const char *worker, char *shard_cmd, size_t n)
{
    char err[512];
    int k = 0, parts = 0, slurm = 0;
    shard_cmd[0] = 0;
    if (devices_s && (shard_s || worker))
        return error("run: --devices splits the experiment itself; it cannot be combined with "
                     "--shard") ? 2 : 2;
    if (devices_s) {
        if (getenv("SLURM_ARRAY_TASK_ID"))
            return error("run: --devices inside a Slurm array task would run the whole "
                         "experiment in every task; give each task one GPU and let the array "
                         "split it (contrib/slurm/attnbench-array.sbatch)") ? 2 : 2;
        int device[64], ndev = 0, cuda = 0;
        for (size_t i = 0; i < e->nvariants; i++)
            if (e->variants[i].native && e->variants[i].native->device == AB_DEV_CUDA)
                cuda = 1;
        if (ab_devices_parse(devices_s, cuda, device, &ndev, err, sizeof err))
            return error("run: %s", err) ? 2 : 2;
        return ab_devices_run(e, path, db_path, device, ndev);
    }
    if (shard_s) {
        if (ab_shard_parse(shard_s, &k, &parts, err, sizeof err))
            return error("run: %s", err) ? 2 : 2;
    } else {
        slurm = ab_shard_from_slurm(&k, &parts, err, sizeof err);
        if (slurm < 0)
            return error("run: Slurm array task: %s", err) ? 2 : 2;
    }
    if (parts) {
        if (ab_shard_select(e, k, parts, err, sizeof err))
            return error("%s", err) ? 1 : 1;
        snprintf(shard_cmd, n, " --shard %d/%d", k, parts);
        fprintf(stderr, "shard %d/%d%s: %zu configurations\n", k, parts,
                slurm ? " (from the Slurm array task)" : "", e->nconfigs);
    }
    e->worker = worker;
    return -1;
}
