/*
 * cuda_wgmma_tma.cu: forward attention on wgmma with TMA loads, rung
 * "cuda_wgmma_tma" of the kernel ladder.
 *
 * Idea. cuda_wgmma with the copies handed to the Tensor Memory
 * Accelerator: instead of 256 threads issuing 16-byte cp.async copies (Q:
 * 8 per thread, each K/V tile: 16 per thread at D = 128, plus address
 * arithmetic and the zero-fill predicates), one thread issues one
 * cp.async.bulk.tensor per 64-column block of a tile (2 per tile at
 * D = 128) from a 3-D tensor map {D, S, B*H} that writes the 128-byte
 * swizzle wgmma reads and zero-fills rows past S by itself; completion is
 * counted in bytes on a per-stage mbarrier (expect_tx / complete_tx) that
 * the consumers wait on, so no cp.async.wait_group and no proxy fence.
 * Stages: 2 of (K, V) at D = 128 (Q 32 KiB + 2 x 64 KiB), 3 at D = 64.
 * A stage is released by the block barrier at the top of the next tile
 * (both warpgroups done with it), after which thread 0 refills it: the
 * warps still move in lock step (warp specialisation is the next rung).
 *
 * Source: Shah et al. 2024 (FlashAttention-3) section 3.1 (TMA producer,
 * mbarrier pipeline); PTX ISA cp.async.bulk.tensor, mbarrier
 * expect_tx; CUDA driver API cuTensorMapEncodeTiled. Previous rung:
 * cuda_wgmma.
 *
 * Prediction (before the first run). Same FLOPs and ideal bytes as
 * cuda_wgmma (headline 137.4 GFLOP, 268 MB; compute-bound). What TMA
 * buys is issue slots and registers: per tile and thread cuda_wgmma
 * spends ~16 LDGSTS + address/predicate arithmetic at D = 128 against
 * ~200 FFMA/MUFU of softmax and the 16 HGMMA issues; removing it, and
 * the wait_group + fence, should give +3-8% over cuda_wgmma, not more,
 * because the tensor cores still idle during each warpgroup's softmax.
 *
 * Any S >= 1, causal or not, D in {64, 128}, fp16 and bf16; sm_90a only.
 *
 * Measured (attnbench run experiments/hopper-d128.cfg: run 1 of
 * reports/hopper-forward/hopper.db, report
 * reports/hopper-forward/hopper-d128-run1.md; NVIDIA H200, 2026-11-23, hot
 * timing, medians; B*S = 16K tokens, H = 16, D = 128): 428.1-544.9 TFLOP/s;
 * B=4 S=4096 fp16: 540.3 non-causal (cuda_wgmma 404.2, 1.34x; cudnn_sdpa
 * 646.7, 0.84x), 479.7 causal (1.26x; 0.83x). Geometric mean against
 * cudnn_sdpa 0.81 (0.77-0.88). Far above the prediction (+3-8%): the copies,
 * not the tensor-core instruction, were cuda_wgmma's bottleneck (one thread's
 * TMA copies per tile instead of LDGSTS in every thread, no wait_group/fence,
 * fewer registers).
 *
 * ptxas: 196 registers (D=128) / 154 (D=64), no spills; SASS: HGMMA,
 * UTMALDG.3D, SYNCS (mbarrier) instructions. Checked: gpu_check (64 cases),
 * memcheck and racecheck clean.
 */
#include "entry_points.h"
#include "wgmma_common.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <type_traits>

using namespace abwg;

