/*
 * cuda_wgmma.cu: forward attention on Hopper's warpgroup MMA, rung
 * "cuda_wgmma" of the kernel ladder (the first sm_90a rung).
 *
 * Idea. cuda_mma_pipeline's FlashAttention-2 loop with the tensor-core
 * instruction changed: instead of every warp issuing mma.sync.m16n8k16 on
 * ldmatrix fragments, each warpgroup (4 warps, 128 threads) issues
 * wgmma.mma_async.m64nNk16, whose B operand (and for Q K^T the A operand)
 * the tensor cores read straight from shared memory through a 64-bit
 * matrix descriptor; no ldmatrix, no per-warp fragments of K or V.
 *   - block = 2 consumer warpgroups x 64 query rows (BR = 128), key tiles
 *     of BC = 128; S = Q K^T is 8 (D = 128) or 4 (D = 64) wgmma
 *     m64n128k16 per warpgroup and tile, both operands K-major;
 *   - online softmax on the fp32 accumulators (exp2 domain, as in
 *     cuda_mma_pipeline), P packed to 16-bit pairs in registers becomes
 *     the A operand of O += P V: 8 wgmma m64nDk16 with V MN-major
 *     (transposed B) from shared memory;
 *   - Q, K, V reach shared memory by cp.async.cg 16-byte copies issued by
 *     all 256 threads into the 128-byte-swizzled layout wgmma reads
 *     (kernels/wgmma_common.cuh), two stages of (K, V): tile j+1 in flight
 *     while tile j is computed, one cp.async.wait_group + proxy fence +
 *     __syncthreads per tile;
 *   - masks only on tiles that cross S or the diagonal; causal query tiles
 *     longest first; O staged through the warpgroup's Q rows, 16-byte
 *     stores.
 * What it does not do yet (later rungs): the copies cost issue slots of
 * the same warps that run the softmax; QK^T, softmax and PV of a
 * warpgroup are serial (the tensor cores idle during the softmax except
 * for what the other warpgroup happens to overlap); the two warpgroups
 * move in lock step through the block barrier.
 *
 * Source: Shah et al. 2024 (FlashAttention-3) section 3 (wgmma with
 * operands in shared memory, P from registers); PTX ISA wgmma.mma_async
 * and matrix descriptors (see wgmma_common.cuh); Dao 2023
 * (FlashAttention-2) Algorithm 1. Previous rung: cuda_mma_pipeline.
 *
 * Prediction (written before the first run). Headline B=4 H=16 S=4096
 * D=128 fp16 non-causal: 4 B H S^2 D = 137.4 GFLOP; ideal traffic Q, K, V
 * read once and O written once = 268 MB. Ceilings on the H200: fp16 GEMM
 * 755-779 TFLOP/s (attnbench env --measure-peaks, before the run) -> 0.18 ms;
 * 268 MB at ~4.5 TB/s
 * -> 0.06 ms; so compute-bound by 3x, the K/V re-reads (32 query tiles per
 * head) hit L2. cuda_mma_pipeline reaches 368 TFLOP/s (49% of the GEMM
 * ceiling, tensor pipe 52% active). wgmma removes the ldmatrix traffic
 * and doubles the work per issued instruction, but this rung keeps the
 * softmax on the critical path of the tensor cores: FlashAttention-3's
 * ablation (Table 2: 661 TFLOP/s full, 582 without the softmax/GEMM
 * overlap, 570 without warp specialisation) suggests ~450-520 TFLOP/s
 * without both; we predict 430-500 (1.2-1.35x cuda_mma_pipeline, 0.65-0.75x
 * cudnn_sdpa's 657).
 *
 * Any S >= 1 (zero-filled partial tiles, columns >= S masked, rows >= S
 * not stored), causal or not, D in {64, 128}, fp16 and bf16. sm_90a only:
 * built when gpu_targets includes 90a, setup refuses other devices.
 *
 * Measured (attnbench run experiments/hopper-d128.cfg: run 1 of
 * reports/hopper-forward/hopper.db, report
 * reports/hopper-forward/hopper-d128-run1.md; NVIDIA H200, 2026-11-23, hot
 * timing, medians; B*S = 16K tokens, H = 16, D = 128): 348.5-439.2 TFLOP/s
 * over the 16 configurations; B=4 S=4096 fp16: 404.2 non-causal
 * (cuda_mma_pipeline 368.6, 1.10x; cudnn_sdpa 646.7, 0.63x), 382.1 causal
 * (332.0; 579.9). Geometric mean against cudnn_sdpa 0.64 (0.59-0.71). Below
 * the prediction (1.2-1.35x the previous rung): the next rung, which changes
 * only how tiles reach shared memory, gained 1.17-1.35x, so most of what this
 * rung lacks is the cost of 256 threads issuing cp.async copies (address and
 * predicate arithmetic, wait_group, proxy fence, a block barrier per tile) on
 * the same warps that run the softmax, not the tensor-core instruction.
 *
 * ptxas (nvcc 13.0, sm_90a): 226
 * registers (D=128 non-causal) / 232 (causal) / 168 (D=64), no spills,
 * 160 KiB + 1 KiB dynamic shared memory at D=128; SASS shows
 * HGMMA.64x128x16.F32 (and .BF16) and LDGSTS.E.BYPASS.128, no LDL/STL.
 * Checked: gpu_check cuda_wgmma (64 cases) and compute-sanitizer memcheck
 * and racecheck at S = 17, 113 (reports/hopper-forward/hopper-gpu-suite.log).
 */
