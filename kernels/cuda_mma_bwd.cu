/*
 * cuda_mma_bwd.cu: the backward pass of attention on the tensor cores
 * (mma.sync.m16n8k16, fp16/bf16 in, fp32 accumulation), rung
 * "cuda_mma_bwd" of the ladder. Its forward is
 * cuda_mma_pipeline's (the pass = "fwd+bwd" timing runs that, then this).
 *
 * Idea: FlashAttention-2's backward (Dao 2023, Algorithm 2, and its
 * section 3.1.2's note on dQ): the forward's logsumexp lets every P_ij be
 * recomputed from Q, K without the S x S matrix, so one block owns a tile
 * of Bc = 64 keys of one K/V head, keeps K_j, V_j in shared memory and
 * dK_j, dV_j in registers for the whole sweep over the query tiles (Br =
 * 64 rows) of every query head of its group (GQA: no atomics on dK, dV),
 * and adds its share of dQ_i = dS_ij K_j into an fp32 buffer with atomics.
 * Per query tile, warp w (keys 16w..16w+15) computes, all with mma.sync:
 *     S^T = K_w Q_i^T                     (A: K rows; B: Q rows, ldmatrix)
 *     P^T = exp(scale S^T - lse_i)         (bottom-right causal mask)
 *     dV_w += P^T dO_i                     (A: P^T from the accumulators,
 *                                           FlashAttention-2's register reuse;
 *                                           B: dO by ldmatrix.trans)
 *     dP^T = V_w dO_i^T,  dS^T = P^T (dP^T - Delta_i)
 *     dK_w += dS^T Q_i                     (B: Q by ldmatrix.trans)
 * then dS goes to shared memory transposed ([query][key]) and warp w adds
 * dQ for rows 16w..16w+15 = dS K_j (B: K by ldmatrix.trans) with fp32
 * atomicAdd. Three kernels per call: Delta_i = rowsum(dO_i * O_i) (and the
 * dQ accumulator zeroed), the main kernel, and dQ = scale * accumulator in
 * the dtype. Shared-memory rows are padded by 16 bytes (row stride D + 8
 * elements), which keeps each 8-row ldmatrix phase on distinct banks.
 * Every load is synchronous (loads, barrier, compute, barrier): correctness
 * first; the Q/dO tile of step i+1 is not prefetched.
 *
 * Measured (NVIDIA H200, 2026-11-24, reports/bwd-ladder/bwd-ladder.db, its
 * report bwd-ladder-run1.md: attnbench run of experiments/bwd-ladder.cfg,
 * hot mode, 40 samples in 20 rounds, FlashAttention's backward FLOP count;
 * SM clocks 1875-1980 MHz, 571 of 4000 blocks at the software power cap):
 * 56-79 TFLOP/s at S = 512 (B = 32), 89-105 at S = 8192 (B = 2), H = 16,
 * D = 64/128, fp16/bf16, causal or not; every gradient within
 * FlashAttention's tolerance. In the same run: 0.42x the speed of PyTorch
 * 2.11's SDPA flash backward (geometric mean over the 40 configurations;
 * 0.33-0.62x) and 0.23x cudnn_sdpa's backward (0.17-0.36x); its successor
 * cuda_mma_bwd_pipeline is 2.15x faster.
 *
 * Predicted before the run: about 100 TFLOP/s
 * at long S, 3x behind flash, 5x behind cuDNN (the quick timing of
 * gpu_check_bwd --time); held. Where it loses: every tile load is
 * synchronous (two barriers per query tile, no overlap of loads with the
 * five GEMMs), dS goes through shared memory with scalar stores, dQ is 2 x
 * D/2 x 16 scalar fp32 atomics per warp per tile, and at D = 128 the 128
 * accumulator registers of dK and dV leave none to spare (ptxas, nvcc 13.0,
 * sm_90a: 255 registers and 80 bytes of spills at D = 128, 185 registers
 * and no spills at D = 64; 79 KB of shared memory per block at D = 128).
 * Checked: tests/gpu/gpu_check_bwd (104 cases: fp16/bf16, D 64/128,
 * causal or not, S = 1..1025, GQA, S != S_kv; bwd and fwd+bwd, gradients
 * poisoned between two launches) and compute-sanitizer memcheck, racecheck
 * and synccheck clean (the logs in reports/bwd-ladder/).
 *
 * Source: Tri Dao, "FlashAttention-2: Faster Attention with Better
 * Parallelism and Work Partitioning" (2023), Algorithm 2; the fragment
 * layouts of kernels/mma_common.cuh (PTX ISA, mma.m16n8k16).
 */
