/*
 * cuda_wgmma_bwd_ws.cu: the backward pass of attention on Hopper with a
 * producer warpgroup, rung "cuda_wgmma_bwd_ws" of the backward ladder
 * (previous rung cuda_wgmma_bwd). Its forward is cuda_wgmma_persistent's.
 *
 * Idea: take every memory operation off the two consumer warpgroups.
 * cuda_wgmma_bwd's 256 threads issue the cp.async copies of each query
 * tile and, after the dQ product, 64 x D / 256 fp32 vector atomics each,
 * both on the critical path of the tensor cores (the two warpgroups meet
 * at two block barriers per step, so neither hides the other's memory
 * work). Here a third warpgroup, the producer (FlashAttention-3's warp
 * specialisation, its backward's dQ writer folded into it):
 *   - one thread loads each query tile by TMA: Q and dO (cp.async.bulk.
 *     tensor, 128B swizzle, rows past S zero-filled) and the tile's 64
 *     logsumexp (pre-scaled by log2 e) and Delta values (cp.async.bulk of
 *     256 bytes from buffers padded to a multiple of 64 rows, written by
 *     the pre-pass), into two stages handed over by full/empty mbarriers;
 *     K and V of the block by TMA once;
 *   - all 128 producer threads add the consumers' dQ share of the previous
 *     tile to the fp32 accumulator with float4 atomics (red.global.add.v4)
 *     from a shared-memory buffer, handed over by dQ-full/dQ-empty
 *     mbarriers, while the consumers compute the next tile;
 *   - the consumers (setmaxnreg 240, the producer 24: 128 x 24 + 256 x 240
 *     = 384 x 168, the block's allocation at launch; setmaxnreg.inc cannot
 *     take more than the block was given, and a first try with 32 / 240
 *     waited forever) only wait on
 *     mbarriers, run the wgmma products and the element-wise work of
 *     wgmma_bwd.cuh, write their fp32 dQ share to shared memory (rows
 *     padded by 8 floats: conflict-free 8-byte stores) and meet once per
 *     step at a 256-thread named barrier (dS^T complete, double-buffered
 *     so a warpgroup may run into the next tile while the other still
 *     reads the last one's).
 * Launches per call: the accumulator memset, the pre-pass (Delta and
 * lse log2 e into padded buffers), the main kernel, dQ = scale * acc.
 *
 * Prediction (before the first run): the consumers' step loses the copy
 * issue and the atomics (about 64 x D x 4 bytes of red per step per block;
 * at D = 128, 16 float2 reds per consumer thread) and one block barrier;
 * the S/dP wait and the element-wise work stay exposed. 1.15-1.35x
 * cuda_wgmma_bwd at D = 128, 1.1-1.3x at D = 64.
 *
 * Measured (NVIDIA H200, 2026-11-26, reports/hopper-bwd/hopper-bwd.db runs
 * 1-3, the same experiments as cuda_wgmma_bwd's): 200.6-445.7 TFLOP/s over
 * the 20 bf16 configurations; 1.28x cuda_wgmma_bwd at D = 128 (geometric
 * mean, 1.20-1.33; predicted 1.15-1.35: held), 1.22x at D = 64 (1.16-1.29;
 * predicted 1.1-1.3: held); 0.78x cudnn_sdpa (0.73-0.88; fp16 0.78x,
 * 0.73-0.88), the best own backward; Llama 3 8B (S = 2K/4K/8K) 200.6,
 * 270.6, 364.7 TFLOP/s, 0.66x cudnn_sdpa (0.63-0.70: B = 1 and H_kv = 8
 * give 128-512 blocks on 132 SMs). Every gradient within FlashAttention's
 * tolerance; gpu_check_bwd 120 cases and memcheck, racecheck, synccheck
 * clean (reports/hopper-bwd/). ptxas: 168 registers at entry, no spills
 * (the producer's dQ loop kept at unroll 1 to stay inside 24). Nsight
 * Compute at B=4 H=16 S=4096 D=128 bf16 non-causal
 * (reports/hopper-bwd/ncu-call3.log): 3.06 ms for the main kernel
 * (cuda_wgmma_bwd 3.97), tensor pipe active 48.1% of peak (36.9%), issue
 * slots 41.1%; the consumers still wait on their own wgmma results (1.32
 * per issue: the S/dP products are waited for before the element-wise
 * work, the dQ product before its shared-memory store) and on memory
 * (1.17). What is left to take, and what FlashAttention-3 has that this
 * rung lacks: overlap of the element-wise work with the products inside a
 * warpgroup (S and dP committed apart, exp2 while dP runs), more blocks at
 * small B * H_kv (the Llama shape fills 128-512 blocks on 132 SMs), and a
 * causal schedule longest first across heads.
 *
 * Shared memory (bytes, regions on 1024-byte boundaries): K, V 2 x 128 x D
 * x 2; Q, dO two stages 4 x 64 x D x 2; dS^T two buffers 2 x 128 x 64 x 2;
 * logsumexp, Delta two stages 1 KiB; dQ 64 x (D + 8) x 4; 7 mbarriers;
 * + 1 KiB alignment slack: 116 KiB (D = 64), 196 KiB (D = 128). One
 * block of 384 threads per SM.
 *
 * Supported: as cuda_wgmma_bwd (fp16, bf16; D in {64, 128}; causal or not;
 * any S, S_kv >= 1 with the bottom-right mask; H_kv dividing H); sm_90a
 * only, other devices get AB_SETUP_UNSUPPORTED.
 *
 * Sources: Shah et al., "FlashAttention-3" (2024) sections 3.1 (producer
 * warpgroup, TMA, mbarrier pipeline, setmaxnreg) and its backward (a
 * separate dQ accumulation), read to understand, not copied; Tri Dao,
 * "FlashAttention-2" (2023) Algorithm 2; PTX ISA cp.async.bulk,
 * cp.async.bulk.tensor, mbarrier, setmaxnreg, red.global.add (v4.f32).
 */
