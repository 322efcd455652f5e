/*
 * data.h: the inputs every variant sees and the rounding that makes them
 * exact in the configuration's dtype.
 *
 * Q, K, V are drawn from GSL's MT19937 (gsl_rng_mt19937) seeded with the
 * experiment's seed, in the order Q then K then V, each element
 *     x = round_dtype(2 u - 1),  u = gsl_rng_uniform(r) = mt_output / 2^32,
 * i.e. uniform on [-1, 1) and never all zeros. The stream is the reference
 * MT19937 (Matsumoto & Nishimura 1998, init_genrand seeding), so any
 * implementation of it reproduces the inputs: numpy's legacy
 * RandomState(seed).randint(0, 2**32, size=n, dtype=np.uint32) yields the
 * same 32-bit outputs (adapters/ rely on this; tests/cli checks it).
 */
#ifndef ATTNBENCH_DATA_H
#define ATTNBENCH_DATA_H

#include "variant.h"

#ifdef __cplusplus
extern "C" {
#endif

/* x rounded to the nearest value of dtype t (round to nearest even), back
 * in float. fp16 overflows to +-inf as IEEE binary16 does. */
float ab_round_to(float x, ab_dtype t);

/* Fills q (ab_shape_numel(s) floats, [B,H,S,D]), then k and v (each
 * ab_shape_kv_numel(s) floats, [B,H_kv,S_kv,D]) from one stream, in that
 * order, as described above (for H_kv = H and S_kv = S the stream of the
 * equal-shape layout). Returns 0, or -1 when the RNG cannot be allocated. */
int ab_inputs_fill(const ab_shape *s, unsigned long seed, float *q, float *k, float *v);

/* Fills dout (ab_shape_numel(s) floats, [B,H,S,D]), the output gradient dO
 * of a backward pass (issue 18), the same way from MT19937 seeded with
 * seed + 1 (its own stream: Q, K, V stay those of the forward). Returns 0,
 * or -1 when the RNG cannot be allocated. */
int ab_dout_fill(const ab_shape *s, unsigned long seed, float *dout);

#ifdef __cplusplus
}
#endif

#endif
