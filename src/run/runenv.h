/*
 * runenv.h: a run's settings and conditions, kept apart from the machine's
 * fingerprint (env.h). The fingerprint describes the machine and the build
 * (its hash is the same for `attnbench env` and for every run there); the
 * run settings describe what this run chose and found: the timing mode, the
 * OpenMP thread count of the CPU variants (set by the experiment's
 * `threads`, default 1), the CPU affinity the process was given, and the
 * load average at the start and the end of the run. They are stored as JSON
 * in runs.run_settings (NULL for runs before they existed), shown in the
 * report's Run table and compared by `attnbench compare`.
 *
 * Why one thread by default: an OpenMP team finishes a parallel region when
 * its slowest thread does, so on a shared machine every sample waits for
 * the scheduler to give each thread a core, and the samples split into a
 * fast mode and a slow one (on a 2-core host with other work, 1-2 ms
 * against 12-50 ms). One thread gives up speed for samples that measure the
 * kernel; an experiment asks for more with `threads = N` (0: OpenMP's
 * default, every CPU the process may use).
 */
#ifndef ATTNBENCH_RUNENV_H
#define ATTNBENCH_RUNENV_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>

#include "experiment.h"

/* Sets the OpenMP thread count of this process to e->threads (0: left at
 * OpenMP's default) and returns the settings JSON (a new reference):
 * timing_mode, threads (the count in effect), threads_from ("experiment" or
 * "default"), openmp (built with OpenMP), affinity (CPU list, e.g. "0-3"),
 * affinity_cpus, load_avg ([1, 5, 15] minutes, from /proc/loadavg),
 * launch_hold (runs with GPU variants: whether ab_gpu_time held each block,
 * ab_gpu_hold_enabled), the
 * OMP_* environment variables and tuning variables (ab_runenv_tuning_add)
 * that are set. NULL only when out of memory.
 * timing_mode: the run's ("host" when only CPU variants run). */
json_t *ab_runenv_apply(const ab_experiment *e, const char *timing_mode);

/* Adds to obj, as strings, the tuning variables of this process's
 * environment that are set: AB_TUNE (cuda_mma_pipeline's tile candidate
 * instead of its tuning table, kernels/cuda_mma_pipeline.cu) and
 * ATTNBENCH_HOLD (0: the launch hold of kernels/gpu_harness.cu off). Nothing when
 * none is set, so fingerprints of untuned runs keep their hash. Called for
 * the fingerprint's settings (env.c) and the run settings' environment, so
 * two runs with different tiles have different environments. */
void ab_runenv_tuning_add(json_t *obj);

/* Stores settings as run_id's run_settings; on error returns -1 with a
 * message in err (AB_ERR bytes). */
int ab_runenv_store(sqlite3 *db, long long run_id, const json_t *settings, char *err);

/* Adds load_avg_end (now) to run_id's stored settings. Returns 0 or -1 with
 * err. */
int ab_runenv_finish(sqlite3 *db, long long run_id, char *err);

/* run_id's stored settings (a new reference), or NULL for a run without
 * them (older runs, an older schema). */
json_t *ab_runenv_load(sqlite3 *db, long long run_id);

/* Whether the host was busy: load average at the start of the run
 * (load_avg[0]) plus the run's threads exceeds the CPUs in its affinity
 * mask, i.e. the run's threads had to share cores. 0 when unknown. */
int ab_runenv_busy(const json_t *settings);

/* Warns on stderr, at the start of a run, about what makes its numbers less
 * trustworthy or less traceable: a busy host (ab_runenv_busy), a build whose
 * commit is unknown (fingerprint build.commit: git missing, or not a git
 * checkout). */
void ab_runenv_warn(const json_t *fingerprint, const json_t *settings);

/* Sets e's GPU-time budget (min_time, max_time, max_samples) to the one
 * run_id stored in its settings, so that a resumed run samples as it
 * began, a command line's budget included; a run stored before the budget
 * existed resumes without one (min_time and max_time 0). */
void ab_runenv_budget_restore(sqlite3 *db, long long run_id, ab_experiment *e);

#endif
