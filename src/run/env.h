/*
 * env.h: the environment fingerprint, a JSON object describing the machine,
 * the GPU, the software stack and the build. Its hash is the environment's
 * key in the database: two runs with the same hash ran in the same
 * environment, and a report comparing different ones names the fields that
 * differ.
 *
 * Fields vary only with the environment (nothing like free memory or current
 * clocks, which change from minute to minute).
 */
#ifndef ATTNBENCH_ENV_H
#define ATTNBENCH_ENV_H

#include <jansson.h>

/* Builds the fingerprint (a new reference): host (CPU, CPUs, memory, OS,
 * kernel, CPU governor, turbo), build, settings that hold for every run of
 * this build (tf32) and the GPU (driver release from NVML, CUDA driver API,
 * runtime, cuBLAS, cuDNN, static NVML fields), or "gpu": null when with_gpu
 * is 0 or no CUDA device answers. A run's own settings (timing mode,
 * threads, load) are not part of it (runenv.h). Returns NULL only when out
 * of memory. */
json_t *ab_env_fingerprint(int with_gpu);

/* Canonical text (sorted keys, compact) and its FNV-1a 64 hash (util.h).
 * *text is malloc'd. Returns 0 or -1 (out of memory). */
int ab_env_canonical(const json_t *fp, char **text, char hash[17]);

/* Names of top-level or nested fields ("gpu.driver_version") whose values
 * differ between two fingerprints, comma-separated into out (empty when
 * equal). */
void ab_env_diff(const json_t *a, const json_t *b, char *out, size_t n);

#endif