#include "entry_points.h"
#include "mma_common.cuh"
#include "variant.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

using namespace abmma;

namespace {

constexpr int BC = 64;      /* keys per block */
constexpr int BR = 64;      /* query rows per step */
constexpr float LOG2E = 1.4426950408889634f;

template <int D> struct smem_layout {
    static constexpr int LD = D + 8;   /* row stride of K, V, Q, dO tiles (elements) */
    static constexpr int LDS = BC + 8; /* row stride of the dS tile */
    static constexpr size_t bytes =
        (size_t)(4 * BC * LD + BR * LDS) * 2 + 2 * BR * sizeof(float);
};

template <typename T> __device__ __forceinline__ float tof(T x);
template <> __device__ __forceinline__ float tof<__half>(__half x) { return __half2float(x); }
template <> __device__ __forceinline__ float tof<__nv_bfloat16>(__nv_bfloat16 x)
{
    return __bfloat162float(x);
}
template <typename T> __device__ __forceinline__ T fromf(float x);
template <> __device__ __forceinline__ __half fromf<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 fromf<__nv_bfloat16>(float x)
{
    return __float2bfloat16_rn(x);
}

/* Delta_i = sum_d dO_id O_id (fp32), one warp per row; dqacc zeroed by the
 * caller. */
template <typename T>
__global__ void bwd_delta(const T *__restrict__ O, const T *__restrict__ G,
                          float *__restrict__ delta, long long rows, int D)
{
    const long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (row >= rows)
        return;
    float a = 0.f;
    for (int d = lane; d < D; d += 32)
        a += tof<T>(O[row * D + d]) * tof<T>(G[row * D + d]);
#pragma unroll
    for (int m = 16; m > 0; m >>= 1)
        a += __shfl_xor_sync(0xffffffffu, a, m);
    if (lane == 0)
        delta[row] = a;
}

/* dQ = scale * accumulator, in the dtype */
template <typename T>
__global__ void bwd_dq_out(const float *__restrict__ acc, T *__restrict__ dq, long long n,
                           float scale)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        dq[i] = fromf<T>(acc[i] * scale);
}

/* Copies rows [r0, r0 + 64) of a [rows x D] tensor into a padded tile,
 * zero past `rows`; 16 bytes per thread per step. */
template <typename T, int D>
__device__ __forceinline__ void load_tile(T *dst, const T *src, int r0, int rows)
{
    constexpr int LD = D + 8, CH = D / 8; /* 16-byte chunks per row */
    for (int c = threadIdx.x; c < 64 * CH; c += blockDim.x) {
        const int r = c / CH, k = c % CH;
        uint4 v = make_uint4(0, 0, 0, 0);
        if (r0 + r < rows)
            v = *reinterpret_cast<const uint4 *>(src + (size_t)(r0 + r) * D + k * 8);
        *reinterpret_cast<uint4 *>(dst + r * LD + k * 8) = v;
    }
}

