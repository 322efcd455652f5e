/*
 * cuda_wgmma_bwd.cu: the backward pass of attention on Hopper's warpgroup
 * MMA, rung "cuda_wgmma_bwd" of the backward ladder (the first sm_90a
 * backward rung; previous rung cuda_mma_bwd_pipeline). Its forward is
 * cuda_wgmma_persistent's.
 *
 * Idea. cuda_mma_bwd_pipeline's FlashAttention-2 backward (one block per
 * key tile of one K/V head, dK and dV in registers for the whole sweep over
 * the query tiles of every query head of the group, dQ by fp32 atomics)
 * with all five matrix products on wgmma.mma_async instead of mma.sync +
 * ldmatrix: each of two warpgroups owns 64 of the block's BC = 128 keys
 * and, per query tile of BR = 64 rows,
 *     S^T  = K_w Q^T          wgmma m64n64, A = K_w, B = Q (both K-major,
 *                             shared memory)
 *     dP^T = V_w dO^T         the same with V_w, dO
 *     P^T  = exp2(S^T scale log2e - lse log2e) (bottom-right causal mask
 *            and sequence ends only on tiles that need them),
 *     dS^T = P^T (dP^T - Delta)     on the fp32 accumulators
 *     dV_w += P^T dO          wgmma m64nD, A = P^T from registers (the
 *                             accumulators packed to 16-bit pairs, as the
 *                             forward's P), B = dO MN-major
 *     dK_w += dS^T Q          the same with dS^T, Q
 *   dS^T is also stored to shared memory as it sits in the accumulators
 *   ([key][query], sw128, 4-byte conflict-free stores, then the async-proxy
 *   fence), and after one block barrier warpgroup w computes columns
 *   [w D/2, (w+1) D/2) of the tile's dQ share over all 128 keys:
 *     dQ_i[:, cols] += dS K[:, cols]   wgmma m64n(D/2), A = dS read
 *                             MN-major (transposed) from the dS^T tile,
 *                             B = K MN-major
 *   and adds it to an fp32 buffer with vector atomics (red.global.add.v2).
 * Q, dO, logsumexp and Delta of the next query tile are copied by
 * cp.async (all 256 threads, zero-filled past S) into the second of two
 * stages while the current one is computed: one wait + proxy fence +
 * block barrier per step. Launches per call: the accumulator memset,
 * Delta = rowsum(dO * O) (bwd_common.cuh), the main kernel, dQ = scale *
 * accumulator in the dtype.
 *
 * Why atomics for dQ and not a semaphore-ordered pass: every block adds
 * its 64 x D share of a query tile's dQ without waiting for any other
 * block; a semaphore (FlashAttention-3's deterministic mode) would make
 * the blocks of one query tile add in key order, each waiting for the
 * previous one, which costs time for bit-reproducibility the gradient
 * check does not need (fp32 additions in any order stay far inside the
 * tolerance). FlashAttention-2 and -3 both use atomics by default.
 *
 * Work and traffic (before the first run). FLOPs = 2.5 x the forward's
 * (five S x S_kv x D products against two), i.e. 10 B H S S_kv D (half
 * causal, src/core/variant.h). Per block and query tile: 5 x 2 x 128 x 64
 * x D FLOPs against 2 x 64 x D x 2 bytes of Q, dO (from L2) and 64 x D x 4
 * bytes of dQ atomics: 320 FLOP per byte of each, so compute-bound if the
 * L2 atomics keep up (B=4 H=16 S=4096 D=128: 344 GFLOP, 4.3 GB of fp32
 * atomic adds, 67 MB of HBM traffic for Q, K, V, O, dO, dQ, dK, dV).
 * Prediction: the wgmma instruction alone (no producer warpgroup, no
 * overlap of the exp2/elementwise work with the tensor cores, the S/dP
 * wait exposed every step, 32-bit dK/dV stores) gives 1.3-1.6x
 * cuda_mma_bwd_pipeline at D = 128 (~180 -> 240-290 TFLOP/s on an H100,
 * 0.6-0.7x cudnn_sdpa's ~400), less at D = 64 (1.2-1.4x) where the
 * elementwise work per FLOP is twice as large.
 *
 * Measured (NVIDIA H200, 2026-11-26, reports/hopper-bwd/hopper-bwd.db runs
 * 1-3, experiments/hopper-bwd-ladder{,-fp16}.cfg and
 * hopper-bwd-llama3-8b.cfg; hot timing, medians of 20-30 samples, clocks
 * left alone): 172.8-337.6 TFLOP/s over the 20 bf16 configurations (D =
 * 64/128, S = 1024..16384 at B*S = 16384, H = 16, causal or not); 1.51x
 * cuda_mma_bwd_pipeline at D = 128 (geometric mean, 1.34-1.59; predicted
 * 1.3-1.6: held), 1.26x at D = 64 (1.16-1.32; predicted 1.2-1.4: held);
 * 0.62x cudnn_sdpa (0.56-0.76), fp16 the same (0.62x); Llama 3 8B (B = 1,
 * H = 32, H_kv = 8, D = 128, causal, bf16, S = 2K/4K/8K) 157.4, 211.0,
 * 281.8 TFLOP/s, 0.52x cudnn_sdpa.
 *
 * Checked: every gradient within FlashAttention's tolerance; gpu_check_bwd
 * 120 cases and compute-sanitizer memcheck, racecheck, synccheck over
 * gpu_check_bwd --small clean (reports/hopper-bwd/). ptxas (nvcc 13.0,
 * sm_90a): 240 registers (D = 128), 178 (D = 64), no spills.
 * Profiled (no database: the figures are in the log named): Nsight
 * Compute at B=4 H=16 S=4096 D=128
 * bf16 non-causal (reports/hopper-bwd/ncu-call1.log): 3.97 ms for the main
 * kernel against cuda_mma_bwd_pipeline's 6.28; tensor pipe active 36.9% of
 * peak, issue slots 31.5%; per issued instruction the warps wait on
 * wgmma (1.28), global/cp.async loads (1.10) and the block barrier
 * (1.01); L2 traffic 11.2 GB (half the mma.sync rung's 22.1: 128-key
 * blocks halve the dQ atomics and the Q/dO re-reads). What limits it:
 * every step's copies and atomics are issued by the warps that compute,
 * and both warpgroups wait at two block barriers per step, so the tensor
 * cores idle through the S/dP wait, the element-wise work and the
 * atomics; the next rung (cuda_wgmma_bwd_ws) moves the memory work to a
 * producer warpgroup.
 *
 * Shared memory (bytes, every region on a 1024-byte boundary): K, V
 * 2 x 128 x D x 2; Q, dO two stages each 2 x 2 x 64 x D x 2; dS^T 128 x 64
 * x 2; logsumexp and Delta two stages 1 KiB; + 1 KiB alignment slack:
 * 82 KiB (D = 64), 146 KiB (D = 128). One block of 256 threads per SM.
 *
 * Supported: fp16, bf16; D in {64, 128}; causal or not; any S, S_kv >= 1
 * with the bottom-right causal mask (key j visible to row i iff j <= i +
 * S_kv - S); grouped-query heads (H_kv dividing H: the block sweeps the
 * query heads of its group, so dK, dV need no atomics). sm_90a only: the
 * device code exists in the sm_90a pass of the build, other passes
 * compile an empty kernel, and setup answers AB_SETUP_UNSUPPORTED on any
 * device but compute capability 9.0.
 *
 * Sources: Tri Dao, "FlashAttention-2" (2023) Algorithm 2; Shah et al.,
 * "FlashAttention-3" (2024) section 3 and its backward description (wgmma
 * for the five products, dK/dV in registers, dQ in fp32 by atomics), read
 * to understand, not copied; PTX ISA wgmma.mma_async (transposed A and B
 * operands from shared memory, imm-trans-a / imm-trans-b) and the
 * descriptor layouts of kernels/wgmma_common.cuh.
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

constexpr int NWG = 2;        /* warpgroups, 64 keys each */
constexpr int BC = 64 * NWG;  /* keys per block */
constexpr int BR = 64;        /* query rows per step */
constexpr int NT = 128 * NWG; /* threads */

