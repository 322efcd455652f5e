/*
 * data.c: seeded random inputs and dtype rounding on the host (data.h gives
 * the generator, which the GPU harness and the adapter kit reproduce).
 */
#include "data.h"
#include "philox.h"

#include <string.h>
#ifdef AB_HAVE_CUDA
#include <curand.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

float ab_round_to(float x, ab_dtype t)
{
    switch (t) {
    case AB_FP16:
        return (float)(_Float16)x; /* IEEE binary16, round to nearest even */
    case AB_BF16: {
        uint32_t u;
        memcpy(&u, &x, sizeof u);
        if ((u & 0x7f800000u) != 0x7f800000u) /* finite: round to nearest even */
            u += 0x7fffu + ((u >> 16) & 1u);
        u &= 0xffff0000u;
        memcpy(&x, &u, sizeof x);
        return x;
    }
    case AB_FP32:
    default:
        return x;
    }
}

float ab_input_value(uint32_t u, ab_dtype t)
{
    /* u / 2^31 - 1 is exact in double (33 significant bits at most) */
    return ab_round_to((float)((double)u * 0x1p-31 - 1.0), t);
}

int ab_inputs_raw(unsigned long seed, uint64_t offset, size_t n, uint32_t *u)
{
    if (n == 0)
        return 0;
#ifdef AB_HAVE_CUDA
    curandGenerator_t g;
    if (curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10) != CURAND_STATUS_SUCCESS)
        return -1;
    int rc = curandSetPseudoRandomGeneratorSeed(g, (unsigned long long)seed) ||
                     curandSetGeneratorOffset(g, (unsigned long long)offset) ||
                     curandGenerate(g, u, n)
                 ? -1
                 : 0;
    curandDestroyGenerator(g);
    return rc;
#else
    ab_philox_stream((uint64_t)seed, offset, n, u);
    return 0;
#endif
}

/* n inputs of dtype t from element `offset` of seed's stream into x: the
 * raw outputs are drawn into x's own storage (4 bytes each), then turned
 * into values in place. */
static int fill(unsigned long seed, uint64_t offset, size_t n, ab_dtype t, float *x)
{
    uint32_t *u = (uint32_t *)(void *)x;
    if (ab_inputs_raw(seed, offset, n, u))
        return -1;
    const long long nn = (long long)n;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(omp_get_num_procs())
#endif
    for (long long i = 0; i < nn; i++) {
        uint32_t w;
        memcpy(&w, &x[i], sizeof w);
        x[i] = ab_input_value(w, t);
    }
    return 0;
}

int ab_inputs_fill(const ab_shape *s, unsigned long seed, float *q, float *k, float *v)
{
    const size_t nq = ab_shape_numel(s), nkv = ab_shape_kv_numel(s);
    return fill(seed, 0, nq, s->dtype, q) || fill(seed, nq, nkv, s->dtype, k) ||
                   fill(seed, (uint64_t)nq + nkv, nkv, s->dtype, v)
               ? -1
               : 0;
}

int ab_dout_fill(const ab_shape *s, unsigned long seed, float *dout)
{
    return fill(seed + 1, 0, ab_shape_numel(s), s->dtype, dout);
}