/* The main kernel: block (key tile, b * H_kv + hk). */
template <typename T, int D>
__global__ void __launch_bounds__(128)
    bwd_main(const T *__restrict__ Q, const T *__restrict__ K, const T *__restrict__ V,
             const T *__restrict__ G, const float *__restrict__ lse,
             const float *__restrict__ delta, float *__restrict__ dqacc, T *__restrict__ dK,
             T *__restrict__ dV, int H, int HK, int S, int SK, int causal, float scale)
{
    using L = smem_layout<D>;
    constexpr int LD = L::LD, LDS = L::LDS, ND = D / 8; /* n-tiles over D */
    extern __shared__ __align__(16) unsigned char smem[];
    T *sK = reinterpret_cast<T *>(smem);
    T *sV = sK + BC * LD;
    T *sQ = sV + BC * LD;
    T *sG = sQ + BR * LD;
    T *sS = sG + BR * LD; /* dS [query][key] */
    float *sL = reinterpret_cast<float *>(sS + BR * LDS);
    float *sD = sL + BR;

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int j0 = blockIdx.x * BC;
    const long long bk = blockIdx.y; /* b * HK + hk */
    const int Gq = H / HK;
    const long long b = bk / HK, hk = bk % HK;
    const size_t kvbase = (size_t)bk * SK * D;
    const int off = SK - S; /* key j visible to row i iff j <= i + off */

    load_tile<T, D>(sK, K + kvbase, j0, SK);
    load_tile<T, D>(sV, V + kvbase, j0, SK);

    float dv[ND][4], dk[ND][4];
#pragma unroll
    for (int n = 0; n < ND; n++)
#pragma unroll
        for (int c = 0; c < 4; c++)
            dv[n][c] = dk[n][c] = 0.f;

    /* the first query tile that sees a key of this block */
    int t0 = 0;
    if (causal) {
        const int x = j0 - off - (BR - 1);
        t0 = x <= 0 ? 0 : (x + BR - 1) / BR;
    }
    const int ntiles = (S + BR - 1) / BR;
    const float sl2 = scale * LOG2E;
    const int kw = warp * 16; /* this warp's keys within the block */

    for (int gq = 0; gq < Gq; gq++) {
        const long long bh = b * H + hk * Gq + gq;
        const size_t qbase = (size_t)bh * S * D;
        for (int ti = t0; ti < ntiles; ti++) {
            const int q0 = ti * BR;
            __syncthreads(); /* the previous step is done with sQ, sG, sS */
            load_tile<T, D>(sQ, Q + qbase, q0, S);
            load_tile<T, D>(sG, G + qbase, q0, S);
            for (int r = threadIdx.x; r < BR; r += blockDim.x) {
                const bool in = q0 + r < S;
                sL[r] = in ? lse[bh * S + q0 + r] * LOG2E : INFINITY; /* +inf: P = 0 */
                sD[r] = in ? delta[bh * S + q0 + r] : 0.f;
            }
            __syncthreads();

            /* S^T = K_w Q^T and dP^T = V_w dO^T: [16 keys x 64 queries] */
            float sc[8][4], dp[8][4];
#pragma unroll
            for (int n = 0; n < 8; n++)
#pragma unroll
                for (int c = 0; c < 4; c++)
                    sc[n][c] = dp[n][c] = 0.f;
#pragma unroll
            for (int kk = 0; kk < D / 16; kk++) {
                uint32_t ak[4], av[4];
                ldsm_x4(ak, smem_u32(sK + (kw + (lane % 16)) * LD + kk * 16 + (lane / 16) * 8));
                ldsm_x4(av, smem_u32(sV + (kw + (lane % 16)) * LD + kk * 16 + (lane / 16) * 8));
#pragma unroll
                for (int np = 0; np < 4; np++) { /* pairs of 8-query n-tiles */
                    const int mi = lane / 8, r = lane % 8;
                    const int row = np * 16 + (mi / 2) * 8 + r, col = kk * 16 + (mi % 2) * 8;
                    uint32_t bq[4], bg[4];
                    ldsm_x4(bq, smem_u32(sQ + row * LD + col));
                    ldsm_x4(bg, smem_u32(sG + row * LD + col));
                    dtype_ops<T>::mma(sc[2 * np], ak, bq[0], bq[1]);
                    dtype_ops<T>::mma(sc[2 * np + 1], ak, bq[2], bq[3]);
                    dtype_ops<T>::mma(dp[2 * np], av, bg[0], bg[1]);
                    dtype_ops<T>::mma(dp[2 * np + 1], av, bg[2], bg[3]);
                }
            }
            /* P^T and dS^T; accumulator (c0,c1): key g, queries 2t, 2t+1;
             * (c2,c3): key g+8 */
#pragma unroll
            for (int n = 0; n < 8; n++)
#pragma unroll
                for (int c = 0; c < 4; c++) {
                    const int qi = n * 8 + 2 * t + (c & 1), kj = kw + g + (c >> 1) * 8;
                    const int i = q0 + qi, j = j0 + kj;
                    const bool vis = i < S && j < SK && (!causal || j <= i + off);
                    const float p = vis ? exp2f(sc[n][c] * sl2 - sL[qi]) : 0.f;
                    sc[n][c] = p;
                    dp[n][c] = p * (dp[n][c] - sD[qi]);
                }
            /* dV_w += P^T dO and dK_w += dS^T Q: k over the 64 queries */
#pragma unroll
            for (int kc = 0; kc < 4; kc++) {
                uint32_t ap[4], as[4];
                ap[0] = dtype_ops<T>::pack(sc[2 * kc][0], sc[2 * kc][1]);
                ap[1] = dtype_ops<T>::pack(sc[2 * kc][2], sc[2 * kc][3]);
                ap[2] = dtype_ops<T>::pack(sc[2 * kc + 1][0], sc[2 * kc + 1][1]);
                ap[3] = dtype_ops<T>::pack(sc[2 * kc + 1][2], sc[2 * kc + 1][3]);
                as[0] = dtype_ops<T>::pack(dp[2 * kc][0], dp[2 * kc][1]);
                as[1] = dtype_ops<T>::pack(dp[2 * kc][2], dp[2 * kc][3]);
                as[2] = dtype_ops<T>::pack(dp[2 * kc + 1][0], dp[2 * kc + 1][1]);
                as[3] = dtype_ops<T>::pack(dp[2 * kc + 1][2], dp[2 * kc + 1][3]);
#pragma unroll
                for (int nd = 0; nd < D / 16; nd++) {
                    const int mi = lane / 8, r = lane % 8;
                    const int row = kc * 16 + (mi % 2) * 8 + r, col = nd * 16 + (mi / 2) * 8;
                    uint32_t bg[4], bq[4];
                    ldsm_x4_trans(bg, smem_u32(sG + row * LD + col));
                    ldsm_x4_trans(bq, smem_u32(sQ + row * LD + col));
                    dtype_ops<T>::mma(dv[2 * nd], ap, bg[0], bg[1]);
                    dtype_ops<T>::mma(dv[2 * nd + 1], ap, bg[2], bg[3]);
                    dtype_ops<T>::mma(dk[2 * nd], as, bq[0], bq[1]);
                    dtype_ops<T>::mma(dk[2 * nd + 1], as, bq[2], bq[3]);
                }
            }
            /* dS to shared memory as [query][key] */
#pragma unroll
            for (int n = 0; n < 8; n++)
#pragma unroll
                for (int c = 0; c < 4; c++) {
                    const int qi = n * 8 + 2 * t + (c & 1), kj = kw + g + (c >> 1) * 8;
                    sS[qi * LDS + kj] = fromf<T>(dp[n][c]);
                }
            __syncthreads();
            /* dQ rows 16w..16w+15 += dS K, in two halves of D */
            const int qr = warp * 16;
#pragma unroll
            for (int half = 0; half < 2; half++) {
                float acc[ND / 2][4];
#pragma unroll
                for (int n = 0; n < ND / 2; n++)
#pragma unroll
                    for (int c = 0; c < 4; c++)
                        acc[n][c] = 0.f;
#pragma unroll
                for (int kc = 0; kc < BC / 16; kc++) {
                    uint32_t a[4];
                    ldsm_x4(a, smem_u32(sS + (qr + (lane % 16)) * LDS + kc * 16 + (lane / 16) * 8));
#pragma unroll
                    for (int nd = 0; nd < D / 32; nd++) {
                        const int mi = lane / 8, r = lane % 8;
                        const int row = kc * 16 + (mi % 2) * 8 + r;
                        const int col = half * (D / 2) + nd * 16 + (mi / 2) * 8;
                        uint32_t bk4[4];
                        ldsm_x4_trans(bk4, smem_u32(sK + row * LD + col));
                        dtype_ops<T>::mma(acc[2 * nd], a, bk4[0], bk4[1]);
                        dtype_ops<T>::mma(acc[2 * nd + 1], a, bk4[2], bk4[3]);
                    }
                }
#pragma unroll
                for (int n = 0; n < ND / 2; n++)
#pragma unroll
                    for (int c = 0; c < 4; c++) {
                        const int i = q0 + qr + g + (c >> 1) * 8;
                        const int d = half * (D / 2) + n * 8 + 2 * t + (c & 1);
                        if (i < S)
                            atomicAdd(dqacc + qbase + (size_t)i * D + d, acc[n][c]);
                    }
            }
        }
    }
    /* dK = scale * sum dS^T Q, dV = sum P^T dO, in the dtype */
#pragma unroll
    for (int n = 0; n < ND; n++)
#pragma unroll
        for (int h2 = 0; h2 < 2; h2++) {
            const int j = j0 + kw + g + h2 * 8, d = n * 8 + 2 * t;
            if (j < SK) {
                T *pk = dK + kvbase + (size_t)j * D + d, *pv = dV + kvbase + (size_t)j * D + d;
                pk[0] = fromf<T>(dk[n][2 * h2] * scale);
                pk[1] = fromf<T>(dk[n][2 * h2 + 1] * scale);
                pv[0] = fromf<T>(dv[n][2 * h2]);
                pv[1] = fromf<T>(dv[n][2 * h2 + 1]);
            }
        }
}

