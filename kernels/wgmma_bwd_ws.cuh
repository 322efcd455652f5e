/*
 * wgmma_bwd_ws.cuh: what the producer-warpgroup backward rungs on Hopper
 * (cuda_wgmma_bwd_ws, cuda_wgmma_bwd_owndq, cuda_wgmma_bwd_heads) share,
 * so that each rung's file holds only its own idea:
 *   ws_layout      the shared-memory regions (K, V; two stages of Q, dO,
 *                  logsumexp log2 e and Delta; dS^T buffers; fp32 dQ share
 *                  buffers; mbarriers), for NDS dS^T and NDQ dQ buffers
 *   ws_sweep       which query tiles of which query heads a block visits
 *                  (a block owns BC keys of one K/V head; causal blocks
 *                  start at the first tile that sees their first key)
 *   ws_producer    the producer warpgroup: thread 0 loads K, V once and
 *                  each step's Q, dO (TMA, 128B swizzle, rows past S
 *                  zero-filled), logsumexp and Delta (bulk copies from the
 *                  padded buffers of bwd_prep) into two stages handed over
 *                  by full/empty mbarriers; all 128 threads add the
 *                  consumers' dQ share of the previous step (the sum of the
 *                  NDQ buffers) to the fp32 accumulator with float4 atomics
 *   bwd_ws         the main kernel of cuda_wgmma_bwd_ws and
 *                  cuda_wgmma_bwd_heads: the producer above and two
 *                  consumer warpgroups of 64 keys (setmaxnreg 240; producer
 *                  24) that meet once per step at a named barrier (dS^T of
 *                  all 128 keys stored, double-buffered) and each compute
 *                  D/2 columns of the dQ share; which block does what comes
 *                  from the rung's schedule type Sched, and the dK/dV
 *                  epilogue stores in the dtype or, given an fp32
 *                  accumulator, adds to it (key heads shared by blocks)
 *   ws_ctx, ws_setup, ws_before, ws_after, ws_teardown
 *                  the host side: the workspace (fp32 dQ accumulator,
 *                  padded Delta and lse log2 e, optionally fp32 dK/dV
 *                  accumulators), the tensor maps, the memsets and the
 *                  pre-pass before the main kernel, dQ = scale * acc after
 * Header-only; device code only in the sm_90a pass (AB_WGMMA_DEVICE).
 *
 * Sources: Shah et al., "FlashAttention-3" (2024) section 3.1 (producer
 * warpgroup, TMA, mbarrier pipeline, setmaxnreg) and its backward (dQ
 * accumulated separately in fp32), read to understand, not copied; Tri
 * Dao, "FlashAttention-2" (2023) Algorithm 2; PTX ISA cp.async.bulk,
 * cp.async.bulk.tensor, mbarrier, setmaxnreg, red.global.add (v4.f32).
 */
#ifndef ATTNBENCH_WGMMA_BWD_WS_CUH
#define ATTNBENCH_WGMMA_BWD_WS_CUH

#include "bwd_common.cuh"
#include "entry_points.h"
#include "gpu.h"
#include "wgmma_bwd.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <type_traits>

