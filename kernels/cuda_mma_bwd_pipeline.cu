/*
 * cuda_mma_bwd_pipeline.cu: the backward pass of attention on the tensor
 * cores with swizzled shared memory and a double-buffered, asynchronous
 * Q/dO pipeline, rung "cuda_mma_bwd_pipeline" of the ladder,
 * built on cuda_mma_bwd (the same algorithm with synchronous loads and
 * padded shared memory). Its forward is cuda_mma_pipeline's.
 *
 * What changed against cuda_mma_bwd, and the expectation written before
 * the committed run: every tile in XOR-swizzled shared memory (no padding,
 * conflict-free ldmatrix and cp.async stores); the next query tile's Q,
 * dO, logsumexp and Delta copied by cp.async while the current one is
 * computed (two stages); dS^T stored as it sits in the accumulators with
 * 32-bit stores and read back by ldmatrix.trans; masks only on tiles that
 * cross the diagonal or the sequence end; dQ by vector atomics
 * (red.global.add.v2.f32). A standalone timing of this file against
 * cuda_mma_bwd's (NVIDIA H200, 2026-11-24, fp16, B = 4, H = 16, S = 4096,
 * non-causal; not in a committed database) ran about twice as fast:
 * predicted 2.0-2.2x over cuda_mma_bwd in the committed run.
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
 *     P^T = exp(scale S^T - lse_i)         (bottom-right causal mask, only
 *                                           on tiles that need one)
 *     dV_w += P^T dO_i                     (A: P^T from the accumulators,
 *                                           FlashAttention-2's register reuse;
 *                                           B: dO by ldmatrix.trans)
 *     dP^T = V_w dO_i^T,  dS^T = P^T (dP^T - Delta_i)
 *     dK_w += dS^T Q_i                     (B: Q by ldmatrix.trans)
 * then dS^T goes to shared memory as it sits in the accumulators ([key]
 * [query], 32-bit stores of query pairs) and warp w adds dQ for rows
 * 16w..16w+15 = dS K_j (A: dS by ldmatrix.trans of dS^T; B: K by
 * ldmatrix.trans) with vector fp32 atomics (red.global.add.v2.f32).
 * Three launches per call, plus a memset of the accumulator: Delta_i =
 * rowsum(dO_i * O_i), the main kernel, and dQ = scale * accumulator in the
 * dtype.
 *
 * Shared memory: every tile is stored with FlashAttention-2's XOR swizzle
 * (mma_common.cuh tile_off), so ldmatrix phases and the 16-byte cp.async
 * stores are bank-conflict free. Q_i, dO_i, lse_i and Delta_i are
 * double-buffered: the copies (cp.async, zero-filled past S) for step i+1
 * are issued before step i computes. Two barriers per step: after the
 * copy wait (the tile landed; everyone is done with the previous dS) and
 * after the dS store.
 *
 * Tiles: Bc = 64 keys, Br = 64 queries, 4 warps (128 threads).
 * Shared memory per block: K, V 2*64*D*2 B, Q, dO two stages 4*64*D*2 B,
 * dS 8 KiB, lse/Delta 1 KiB: 57 KiB (D = 64), 105 KiB (D = 128).
 * ptxas -v (CUDA 13.0, sm_90a): main kernel D = 64: 203 registers, no
 * spill; D = 128: 255 registers, 24 bytes of spill stores (cuda_mma_bwd:
 * 185 and 255 with 80 bytes).
 *
 * Measured (NVIDIA H200, 2026-11-24, reports/bwd-ladder/bwd-ladder.db, its
 * report bwd-ladder-run1.md, experiments/bwd-ladder.cfg: 40 configurations,
 * D = 64/128, S = 512..8192 at B*S = 16384, H = 16, causal or not,
 * fp16/bf16; hot mode, 40 samples in 20 rounds; SM clocks 1875-1980 MHz,
 * 571 of 4000 blocks at the software power cap): 117-218 TFLOP/s
 * (FlashAttention's backward FLOP count), every gradient within
 * FlashAttention's tolerance. 2.15x faster than cuda_mma_bwd (geometric
 * mean; 1.95-2.41x; the prediction above held); 0.89x the speed of PyTorch
 * 2.11's SDPA flash backward (0.75-1.27x: faster at S = 512 and at S = 1024
 * causal D = 64, where PyTorch's autograd dispatch is part of its time;
 * 0.85-1.12x at S = 1024-2048 causal, the low end at S = 2048 D = 128;
 * 0.75-0.86x at S = 8192) and 0.49x cudnn_sdpa's backward (0.36-0.75x).
 *
 * Still to take (Bc = 128 with 8 warps timed 4% faster by the helper that
 * wrote it, at D = 128 non-causal, in no committed database; not adopted
 * here): the dQ atomics
 * (FlashAttention-2 keeps them; FlashAttention-3 moves dQ through a
 * separate accumulation warpgroup), the D = 128 register spill, and Hopper's
 * wgmma/TMA, which cudnn's 2x lead stands on.
 *
 * Source: Tri Dao, "FlashAttention-2: Faster Attention with Better
 * Parallelism and Work Partitioning" (2023), Algorithm 2; the fragment
 * layouts of kernels/mma_common.cuh (PTX ISA, mma.m16n8k16).
 */