struct ctx_t {
    void *fwd;        /* cuda_mma_pipeline's context (the forward) */
    float *dqacc;     /* [B,H,S,D] */
    float *delta;     /* [B,H,S] */
};

template <typename T, int D>
int launch(const ctx_t *c, const ab_shape *s, const void *q, const void *k, const void *v,
           const void *o, const void *g, const float *lse, void *dq, void *dk, void *dv,
           cudaStream_t st)
{
    const long long rows = (long long)s->B * s->H * s->S;
    const long long numel = rows * D;
    const int HK = ab_shape_hkv(s), SK = ab_shape_skv(s);
    const float scale = 1.0f / sqrtf((float)D);
    cudaError_t e = cudaMemsetAsync(c->dqacc, 0, (size_t)numel * sizeof(float), st);
    if (e != cudaSuccess)
        return (int)e;
    bwd_delta<T><<<(unsigned)((rows * 32 + 255) / 256), 256, 0, st>>>(
        (const T *)o, (const T *)g, c->delta, rows, D);
    dim3 grid((unsigned)((SK + BC - 1) / BC), (unsigned)(s->B * HK));
    bwd_main<T, D><<<grid, 128, smem_layout<D>::bytes, st>>>(
        (const T *)q, (const T *)k, (const T *)v, (const T *)g, lse, c->delta, c->dqacc, (T *)dk,
        (T *)dv, s->H, HK, s->S, SK, s->causal, scale);
    bwd_dq_out<T><<<2048, 256, 0, st>>>(c->dqacc, (T *)dq, numel, scale);
    return (int)cudaGetLastError();
}