namespace abwgws {

using namespace abwg;
using namespace abwgb;
using namespace abbwd;

constexpr int NWG = 2;              /* consumer warpgroups, 64 keys each */
constexpr int BC = 64 * NWG;        /* keys per block */
constexpr int BR = 64;              /* query rows per step */
constexpr int NT = 128 * (NWG + 1); /* producer warpgroup + consumers */

/* Byte offsets of the shared-memory regions for head dimension D, NDS
 * dS^T buffers of BC x BR and NDQ fp32 dQ buffers of BR rows (padded by 8
 * floats: conflict-free 8-byte stores). */
template <int D, int NDS, int NDQ> struct ws_layout {
    static constexpr int TK = BC * D * 2;  /* one K or V tile */
    static constexpr int TQ = BR * D * 2;  /* one stage of Q or dO */
    static constexpr int TS = BC * BR * 2; /* one dS^T buffer */
    static constexpr int DQS = D + 8;      /* floats per row of a dQ buffer */
    static constexpr int K = 0;
    static constexpr int V = K + TK;
    static constexpr int Q = V + TK;           /* two stages */
    static constexpr int G = Q + 2 * TQ;       /* dO, two stages */
    static constexpr int DS = G + 2 * TQ;      /* dS^T buffers */
    static constexpr int L = DS + NDS * TS;    /* lse log2 e, two stages of BR floats */
    static constexpr int DL = L + 2 * BR * 4;  /* Delta, two stages */
    static constexpr int DQ = DL + 2 * BR * 4; /* dQ shares [NDQ][BR][DQS] fp32 */
    static constexpr int BAR = DQ + NDQ * BR * DQS * 4; /* mbarriers */
    static constexpr int bytes = BAR + 8 * 8 + 1024;     /* + alignment slack */
};

/* mbarrier addresses (8 bytes each) from the layout's BAR region */
struct ws_bars {
    uint32_t full, empty, dqfull, dqempty, kv; /* full, empty: two stages each */
};

static __device__ __forceinline__ ws_bars ws_bars_at(uint32_t bar)
{
    ws_bars m;
    m.full = bar;
    m.empty = bar + 16;
    m.dqfull = bar + 32;
    m.dqempty = bar + 40;
    m.kv = bar + 48;
    return m;
}

/* The query tiles a block visits, step by step: tiles t0 .. t0 + nt - 1
 * of query heads gq0 .. gq0 + ngq - 1 of K/V head hk in batch b (query
 * head hk * Gq + gq), nsteps = ngq * nt; the first step's tile is the
 * first whose last row sees key j0 under the bottom-right causal mask. */
struct ws_sweep {
    int b, hk, Gq, gq0, H, t0, nt, nsteps;
};

static __device__ __forceinline__ ws_sweep ws_sweep_of(int b, int hk, int H, int HK, int gq0,
                                                       int ngq, int j0, int S, int SK, int causal)
{
    ws_sweep w;
    w.b = b;
    w.hk = hk;
    w.Gq = H / HK;
    w.gq0 = gq0;
    w.H = H;
    w.t0 = 0;
    if (causal) {
        const int x = j0 - (SK - S) - (BR - 1);
        w.t0 = x <= 0 ? 0 : (x + BR - 1) / BR;
    }
    const int ntiles = (S + BR - 1) / BR;
    w.nt = ntiles > w.t0 ? ntiles - w.t0 : 0;
    w.nsteps = ngq * w.nt;
    return w;
}

/* query row block (b * H + h) and first row of step it */
static __device__ __forceinline__ int ws_bh(const ws_sweep &w, int it)
{
    return w.b * w.H + w.hk * w.Gq + w.gq0 + it / w.nt;
}
static __device__ __forceinline__ int ws_q0(const ws_sweep &w, int it)
{
    return (w.t0 + it % w.nt) * BR;
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

/* Thread 0 of the block initialises the mbarriers (consumer threads NCT);
 * every thread then meets at a block barrier. */
static __device__ __forceinline__ void ws_init_bars(const ws_bars &m, int NCT)
{
    if (threadIdx.x == 0) {
        for (int st = 0; st < 2; st++) {
            mbar_init(m.full + st * 8, 1);
            mbar_init(m.empty + st * 8, NCT);
        }
        mbar_init(m.dqfull, NCT);
        mbar_init(m.dqempty, 128);
        mbar_init(m.kv, 1);
        fence_mbar_init();
    }
    __syncthreads();
}

/* The producer warpgroup (wtid = thread within it; contract in the file
 * header). base: the 1024-aligned shared base; bk = b * HK + hk (K/V map
 * slice); sDQ: the NDQ dQ buffers; dqacc: [B, H, S, D] fp32. */
template <int D, int NDS, int NDQ>
static __device__ __forceinline__ void
ws_producer(const ws_sweep &w, int wtid, uint32_t base, const ws_bars &m, const float *sDQ,
            const CUtensorMap *tmQ, const CUtensorMap *tmG, const CUtensorMap *tmK,
            const CUtensorMap *tmV, const float *lse2, const float *delta, float *dqacc, int j0,
            int bk, int S, int Sp)
{
    using L = ws_layout<D, NDS, NDQ>;
    if (wtid == 0) {
        mbar_expect_tx(m.kv, 2 * L::TK);
#pragma unroll
        for (int cb = 0; cb < D / 64; cb++) {
            tma_load_3d(base + L::K + cb * BC * 128, tmK, m.kv, cb * 64, j0, bk);
            tma_load_3d(base + L::V + cb * BC * 128, tmV, m.kv, cb * 64, j0, bk);
        }
    }
    for (int it = 0; it <= w.nsteps; it++) {
        if (wtid == 0 && it < w.nsteps) {
            const int st = it & 1;
            if (it >= 2) /* the consumers are done with step it - 2 */
                mbar_wait(m.empty + st * 8, (uint32_t)(((it >> 1) - 1) & 1));
            const int q0 = ws_q0(w, it), bh = ws_bh(w, it);
            const uint32_t bar = m.full + st * 8;
            mbar_expect_tx(bar, 2 * L::TQ + 2 * BR * 4);
#pragma unroll
            for (int cb = 0; cb < D / 64; cb++) {
                tma_load_3d(base + L::Q + st * L::TQ + cb * BR * 128, tmQ, bar, cb * 64, q0, bh);
                tma_load_3d(base + L::G + st * L::TQ + cb * BR * 128, tmG, bar, cb * 64, q0, bh);
            }
            bulk_load(base + L::L + st * BR * 4, lse2 + (size_t)bh * Sp + q0, BR * 4, bar);
            bulk_load(base + L::DL + st * BR * 4, delta + (size_t)bh * Sp + q0, BR * 4, bar);
        }
        if (it >= 1) { /* the dQ share of step it - 1 */
            const int k = it - 1;
            const int q0 = ws_q0(w, k);
            const size_t bh = (size_t)ws_bh(w, k);
            mbar_wait(m.dqfull, (uint32_t)(k & 1));
            float *dq = dqacc + (bh * S + q0) * D;
#pragma unroll 1
            for (int i = wtid; i < BR * D / 4; i += 128) {
                const int r = i / (D / 4), c = i % (D / 4);
                if (q0 + r < S) {
                    float4 v = *reinterpret_cast<const float4 *>(sDQ + r * L::DQS + 4 * c);
#pragma unroll
                    for (int u = 1; u < NDQ; u++) {
                        const float4 a = *reinterpret_cast<const float4 *>(
                            sDQ + (u * BR + r) * L::DQS + 4 * c);
                        v.x += a.x, v.y += a.y, v.z += a.z, v.w += a.w;
                    }
                    atomicAdd(reinterpret_cast<float4 *>(dq + (size_t)r * D + 4 * c), v);
                }
            }
            abmma::mbar_arrive(m.dqempty);
        }
    }
}

/* dK and dV sums of the thread's accumulator rows added (unscaled) to the
 * fp32 accumulators dkacc, dvacc at the K/V head offset kvbase, rows past
 * SK skipped: the epilogue of blocks that share their keys' sums with the
 * blocks of the other query heads of the group. */
template <int D>
static __device__ __forceinline__ void ws_add_dkdv(float *dkacc, float *dvacc, size_t kvbase,
                                                   const bwd_geo &x, int j0, int SK,
                                                   const float (&dk)[D / 2],
                                                   const float (&dv)[D / 2])
{
#pragma unroll
    for (int n = 0; n < D / 8; n++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int j = j0 + x.krow + 8 * h, d = 8 * n + 2 * x.t;
            if (j < SK) {
                const size_t at = kvbase + (size_t)j * D + d;
                abmma::atomic_add_f2(dkacc + at, make_float2(dk[4 * n + 2 * h], dk[4 * n + 2 * h + 1]));
                abmma::atomic_add_f2(dvacc + at, make_float2(dv[4 * n + 2 * h], dv[4 * n + 2 * h + 1]));
            }
        }
}
#endif

/* The main kernel of cuda_wgmma_bwd_ws and cuda_wgmma_bwd_heads: NT
 * threads, ws_layout<D, 2, 1>::bytes of dynamic shared memory; the grid
 * and what each block does are Sched's (Sched::block(H, HK, S, SK, causal,
 * sched_arg, &b, &hk, &gq0, &ngq) returns the block's key tile index and
 * its query heads; sched_arg is the rung's own parameter of it). tmQ, tmG: [B*H, S, D] maps with 64-row boxes; tmK, tmV: [B*H_kv,
 * S_kv, D] with BC-row boxes; lse2, delta: [B*H, Sp] (Sp = S rounded up to
 * 64). Adds dS K (unscaled) into dqacc [B, H, S, D]; writes dK = scale sum
 * dS^T Q and dV = sum P^T dO of its keys in the dtype, or, when dkvacc is
 * not NULL, adds the unscaled sums to dkvacc (dK) and dkvacc + B*H_kv*S_kv*D
 * (dV) in fp32. */
template <typename T, int D, typename Sched>
__global__ void __launch_bounds__(NT, 1)
    bwd_ws(const __grid_constant__ CUtensorMap tmQ, const __grid_constant__ CUtensorMap tmG,
           const __grid_constant__ CUtensorMap tmK, const __grid_constant__ CUtensorMap tmV,
           const float *__restrict__ lse2, const float *__restrict__ delta,
           float *__restrict__ dqacc, T *__restrict__ dK, T *__restrict__ dV,
           float *__restrict__ dkvacc, long long kvnumel, int H, int HK, int S, int SK, int Sp,
           int causal, float scale, int sched_arg)
{
#if AB_WGMMA_DEVICE
    using L = ws_layout<D, 2, 1>;
    constexpr int NQ = D / NWG;    /* dQ columns per consumer warpgroup */
    constexpr int NCT = 128 * NWG; /* consumer threads */
    extern __shared__ unsigned char smem_raw[];
    const uint32_t raw = smem_u32(smem_raw);
    const uint32_t base = (raw + 1023u) & ~1023u;
    unsigned char *sbase = smem_raw + (base - raw);
    const uint32_t uK = base + L::K, uV = base + L::V;
    const ws_bars m = ws_bars_at(base + L::BAR);
    float *sDQ = reinterpret_cast<float *>(sbase + L::DQ);

    const int tid = threadIdx.x, wg = tid >> 7, wtid = tid & 127;
    int b, hk, gq0, ngq;
    const int kt = Sched::block(H, HK, S, SK, causal, sched_arg, &b, &hk, &gq0, &ngq);
    const int j0 = kt * BC;
    const int bk = b * HK + hk;
    const int off = SK - S; /* key j visible to row i iff j <= i + off */
    const ws_sweep w = ws_sweep_of(b, hk, H, HK, gq0, ngq, j0, S, SK, causal);

    ws_init_bars(m, NCT);

    if (wg == 0) {
        setmaxnreg_dec<24>();
        ws_producer<D, 2, 1>(w, wtid, base, m, sDQ, &tmQ, &tmG, &tmK, &tmV, lse2, delta, dqacc,
                             j0, bk, S, Sp);
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
        mbar_wait(m.kv, 0);
        for (int it = 0; it < w.nsteps; it++) {
            const int st = it & 1;
            const int q0 = ws_q0(w, it);
            const uint32_t uQ = base + L::Q + st * L::TQ, uG = base + L::G + st * L::TQ;
            const uint32_t uDS = base + L::DS + st * L::TS;
            const float *lL = reinterpret_cast<const float *>(sbase + L::L) + st * BR;
            const float *lD = reinterpret_cast<const float *>(sbase + L::DL) + st * BR;
            mbar_wait(m.full + st * 8, (uint32_t)((it >> 1) & 1));

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
            abmma::mbar_arrive(m.empty + st * 8); /* Q, dO, lse, Delta of stage st read */

            /* the dQ share to shared memory once the producer took the last one */
            if (it >= 1)
                mbar_wait(m.dqempty, (uint32_t)((it - 1) & 1));
#pragma unroll
            for (int n = 0; n < NQ / 8; n++)
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    const int r = x.wi * 16 + x.g + 8 * h;
                    *reinterpret_cast<float2 *>(sDQ + r * L::DQS + cw * NQ + 8 * n + 2 * x.t) =
                        make_float2(qacc[4 * n + 2 * h], qacc[4 * n + 2 * h + 1]);
                }
            abmma::mbar_arrive(m.dqfull);
        }
        const size_t kvbase = (size_t)bk * SK * D;
        if (dkvacc)
            ws_add_dkdv<D>(dkvacc, dkvacc + kvnumel, kvbase, x, j0, SK, dk, dv);
        else
            bwd_wg_store_dkdv<T, D>(dK, dV, kvbase, x, j0, SK, dk, dv, scale);
    }
#endif
}

/* What setup keeps: the forward's context and the backward workspace. */
struct ws_ctx {
    void *fwd;     /* cuda_wgmma_persistent's context (the forward) */
    float *dqacc;  /* [B,H,S,D] fp32 dQ accumulator (NULL for pass = fwd) */
    float *delta;  /* [B*H, Sp], padding rows zero */
    float *lse2;   /* [B*H, Sp] lse log2 e, padding rows zero */
    float *dkvacc; /* NULL, or [2][B,H_kv,S_kv,D] fp32 dK, dV accumulators */
    int Sp;        /* S rounded up to a multiple of BR */
};

/* The four tensor maps of one call */
struct ws_maps {
    CUtensorMap q, g, k, v;
};

/* Before the main kernel: encodes the maps of q, dO (64-row boxes), k, v
 * (BC-row boxes) into *m, zeroes the dQ (and, if any, dK/dV) accumulators
 * and runs the pre-pass on st. 0, a cudaError_t, or 3 when a tensor map
 * cannot be encoded (printed with the rung's name). */
template <typename T, int D>
int ws_before(const char *name, const ws_ctx *c, const ab_shape *s, const void *q, const void *k,
              const void *v, const void *o, const void *g, const float *lse, ws_maps *m,
              cudaStream_t st)
{
    const long long rows = (long long)s->B * s->H * s->S;
    const int HK = ab_shape_hkv(s), SK = ab_shape_skv(s);
    const int bf = std::is_same<T, __nv_bfloat16>::value;
    char err[256];
    if (ab_wgmma_tensor_map(&m->q, q, bf, (long long)s->B * s->H, s->S, D, BR, err, sizeof err) ||
        ab_wgmma_tensor_map(&m->g, g, bf, (long long)s->B * s->H, s->S, D, BR, err, sizeof err) ||
        ab_wgmma_tensor_map(&m->k, k, bf, (long long)s->B * HK, SK, D, BC, err, sizeof err) ||
        ab_wgmma_tensor_map(&m->v, v, bf, (long long)s->B * HK, SK, D, BC, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", name, err);
        return 3;
    }
    cudaError_t e = cudaMemsetAsync(c->dqacc, 0, (size_t)rows * D * sizeof(float), st);
    if (e == cudaSuccess && c->dkvacc)
        e = cudaMemsetAsync(c->dkvacc, 0, 2 * (size_t)s->B * HK * SK * D * sizeof(float), st);
    if (e != cudaSuccess)
        return (int)e;
    bwd_prep<T, D><<<(unsigned)((rows * (D / 8) + 255) / 256), 256, 0, st>>>(
        (const T *)o, (const T *)g, lse, c->delta, c->lse2, rows, s->S, c->Sp);
    return (int)cudaGetLastError();
}

/* n4 float4s of acc times scale into out in the dtype, on st */
template <typename T>
void ws_convert(const float *acc, void *out, long long n4, float scale, cudaStream_t st)
{
    const long long nb = (n4 + 255) / 256;
    bwd_dq_out<T><<<(unsigned)(nb < 4096 ? nb : 4096), 256, 0, st>>>((const float4 *)acc, (T *)out,
                                                                     n4, scale);
}

/* After the main kernel: dQ = scale * accumulator in the dtype and, when
 * the context has dK/dV accumulators, dK = scale * theirs, dV = theirs.
 * 0 or a cudaError_t (the last launch error). */
template <typename T>
int ws_after(const ws_ctx *c, const ab_shape *s, void *dq, void *dk, void *dv, cudaStream_t st)
{
    const float scale = 1.0f / sqrtf((float)s->D);
    ws_convert<T>(c->dqacc, dq, (long long)s->B * s->H * s->S * s->D / 4, scale, st);
    if (c->dkvacc) {
        const long long kv = (long long)s->B * ab_shape_hkv(s) * ab_shape_skv(s) * s->D;
        ws_convert<T>(c->dkvacc, dk, kv / 4, scale, st);
        ws_convert<T>(c->dkvacc + kv, dv, kv / 4, 1.0f, st);
    }
    return (int)cudaGetLastError();
}

/* teardown: frees what ws_setup allocated (the forward's context
 * included); ctx may be NULL. */
static inline void ws_teardown(void *ctx)
{
    ws_ctx *c = (ws_ctx *)ctx;
    if (!c)
        return;
    if (c->fwd)
        cuda_wgmma_persistent_teardown(c->fwd);
    cudaFree(c->dqacc);
    cudaFree(c->delta);
    cudaFree(c->lse2);
    cudaFree(c->dkvacc);
    free(c);
}

/* setup of a producer-warpgroup rung called name: fp16/bf16, D in {64,
 * 128}, any S, S_kv, H_kv dividing H, B*H_kv within max_bkv (the rung's
 * grid limit), compute capability 9.0 (else AB_SETUP_UNSUPPORTED with the
 * reason); the forward's setup (cuda_wgmma_persistent) and, unless
 * s->pass is "fwd", set_smem(s) (the rung raises its main kernel's
 * shared-memory limit; 0 or a cudaError_t), the fp32 dQ accumulator (4
 * B*H*S*D bytes), the padded Delta and lse log2 e buffers (2 x 4 B*H*Sp
 * bytes, zeroed here) and, with kv_acc, the fp32 dK/dV accumulators (2 x 4
 * B*H_kv*S_kv*D bytes), all reported in *ws. Non-zero with err otherwise. */
static inline int ws_setup(const char *name, const ab_shape *s, void **ctx, size_t *ws, char *err,
                           size_t n, long long max_bkv, int (*set_smem)(const ab_shape *),
                           int kv_acc)
{
    *ctx = NULL;
    *ws = 0;
    if ((s->dtype != AB_FP16 && s->dtype != AB_BF16) || (s->D != 64 && s->D != 128)) {
        snprintf(err, n, "%s: fp16 or bf16 and D in {64, 128} only", name);
        return -1;
    }
    if ((long long)s->B * ab_shape_hkv(s) > max_bkv) {
        snprintf(err, n, "%s: B*H_kv = %lld exceeds the grid's %lld", name,
                 (long long)s->B * ab_shape_hkv(s), max_bkv);
        return -1;
    }
    if (int dev_rc = ab_wgmma_device_ok(name, err, n))
        return dev_rc;
    ws_ctx *c = (ws_ctx *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, n, "%s: out of host memory", name);
        return -1;
    }
    size_t fws = 0;
    if (int frc = cuda_wgmma_persistent_setup(s, &c->fwd, &fws, err, n)) {
        free(c);
        return frc;
    }
    if (s->pass != AB_FWD) {
        const size_t rows = (size_t)s->B * s->H * s->S;
        const size_t kv = kv_acc ? 2 * (size_t)s->B * ab_shape_hkv(s) * ab_shape_skv(s) * s->D : 0;
        c->Sp = (s->S + BR - 1) / BR * BR;
        const size_t prow = (size_t)s->B * s->H * c->Sp;
        cudaError_t e = (cudaError_t)set_smem(s);
        if (e == cudaSuccess)
            e = cudaMalloc((void **)&c->dqacc, rows * s->D * sizeof(float));
        if (e == cudaSuccess)
            e = cudaMalloc((void **)&c->delta, prow * sizeof(float));
        if (e == cudaSuccess)
            e = cudaMalloc((void **)&c->lse2, prow * sizeof(float));
        if (e == cudaSuccess && kv)
            e = cudaMalloc((void **)&c->dkvacc, kv * sizeof(float));
        if (e == cudaSuccess)
            e = cudaMemset(c->delta, 0, prow * sizeof(float));
        if (e == cudaSuccess)
            e = cudaMemset(c->lse2, 0, prow * sizeof(float));
        if (e != cudaSuccess) {
            snprintf(err, n, "%s: %s", name, cudaGetErrorString(e));
            ws_teardown(c);
            return -1;
        }
        *ws = (rows * s->D + 2 * prow + kv) * sizeof(float);
    }
    *ws += fws;
    *ctx = c;
    return 0;
}

} /* namespace abwgws */

#endif