#include "bwd_common.cuh"
#include "entry_points.h"
#include "gpu.h"
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
using namespace abbwd;

namespace {

constexpr int BC = 64;   /* keys per block */
constexpr int BR = 64;   /* query rows per step */
constexpr int NTHR = 128; /* 4 warps, 16 keys each */
constexpr float LOG2E = 1.4426950408889634f;

/* Byte offsets of the shared-memory regions of the main kernel for head
 * dimension D (rows of D 16-bit elements, swizzled). */
template <int D> struct smem_layout {
    static constexpr int ROWB = D * 2;               /* bytes per K/V/Q/dO row */
    static constexpr int K = 0;
    static constexpr int V = K + BC * ROWB;
    static constexpr int Q = V + BC * ROWB;          /* two stages */
    static constexpr int G = Q + 2 * BR * ROWB;      /* dO, two stages */
    static constexpr int S = G + 2 * BR * ROWB;      /* dS^T [key][query], 128 B rows */
    static constexpr int L = S + BC * BR * 2;        /* lse, two stages of BR floats */
    static constexpr int DL = L + 2 * BR * 4;        /* Delta, two stages */
    static constexpr int bytes = DL + 2 * BR * 4;
};

/* Issues the cp.async copies of rows [r0, r0 + 64) of a [rows x D] tensor
 * into the swizzled tile at shared address dst; rows past `rows` are
 * zero-filled. Every thread of the block calls it. */
template <int D>
__device__ __forceinline__ void tile_async(uint32_t dst, const void *src, int r0, int rows)
{
    constexpr int CH = D / 8; /* 16-byte chunks per row */
#pragma unroll
    for (int c = threadIdx.x; c < 64 * CH; c += NTHR) {
        const int r = c / CH, k = c % CH;
        const bool in = r0 + r < rows;
        const char *g = reinterpret_cast<const char *>(src) +
                        (in ? ((size_t)(r0 + r) * D + k * 8) * 2 : 0);
        cp_async16(dst + tile_off<D * 2, true>(r, k), g, in ? 16 : 0);
    }
}

/* The main kernel: block (key tile of 64, b * H_kv + hk), 128 threads,
 * smem_layout<D>::bytes of dynamic shared memory. Adds dS K (unscaled)
 * into dqacc; writes dK = scale dS^T Q and dV = P^T dO of its 64 keys
 * (summed over the H / H_kv query heads of the group) in the dtype. */
template <typename T, int D>
__global__ void __launch_bounds__(NTHR)
    bwd_main(const T *__restrict__ Q, const T *__restrict__ K, const T *__restrict__ V,
             const T *__restrict__ G, const float *__restrict__ lse,
             const float *__restrict__ delta, float *__restrict__ dqacc, T *__restrict__ dK,
             T *__restrict__ dV, int H, int HK, int S, int SK, int causal, float scale)
{
    using L = smem_layout<D>;
    constexpr int ROWB = L::ROWB, ND = D / 8; /* n-tiles over D */
    extern __shared__ __align__(128) unsigned char smem[];
    const uint32_t sbase = smem_u32(smem);
    const uint32_t sK = sbase + L::K, sV = sbase + L::V, sS = sbase + L::S;
    const float *sL = reinterpret_cast<const float *>(smem + L::L);
    const float *sDl = reinterpret_cast<const float *>(smem + L::DL);

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int mi = lane / 8, r8 = lane % 8; /* ldmatrix: matrix and row of this lane */
    const int j0 = blockIdx.x * BC;
    const long long bk = blockIdx.y; /* b * HK + hk */
    const int Gq = H / HK;
    const long long b = bk / HK, hk = bk % HK;
    const size_t kvbase = (size_t)bk * SK * D;
    const int off = SK - S; /* key j visible to row i iff j <= i + off */

    /* the first query tile whose last row sees key j0 */
    int t0 = 0;
    if (causal) {
        const int x = j0 - off - (BR - 1);
        t0 = x <= 0 ? 0 : (x + BR - 1) / BR;
    }
    const int ntiles = (S + BR - 1) / BR;
    const int nt = ntiles > t0 ? ntiles - t0 : 0;
    const int nsteps = Gq * nt;

    /* copies of step `it` (query head of the group, query tile) into stage st */
    auto prefetch = [&](int it, int st) {
        const int gq = it / nt, q0 = (t0 + it % nt) * BR;
        const long long bh = b * H + hk * Gq + gq;
        tile_async<D>(sbase + L::Q + st * BR * ROWB, Q + (size_t)bh * S * D, q0, S);
        tile_async<D>(sbase + L::G + st * BR * ROWB, G + (size_t)bh * S * D, q0, S);
        const int r = threadIdx.x % BR;
        const bool in = q0 + r < S;
        const float *src = (threadIdx.x < BR ? lse : delta) + (in ? bh * S + q0 + r : 0);
        cp_async4(sbase + (threadIdx.x < BR ? L::L : L::DL) + (st * BR + r) * 4, src,
                  in ? 4 : 0);
    };

    tile_async<D>(sK, K + kvbase, j0, SK);
    tile_async<D>(sV, V + kvbase, j0, SK);
    if (nsteps > 0)
        prefetch(0, 0);
    cp_async_commit();

    float dv[ND][4], dk[ND][4];
#pragma unroll
    for (int n = 0; n < ND; n++)
#pragma unroll
        for (int c = 0; c < 4; c++)
            dv[n][c] = dk[n][c] = 0.f;

    const float sl2 = scale * LOG2E;
    const int kw = warp * 16; /* this warp's keys within the block */

    for (int it = 0; it < nsteps; it++) {
        const int st = it & 1;
        /* the other stage was last read before the previous step's second
         * barrier, which every thread here has passed */
        if (it + 1 < nsteps)
            prefetch(it + 1, st ^ 1);
        cp_async_commit();
        cp_async_wait<1>();
        __syncthreads(); /* stage st landed; the previous dQ is done with sS */

        const int gq = it / nt, q0 = (t0 + it % nt) * BR;
        const long long bh = b * H + hk * Gq + gq;
        const uint32_t sQ = sbase + L::Q + st * BR * ROWB, sG = sbase + L::G + st * BR * ROWB;
        const float *lL = sL + st * BR, *lD = sDl + st * BR;

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
            ldsm_x4(ak, sK + tile_off<ROWB, true>(kw + (lane % 16), kk * 2 + lane / 16));
            ldsm_x4(av, sV + tile_off<ROWB, true>(kw + (lane % 16), kk * 2 + lane / 16));
#pragma unroll
            for (int np = 0; np < 4; np++) { /* pairs of 8-query n-tiles */
                const int row = np * 16 + (mi / 2) * 8 + r8, ch = kk * 2 + (mi % 2);
                uint32_t bq[4], bg[4];
                ldsm_x4(bq, sQ + tile_off<ROWB, true>(row, ch));
                ldsm_x4(bg, sG + tile_off<ROWB, true>(row, ch));
                dtype_ops<T>::mma(sc[2 * np], ak, bq[0], bq[1]);
                dtype_ops<T>::mma(sc[2 * np + 1], ak, bq[2], bq[3]);
                dtype_ops<T>::mma(dp[2 * np], av, bg[0], bg[1]);
                dtype_ops<T>::mma(dp[2 * np + 1], av, bg[2], bg[3]);
            }
        }
        /* P^T and dS^T; accumulator (c0,c1): key g, queries 2t, 2t+1;
         * (c2,c3): key g+8. A mask only where some (row, key) of the tile
         * is out of range or causally hidden. */
        const bool full = q0 + BR <= S && j0 + BC <= SK && (!causal || j0 + BC - 1 <= q0 + off);
#pragma unroll
        for (int n = 0; n < 8; n++)
#pragma unroll
            for (int c = 0; c < 4; c++) {
                const int qi = n * 8 + 2 * t + (c & 1), kj = kw + g + (c >> 1) * 8;
                float p = fast_exp2(fmaf(sc[n][c], sl2, -lL[qi] * LOG2E));
                if (!full) {
                    const int i = q0 + qi, j = j0 + kj;
                    const bool vis = i < S && j < SK && (!causal || j <= i + off);
                    p = vis ? p : 0.f;
                }
                sc[n][c] = p;
                dp[n][c] = p * (dp[n][c] - lD[qi]);
            }
        /* dS^T to shared memory as [key][query] (query pairs packed) */
#pragma unroll
        for (int n = 0; n < 8; n++)
#pragma unroll
            for (int h2 = 0; h2 < 2; h2++) {
                const uint32_t a = sS + tile_off<128, true>(kw + g + h2 * 8, n) + 4 * t;
                const uint32_t v = dtype_ops<T>::pack(dp[n][2 * h2], dp[n][2 * h2 + 1]);
                asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(a), "r"(v) : "memory");
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
                const int row = kc * 16 + (mi % 2) * 8 + r8, ch = nd * 2 + mi / 2;
                uint32_t bg[4], bq[4];
                ldsm_x4_trans(bg, sG + tile_off<ROWB, true>(row, ch));
                ldsm_x4_trans(bq, sQ + tile_off<ROWB, true>(row, ch));
                dtype_ops<T>::mma(dv[2 * nd], ap, bg[0], bg[1]);
                dtype_ops<T>::mma(dv[2 * nd + 1], ap, bg[2], bg[3]);
                dtype_ops<T>::mma(dk[2 * nd], as, bq[0], bq[1]);
                dtype_ops<T>::mma(dk[2 * nd + 1], as, bq[2], bq[3]);
            }
        }
        __syncthreads(); /* dS complete */

        /* dQ rows 16w..16w+15 += dS K, in chunks of 64 columns of D */
        const int qr = warp * 16;
        float *dqrow = dqacc + (size_t)bh * S * D;