#include "bwd_common.cuh"
#include "entry_points.h"
#include "gpu.h"
#include "wgmma_bwd.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <type_traits>

using namespace abwg;
using namespace abwgb;
using namespace abbwd;

namespace {

constexpr int NWG = 2;              /* consumer warpgroups, 64 keys each */
constexpr int BC = 64 * NWG;        /* keys per block */
constexpr int BR = 64;              /* query rows per step */
constexpr int NT = 128 * (NWG + 1); /* producer warpgroup + consumers */

/* Byte offsets of the shared-memory regions for head dimension D. */
template <int D> struct smem_layout {
    static constexpr int TK = BC * D * 2;   /* one K or V tile */
    static constexpr int TQ = BR * D * 2;   /* one stage of Q or dO */
    static constexpr int TS = BC * BR * 2;  /* one dS^T buffer */
    static constexpr int DQS = D + 8;       /* floats per row of the dQ buffer */
    static constexpr int K = 0;
    static constexpr int V = K + TK;
    static constexpr int Q = V + TK;        /* two stages */
    static constexpr int G = Q + 2 * TQ;    /* dO, two stages */
    static constexpr int DS = G + 2 * TQ;   /* dS^T, two buffers */
    static constexpr int L = DS + 2 * TS;   /* lse log2 e, two stages of BR floats */
    static constexpr int DL = L + 2 * BR * 4; /* Delta, two stages */
    static constexpr int DQ = DL + 2 * BR * 4; /* dQ share [BR][DQS] fp32 */
    static constexpr int BAR = DQ + BR * DQS * 4; /* mbarriers */
    static constexpr int bytes = BAR + 8 * 8 + 1024;
};

/* Pre-pass: for every row r = (bh, s) of [B*H, S]: delta[bh * Sp + s] =
 * sum_d dO O (fp32) and lse2[bh * Sp + s] = lse[r] log2 e; rows s in
 * [S, Sp) are left as they are (zero from setup). D/8 threads per row, one
 * 16-byte chunk each; rows * D / 8 threads in all, blocks of 256. */
template <typename T, int D>
__global__ void bwd_prep(const T *__restrict__ O, const T *__restrict__ G,
                         const float *__restrict__ lse, float *__restrict__ delta,
                         float *__restrict__ lse2, long long rows, int S, int Sp)
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
        const long long out = (row / S) * Sp + row % S;
        delta[out] = a;
        lse2[out] = lse[row] * 1.4426950408889634f;
    }
}

#if AB_WGMMA_DEVICE
/* bytes from global src to shared dst (both 16-byte aligned, bytes a
 * multiple of 16), completing on mbarrier bar (PTX cp.async.bulk) */
static __device__ __forceinline__ void bulk_load(uint32_t dst, const void *src, uint32_t bytes,
                                                 uint32_t bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1], %2, [%3];\n" ::"r"(dst),
                 "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
}
#endif

