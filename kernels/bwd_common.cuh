/*
 * bwd_common.cuh: the small launches every tensor-core backward rung
 * shares (cuda_mma_bwd_pipeline, the cuda_wgmma_bwd rungs): Delta =
 * rowsum(dO * O) before the main kernel (alone, or with logsumexp log2 e,
 * both into buffers padded to whole query tiles), and dQ = scale * (fp32
 * accumulator) in the dtype after it; the store of one dK/dV element pair
 * that ends every main kernel; and the 4-byte cp.async the main kernels use
 * for logsumexp and Delta rows. Header-only (templates in a namespace of
 * their own).
 *
 * Source: Tri Dao, "FlashAttention-2" (2023), Algorithm 2 line 4 (D_i =
 * rowsum(dO_i o O_i)) and section 3.1.2 (dQ accumulated in fp32).
 */
#ifndef ATTNBENCH_BWD_COMMON_CUH
#define ATTNBENCH_BWD_COMMON_CUH

#include "mma_common.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

namespace abbwd {

/* float value of a 16-bit element */
template <typename T> __device__ __forceinline__ float tof(T x);
template <> __device__ __forceinline__ float tof<__half>(__half x) { return __half2float(x); }
template <> __device__ __forceinline__ float tof<__nv_bfloat16>(__nv_bfloat16 x)
{
    return __bfloat162float(x);
}

/* 4-byte asynchronous copy global -> shared (.ca); src_bytes 4 or 0 (0:
 * the 4 shared bytes are zeroed and nothing is read; gsrc still valid). */
__device__ __forceinline__ void cp_async4(uint32_t sdst, const void *gsrc, int src_bytes)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(sdst), "l"(gsrc),
                 "r"(src_bytes)
                 : "memory");
}

/* Delta_r = sum_d dO_rd O_rd in fp32 for rows r < rows of [rows x D]
 * (O, G = dO, 16-byte aligned); one thread per 8-element (16-byte) chunk,
 * the D/8 threads of a row reduce with shuffles (D/8 divides 32). Launch
 * with a multiple of 32 threads per block, rows * D / 8 threads in all. */
template <typename T, int D>
__global__ void bwd_delta(const T *__restrict__ O, const T *__restrict__ G,
                          float *__restrict__ delta, long long rows)
{
    constexpr int CH = D / 8;
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long row = idx / CH;
    float a = 0.f;
    if (row < rows) {
        const uint4 o = reinterpret_cast<const uint4 *>(O)[idx];
        const uint4 g = reinterpret_cast<const uint4 *>(G)[idx];
        const T *po = reinterpret_cast<const T *>(&o), *pg = reinterpret_cast<const T *>(&g);
#pragma unroll
        for (int e = 0; e < 8; e++)
            a += tof<T>(po[e]) * tof<T>(pg[e]);
    }
#pragma unroll
    for (int m = CH / 2; m > 0; m >>= 1)
        a += __shfl_xor_sync(0xffffffffu, a, m);
    if (row < rows && idx % CH == 0)
        delta[row] = a;
}

/* Where row qi (0..63) of a 64-row tile goes in the permuted logsumexp
 * and Delta buffers of the WS_VEC_LSE rungs (kernels/wgmma_bwd_ws.cuh):
 * thread t of a consumer warp needs rows 8n + 2t + e (n < 8, e < 2), which
 * land at 16 (n / 2) + 4 t + 2 (n % 2) + e, so its 16 values are four
 * float4 loads and the four t of a warp read 64 contiguous bytes. */
static __host__ __device__ __forceinline__ int bwd_vec_row(int qi)
{
    const int n = qi >> 3, t = (qi >> 1) & 3, e = qi & 1;
    return 16 * (n >> 1) + 4 * t + 2 * (n & 1) + e;
}

/* The same Delta and the logsumexp times log2 e, for the rungs that load
 * both by bulk copies of whole query tiles: for every row r = (bh, s) of
 * [B*H, S]: delta[bh * Sp + s] = sum_d dO O (fp32) and lse2[bh * Sp + s] =
 * lse[r] log2 e; rows s in [S, Sp) are left as they are (zeroed by the
 * caller once); perm: each 64-row tile's rows in bwd_vec_row's order
 * instead (s = 64 u + qi at 64 u + bwd_vec_row(qi)). D/8 threads per row,
 * one 16-byte chunk each; rows * D / 8 threads in all, blocks of a
 * multiple of 32. */
template <typename T, int D>
__global__ void bwd_prep(const T *__restrict__ O, const T *__restrict__ G,
                         const float *__restrict__ lse, float *__restrict__ delta,
                         float *__restrict__ lse2, long long rows, int S, int Sp, int perm = 0)
{
    constexpr int CH = D / 8;
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long row = idx / CH;
    float a = 0.f;
    if (row < rows) {
        const uint4 o = reinterpret_cast<const uint4 *>(O)[idx];
        const uint4 g = reinterpret_cast<const uint4 *>(G)[idx];
        const T *po = reinterpret_cast<const T *>(&o), *pg = reinterpret_cast<const T *>(&g);
#pragma unroll
        for (int e = 0; e < 8; e++)
            a += tof<T>(po[e]) * tof<T>(pg[e]);
    }
#pragma unroll
    for (int m = CH / 2; m > 0; m >>= 1)
        a += __shfl_xor_sync(0xffffffffu, a, m);
    if (row < rows && idx % CH == 0) {
        long long out = (row / S) * Sp + row % S;
        if (perm) /* bwd_vec_row: the order a consumer thread's float4 loads want */
            out = out / 64 * 64 + bwd_vec_row((int)(out % 64));
        delta[out] = a;
        lse2[out] = lse[row] * 1.4426950408889634f;
    }
}

/* The last step of every main kernel: the element pair (at, at + 1) of dK
 * = scale * (dS^T Q sums) and of dV = (P^T dO sums), in the dtype (at
 * even: one 4-byte store each). */
template <typename T>
__device__ __forceinline__ void bwd_store_kv2(T *__restrict__ dK, T *__restrict__ dV, size_t at,
                                              float k0, float k1, float v0, float v1, float scale)
{
    *reinterpret_cast<uint32_t *>(dK + at) = abmma::dtype_ops<T>::pack(k0 * scale, k1 * scale);
    *reinterpret_cast<uint32_t *>(dV + at) = abmma::dtype_ops<T>::pack(v0, v1);
}

/* dq[i] = scale * acc[i] in the dtype, i < 4 * n4 (both 16-byte aligned):
 * grid-stride, 4 elements per thread per step. */
template <typename T>
__global__ void bwd_dq_out(const float4 *__restrict__ acc, T *__restrict__ dq, long long n4,
                           float scale)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4;
         i += (long long)gridDim.x * blockDim.x) {
        const float4 a = acc[i];
        uint2 r;
        r.x = abmma::dtype_ops<T>::pack(a.x * scale, a.y * scale);
        r.y = abmma::dtype_ops<T>::pack(a.z * scale, a.w * scale);
        reinterpret_cast<uint2 *>(dq)[i] = r;
    }
}

} /* namespace abbwd */

#endif