template <typename T, int D> int set_smem(void)
{
    return cudaFuncSetAttribute(bwd_main<T, D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)smem_layout<D>::bytes) != cudaSuccess;
}

} /* namespace */

/* setup: fp16/bf16, D in {64, 128}; the forward's setup (cuda_mma_pipeline)
 * and, for a backward pass, the fp32 dQ accumulator (4 B*H*S*D bytes) and
 * Delta (4 B*H*S bytes), reported in *ws. -1 with err otherwise. */
extern "C" int cuda_mma_bwd_setup(const ab_shape *s, void **ctx, size_t *ws, char *err,
                                  size_t n)
{
    *ctx = NULL;
    *ws = 0;
    if ((s->dtype != AB_FP16 && s->dtype != AB_BF16) || (s->D != 64 && s->D != 128)) {
        snprintf(err, n, "cuda_mma_bwd: fp16 or bf16 and D in {64, 128} only");
        return -1;
    }
    if ((long long)s->B * ab_shape_hkv(s) > 65535) { /* the grid's y dimension */
        snprintf(err, n, "cuda_mma_bwd: B*H_kv = %lld exceeds the grid's 65535 blocks in y",
                 (long long)s->B * ab_shape_hkv(s));
        return -1;
    }
    ctx_t *c = (ctx_t *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, n, "cuda_mma_bwd: out of host memory");
        return -1;
    }
    size_t fws = 0;
    if (int frc = cuda_mma_pipeline_setup(s, &c->fwd, &fws, err, n)) {
        free(c);
        return frc;
    }
    if (s->pass != AB_FWD) {
        const size_t rows = (size_t)s->B * s->H * s->S;
        const int bad = (s->D == 64 ? (s->dtype == AB_FP16 ? set_smem<__half, 64>()
                                                           : set_smem<__nv_bfloat16, 64>())
                                    : (s->dtype == AB_FP16 ? set_smem<__half, 128>()
                                                           : set_smem<__nv_bfloat16, 128>()));
        if (bad || cudaMalloc((void **)&c->dqacc, rows * s->D * sizeof(float)) != cudaSuccess ||
            cudaMalloc((void **)&c->delta, rows * sizeof(float)) != cudaSuccess) {
            snprintf(err, n, "cuda_mma_bwd: %s", cudaGetErrorString(cudaGetLastError()));
            cuda_mma_bwd_teardown(c);
            return -1;
        }
        *ws = rows * (s->D + 1) * sizeof(float);
    }
    *ctx = c;
    return 0;
}