/* The main kernel: block (key tile of BC, b * H_kv + hk), NT threads,
 * smem_layout<D>::bytes of dynamic shared memory. tmQ, tmG: [B*H, S, D]
 * maps with 64-row boxes; tmK, tmV: [B*H_kv, S_kv, D] with BC-row boxes.
 * lse2, delta: [B*H, Sp] (Sp = S rounded up to 64). Adds dS K (unscaled)
 * into dqacc [B, H, S, D]; writes dK = scale sum dS^T Q and dV = sum P^T dO
 * of its keys in the dtype. */
template <typename T, int D>
__global__ void __launch_bounds__(NT, 1)
    bwd_ws(const __grid_constant__ CUtensorMap tmQ, const __grid_constant__ CUtensorMap tmG,
           const __grid_constant__ CUtensorMap tmK, const __grid_constant__ CUtensorMap tmV,
           const float *__restrict__ lse2, const float *__restrict__ delta,
           float *__restrict__ dqacc, T *__restrict__ dK, T *__restrict__ dV, int H, int HK,
           int S, int SK, int Sp, int causal, float scale)
{
#if AB_WGMMA_DEVICE
    using L = smem_layout<D>;
    using ops = dtype_ops<T>;
    constexpr int NQ = D / NWG;   /* dQ columns per consumer warpgroup */
    constexpr int NCT = 128 * NWG; /* consumer threads */
    extern __shared__ unsigned char smem_raw[];
    const uint32_t raw = smem_u32(smem_raw);
    const uint32_t base = (raw + 1023u) & ~1023u;
    unsigned char *sbase = smem_raw + (base - raw);
    const uint32_t uK = base + L::K, uV = base + L::V;
    const uint32_t bFull = base + L::BAR, bEmpty = bFull + 16, bDqFull = bFull + 32,
                   bDqEmpty = bFull + 40, bKV = bFull + 48;
    float *sDQ = reinterpret_cast<float *>(sbase + L::DQ);

    const int tid = threadIdx.x, wg = tid >> 7, wtid = tid & 127;
    const int j0 = blockIdx.x * BC;
    const int bk = blockIdx.y; /* b * HK + hk */
    const int Gq = H / HK;
    const int b = bk / HK, hk = bk % HK;
    const int off = SK - S; /* key j visible to row i iff j <= i + off */
    int t0 = 0;             /* the first query tile whose last row sees key j0 */
    if (causal) {
        const int x = j0 - off - (BR - 1);
        t0 = x <= 0 ? 0 : (x + BR - 1) / BR;
    }
    const int ntiles = (S + BR - 1) / BR;
    const int nt = ntiles > t0 ? ntiles - t0 : 0;
    const int nsteps = Gq * nt;

    if (tid == 0) {
        for (int st = 0; st < 2; st++) {
            mbar_init(bFull + st * 8, 1);
            mbar_init(bEmpty + st * 8, NCT);
        }
        mbar_init(bDqFull, NCT);
        mbar_init(bDqEmpty, 128);
        mbar_init(bKV, 1);
        fence_mbar_init();
    }
    __syncthreads();

    if (wg == 0) {
        /* producer: loads by thread 0, dQ atomics by all 128 threads */
        setmaxnreg_dec<24>();
        if (tid == 0) {
            mbar_expect_tx(bKV, 2 * L::TK);
#pragma unroll
            for (int cb = 0; cb < D / 64; cb++) {
                tma_load_3d(uK + cb * BC * 128, &tmK, bKV, cb * 64, j0, bk);
                tma_load_3d(uV + cb * BC * 128, &tmV, bKV, cb * 64, j0, bk);
            }
        }
        for (int it = 0; it <= nsteps; it++) {
            if (tid == 0 && it < nsteps) {
                const int st = it & 1;
                if (it >= 2) /* the consumers are done with step it - 2 */
                    mbar_wait(bEmpty + st * 8, (uint32_t)(((it >> 1) - 1) & 1));
                const int gq = it / nt, q0 = (t0 + it % nt) * BR;
                const int bh = (b * H + hk * Gq + gq);
                const uint32_t bar = bFull + st * 8;
                mbar_expect_tx(bar, 2 * L::TQ + 2 * BR * 4);
#pragma unroll
                for (int cb = 0; cb < D / 64; cb++) {
                    tma_load_3d(base + L::Q + st * L::TQ + cb * BR * 128, &tmQ, bar, cb * 64, q0,
                                bh);
                    tma_load_3d(base + L::G + st * L::TQ + cb * BR * 128, &tmG, bar, cb * 64, q0,
                                bh);
                }
                bulk_load(base + L::L + st * BR * 4, lse2 + (size_t)bh * Sp + q0, BR * 4, bar);
                bulk_load(base + L::DL + st * BR * 4, delta + (size_t)bh * Sp + q0, BR * 4, bar);
            }
            if (it >= 1) { /* the dQ share of step it - 1 */
                const int k = it - 1;
                const int gq = k / nt, q0 = (t0 + k % nt) * BR;
                const size_t bh = (size_t)b * H + hk * Gq + gq;
                mbar_wait(bDqFull, (uint32_t)(k & 1));
                float *dq = dqacc + (bh * S + q0) * D;
#pragma unroll 1
                for (int i = wtid; i < BR * D / 4; i += 128) {
                    const int r = i / (D / 4), c = i % (D / 4);
                    if (q0 + r < S) {
                        const float4 v = *reinterpret_cast<const float4 *>(sDQ + r * L::DQS + 4 * c);
                        atomicAdd(reinterpret_cast<float4 *>(dq + (size_t)r * D + 4 * c), v);
                    }
                }
                abmma::mbar_arrive(bDqEmpty);
            }
        }
    } else {
        /* consumers: keys 64 (wg - 1) .. + 63 of the block */
        setmaxnreg_inc<240>();
        const int cw = wg - 1;
        const bwd_geo x = bwd_geo_of(wtid, cw);
        const uint32_t kcol = D == 128 ? (uint32_t)cw * BC * 128 : (uint32_t)cw * NQ * 2;
        const float sl2 = scale * 1.4426950408889634f;
        float dv[D / 2], dk[D / 2];
#pragma unroll
        for (int i = 0; i < D / 2; i++)
            dv[i] = dk[i] = 0.f;
        mbar_wait(bKV, 0);
        for (int it = 0; it < nsteps; it++) {
            const int st = it & 1;
            const int gq = it / nt, q0 = (t0 + it % nt) * BR;
            (void)gq;
            const uint32_t uQ = base + L::Q + st * L::TQ, uG = base + L::G + st * L::TQ;
            const uint32_t uDS = base + L::DS + st * L::TS;
            const float *lL = reinterpret_cast<const float *>(sbase + L::L) + st * BR;
            const float *lD = reinterpret_cast<const float *>(sbase + L::DL) + st * BR;
            mbar_wait(bFull + st * 8, (uint32_t)((it >> 1) & 1));

            const bool full =
                q0 + BR <= S && j0 + BC <= SK && (!causal || j0 + BC - 1 <= q0 + off);
            uint32_t pf[4][4], df[4][4];
            bwd_wg_scores<T, D, BC>(pf, df, x, uK, uV, uQ, uG, uDS, lL, 1.0f, lD, full, q0, j0,
                                    S, SK, causal, off, sl2);
            bwd_wg_issue_dkdv<T, D>(dv, dk, pf, df, uQ, uG);
            named_sync(1, NCT); /* both consumers' dS^T stored */
            float qacc[NQ / 2];
            bwd_wg_issue_dq<T, BC, NQ>(qacc, uDS, uK + kcol);
            wg_wait<0>();
            reg_fence(qacc);
            reg_fence(dv);
            reg_fence(dk);
            reg_fence_frag(pf);
            reg_fence_frag(df);
            abmma::mbar_arrive(bEmpty + st * 8); /* Q, dO, lse, Delta of stage st read */

            /* the dQ share to shared memory once the producer took the last one */
            if (it >= 1)
                mbar_wait(bDqEmpty, (uint32_t)((it - 1) & 1));
#pragma unroll
            for (int n = 0; n < NQ / 8; n++)
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    const int r = x.wi * 16 + x.g + 8 * h;
                    *reinterpret_cast<float2 *>(sDQ + r * L::DQS + cw * NQ + 8 * n + 2 * x.t) =
                        make_float2(qacc[4 * n + 2 * h], qacc[4 * n + 2 * h + 1]);
                }
            abmma::mbar_arrive(bDqFull);
        }
        /* dK = scale * sum dS^T Q, dV = sum P^T dO, in the dtype */
        const size_t kvbase = (size_t)bk * SK * D;
#pragma unroll
        for (int n = 0; n < D / 8; n++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int j = j0 + x.krow + 8 * h, d = 8 * n + 2 * x.t;
                if (j < SK) {
                    *reinterpret_cast<uint32_t *>(dK + kvbase + (size_t)j * D + d) =
                        ops::pack(dk[4 * n + 2 * h] * scale, dk[4 * n + 2 * h + 1] * scale);
                    *reinterpret_cast<uint32_t *>(dV + kvbase + (size_t)j * D + d) =
                        ops::pack(dv[4 * n + 2 * h], dv[4 * n + 2 * h + 1]);
                }
            }
    }
