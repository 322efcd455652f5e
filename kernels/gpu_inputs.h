/*
 * gpu_inputs.h: the inputs of data.h generated on the device, straight into
 * the harness's buffers (gpu_inputs.cu), so that no configuration waits on
 * host generation and an upload. Internal to the CUDA side of the harness
 * (gpu_harness.cu); C callers use gpu.h's ab_gpu_bufs_create_seeded.
 */
#ifndef ATTNBENCH_GPU_INPUTS_H
#define ATTNBENCH_GPU_INPUTS_H

#include "variant.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes n inputs of dtype t (data.h: elements offset .. offset + n - 1 of
 * the stream of `seed`, each round_dtype(float(u / 2^31 - 1))) into the
 * device array x (n elements of t), in order on `stream` (a cudaStream_t),
 * and waits for them. Returns 0, or -1 with err ("device inputs: ..."). */
int ab_gpu_fill_stream(unsigned long seed, uint64_t offset, size_t n, ab_dtype t, void *x,
                       void *stream, char *err, size_t errn);

#ifdef __cplusplus
}
#endif

#endif
