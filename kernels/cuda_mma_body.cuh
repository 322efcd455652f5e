/*
 * cuda_mma_body.cuh: the kernel body, launch and setup shared by the two
 * mma.sync rungs of the ladder, templated on the one thing they differ in:
 * SWIZZLE, the shared-memory layout of the Q, K, V tiles (false: plain
 * row-major, rung cuda_mma; true: the 16-byte chunk index XORed with the
 * row, rung cuda_mma_swizzle; kernels/mma_common.cuh, tile_off). Each rung
 * file (cuda_mma.cu, cuda_mma_swizzle.cu) keeps its idea, sources and
 * measurements in its header comment and instantiates this body with its
 * SWIZZLE, so the step between the two measures the layout alone.
 *
 * The body (FlashAttention-2, Dao 2023, Algorithm 1, with both products on
 * the tensor cores through mma.sync.m16n8k16): one block of 4 warps per
 * (query tile of BR = 64 rows, b, h), each warp 16 query rows; for each
 * key/value tile of BC = 64 rows, loaded synchronously into shared memory,
 * S = Q K^T with Q and K fragments from ldmatrix.x4, the online softmax on
 * the accumulator registers (row max and sum over the 4 lanes of a quad by
 * two __shfl_xor_sync), P converted to fp16/bf16 in registers as the A
 * fragment of O += P V with V fragments from ldmatrix.x4.trans; O normalised
 * by the row sums at the end. Any S >= 1 (partial tiles zero-filled, columns
 * >= S masked), causal or not, D in {64, 128}, fp16 and bf16. Layouts:
 * Q, K, V, O contiguous [B][H][S][D]. Dynamic shared memory
 * (BR + 2 BC) * D * 2 bytes; 128 threads per block.
 *
 * Included by one .cu file each: everything is in an anonymous namespace.
 */
#ifndef ATTNBENCH_CUDA_MMA_BODY_CUH
#define ATTNBENCH_CUDA_MMA_BODY_CUH

#include "entry_points.h"
#include "mma_common.cuh"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>

using namespace abmma;

namespace {

constexpr int BR = 64;       /* query rows per block */
constexpr int BC = 64;       /* key/value rows per tile */
constexpr int NWARPS = 4;    /* each warp: 16 query rows */
constexpr int NTHREADS = NWARPS * 32;

template <int D> constexpr int smem_bytes() { return (BR + 2 * BC) * D * 2; }

template <bool SWIZZLE, typename T, int D, bool CAUSAL>
__global__ void __launch_bounds__(NTHREADS)
    mma_fwd(const T *__restrict__ Q, const T *__restrict__ K, const T *__restrict__ V,
            T *__restrict__ O, int S, int nqt, float scale)
{
    using ops = dtype_ops<T>;
    constexpr int RB = D * 2; /* bytes per tile row */
    constexpr int CH = D / 8; /* 16-byte chunks per row */
    extern __shared__ __align__(128) unsigned char smem[];
    unsigned char *sQ = smem, *sK = smem + BR * RB, *sV = sK + BC * RB;
    const uint32_t uQ = smem_u32(sQ), uK = smem_u32(sK), uV = smem_u32(sV);

    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const int qt = (int)(blockIdx.x % (unsigned)nqt);
    const size_t bh = blockIdx.x / (unsigned)nqt;
    const size_t base = bh * (size_t)S * D;
    const int q0 = qt * BR;

    for (int i = tid; i < BR * CH; i += NTHREADS) {
        const int r = i / CH, c = i % CH;
        uint4 v = make_uint4(0, 0, 0, 0);
        if (q0 + r < S)
            v = *reinterpret_cast<const uint4 *>(Q + base + (size_t)(q0 + r) * D + c * 8);
        *reinterpret_cast<uint4 *>(sQ + tile_off<RB, SWIZZLE>(r, c)) = v;
    }

    const int nkv = (S + BC - 1) / BC;
    const int jend = CAUSAL ? min(nkv, (min(q0 + BR, S) - 1) / BC + 1) : nkv;
    const int row0 = q0 + warp * 16 + (lane >> 2); /* this thread's rows: row0, row0 + 8 */
    float o[D / 8][4];
#pragma unroll
    for (int i = 0; i < D / 8; i++)
        o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0.f;
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};