#endif
}

/* What setup keeps: the forward's context and the backward workspace. */
struct ctx_t {
    void *fwd;    /* cuda_wgmma_persistent's context (the forward) */
    float *dqacc; /* [B,H,S,D] fp32 dQ accumulator (NULL for pass = fwd) */
    float *delta; /* [B*H, Sp], padding rows zero */
    float *lse2;  /* [B*H, Sp] lse log2 e, padding rows zero */
    int Sp;       /* S rounded up to a multiple of BR */
};

/* Enqueues the four steps of one backward pass on st; 0, a cudaError_t,
 * or 3 when a tensor map cannot be encoded (printed). */
template <typename T, int D>
int launch(const ctx_t *c, const ab_shape *s, const void *q, const void *k, const void *v,
           const void *o, const void *g, const float *lse, void *dq, void *dk, void *dv,
           cudaStream_t st)
{
    const long long rows = (long long)s->B * s->H * s->S;
    const long long numel = rows * D;
    const int HK = ab_shape_hkv(s), SK = ab_shape_skv(s);
    const float scale = 1.0f / sqrtf((float)D);
    const int bf = std::is_same<T, __nv_bfloat16>::value;
    char err[256];
    CUtensorMap mq, mg, mk, mv;
    if (ab_wgmma_tensor_map(&mq, q, bf, (long long)s->B * s->H, s->S, D, BR, err, sizeof err) ||
        ab_wgmma_tensor_map(&mg, g, bf, (long long)s->B * s->H, s->S, D, BR, err, sizeof err) ||
        ab_wgmma_tensor_map(&mk, k, bf, (long long)s->B * HK, SK, D, BC, err, sizeof err) ||
        ab_wgmma_tensor_map(&mv, v, bf, (long long)s->B * HK, SK, D, BC, err, sizeof err)) {
        fprintf(stderr, "cuda_wgmma_bwd_ws: %s\n", err);
        return 3;
    }
    cudaError_t e = cudaMemsetAsync(c->dqacc, 0, (size_t)numel * sizeof(float), st);
    if (e != cudaSuccess)
        return (int)e;
    bwd_prep<T, D><<<(unsigned)((rows * (D / 8) + 255) / 256), 256, 0, st>>>(
        (const T *)o, (const T *)g, lse, c->delta, c->lse2, rows, s->S, c->Sp);
    dim3 grid((unsigned)((SK + BC - 1) / BC), (unsigned)(s->B * HK));
    bwd_ws<T, D><<<grid, NT, smem_layout<D>::bytes, st>>>(mq, mg, mk, mv, c->lse2, c->delta,
                                                          c->dqacc, (T *)dk, (T *)dv, s->H, HK,
                                                          s->S, SK, c->Sp, s->causal, scale);
    const long long n4 = numel / 4;
    const long long nb = (n4 + 255) / 256;
    bwd_dq_out<T><<<(unsigned)(nb < 4096 ? nb : 4096), 256, 0, st>>>(
        (const float4 *)c->dqacc, (T *)dq, n4, scale);
    return (int)cudaGetLastError();
}