#pragma unroll
        for (int part = 0; part < D / 64; part++) {
            float acc[8][4];
#pragma unroll
            for (int n = 0; n < 8; n++)
#pragma unroll
                for (int c = 0; c < 4; c++)
                    acc[n][c] = 0.f;
#pragma unroll
            for (int kc = 0; kc < BC / 16; kc++) {
                uint32_t a[4];
                ldsm_x4_trans(a, sS + tile_off<128, true>(kc * 16 + (mi / 2) * 8 + r8,
                                                          2 * warp + (mi % 2)));
#pragma unroll
                for (int nd = 0; nd < 4; nd++) {
                    const int row = kc * 16 + (mi % 2) * 8 + r8;
                    const int ch = part * 8 + nd * 2 + mi / 2;
                    uint32_t bk4[4];
                    ldsm_x4_trans(bk4, sK + tile_off<ROWB, true>(row, ch));
                    dtype_ops<T>::mma(acc[2 * nd], a, bk4[0], bk4[1]);
                    dtype_ops<T>::mma(acc[2 * nd + 1], a, bk4[2], bk4[3]);
                }
            }
#pragma unroll
            for (int n = 0; n < 8; n++)
#pragma unroll
                for (int h2 = 0; h2 < 2; h2++) {
                    const int i = q0 + qr + g + h2 * 8;
                    const int d = part * 64 + n * 8 + 2 * t;
                    if (i < S)
                        atomic_add_f2(dqrow + (size_t)i * D + d,
                                      make_float2(acc[n][2 * h2], acc[n][2 * h2 + 1]));
                }
        }
    }
    cp_async_wait<0>();
    /* dK = scale * sum dS^T Q, dV = sum P^T dO, in the dtype */