    for (int j = 0; j < jend; j++) {
        const int k0 = j * BC;
        __syncthreads(); /* the previous tile is consumed */
        for (int i = tid; i < BC * CH; i += NTHREADS) {
            const int r = i / CH, c = i % CH;
            uint4 kv = make_uint4(0, 0, 0, 0), vv = kv;
            if (k0 + r < S) {
                const size_t off = base + (size_t)(k0 + r) * D + c * 8;
                kv = *reinterpret_cast<const uint4 *>(K + off);
                vv = *reinterpret_cast<const uint4 *>(V + off);
            }
            *reinterpret_cast<uint4 *>(sK + tile_off<RB, SWIZZLE>(r, c)) = kv;
            *reinterpret_cast<uint4 *>(sV + tile_off<RB, SWIZZLE>(r, c)) = vv;
        }
        __syncthreads();

        /* S = Q K^T for this warp's 16 rows x BC columns */
        float s[BC / 8][4];
#pragma unroll
        for (int i = 0; i < BC / 8; i++)
            s[i][0] = s[i][1] = s[i][2] = s[i][3] = 0.f;
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++) {
            uint32_t a[4];
            ldsm_x4(a, uQ + tile_off<RB, SWIZZLE>(warp * 16 + (lane & 15), kk * 2 + (lane >> 4)));
#pragma unroll
            for (int np = 0; np < BC / 16; np++) {
                uint32_t b[4];
                ldsm_x4(b, uK + tile_off<RB, SWIZZLE>(np * 16 + (lane & 7) + ((lane >> 4) << 3),
                                                       kk * 2 + ((lane >> 3) & 1)));
                ops::mma(s[2 * np], a, b[0], b[1]);
                ops::mma(s[2 * np + 1], a, b[2], b[3]);
            }
        }

        /* scale and mask (columns >= S; causal: column > row) */
#pragma unroll
        for (int nt = 0; nt < BC / 8; nt++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int col = k0 + nt * 8 + 2 * (lane & 3) + (e & 1);
                const int row = row0 + (e >> 1) * 8;
                float x = s[nt][e] * scale;
                if (col >= S || (CAUSAL && col > row))
                    x = -INFINITY;
                s[nt][e] = x;
            }

        /* online softmax on the accumulators: rows row0 (h=0) and row0+8 (h=1) */
#pragma unroll
        for (int h = 0; h < 2; h++) {
            float mx = m[h];
#pragma unroll
            for (int nt = 0; nt < BC / 8; nt++)
                mx = fmaxf(mx, fmaxf(s[nt][2 * h], s[nt][2 * h + 1]));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
            const float mb = mx == -INFINITY ? 0.f : mx; /* a row with nothing unmasked yet */
            const float corr = __expf(m[h] - mb);
            m[h] = mx;
            float ls = 0.f;
#pragma unroll
            for (int nt = 0; nt < BC / 8; nt++) {
                s[nt][2 * h] = __expf(s[nt][2 * h] - mb);
                s[nt][2 * h + 1] = __expf(s[nt][2 * h + 1] - mb);
                ls += s[nt][2 * h] + s[nt][2 * h + 1];
            }
            l[h] = l[h] * corr + ls; /* this thread's share; quad-reduced at the end */
#pragma unroll
            for (int dt = 0; dt < D / 8; dt++) {
                o[dt][2 * h] *= corr;
                o[dt][2 * h + 1] *= corr;
            }
        }

        /* O += P V, P straight from the accumulators (A fragment) */
#pragma unroll
        for (int kk = 0; kk < BC / 16; kk++) {
            uint32_t a[4];
            a[0] = ops::pack(s[2 * kk][0], s[2 * kk][1]);
            a[1] = ops::pack(s[2 * kk][2], s[2 * kk][3]);
            a[2] = ops::pack(s[2 * kk + 1][0], s[2 * kk + 1][1]);
            a[3] = ops::pack(s[2 * kk + 1][2], s[2 * kk + 1][3]);
#pragma unroll
            for (int dp = 0; dp < D / 16; dp++) {
                uint32_t b[4];
                ldsm_x4_trans(b, uV + tile_off<RB, SWIZZLE>(
                                          kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3),
                                          dp * 2 + (lane >> 4)));
                ops::mma(o[2 * dp], a, b[0], b[1]);
                ops::mma(o[2 * dp + 1], a, b[2], b[3]);
            }
        }
    }

