/*
 * ext_output.h: attnbench's own correctness check of an external variant.
 * An adapter that writes its output O to a file and names it on its check
 * line (`check output=PATH`, adapters/PROTOCOL.md) is checked exactly like a
 * native CPU variant: FlashAttention's rule with the plain computation's
 * error measured against its float64 shadow (kernels/check.h), on the
 * inputs attnbench generates itself from the experiment's seed
 * (kernels/data.h), so neither the adapter's reference nor its figures can
 * widen the tolerance. Adapters that only print figures keep
 * the figure-based rule (the runner's fallback).
 */
#ifndef ATTNBENCH_EXT_OUTPUT_H
#define ATTNBENCH_EXT_OUTPUT_H

#include "check.h"
#include "gpu.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Checks the output file at path for shape s: it must be a regular file
 * (not a link) of exactly numel(s) * 4 bytes, float32 little-endian in
 * [B,H,S,D] layout (the adapter's O converted to float32, which is exact
 * for fp16 and bf16). With bufs (the configuration's GPU buffers, holding
 * the same inputs) O is uploaded and checked on the device over every row,
 * as GPU variants are (gpu_check.h); otherwise, or where the device cannot
 * (ab_gpu_check returning 1), on the host: inputs regenerated from
 * input_seed (ab_inputs_fill), rows per (b, h) slice as for a CPU variant
 * (ab_check_rows_for: every row when the cost allows, else a sample drawn
 * with check_seed). The file is removed once read, whatever the outcome.
 * Returns 0 with *out filled (out->pass says the verdict); -1 with the
 * reason in err (n bytes) when the file is missing, not a regular file, of
 * the wrong size or unreadable, or memory runs out. */
int ab_ext_output_check(const ab_shape *s, const char *path, ab_gpu_bufs *bufs,
                        unsigned long input_seed, unsigned long check_seed, ab_check *out,
                        char *err, size_t n);

/* The host side of those checks: output o (numel(s) floats, [B,H,S,D]) of
 * shape s against FlashAttention's rule on inputs regenerated from
 * input_seed (ab_inputs_fill), rows per (b, h) slice as for a CPU variant
 * (ab_check_rows_for, sampled with check_seed). Used where the device
 * cannot check (ab_gpu_check returning 1), also for adapters on attnbench's
 * device buffers (ext_ipc.h). 0 with *out filled, or -1 with err when
 * memory runs out. */
int ab_ext_host_check(const ab_shape *s, const float *o, unsigned long input_seed,
                      unsigned long check_seed, ab_check *out, char *err, size_t n);

/* The same for a backward pass: the file holds dQ [B,H,S,D]
 * then dK and dV [B,H_kv,S_kv,D] as float32 (numel + 2 kv numel values);
 * checked gradient by gradient (check.h ab_grad_check) on the device when
 * bufs holds the configuration's backward buffers, else on the host with
 * the inputs and dO regenerated from input_seed (every element; for small
 * shapes). The file is removed once read. 0 with *out filled, or -1 with
 * err. */
int ab_ext_grads_check(const ab_shape *s, const char *path, ab_gpu_bufs *bufs,
                       unsigned long input_seed, ab_grad_check *out, char *err, size_t n);

#ifdef __cplusplus
}
#endif

#endif
