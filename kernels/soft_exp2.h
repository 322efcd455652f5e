/*
 * soft_exp2.h: 2^x for x <= 0 on the FMA and integer pipes instead of the
 * MUFU unit, the software exponential of cuda_wgmma_softexp
 * (kernels/wgmma_common.cuh's wg_softmax with EMU > 0). Plain C, callable
 * from host and device code, so that a CPU test (tests/check/
 * test_soft_exp2.c) holds it against libm's exp2 in double precision.
 *
 * Method (the software exponential of FlashAttention-4, Zadouri,
 * Hoehnerbach, Shah, Liu, Thakkar, Dao, as they describe it; not their
 * code; coefficients fitted here): x = j + f with j = round(x)
 * by the 1.5 * 2^23 shifter (x + 1.5 * 2^23 leaves round(x) in the low
 * mantissa bits) and f = x - j in [-0.5, 0.5]; 2^f by a degree-3
 * polynomial in Horner form (the minimax fit of relative error,
 * reports/hopper-wgskip/exp2_poly_fit.py: at most 7.5e-5 on [-0.5, 0.5] in
 * float32, under fp16's half ulp 2.4e-4); 2^j added to the exponent field
 * (the shifter's bits shifted left by 23 are j << 23 modulo 2^32). x is
 * clamped at -125, so results under 2^-125 come out as 2^-125 (a term
 * of a softmax row sum that holds the row maximum's 1); with zero_below, x
 * under -125 (a masked score's -inf) gives exactly 0, as ex2.approx.ftz
 * does. 9 instructions (11 with zero_below) for ex2.approx's 1.
 */
#ifndef ATTNBENCH_SOFT_EXP2_H
#define ATTNBENCH_SOFT_EXP2_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define AB_SE_FN static inline __host__ __device__
#else
#define AB_SE_FN static inline
#endif

AB_SE_FN uint32_t ab_se_bits(float x)
{
#ifdef __CUDA_ARCH__
    return (uint32_t)__float_as_uint(x);
#else
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
#endif
}

AB_SE_FN float ab_se_float(uint32_t u)
{
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
#endif
}

/* 2^x for x <= 0 (see above); zero_below: 0 for x < -125 (and -inf). */
AB_SE_FN float ab_soft_exp2(float x, int zero_below)
{
    const float xc = fmaxf(x, -125.f);
    const float t = xc + 12582912.f; /* 1.5 * 2^23: round(xc) in the low mantissa bits */
    const float f = xc - (t - 12582912.f);
    const float p =
        fmaf(fmaf(fmaf(0.0551716685f, f, 0.242611125f), f, 0.693260968f), f, 0.999928057f);
    const float r = ab_se_float(ab_se_bits(p) + (ab_se_bits(t) << 23));
    return zero_below && x < -125.f ? 0.f : r;
}

#undef AB_SE_FN

#endif