#pragma unroll
    for (int n = 0; n < ND; n++)
#pragma unroll
        for (int h2 = 0; h2 < 2; h2++) {
            const int j = j0 + kw + g + h2 * 8, d = n * 8 + 2 * t;
            if (j < SK)
                bwd_store_kv2<T>(dK, dV, kvbase + (size_t)j * D + d, dk[n][2 * h2],
                                 dk[n][2 * h2 + 1], dv[n][2 * h2], dv[n][2 * h2 + 1], scale);
        }
}

/* What setup keeps: the forward's context and the backward workspace. */
struct ctx_t {
    void *fwd;    /* cuda_mma_pipeline's context (the forward) */
    float *dqacc; /* [B,H,S,D] fp32 dQ accumulator (NULL for pass = fwd) */
    float *delta; /* [B,H,S] */
};

/* Enqueues the four steps of one backward pass on st; 0 or a cudaError_t. */
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
    bwd_delta<T, D><<<(unsigned)((rows * (D / 8) + 255) / 256), 256, 0, st>>>(
        (const T *)o, (const T *)g, c->delta, rows);
    dim3 grid((unsigned)((SK + BC - 1) / BC), (unsigned)(s->B * HK));
    bwd_main<T, D><<<grid, NTHR, smem_layout<D>::bytes, st>>>(
        (const T *)q, (const T *)k, (const T *)v, (const T *)g, lse, c->delta, c->dqacc, (T *)dk,
        (T *)dv, s->H, HK, s->S, SK, s->causal, scale);
    const long long n4 = numel / 4;
    const long long nb = (n4 + 255) / 256;
    bwd_dq_out<T><<<(unsigned)(nb < 4096 ? nb : 4096), 256, 0, st>>>(
        (const float4 *)c->dqacc, (T *)dq, n4, scale);
    return (int)cudaGetLastError();
}

