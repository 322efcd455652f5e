/*
 * cuda_attn_util.cuh: small helpers shared by the SIMT (non-tensor-core) CUDA
 * variants cuda_naive, cuda_fa1_rowwise, cublas_standard, cuda_fa2_warps and
 * cuda_split_kv: dtype conversion to and from float, 4-wide vector loads,
 * dtype dispatch, a free-memory check for setup, and the row-softmax kernel
 * that the two "materialise the score matrix" variants share.
 *
 * Conventions: every kernel computes in fp32; scores are turned into powers
 * of two (exp2f) with log2(e) folded into the scale, i.e.
 *     exp(x*scale - m) = exp2(x*scale*log2e - m*log2e).
 */
#ifndef ATTNBENCH_CUDA_ATTN_UTIL_CUH
#define ATTNBENCH_CUDA_ATTN_UTIL_CUH

#include "variant.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#define AB_LOG2E 1.4426950408889634f

/* ---- dtype conversion ------------------------------------------------------ */
__device__ __forceinline__ float ab_to_f(float x) { return x; }
__device__ __forceinline__ float ab_to_f(__half x) { return __half2float(x); }
__device__ __forceinline__ float ab_to_f(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T> __device__ __forceinline__ T ab_from_f(float x);
template <> __device__ __forceinline__ float ab_from_f<float>(float x) { return x; }
template <> __device__ __forceinline__ __half ab_from_f<__half>(float x)
{
    return __float2half_rn(x);
}
template <> __device__ __forceinline__ __nv_bfloat16 ab_from_f<__nv_bfloat16>(float x)
{
    return __float2bfloat16_rn(x);
}

/* Loads p[0..3] as floats in one vector access (8 bytes for the 16-bit types,
 * 16 bytes for float). p must be aligned to 4 elements. */
__device__ __forceinline__ void ab_load4(const float *p, float o[4])
{
    const float4 v = *reinterpret_cast<const float4 *>(p);
    o[0] = v.x;
    o[1] = v.y;
    o[2] = v.z;
    o[3] = v.w;
}
__device__ __forceinline__ void ab_load4(const __half *p, float o[4])
{
    const uint2 u = *reinterpret_cast<const uint2 *>(p);
    const float2 a = __half22float2(*reinterpret_cast<const __half2 *>(&u.x));
    const float2 b = __half22float2(*reinterpret_cast<const __half2 *>(&u.y));
    o[0] = a.x;
    o[1] = a.y;
    o[2] = b.x;
    o[3] = b.y;
}
__device__ __forceinline__ void ab_load4(const __nv_bfloat16 *p, float o[4])
{
    const uint2 u = *reinterpret_cast<const uint2 *>(p);
    const float2 a = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&u.x));
    const float2 b = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&u.y));
    o[0] = a.x;
    o[1] = a.y;
    o[2] = b.x;
    o[3] = b.y;
}

/* ---- dispatch ---------------------------------------------------------------- */
/* AB_DISPATCH_DTYPE(t, T, body): runs body with T = float, __half or
 * __nv_bfloat16 according to the ab_dtype t. */
#define AB_DISPATCH_DTYPE(t, T, ...)                                                   \
    do {                                                                               \
        if ((t) == AB_FP16) {                                                          \
            typedef __half T;                                                          \
            __VA_ARGS__;                                                               \
        } else if ((t) == AB_BF16) {                                                   \
            typedef __nv_bfloat16 T;                                                   \
            __VA_ARGS__;                                                               \
        } else {                                                                       \
            typedef float T;                                                           \
            __VA_ARGS__;                                                               \
        }                                                                              \
    } while (0)

/* Sets err to "<call>: <cuda error>" and returns -1 from the calling setup. */
#define AB_CK_SETUP(call)                                                              \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            snprintf(err, errlen, "%s: %s", #call, cudaGetErrorString(e_));            \
            return -1;                                                                 \
        }                                                                              \
    } while (0)

/* Checks that `need` bytes of device memory are free before a setup allocates
 * them. Returns 0, or -1 with "<what> needs X GiB ..., Y GiB free" in err. */
static inline int ab_cuda_check_free(size_t need, const char *what, char *err, size_t errlen)
{
    size_t free_b = 0, total_b = 0;
    cudaError_t e = cudaMemGetInfo(&free_b, &total_b);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "cudaMemGetInfo: %s", cudaGetErrorString(e));
        return -1;
    }
    if (need > free_b) {
        snprintf(err, errlen, "needs %.2f GiB for %s, %.2f GiB free", need / 1073741824.0,
                 what, free_b / 1073741824.0);
        return -1;
    }
    return 0;
}

/* ---- reductions ----------------------------------------------------------- */
__device__ __forceinline__ float ab_warp_max(float x)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, o));
    return x;
}
__device__ __forceinline__ float ab_warp_sum(float x)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}

/* Block-wide max or sum for blockDim.x a multiple of 32 (<= 1024); every
 * thread gets the result. red: 32 floats of shared memory. */
template <bool IS_MAX> __device__ float ab_block_reduce(float x, float *red)
{
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    x = IS_MAX ? ab_warp_max(x) : ab_warp_sum(x);
    __syncthreads(); /* red may still be read by a previous reduction */
    if (lane == 0)
        red[w] = x;
    __syncthreads();
    x = lane < nw ? red[lane] : (IS_MAX ? -INFINITY : 0.0f);
    return IS_MAX ? ab_warp_max(x) : ab_warp_sum(x);
}

/* ---- row softmax of a materialised score matrix ----------------------------- */
/* One block per row r of the [rows, S] fp32 score matrix `sc` (row r is query
 * i = r % S of its slice). Writes P[r][j] = exp(sc - max) / sum for the keys
 * j that are kept (j <= i when causal) and 0 for the masked ones, in the type
 * TP (float, __half or __nv_bfloat16). Scores must already include the
 * 1/sqrt(D) scale. P may alias sc when TP is float (each element is read and
 * then written by the same thread). Rows are processed in three passes over
 * global memory (max, sum, write), each coalesced. */
namespace { /* internal linkage: each variant's file has its own instance */
template <typename TP>
__global__ void ab_softmax_rows_kernel(const float *sc, TP *P, int S, int causal)
{
    __shared__ float red[32];
    const size_t r = blockIdx.x;
    const int i = (int)(r % (size_t)S);
    const int n = causal ? i + 1 : S;
    const float *row = sc + r * (size_t)S;
    TP *prow = P + r * (size_t)S;

    float m = -INFINITY;
    for (int j = threadIdx.x; j < n; j += blockDim.x)
        m = fmaxf(m, row[j]);
    m = ab_block_reduce<true>(m, red);
    const float ml = m * AB_LOG2E;

    float l = 0.0f;
    for (int j = threadIdx.x; j < n; j += blockDim.x)
        l += exp2f(fmaf(row[j], AB_LOG2E, -ml));
    l = ab_block_reduce<false>(l, red);
    const float inv = 1.0f / l;

    for (int j = threadIdx.x; j < S; j += blockDim.x)
        prow[j] = ab_from_f<TP>(j < n ? exp2f(fmaf(row[j], AB_LOG2E, -ml)) * inv : 0.0f);
}
} // namespace

#endif