/* Raises bwd_ws<T, D>'s dynamic shared-memory limit; 0 or a cudaError_t. */
template <typename T, int D> int set_smem(void)
{
    return (int)cudaFuncSetAttribute(bwd_ws<T, D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     smem_layout<D>::bytes);
}

} /* namespace */

/* setup: as cuda_wgmma_bwd_setup (fp16/bf16, D in {64, 128}, any S, S_kv,
 * H_kv dividing H; compute capability 9.0, else AB_SETUP_UNSUPPORTED with
 * the reason), plus B*H and B*H_kv below 2^31 (tensor-map slices). The
 * forward's setup (cuda_wgmma_persistent) and, unless s->pass is "fwd",
 * the fp32 dQ accumulator (4 B*H*S*D bytes) and the padded Delta and
 * lse log2 e buffers (2 x 4 B*H*Sp bytes, zeroed here), reported in *ws.
 * Non-zero with err otherwise. */
extern "C" int cuda_wgmma_bwd_ws_setup(const ab_shape *s, void **ctx, size_t *ws, char *err,
                                       size_t n)
{
    *ctx = NULL;
    *ws = 0;
    if ((s->dtype != AB_FP16 && s->dtype != AB_BF16) || (s->D != 64 && s->D != 128)) {
        snprintf(err, n, "cuda_wgmma_bwd_ws: fp16 or bf16 and D in {64, 128} only");
        return -1;
    }
    if ((long long)s->B * ab_shape_hkv(s) > 65535) { /* the grid's y dimension */
        snprintf(err, n, "cuda_wgmma_bwd_ws: B*H_kv = %lld exceeds the grid's 65535 blocks in y",
                 (long long)s->B * ab_shape_hkv(s));
        return -1;
    }
    if (int dev_rc = ab_wgmma_device_ok("cuda_wgmma_bwd_ws", err, n))
        return dev_rc;
    ctx_t *c = (ctx_t *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, n, "cuda_wgmma_bwd_ws: out of host memory");
        return -1;
    }
    size_t fws = 0;
    if (int frc = cuda_wgmma_persistent_setup(s, &c->fwd, &fws, err, n)) {
        free(c);
        return frc;
    }
    if (s->pass != AB_FWD) {
        const size_t rows = (size_t)s->B * s->H * s->S;
        c->Sp = (s->S + BR - 1) / BR * BR;
        const size_t prow = (size_t)s->B * s->H * c->Sp;
        const int bad = s->D == 64 ? (s->dtype == AB_FP16 ? set_smem<__half, 64>()
                                                          : set_smem<__nv_bfloat16, 64>())
                                   : (s->dtype == AB_FP16 ? set_smem<__half, 128>()
                                                          : set_smem<__nv_bfloat16, 128>());
        cudaError_t e = (cudaError_t)bad;
        if (e == cudaSuccess)
            e = cudaMalloc((void **)&c->dqacc, rows * s->D * sizeof(float));
        if (e == cudaSuccess)
            e = cudaMalloc((void **)&c->delta, prow * sizeof(float));
        if (e == cudaSuccess)
            e = cudaMalloc((void **)&c->lse2, prow * sizeof(float));
        if (e == cudaSuccess)
            e = cudaMemset(c->delta, 0, prow * sizeof(float));
        if (e == cudaSuccess)
            e = cudaMemset(c->lse2, 0, prow * sizeof(float));
        if (e != cudaSuccess) {
            snprintf(err, n, "cuda_wgmma_bwd_ws: %s", cudaGetErrorString(e));
            cuda_wgmma_bwd_ws_teardown(c);
            return -1;
        }
        *ws = (rows * s->D + 2 * prow) * sizeof(float);
    }
    *ws += fws;
    *ctx = c;
    return 0;
}