/* Byte offsets of the shared-memory regions for head dimension D
 * (sw128 tiles, each on a 1024-byte boundary). */
template <int D> struct smem_layout {
    static constexpr int TK = BC * D * 2; /* one K or V tile */
    static constexpr int TQ = BR * D * 2; /* one stage of Q or dO */
    static constexpr int K = 0;
    static constexpr int V = K + TK;
    static constexpr int Q = V + TK;        /* two stages */
    static constexpr int G = Q + 2 * TQ;    /* dO, two stages */
    static constexpr int DS = G + 2 * TQ;   /* dS^T [key][query], BC rows of 128 B */
    static constexpr int L = DS + BC * BR * 2; /* logsumexp, two stages of BR floats */
    static constexpr int DL = L + 2 * BR * 4;  /* Delta, two stages */
    static constexpr int bytes = DL + 2 * BR * 4 + 1024; /* + alignment slack */
};

/* The main kernel: block (key tile of BC, b * H_kv + hk), NT threads,
 * smem_layout<D>::bytes of dynamic shared memory. Adds dS K (unscaled)
 * into dqacc [B, H, S, D]; writes dK = scale sum dS^T Q and dV = sum P^T dO
 * of its BC keys (summed over the H / H_kv query heads of the group) in
 * the dtype. */