#include "entry_points.h"
#include "wgmma_common.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <type_traits>

using namespace abwg;

namespace {

constexpr int NWG = 2;          /* consumer warpgroups */
constexpr int BR = 64 * NWG;    /* query rows per block */
constexpr int BC = 128;         /* keys per tile */
constexpr int NST = 2;          /* (K, V) stages */
constexpr int NT = 128 * NWG;   /* threads */

template <int D> constexpr int smem_bytes() { return 1024 + BR * D * 2 + NST * 2 * BC * D * 2; }

template <typename T, int D, bool CAUSAL>
__global__ void __launch_bounds__(NT, 1)
    wgmma_fwd(const T *__restrict__ Q, const T *__restrict__ K, const T *__restrict__ V,
              T *__restrict__ O, int S, int nqt, float scale_log2)
{
#if AB_WGMMA_DEVICE
    constexpr int CH = D / 8;          /* 16-byte chunks per row */
    constexpr int TILE = BC * D * 2;   /* bytes of one K or V tile */
    extern __shared__ unsigned char smem_raw[];
    /* sw128 blocks need 1024-byte alignment; smem_bytes has the slack */
    const uint32_t raw = smem_u32(smem_raw);
    const uint32_t uQ = (raw + 1023u) & ~1023u;
    unsigned char *sQ = smem_raw + (uQ - raw);
    const uint32_t uKV = uQ + BR * D * 2; /* stage s: K at uKV + 2s TILE, V at + TILE */

    const int tid = threadIdx.x;
    int qt = (int)(blockIdx.x % (unsigned)nqt);
    if (CAUSAL)
        qt = nqt - 1 - qt; /* longest query tiles of a (b, h) first */
    const size_t bh = blockIdx.x / (unsigned)nqt;
    const size_t base = bh * (size_t)S * D;
    const T *Qg = Q + base, *Kg = K + base, *Vg = V + base;
    const int q0 = qt * BR;
    const int nkv = (S + BC - 1) / BC;
    const int jend = CAUSAL ? min(nkv, (min(q0 + BR, S) - 1) / BC + 1) : nkv;

    /* cp.async of ROWS rows from row g0 of g into an sw128 tile at sdst;
     * rows >= S zero-filled */
    auto load_rows = [&](uint32_t sdst, const T *g, int g0, auto rows_c) {
        constexpr int ROWS = decltype(rows_c)::value;
#pragma unroll
        for (int it = 0; it < ROWS * CH / NT; it++) {
            const int i = tid + it * NT, r = i / CH, c = i % CH;
            const bool ok = g0 + r < S;
            cp_async16(sdst + sw128_off<ROWS>(r, c), ok ? g + (size_t)(g0 + r) * D + c * 8 : g,
                       ok ? 16 : 0);
        }
    };
    using rowsBR = std::integral_constant<int, BR>;
    using rowsBC = std::integral_constant<int, BC>;
    auto load_kv = [&](int j) {
        const uint32_t st = uKV + (uint32_t)((j % NST) * 2 * TILE);
        load_rows(st, Kg, j * BC, rowsBC{});
        load_rows(st + TILE, Vg, j * BC, rowsBC{});
    };

    /* Q and tile 0 in group 0, tiles 1..NST-2 in their own groups */
    load_rows(uQ, Qg, q0, rowsBR{});
#pragma unroll
    for (int t = 0; t < NST - 1; t++) {
        if (t < jend)
            load_kv(t);
        cp_async_commit();
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

    for (int j = 0; j < jend; j++) {
        cp_async_wait<NST - 2>(); /* tile j (and Q) landed for this thread */
        fence_proxy_async();      /* ... and is visible to wgmma */
        __syncthreads();          /* ... for all threads; tile j-1's stage is free */
        if (j + NST - 1 < jend)
            load_kv(j + NST - 1);
        cp_async_commit();

        const int k0 = j * BC;
        const uint32_t uK = uKV + (uint32_t)((j % NST) * 2 * TILE), uV = uK + TILE;
        if (wfirst < S && (!CAUSAL || k0 <= wlast)) {
            if (k0 + BC > S || (CAUSAL && k0 + BC - 1 > wfirst))
                wg_tile<T, D, BC, BR, CAUSAL, true>(o, m, l, g, uK, uV, k0, S, scale_log2);
            else
                wg_tile<T, D, BC, BR, CAUSAL, false>(o, m, l, g, uK, uV, k0, S, scale_log2);
        }
    }
    cp_async_wait<0>(); /* nothing may land in shared memory after exit */
    if (wfirst < S)
        wg_store_o<T, D, BR>(o, l, g, sQ, wtid, 1 + wg, O + base, q0, S);
#endif
}


template <typename T, int D, bool CAUSAL> int set_attr()
{
    return cudaFuncSetAttribute(wgmma_fwd<T, D, CAUSAL>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                smem_bytes<D>()) == cudaSuccess
               ? 0
               : -1;
}

template <typename T, int D, bool CAUSAL>
int launch(const ab_shape *s, const void *q, const void *k, const void *v, void *o,
           cudaStream_t st)
{
    const int nqt = (s->S + BR - 1) / BR;
    const long long blocks = (long long)nqt * s->B * s->H;
    if (blocks > 0x7fffffffLL)
        return 2;
    const float scale_log2 = 1.4426950408889634f / sqrtf((float)D);
    wgmma_fwd<T, D, CAUSAL><<<(unsigned)blocks, NT, smem_bytes<D>(), st>>>(
        (const T *)q, (const T *)k, (const T *)v, (T *)o, s->S, nqt, scale_log2);
    return 0;
}

/* op 0: set_attr, op 1: launch, for the shape's (dtype, D, causal). */
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

int dispatch(int op, const ab_shape *s, const void *q, const void *k, const void *v, void *o,
             cudaStream_t st)
{
    return s->dtype == AB_FP16 ? dispatch_t<__half>(op, s, q, k, v, o, st)
                               : dispatch_t<__nv_bfloat16>(op, s, q, k, v, o, st);
}

} /* namespace */

/* setup: checks the shape (fp16/bf16, D in {64, 128}, B, H, S >= 1) and
 * the device (compute capability 9.0) and raises the kernel's dynamic
 * shared-memory limit. No workspace. Fails (-1, reason in err) otherwise. */
extern "C" int cuda_wgmma_setup(const ab_shape *s, void **ctx, size_t *ws, char *err, size_t n)
{
    *ctx = NULL;
    *ws = 0;
    if (s->dtype != AB_FP16 && s->dtype != AB_BF16) {
        snprintf(err, n, "cuda_wgmma: dtype must be fp16 or bf16");
        return -1;
    }
    if (s->D != 64 && s->D != 128) {
        snprintf(err, n, "cuda_wgmma: D must be 64 or 128");
        return -1;
    }
    if (s->S < 1 || s->B < 1 || s->H < 1) {
        snprintf(err, n, "cuda_wgmma: B, H, S must be >= 1");
        return -1;
    }
    if (int dev_rc = ab_wgmma_device_ok("cuda_wgmma", err, n))
        return dev_rc;
    if (dispatch(0, s, NULL, NULL, NULL, NULL, 0)) {
        snprintf(err, n, "cuda_wgmma: cudaFuncSetAttribute: %s",
                 cudaGetErrorString(cudaGetLastError()));
        return -1;
    }
    return 0;
}

/* run: enqueues one forward pass on `stream`; 2 when the grid is too large. */
extern "C" int cuda_wgmma_run(void *ctx, const ab_shape *s, const void *q, const void *k,
                              const void *v, void *o, void *stream)
{
    (void)ctx;
    return dispatch(1, s, q, k, v, o, (cudaStream_t)stream);
}

extern "C" void cuda_wgmma_teardown(void *ctx) { (void)ctx; }