/* Raises bwd_main<T, D>'s dynamic shared-memory limit; 0 or a cudaError_t. */
template <typename T, int D> int set_smem(void)
{
    return (int)cudaFuncSetAttribute(bwd_main<T, D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     smem_layout<D>::bytes);
}

} /* namespace */

/* setup: fp16/bf16, D in {64, 128}; the forward's setup (cuda_mma_pipeline)
 * and, unless s->pass is "fwd", the fp32 dQ accumulator (4 B*H*S*D bytes)
 * and Delta (4 B*H*S bytes), reported in *ws. AB_SETUP_UNSUPPORTED where
 * the device gives a block less shared memory than the backward needs
 * (D = 128 on sm_86, sm_89); non-zero with err otherwise. */
extern "C" int cuda_mma_bwd_pipeline_setup(const ab_shape *s, void **ctx, size_t *ws, char *err,
                                  size_t n)
{
    *ctx = NULL;
    *ws = 0;
    if ((s->dtype != AB_FP16 && s->dtype != AB_BF16) || (s->D != 64 && s->D != 128)) {
        snprintf(err, n, "cuda_mma_bwd_pipeline: fp16 or bf16 and D in {64, 128} only");
        return -1;
    }
    if ((long long)s->B * ab_shape_hkv(s) > 65535) { /* the grid's y dimension */
        snprintf(err, n, "cuda_mma_bwd_pipeline: B*H_kv = %lld exceeds the grid's 65535 blocks in y",
                 (long long)s->B * ab_shape_hkv(s));
        return -1;
    }
    if (s->pass != AB_FWD) { /* 105 KiB at D = 128: more than sm_86, sm_89 give a block */
        const size_t need = s->D == 64 ? smem_layout<64>::bytes : smem_layout<128>::bytes;
        if (int fit = ab_gpu_smem_fits(need, "cuda_mma_bwd_pipeline", s->D, err, n))
            return fit;
    }
    ctx_t *c = (ctx_t *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, n, "cuda_mma_bwd_pipeline: out of host memory");
        return -1;
    }
    size_t fws = 0;
    if (int frc = cuda_mma_pipeline_setup(s, &c->fwd, &fws, err, n)) {
        free(c);
        return frc;
    }
    if (s->pass != AB_FWD) {
        const size_t rows = (size_t)s->B * s->H * s->S;
        const int bad = s->D == 64 ? (s->dtype == AB_FP16 ? set_smem<__half, 64>()
                                                          : set_smem<__nv_bfloat16, 64>())
                                   : (s->dtype == AB_FP16 ? set_smem<__half, 128>()
                                                          : set_smem<__nv_bfloat16, 128>());
        cudaError_t e = (cudaError_t)bad;
        if (e == cudaSuccess)
            e = cudaMalloc((void **)&c->dqacc, rows * s->D * sizeof(float));
        if (e == cudaSuccess)
            e = cudaMalloc((void **)&c->delta, rows * sizeof(float));
        if (e != cudaSuccess) {
            snprintf(err, n, "cuda_mma_bwd_pipeline: %s", cudaGetErrorString(e));
            cuda_mma_bwd_pipeline_teardown(c);
            return -1;
        }
        *ws = rows * (s->D + 1) * sizeof(float);
    }
    *ws += fws;
    *ctx = c;
    return 0;
}