template <typename T, int D>
__global__ void __launch_bounds__(NT, 1)
    bwd_main(const T *__restrict__ Q, const T *__restrict__ K, const T *__restrict__ V,
             const T *__restrict__ G, const float *__restrict__ lse,
             const float *__restrict__ delta, float *__restrict__ dqacc, T *__restrict__ dK,
             T *__restrict__ dV, int H, int HK, int S, int SK, int causal, float scale)
{
#if AB_WGMMA_DEVICE
    using L = smem_layout<D>;
    constexpr float LOG2E = 1.4426950408889634f;
    constexpr int CH = D / 8; /* 16-byte chunks per row */
    extern __shared__ unsigned char smem_raw[];
    const uint32_t raw = smem_u32(smem_raw);
    const uint32_t base = (raw + 1023u) & ~1023u;
    unsigned char *sbase = smem_raw + (base - raw);
    const uint32_t uK = base + L::K, uV = base + L::V, uDS = base + L::DS;
    const float *sL = reinterpret_cast<const float *>(sbase + L::L);
    const float *sDl = reinterpret_cast<const float *>(sbase + L::DL);

    const int tid = threadIdx.x, wg = tid >> 7, wtid = tid & 127;
    const bwd_geo x = bwd_geo_of(wtid, wg);
    const int wi = x.wi, g = x.g, t = x.t;
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

    /* cp.async of R rows from row r0 of the [rows x D] tensor src into the
     * sw128 tile at dst; rows >= `rows` zero-filled */
    auto load_rows = [&](uint32_t dst, const T *src, int r0, int rows, auto rows_c) {
        constexpr int R = decltype(rows_c)::value;
#pragma unroll
        for (int it = 0; it < R * CH / NT; it++) {
            const int i = tid + it * NT, r = i / CH, c = i % CH;
            const bool in = r0 + r < rows;
            cp_async16(dst + sw128_off<R>(r, c), in ? src + (size_t)(r0 + r) * D + c * 8 : src,
                       in ? 16 : 0);
        }
    };
    using rowsBR = std::integral_constant<int, BR>;
    using rowsBC = std::integral_constant<int, BC>;
    /* the copies of step `it` (query head of the group, query tile) into stage st */
    auto prefetch = [&](int it, int st) {
        const int gq = it / nt, q0 = (t0 + it % nt) * BR;
        const long long bh = b * H + hk * Gq + gq;
        load_rows(base + L::Q + st * L::TQ, Q + (size_t)bh * S * D, q0, S, rowsBR{});
        load_rows(base + L::G + st * L::TQ, G + (size_t)bh * S * D, q0, S, rowsBR{});
        if (tid < 2 * BR) {
            const int r = tid % BR;
            const bool in = q0 + r < S;
            const float *src = (tid < BR ? lse : delta) + (in ? bh * S + q0 + r : 0);
            cp_async4(base + (tid < BR ? L::L : L::DL) + (st * BR + r) * 4, src, in ? 4 : 0);
        }
    };

    load_rows(uK, K + kvbase, j0, SK, rowsBC{});
    load_rows(uV, V + kvbase, j0, SK, rowsBC{});
    if (nsteps > 0)
        prefetch(0, 0);
    cp_async_commit();

    float dv[D / 2], dk[D / 2];
#pragma unroll
    for (int i = 0; i < D / 2; i++)
        dv[i] = dk[i] = 0.f;

    const float sl2 = scale * LOG2E;
    /* dQ: this warpgroup's columns of D */
    constexpr int NQ = D / NWG;
    const uint32_t kcol = D == 128 ? (uint32_t)wg * BC * 128 : (uint32_t)wg * NQ * 2;

    for (int it = 0; it < nsteps; it++) {
        const int st = it & 1;
        cp_async_wait<0>();  /* step it's tiles (and K, V) landed for this thread */
        fence_proxy_async(); /* ... visible to wgmma */
        __syncthreads();     /* ... for every thread; stage st^1 and dS^T are free */
        if (it + 1 < nsteps)
            prefetch(it + 1, st ^ 1);
        cp_async_commit();

        const int gq = it / nt, q0 = (t0 + it % nt) * BR;
        const long long bh = b * H + hk * Gq + gq;
        const uint32_t uQ = base + L::Q + st * L::TQ, uG = base + L::G + st * L::TQ;
        const float *lL = sL + st * BR, *lD = sDl + st * BR;

        /* S^T, dP^T, P^T, dS^T of this warpgroup's 64 keys; dS^T to shared
         * memory. A mask only where some (row, key) of the block's tile is
         * past S, S_kv or causally hidden. */
        const bool full = q0 + BR <= S && j0 + BC <= SK && (!causal || j0 + BC - 1 <= q0 + off);
        uint32_t pf[4][4], df[4][4];
        bwd_wg_scores<T, D, BC>(pf, df, x, uK, uV, uQ, uG, uDS, lL, LOG2E, lD, full, q0, j0, S,
                                SK, causal, off, sl2);
        /* dV_w += P^T dO, dK_w += dS^T Q */
        bwd_wg_issue_dkdv<T, D>(dv, dk, pf, df, uQ, uG);
        __syncthreads(); /* both warpgroups' dS^T stored */
        /* dQ[:, cols] = dS K[:, cols] over the BC keys */
        float qacc[NQ / 2];
        bwd_wg_issue_dq<T, BC, NQ>(qacc, uDS, uK + kcol);
        wg_wait<0>();
        reg_fence(qacc);
        reg_fence(dv);
        reg_fence(dk);
        reg_fence_frag(pf);
        reg_fence_frag(df);

        float *dqrow = dqacc + (size_t)bh * S * D + wg * NQ;
#pragma unroll
        for (int n = 0; n < NQ / 8; n++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int i = q0 + wi * 16 + g + 8 * h;
                if (i < S)
                    abmma::atomic_add_f2(dqrow + (size_t)i * D + 8 * n + 2 * t,
                                         make_float2(qacc[4 * n + 2 * h], qacc[4 * n + 2 * h + 1]));
            }
    }
    cp_async_wait<0>(); /* nothing may land in shared memory after exit */

    /* dK = scale * sum dS^T Q, dV = sum P^T dO, in the dtype */
    bwd_wg_store_dkdv<T, D>(dK, dV, kvbase, x, j0, SK, dk, dv, scale);
#endif
}

