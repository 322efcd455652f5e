/*
 * philox.h: the 32-bit output stream of cuRAND's Philox4x32-10 generator
 * (curandCreateGenerator / curandCreateGeneratorHost with
 * CURAND_RNG_PSEUDO_PHILOX4_32_10, curandGenerate), written out for builds
 * without cuRAND (-Dcuda=disabled) and as the definition the adapter kit
 * reproduces in numpy (adapters/attnbench_adapter.py).
 *
 * Philox4x32-10 is Salmon, Moraes, Dror & Shaw, "Parallel random numbers: as
 * easy as 1, 2, 3" (SC 2011): a 128-bit counter c = (c0, c1, c2, c3) and a
 * 64-bit key (k0, k1) = (seed mod 2^32, seed div 2^32) give four 32-bit
 * outputs after 10 rounds. cuRAND's host API lays its stream out over 65536
 * subsequences: element i (from the generator's offset, curandSetGeneratorOffset)
 * is output i mod 4 of the block with
 *     c0, c1 = low, high 32 bits of (i / 4) / 65536,  c2 = (i / 4) mod 65536,  c3 = 0
 * (in device-API terms curand_init(seed, (i / 4) mod 65536, 4 ((i / 4) / 65536)
 * + i mod 4)). Found and checked bit for bit against cuRAND 10's host
 * generator (every ordering, offsets 0..1000003, lengths 1..3000001, five
 * seeds) by tests/check/test_philox.c; against its device generator by the
 * GPU suite (tests/gpu/gpu_inputs.c).
 */
#ifndef ATTNBENCH_PHILOX_H
#define ATTNBENCH_PHILOX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One Philox4x32-10 block: out = the 10-round bijection of counter ctr
 * under key (k0, k1) (Random123's philox4x32_R(10, ...)). */
void ab_philox4x32_10(const uint32_t ctr[4], uint32_t k0, uint32_t k1, uint32_t out[4]);

/* Elements offset .. offset + n - 1 of cuRAND's Philox stream for `seed`
 * (the layout above) into out[0 .. n). Parallel over OpenMP threads when
 * built with OpenMP; the result does not depend on their number. */
void ab_philox_stream(uint64_t seed, uint64_t offset, size_t n, uint32_t *out);

#ifdef __cplusplus
}
#endif

#endif
