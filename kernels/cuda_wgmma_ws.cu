/*
 * cuda_wgmma_ws.cu: forward attention on wgmma + TMA with warp
 * specialisation, rung "cuda_wgmma_ws" of the kernel ladder.
 *
 * Idea. cuda_wgmma_tma with the block split by role (FlashAttention-3's
 * producer/consumer scheme): warpgroup 0 is the producer, one of its
 * threads issues every TMA load (Q once, then each (K, V) tile as soon as
 * its stage is free); warpgroups 1 and 2 are consumers, 64 query rows
 * each. Stages are handed over with two mbarriers each: "full" (TMA bytes,
 * expect_tx / complete_tx) and "empty" (one arrival per consumer warp
 * when it is done reading the stage), so there is no block-wide barrier
 * in the loop and the two consumer warpgroups drift apart: one's softmax
 * overlaps the other's wgmma by the warp schedulers' choice, not by
 * construction (that is the ping-pong rung). Register reallocation
 * (setmaxnreg): the producer drops to 24 registers per thread, the
 * consumers rise to 240 (128 x 24 + 256 x 240 = 64,512 of the SM's 65,536).
 * Stages: 2 of (K, V) at D = 128, 4 at D = 64. One block per query tile
 * (the persistent grid is rung cuda_wgmma_persistent).
 *
 * Source: Shah et al. 2024 (FlashAttention-3) section 3.1 (warp
 * specialisation, setmaxnreg, circular shared-memory buffer with
 * full/empty barriers); PTX ISA setmaxnreg, mbarrier. Previous rung:
 * cuda_wgmma_tma.
 *
 * Prediction (before the first run). FlashAttention-3's ablation (Table
 * 2, H100, D = 128): warp specialisation is worth 570 -> 661 TFLOP/s
 * (+16%) with the intra-warpgroup overlap present. Here that overlap is
 * absent, so the gain is the decoupling of the two consumer warpgroups
 * (the block barrier gone) and of the loads: +5-15% over cuda_wgmma_tma.
 *
 * Any S >= 1, causal or not, D in {64, 128}, fp16 and bf16; sm_90a only.
 *
 * Measured (attnbench run experiments/hopper-d128.cfg: run 1 of
 * reports/hopper-forward/hopper.db, report
 * reports/hopper-forward/hopper-d128-run1.md; NVIDIA H200, 2026-11-23, hot
 * timing, medians; B*S = 16K tokens, H = 16, D = 128): 471.4-640.7 TFLOP/s;
 * B=4 S=4096 fp16: 599.4 non-causal (cuda_wgmma_tma 540.3, 1.11x; cudnn_sdpa
 * 646.7, 0.93x), 535.8 causal (1.12x; 0.92x); the fastest own kernel at S =
 * 16384 causal (bf16 640.7 vs cudnn_sdpa 622.0, fp16 616.9 vs 620.2).
 * Geometric mean against cudnn_sdpa 0.93 (0.87-1.03); over cuda_wgmma_tma
 * 1.10-1.29x, more than predicted (+5-15%).
 *
 * ptxas: 168 registers at entry
 * (384 threads, one block per SM), setmaxnreg 24 / 240 in SASS
 * (USETMAXREG), no spills. Checked: gpu_check (64 cases), memcheck and
 * racecheck clean.
 */
#include "entry_points.h"
#include "wgmma_common.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <type_traits>

using namespace abwg;

