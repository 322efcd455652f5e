/*
 * data.h: the inputs every variant sees and the rounding that makes them
 * exact in the configuration's dtype.
 *
 * Q, K, V are cuRAND's Philox4x32-10 stream (CURAND_RNG_PSEUDO_PHILOX4_32_10,
 * curandGenerate's raw 32-bit outputs u) for the experiment's seed:
 * Q = elements 0 .. numel - 1, K the next kv numel, V the next kv numel
 * (curandSetGeneratorOffset), each element
 *     x = round_dtype(float(2 u / 2^32 - 1)),
 * i.e. uniform on [-1, 1) on the grid of 2^-31, rounded to float then to the
 * dtype (so 1 itself where that rounding reaches it), as the MT19937 inputs
 * before it were: only the source of u changed. dO of a backward pass is the same draw from the stream of
 * seed + 1 (its own stream: Q, K, V stay those of the forward).
 * A counter-based stream: the GPU harness generates the same values on the
 * device (gpu_inputs.cu, cuRAND's device generator) with no upload, and
 * the host here through cuRAND's host generator (curandCreateGeneratorHost,
 * which needs no GPU) or, in builds without CUDA, philox.c's copy of its
 * stream; tests/check/test_philox.c and tests/gpu/gpu_inputs.c hold the
 * three equal bit for bit. The adapter kit reproduces them in numpy.
 * Runs made before this generator (no "inputs" entry in their stored
 * settings) used GSL's MT19937 seeded with the seed.
 */
#ifndef ATTNBENCH_DATA_H
#define ATTNBENCH_DATA_H

#include "variant.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The generator of the inputs as stored in a run's settings ("inputs"). */
#define AB_INPUTS_GENERATOR "philox4x32-10"

/* x rounded to the nearest value of dtype t (round to nearest even), back
 * in float. fp16 overflows to +-inf as IEEE binary16 does. */
float ab_round_to(float x, ab_dtype t);

/* The input value of one raw 32-bit output u in dtype t (above):
 * round_dtype(float(u / 2^31 - 1)). */
float ab_input_value(uint32_t u, ab_dtype t);

/* n elements of the input stream of `seed` from element `offset`, as raw
 * 32-bit outputs into u (cuRAND's host generator where built with CUDA,
 * else philox.c). Returns 0, or -1 when the generator cannot be made. */
int ab_inputs_raw(unsigned long seed, uint64_t offset, size_t n, uint32_t *u);

/* Fills q (ab_shape_numel(s) floats, [B,H,S,D]), then k and v (each
 * ab_shape_kv_numel(s) floats, [B,H_kv,S_kv,D]) from one stream, in that
 * order, as described above. Returns 0, or -1 when the generator cannot be
 * made. */
int ab_inputs_fill(const ab_shape *s, unsigned long seed, float *q, float *k, float *v);

/* Fills dout (ab_shape_numel(s) floats, [B,H,S,D]), the output gradient dO
 * of a backward pass, the same way from the stream of seed + 1. Returns 0,
 * or -1 when the generator cannot be made. */
int ab_dout_fill(const ab_shape *s, unsigned long seed, float *dout);

#ifdef __cplusplus
}
#endif

#endif