/* run: the forward, cuda_wgmma_persistent's (o = attention(q, k, v)). */
extern "C" int cuda_wgmma_bwd_ws_run(void *ctx, const ab_shape *s, const void *q, const void *k,
                                     const void *v, void *o, void *stream)
{
    return cuda_wgmma_persistent_run(((ctx_t *)ctx)->fwd, s, q, k, v, o, stream);
}

/* run_bwd: enqueues the accumulator memset, the pre-pass, the main kernel
 * and the dQ conversion on `stream` (no allocation, no synchronisation:
 * graph-capturable). Needs a setup with s->pass != "fwd". Returns 0, a
 * cudaError_t, or 3 when a tensor map cannot be encoded. */
extern "C" int cuda_wgmma_bwd_ws_run_bwd(void *ctx, const ab_shape *s, const void *q,
                                         const void *k, const void *v, const void *o,
                                         const void *dout, const float *lse, void *dq, void *dk,
                                         void *dv, void *stream)
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
extern "C" void cuda_wgmma_bwd_ws_teardown(void *ctx)
{
    ctx_t *c = (ctx_t *)ctx;
    if (!c)
        return;
    if (c->fwd)
        cuda_wgmma_persistent_teardown(c->fwd);
    cudaFree(c->dqacc);
    cudaFree(c->delta);
    cudaFree(c->lse2);
    free(c);
}