namespace {

constexpr int NWG = 2;              /* consumer warpgroups */
constexpr int BR = 64 * NWG;        /* query rows per block */
constexpr int BC = 128;             /* keys per tile */
constexpr int NT = 128 * (NWG + 1); /* threads: producer warpgroup + consumers */

template <int D> constexpr int nstages() { return D == 128 ? 2 : 4; }
template <int D> constexpr int smem_bytes()
{
    return 1024 + BR * D * 2 + nstages<D>() * 2 * BC * D * 2 + (2 * nstages<D>() + 1) * 8;
}

template <typename T, int D, bool CAUSAL>
__global__ void __launch_bounds__(NT, 1)
    wgmma_ws_fwd(const __grid_constant__ CUtensorMap tmQ, const __grid_constant__ CUtensorMap tmK,
                 const __grid_constant__ CUtensorMap tmV, T *__restrict__ O, int S, int nqt,
                 float scale_log2)
{
#if AB_WGMMA_DEVICE
    constexpr int NST = nstages<D>();
    constexpr int TILE = BC * D * 2; /* bytes of one K or V tile */
    extern __shared__ unsigned char smem_raw[];
    const uint32_t raw = smem_u32(smem_raw);
    const uint32_t uQ = (raw + 1023u) & ~1023u;
    unsigned char *sQ = smem_raw + (uQ - raw);
    const uint32_t uKV = uQ + BR * D * 2;
    const uint32_t uFull = uKV + NST * 2 * TILE, uEmpty = uFull + NST * 8,
                   uQbar = uEmpty + NST * 8;

    const int tid = threadIdx.x;
    int qt = (int)(blockIdx.x % (unsigned)nqt);
    if (CAUSAL)
        qt = nqt - 1 - qt; /* longest query tiles of a (b, h) first */
    const int bh = (int)(blockIdx.x / (unsigned)nqt);
    const int q0 = qt * BR;
    const int nkv = (S + BC - 1) / BC;
    const int jend = CAUSAL ? min(nkv, (min(q0 + BR, S) - 1) / BC + 1) : nkv;

    if (tid == 0) {
        for (int st = 0; st < NST; st++) {
            mbar_init(uFull + st * 8, 1);
            mbar_init(uEmpty + st * 8, 4 * NWG); /* one arrival per consumer warp */
        }
        mbar_init(uQbar, 1);
        fence_mbar_init();
    }
    __syncthreads();

    const int wg = tid >> 7, wtid = tid & 127;
    if (wg == 0) {
        /* producer warpgroup */
        setmaxnreg_dec<24>();
        if (tid == 0) {
            mbar_expect_tx(uQbar, BR * D * 2);
#pragma unroll
            for (int cb = 0; cb < D / 64; cb++)
                tma_load_3d(uQ + cb * BR * 128, &tmQ, uQbar, cb * 64, q0, bh);
            for (int t = 0; t < jend; t++) {
                const int st = t % NST;
                if (t >= NST) /* every consumer warp released tile t - NST */
                    mbar_wait(uEmpty + st * 8, (uint32_t)((t / NST - 1) & 1));
                const uint32_t uK = uKV + (uint32_t)(st * 2 * TILE), bar = uFull + st * 8;
                mbar_expect_tx(bar, 2 * TILE);
#pragma unroll
                for (int cb = 0; cb < D / 64; cb++) {
                    tma_load_3d(uK + cb * BC * 128, &tmK, bar, cb * 64, t * BC, bh);
                    tma_load_3d(uK + TILE + cb * BC * 128, &tmV, bar, cb * 64, t * BC, bh);
                }
            }
        }
    } else {
        /* consumer warpgroups 1..NWG: rows 64 (wg - 1) .. + 63 of the tile */
        setmaxnreg_inc<240>();
        const int cw = wg - 1;
        wg_geo g;
        g.uQ = uQ;
        g.wrow = cw * 64;
        g.row0 = q0 + g.wrow + (wtid >> 5) * 16 + ((wtid & 31) >> 2);
        g.t = tid & 3;

        float o[D / 2];
#pragma unroll
        for (int i = 0; i < D / 2; i++)
            o[i] = 0.f;
        float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};
        const int wfirst = q0 + g.wrow, wlast = wfirst + 63;

        mbar_wait(uQbar, 0);
        for (int j = 0; j < jend; j++) {
            const int st = j % NST;
            mbar_wait(uFull + st * 8, (uint32_t)((j / NST) & 1));
            const int k0 = j * BC;
            const uint32_t uK = uKV + (uint32_t)(st * 2 * TILE), uV = uK + TILE;
            if (wfirst < S && (!CAUSAL || k0 <= wlast)) {
                if (k0 + BC > S || (CAUSAL && k0 + BC - 1 > wfirst))
                    wg_tile<T, D, BC, BR, CAUSAL, true>(o, m, l, g, uK, uV, k0, S, scale_log2);
                else
                    wg_tile<T, D, BC, BR, CAUSAL, false>(o, m, l, g, uK, uV, k0, S, scale_log2);
            }
            __syncwarp();
            if ((wtid & 31) == 0)
                abmma::mbar_arrive(uEmpty + st * 8); /* this warp is done with the stage */
        }
        if (wfirst < S)
            wg_store_o<T, D, BR>(o, l, g, sQ, wtid, 1 + cw, O + (size_t)bh * S * D, q0, S);
    }
#endif
}

template <typename T, int D, bool CAUSAL> int set_attr()
{
    return cudaFuncSetAttribute(wgmma_ws_fwd<T, D, CAUSAL>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                smem_bytes<D>()) == cudaSuccess
               ? 0
               : -1;
}

