/*
 * stabilise.h: `stabilise = true` in an experiment: before the
 * rounds of a configuration, run a GPU kernel until the SM clock has
 * settled under load, so that the first rounds are not sampled while the
 * clock is still ramping or falling to the power cap. Detection: NVML's
 * current SM clock read after each batch of load (at least
 * AB_STAB_BATCH_S of back-to-back launches); settled when the last
 * AB_STAB_WINDOW readings lie within AB_STAB_TOL_MHZ of each other (max -
 * min). Capped at AB_STAB_CAP_S. Without NVML it is a no-op and says so.
 */
#ifndef ATTNBENCH_STABILISE_H
#define ATTNBENCH_STABILISE_H

#include <stddef.h>

#define AB_STAB_WINDOW 5
#define AB_STAB_TOL_MHZ 15u
#define AB_STAB_CAP_S 10.0
#define AB_STAB_BATCH_S 0.02

/* 1 when the last k of the n readings mhz[0..n) span at most tol MHz
 * (max - min <= tol), 0 otherwise (fewer than k readings, k == 0). */
int ab_clock_settled(const unsigned *mhz, size_t n, size_t k, unsigned tol);

/* One batch of load: run the kernel for at least AB_STAB_BATCH_S. Returns 0,
 * or -1 on a launch error. */
typedef int (*ab_stab_load_fn)(void *arg);

typedef struct ab_stab_result {
    double settle_s;  /* wall time spent under load */
    unsigned sm_mhz;  /* the last SM clock read (0 without NVML) */
    size_t readings;  /* NVML readings taken */
} ab_stab_result;

/* Runs load(arg) and reads the SM clock of the GPU with this CUDA uuid after
 * each batch until ab_clock_settled(.., AB_STAB_WINDOW, AB_STAB_TOL_MHZ) or
 * cap_s seconds have passed. Returns 0 settled, 1 capped (not settled), 2
 * no NVML (nothing run), -1 when load failed. */
int ab_stabilise(const char *uuid, ab_stab_load_fn load, void *arg, double cap_s,
                 ab_stab_result *out);

#endif