/* run: the forward, cuda_mma_pipeline's (o = attention(q, k, v)). */
extern "C" int cuda_mma_bwd_pipeline_run(void *ctx, const ab_shape *s, const void *q, const void *k,
                                const void *v, void *o, void *stream)
{
    return cuda_mma_pipeline_run(((ctx_t *)ctx)->fwd, s, q, k, v, o, stream);
}

/* run_bwd: enqueues the accumulator memset, Delta, the main kernel and the
 * dQ conversion on `stream` (no allocation, no synchronisation: graph-
 * capturable). Needs a setup with s->pass != "fwd". Returns 0 or a
 * cudaError_t. */
extern "C" int cuda_mma_bwd_pipeline_run_bwd(void *ctx, const ab_shape *s, const void *q, const void *k,
                                    const void *v, const void *o, const void *dout,
                                    const float *lse, void *dq, void *dk, void *dv, void *stream)
{
    const ctx_t *c = (const ctx_t *)ctx;
    if (!c || !c->dqacc)
        return (int)cudaErrorInvalidValue;
    cudaStream_t st = (cudaStream_t)stream;
    if (s->D == 64)
        return s->dtype == AB_FP16
                   ? launch<__half, 64>(c, s, q, k, v, o, dout, lse, dq, dk, dv, st)
                   : launch<__nv_bfloat16, 64>(c, s, q, k, v, o, dout, lse, dq, dk, dv, st);
    return s->dtype == AB_FP16
               ? launch<__half, 128>(c, s, q, k, v, o, dout, lse, dq, dk, dv, st)
               : launch<__nv_bfloat16, 128>(c, s, q, k, v, o, dout, lse, dq, dk, dv, st);
}

/* teardown: frees what setup allocated (the forward's context included);
 * ctx may be NULL. */
extern "C" void cuda_mma_bwd_pipeline_teardown(void *ctx)
{
    ctx_t *c = (ctx_t *)ctx;
    if (!c)
        return;
    if (c->fwd)
        cuda_mma_pipeline_teardown(c->fwd);
    cudaFree(c->dqacc);
    cudaFree(c->delta);
    free(c);
}