/* What setup keeps: the forward's context and the backward workspace. */
struct ctx_t {
    void *fwd;    /* cuda_wgmma_persistent's context (the forward) */
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
    bwd_main<T, D><<<grid, NT, smem_layout<D>::bytes, st>>>(
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

/* setup: fp16/bf16, D in {64, 128}, any S, S_kv, H_kv dividing H (the
 * shape checks of src/core), on a device of compute capability 9.0
 * (AB_SETUP_UNSUPPORTED with the reason on any other); the forward's
 * setup (cuda_wgmma_persistent) and, unless s->pass is "fwd", the fp32 dQ
 * accumulator (4 B*H*S*D bytes) and Delta (4 B*H*S bytes), reported in
 * *ws. Non-zero with err otherwise. */
extern "C" int cuda_wgmma_bwd_setup(const ab_shape *s, void **ctx, size_t *ws, char *err,
                                    size_t n)
{
    *ctx = NULL;
    *ws = 0;
    if ((s->dtype != AB_FP16 && s->dtype != AB_BF16) || (s->D != 64 && s->D != 128)) {
        snprintf(err, n, "cuda_wgmma_bwd: fp16 or bf16 and D in {64, 128} only");
        return -1;
    }
    if ((long long)s->B * ab_shape_hkv(s) > 65535) { /* the grid's y dimension */
        snprintf(err, n, "cuda_wgmma_bwd: B*H_kv = %lld exceeds the grid's 65535 blocks in y",
                 (long long)s->B * ab_shape_hkv(s));
        return -1;
    }
    if (int dev_rc = ab_wgmma_device_ok("cuda_wgmma_bwd", err, n))
        return dev_rc;
    ctx_t *c = (ctx_t *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, n, "cuda_wgmma_bwd: out of host memory");
        return -1;
    }
    size_t fws = 0;
    if (int frc = cuda_wgmma_persistent_setup(s, &c->fwd, &fws, err, n)) {
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
            snprintf(err, n, "cuda_wgmma_bwd: %s", cudaGetErrorString(e));
            cuda_wgmma_bwd_teardown(c);
            return -1;
        }
        *ws = rows * (s->D + 1) * sizeof(float);
    }
    *ws += fws;
    *ctx = c;
    return 0;
}

/* run: the forward, cuda_wgmma_persistent's (o = attention(q, k, v)). */
extern "C" int cuda_wgmma_bwd_run(void *ctx, const ab_shape *s, const void *q, const void *k,
                                  const void *v, void *o, void *stream)
{
    return cuda_wgmma_persistent_run(((ctx_t *)ctx)->fwd, s, q, k, v, o, stream);
}

/* run_bwd: enqueues the accumulator memset, Delta, the main kernel and the
 * dQ conversion on `stream` (no allocation, no synchronisation: graph-
 * capturable). Needs a setup with s->pass != "fwd". Returns 0 or a
 * cudaError_t. */
extern "C" int cuda_wgmma_bwd_run_bwd(void *ctx, const ab_shape *s, const void *q,
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
extern "C" void cuda_wgmma_bwd_teardown(void *ctx)
{
    ctx_t *c = (ctx_t *)ctx;
    if (!c)
        return;
    if (c->fwd)
        cuda_wgmma_persistent_teardown(c->fwd);
    cudaFree(c->dqacc);
    cudaFree(c->delta);
    free(c);
}