/* run: the forward, cuda_mma_pipeline's. */
extern "C" int cuda_mma_bwd_run(void *ctx, const ab_shape *s, const void *q, const void *k,
                                const void *v, void *o, void *stream)
{
    return cuda_mma_pipeline_run(((ctx_t *)ctx)->fwd, s, q, k, v, o, stream);
}

/* run_bwd: enqueues Delta, the main kernel and the dQ conversion on
 * `stream` (no allocation, no synchronisation: graph-capturable). Returns
 * 0 or a cudaError_t. */
extern "C" int cuda_mma_bwd_run_bwd(void *ctx, const ab_shape *s, const void *q, const void *k,
                                    const void *v, const void *o, const void *dout,
                                    const float *lse, void *dq, void *dk, void *dv, void *stream)
{
    const ctx_t *c = (const ctx_t *)ctx;
    cudaStream_t st = (cudaStream_t)stream;
    if (s->D == 64)
        return s->dtype == AB_FP16
                   ? launch<__half, 64>(c, s, q, k, v, o, dout, lse, dq, dk, dv, st)
                   : launch<__nv_bfloat16, 64>(c, s, q, k, v, o, dout, lse, dq, dk, dv, st);
    return s->dtype == AB_FP16
               ? launch<__half, 128>(c, s, q, k, v, o, dout, lse, dq, dk, dv, st)
               : launch<__nv_bfloat16, 128>(c, s, q, k, v, o, dout, lse, dq, dk, dv, st);
}

extern "C" void cuda_mma_bwd_teardown(void *ctx)
{
    ctx_t *c = (ctx_t *)ctx;
    if (!c)
        return;
    cuda_mma_pipeline_teardown(c->fwd);
    cudaFree(c->dqacc);
    cudaFree(c->delta);
    free(c);
}