template <typename T, int D, bool CAUSAL>
int launch(const ab_shape *s, const void *q, const void *k, const void *v, void *o,
           cudaStream_t st)
{
    const int nqt = (s->S + BR - 1) / BR;
    const long long bh = (long long)s->B * s->H, blocks = (long long)nqt * bh;
    if (blocks > 0x7fffffffLL)
        return 2;
    char err[256];
    CUtensorMap mq, mk, mv;
    const int bf = std::is_same<T, __nv_bfloat16>::value;
    if (ab_wgmma_tensor_map(&mq, q, bf, bh, s->S, D, BR, err, sizeof err) ||
        ab_wgmma_tensor_map(&mk, k, bf, bh, s->S, D, BC, err, sizeof err) ||
        ab_wgmma_tensor_map(&mv, v, bf, bh, s->S, D, BC, err, sizeof err)) {
        fprintf(stderr, "cuda_wgmma_ws: %s\n", err);
        return 3;
    }
    const float scale_log2 = 1.4426950408889634f / sqrtf((float)D);
    wgmma_ws_fwd<T, D, CAUSAL><<<(unsigned)blocks, NT, smem_bytes<D>(), st>>>(
        mq, mk, mv, (T *)o, s->S, nqt, scale_log2);
    return 0;
}

template <typename T>
int dispatch_t(int op, const ab_shape *s, const void *q, const void *k, const void *v, void *o,
               cudaStream_t st)
{
    const bool c = s->causal != 0;
    if (s->D == 64)
        return op == 0 ? (c ? set_attr<T, 64, true>() : set_attr<T, 64, false>())
                       : (c ? launch<T, 64, true>(s, q, k, v, o, st)
                            : launch<T, 64, false>(s, q, k, v, o, st));
    return op == 0 ? (c ? set_attr<T, 128, true>() : set_attr<T, 128, false>())
                   : (c ? launch<T, 128, true>(s, q, k, v, o, st)
                        : launch<T, 128, false>(s, q, k, v, o, st));
}

/* op 0: set_attr, op 1: launch, for the shape's (dtype, D, causal). */
int dispatch(int op, const ab_shape *s, const void *q, const void *k, const void *v, void *o,
             cudaStream_t st)
{
    return s->dtype == AB_FP16 ? dispatch_t<__half>(op, s, q, k, v, o, st)
                               : dispatch_t<__nv_bfloat16>(op, s, q, k, v, o, st);
}

} /* namespace */

/* setup: checks the shape (fp16/bf16, D in {64, 128}, B, H, S >= 1, B*H
 * below 2^31) and the device (compute capability 9.0), raises the dynamic
 * shared-memory limit. No workspace. Fails (-1, reason in err) otherwise. */
extern "C" int cuda_wgmma_ws_setup(const ab_shape *s, void **ctx, size_t *ws, char *err,
                                   size_t n)
{
    *ctx = NULL;
    *ws = 0;
    if (s->dtype != AB_FP16 && s->dtype != AB_BF16) {
        snprintf(err, n, "cuda_wgmma_ws: dtype must be fp16 or bf16");
        return -1;
    }
    if (s->D != 64 && s->D != 128) {
        snprintf(err, n, "cuda_wgmma_ws: D must be 64 or 128");
        return -1;
    }
    if (s->S < 1 || s->B < 1 || s->H < 1 || (long long)s->B * s->H > 0x7fffffffLL) {
        snprintf(err, n, "cuda_wgmma_ws: B, H, S must be >= 1 and B*H < 2^31");
        return -1;
    }
    if (int dev_rc = ab_wgmma_device_ok("cuda_wgmma_ws", err, n))
        return dev_rc;
    if (dispatch(0, s, NULL, NULL, NULL, NULL, 0)) {
        snprintf(err, n, "cuda_wgmma_ws: cudaFuncSetAttribute: %s",
                 cudaGetErrorString(cudaGetLastError()));
        return -1;
    }
    return 0;
}

/* run: encodes the three tensor maps and enqueues one forward pass on
 * `stream`; 2 when the grid is too large, 3 when a tensor map cannot be
 * encoded (message on stderr). */
extern "C" int cuda_wgmma_ws_run(void *ctx, const ab_shape *s, const void *q, const void *k,
                                 const void *v, void *o, void *stream)
{
    (void)ctx;
    return dispatch(1, s, q, k, v, o, (cudaStream_t)stream);
}

extern "C" void cuda_wgmma_ws_teardown(void *ctx) { (void)ctx; }