namespace {

constexpr int NWG = 2;        /* consumer warpgroups */
constexpr int BR = 64 * NWG;  /* query rows per block */
constexpr int BC = 128;       /* keys per tile */
constexpr int NT = 128 * NWG; /* threads */

template <int D> constexpr int nstages() { return D == 128 ? 2 : 3; }
template <int D> constexpr int smem_bytes()
{
    return 1024 + BR * D * 2 + nstages<D>() * 2 * BC * D * 2 + (nstages<D>() + 1) * 8;
}

template <typename T, int D, bool CAUSAL>
__global__ void __launch_bounds__(NT, 1)
    wgmma_tma_fwd(const __grid_constant__ CUtensorMap tmQ, const __grid_constant__ CUtensorMap tmK,
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
    const uint32_t uFull = uKV + NST * 2 * TILE, uQbar = uFull + NST * 8;

    const int tid = threadIdx.x;
    int qt = (int)(blockIdx.x % (unsigned)nqt);
    if (CAUSAL)
        qt = nqt - 1 - qt; /* longest query tiles of a (b, h) first */
    const int bh = (int)(blockIdx.x / (unsigned)nqt);
    const int q0 = qt * BR;
    const int nkv = (S + BC - 1) / BC;
    const int jend = CAUSAL ? min(nkv, (min(q0 + BR, S) - 1) / BC + 1) : nkv;

    /* tile t of K and V into stage t % NST (thread 0 only) */
    auto produce = [&](int t) {
        const int st = t % NST;
        const uint32_t uK = uKV + (uint32_t)(st * 2 * TILE), bar = uFull + st * 8;
        mbar_expect_tx(bar, 2 * TILE);
#pragma unroll
        for (int cb = 0; cb < D / 64; cb++) {
            tma_load_3d(uK + cb * BC * 128, &tmK, bar, cb * 64, t * BC, bh);
            tma_load_3d(uK + TILE + cb * BC * 128, &tmV, bar, cb * 64, t * BC, bh);
        }
    };

    if (tid == 0) {
        for (int st = 0; st < NST; st++)
            mbar_init(uFull + st * 8, 1);
        mbar_init(uQbar, 1);
        fence_mbar_init();
    }
    __syncthreads();
    if (tid == 0) {
        mbar_expect_tx(uQbar, BR * D * 2);
#pragma unroll
        for (int cb = 0; cb < D / 64; cb++)
            tma_load_3d(uQ + cb * BR * 128, &tmQ, uQbar, cb * 64, q0, bh);
        for (int t = 0; t < NST - 1 && t < jend; t++)
            produce(t);
    }

    const int wg = tid >> 7, wtid = tid & 127;
    wg_geo g;
    g.uQ = uQ;
    g.wrow = wg * 64;
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
        if (j > 0)
            __syncthreads(); /* every warpgroup is done with tile j-1: its stage is free */
        if (tid == 0 && j + NST - 1 < jend)
            produce(j + NST - 1);
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
    }
    if (wfirst < S)
        wg_store_o<T, D, BR>(o, l, g, sQ, wtid, 1 + wg, O + (size_t)bh * S * D, q0, S);
#endif
}

template <typename T, int D, bool CAUSAL> int set_attr()
{
    return cudaFuncSetAttribute(wgmma_tma_fwd<T, D, CAUSAL>,
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
        fprintf(stderr, "cuda_wgmma_tma: %s\n", err);
        return 3;
    }
    const float scale_log2 = 1.4426950408889634f / sqrtf((float)D);
    wgmma_tma_fwd<T, D, CAUSAL><<<(unsigned)blocks, NT, smem_bytes<D>(), st>>>(
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
 * below 2^31 for the tensor map's slice coordinate) and the device
 * (compute capability 9.0), raises the dynamic shared-memory limit. No
 * workspace. Fails (-1, reason in err) otherwise. */
extern "C" int cuda_wgmma_tma_setup(const ab_shape *s, void **ctx, size_t *ws, char *err,
                                    size_t n)
{
    *ctx = NULL;
    *ws = 0;
    if (s->dtype != AB_FP16 && s->dtype != AB_BF16) {
        snprintf(err, n, "cuda_wgmma_tma: dtype must be fp16 or bf16");
        return -1;
    }
    if (s->D != 64 && s->D != 128) {
        snprintf(err, n, "cuda_wgmma_tma: D must be 64 or 128");
        return -1;
    }
    if (s->S < 1 || s->B < 1 || s->H < 1 || (long long)s->B * s->H > 0x7fffffffLL) {
        snprintf(err, n, "cuda_wgmma_tma: B, H, S must be >= 1 and B*H < 2^31");
        return -1;
    }
    if (int dev_rc = ab_wgmma_device_ok("cuda_wgmma_tma", err, n))
        return dev_rc;
    if (dispatch(0, s, NULL, NULL, NULL, NULL, 0)) {
        snprintf(err, n, "cuda_wgmma_tma: cudaFuncSetAttribute: %s",
                 cudaGetErrorString(cudaGetLastError()));
        return -1;
    }
    return 0;
}

/* run: encodes the three tensor maps (host only, ~microseconds) and
 * enqueues one forward pass on `stream`; 2 when the grid is too large, 3
 * when a tensor map cannot be encoded (message on stderr). */
extern "C" int cuda_wgmma_tma_run(void *ctx, const ab_shape *s, const void *q, const void *k,
                                  const void *v, void *o, void *stream)
{
    (void)ctx;
    return dispatch(1, s, q, k, v, o, (cudaStream_t)stream);
}

extern "C" void cuda_wgmma_tma_teardown(void *ctx) { (void)ctx; }