#pragma unroll
    for (int h = 0; h < 2; h++) {
        float lt = l[h];
        lt += __shfl_xor_sync(0xffffffffu, lt, 1);
        lt += __shfl_xor_sync(0xffffffffu, lt, 2);
        const float inv = lt > 0.f ? 1.f / lt : 0.f;
        const int row = row0 + h * 8;
        if (row < S) {
            T *orow = O + base + (size_t)row * D + 2 * (lane & 3);
#pragma unroll
            for (int dt = 0; dt < D / 8; dt++)
                *reinterpret_cast<uint32_t *>(orow + dt * 8) =
                    ops::pack(o[dt][2 * h] * inv, o[dt][2 * h + 1] * inv);
        }
    }
}

template <bool SWIZZLE, typename T, int D, bool CAUSAL> int set_attr()
{
    return cudaFuncSetAttribute(mma_fwd<SWIZZLE, T, D, CAUSAL>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                smem_bytes<D>()) == cudaSuccess
               ? 0
               : -1;
}

template <bool SWIZZLE, typename T, int D, bool CAUSAL>
int launch(const ab_shape *s, const void *q, const void *k, const void *v, void *o,
           cudaStream_t st)
{
    const int nqt = (s->S + BR - 1) / BR;
    const long long blocks = (long long)nqt * s->B * s->H;
    if (blocks > 0x7fffffffLL)
        return 2;
    mma_fwd<SWIZZLE, T, D, CAUSAL><<<(unsigned)blocks, NTHREADS, smem_bytes<D>(), st>>>(
        (const T *)q, (const T *)k, (const T *)v, (T *)o, s->S, nqt, 1.0f / sqrtf((float)s->D));
    return 0;
}

template <bool SWIZZLE, typename T, int D>
int launch_c(const ab_shape *s, const void *q, const void *k, const void *v, void *o,
             cudaStream_t st)
{
    return s->causal ? launch<SWIZZLE, T, D, true>(s, q, k, v, o, st)
                     : launch<SWIZZLE, T, D, false>(s, q, k, v, o, st);
}

template <bool SWIZZLE, typename T>
int launch_d(const ab_shape *s, const void *q, const void *k, const void *v, void *o,
             cudaStream_t st)
{
    return s->D == 64 ? launch_c<SWIZZLE, T, 64>(s, q, k, v, o, st)
                      : launch_c<SWIZZLE, T, 128>(s, q, k, v, o, st);
}

/* The rung's setup: checks the shape (fp16/bf16, D in {64, 128}, S, B, H
 * >= 1) and raises the kernels' dynamic shared-memory limit; messages start
 * with `name`. No workspace. 0, or -1 with the reason in err (n bytes). */
template <bool SWIZZLE>
int mma_setup(const char *name, const ab_shape *s, void **ctx, size_t *ws, char *err, size_t n)
{
    *ctx = NULL;
    *ws = 0;
    if (s->dtype != AB_FP16 && s->dtype != AB_BF16) {
        snprintf(err, n, "%s: dtype must be fp16 or bf16", name);
        return -1;
    }
    if (s->D != 64 && s->D != 128) {
        snprintf(err, n, "%s: D must be 64 or 128", name);
        return -1;
    }
    if (s->S < 1 || s->B < 1 || s->H < 1) {
        snprintf(err, n, "%s: B, H, S must be >= 1", name);
        return -1;
    }
    int rc = set_attr<SWIZZLE, __half, 64, false>() | set_attr<SWIZZLE, __half, 64, true>() |
             set_attr<SWIZZLE, __half, 128, false>() | set_attr<SWIZZLE, __half, 128, true>() |
             set_attr<SWIZZLE, __nv_bfloat16, 64, false>() |
             set_attr<SWIZZLE, __nv_bfloat16, 64, true>() |
             set_attr<SWIZZLE, __nv_bfloat16, 128, false>() |
             set_attr<SWIZZLE, __nv_bfloat16, 128, true>();
    if (rc) {
        snprintf(err, n, "%s: cudaFuncSetAttribute: %s", name,
                 cudaGetErrorString(cudaGetLastError()));
        return -1;
    }
    return 0;
}

/* The rung's run: enqueues one forward pass on `stream`; 2 when the grid is
 * too large. */
template <bool SWIZZLE>
int mma_run(const ab_shape *s, const void *q, const void *k, const void *v, void *o,
            void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    return s->dtype == AB_FP16 ? launch_d<SWIZZLE, __half>(s, q, k, v, o, st)
                               : launch_d<SWIZZLE, __nv_bfloat16>(s, q, k, v, o, st);
}

} /* namespace */

#endif
