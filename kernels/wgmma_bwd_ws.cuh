/*
 * wgmma_bwd_ws.cuh: what the producer-warpgroup backward rungs on Hopper
 * (cuda_wgmma_bwd_ws, cuda_wgmma_bwd_owndq, cuda_wgmma_bwd_heads and the
 * rungs after it) share,
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
 *                  by full/empty mbarriers; all 128 threads (or warps 1-3,
 *                  or bulk copies from warp 1) add the consumers' dQ share
 *                  of the previous step (the sum of the NDQ buffers) to the
 *                  fp32 accumulator with float4 atomics
 *   bwd_ws         the main kernel of cuda_wgmma_bwd_ws,
 *                  cuda_wgmma_bwd_heads, cuda_wgmma_bwd_overlap,
 *                  cuda_wgmma_bwd_bulkdq, cuda_wgmma_bwd_loadwarp and the
 *                  rungs after them (AB_WS_RUNG): the
 *                  producer above and two
 *                  consumer warpgroups of 64 keys (setmaxnreg 240; producer
 *                  24) that meet once per step at a named barrier (dS^T of
 *                  all 128 keys stored, double-buffered) and each compute
 *                  D/2 columns of the dQ share; which block does what comes
 *                  from the rung's schedule type Sched, and the dK/dV
 *                  epilogue stores in the dtype or, given an fp32
 *                  accumulator, adds to it (key heads shared by blocks);
 *                  the rung's feature bits F switch on WS_OVERLAP (the
 *                  next tile's S^T, dP^T products issued before the wait
 *                  for this tile's dQ product), WS_BULK_DQ (the dQ share
 *                  added to the accumulator by bulk reduce-add copies,
 *                  cp.reduce.async.bulk, instead of float4 atomics),
 *                  WS_LOAD_WARP (the producer's warp 0 only loads) and
 *                  WS_SPLIT_FULL (bwd_wg_ds's unmasked or masked code
 *                  chosen once a step, not per group of elements); on the
 *                  WS_DEFER_DQ path (tile it's dQ product in step it + 1,
 *                  the dS^T buffers handed over by the dsfull/dsempty
 *                  mbarriers instead of the consumers' per-step barrier)
 *                  also WS_STAGGER (the second consumer starts behind the
 *                  first), WS_REG_DQ (each consumer adds its dQ product
 *                  from its registers; no dQ buffer, no producer atomics),
 *                  WS_RED4 (those atomics four floats wide), WS_VEC_LSE
 *                  (logsumexp and Delta in bwd_vec_row's order, float4
 *                  loads), WS_VEC_HOIST, WS_STMATRIX (dS^T by
 *                  stmatrix), WS_EXP_FIRST (P^T computed while the dP^T
 *                  product runs) and, with WS_BULK_DQ, WS_DQ_WIDE (a
 *                  tile's whole dQ product by one consumer, the two taking
 *                  tiles in turn, into the dQ buffer), WS_DQ_TMA (a dQ
 *                  buffer per consumer in the swizzled layout of the dQ
 *                  accumulator's tensor map, added by tensor reduce-add
 *                  copies), WS_DQ_EARLY (that product issued behind
 *                  dV, dK), WS_PINGPONG (the two consumers' products
 *                  issued in strict turn), WS_DS_LATE (the dS^T
 *                  buffer's wait moved from before the step's products to
 *                  right before the store), WS_WG_UNIFORM (the
 *                  consumer's index made warp-uniform for the compiler),
 *                  WS_DESC_ADD (descriptors stepped by constant adds)
 *                  and WS_KV_REGS (K, V from registers, D = 64); each
 *                  rung's file says what it measured
 *   sched_kv, sched_heads
 *                  the two schedules: a block per key tile and K/V head
 *                  sweeping the group's query heads (2-D grid), or a block
 *                  per key tile and query head, causal blocks longest first
 *                  in sections of 8 heads (1-D grid)
 *   ws_ctx, ws_setup, ws_before, ws_after, ws_teardown
 *                  the host side: the workspace (fp32 dQ accumulator,
 *                  padded Delta and lse log2 e, optionally fp32 dK/dV
 *                  accumulators), the tensor maps, the memsets and the
 *                  pre-pass before the main kernel, dQ = scale * acc after
 *   AB_WS_RUNG     the four entry points of a rung that is bwd_ws with a
 *                  schedule and feature bits (ws_launch, ws_set_smem,
 *                  ws_run_bwd behind it)
 * Header-only; device code only in the sm_90a pass (AB_WGMMA_DEVICE).
 *
 * Sources: Shah et al., "FlashAttention-3" (2024) section 3.1 (producer
 * warpgroup, TMA, mbarrier pipeline, setmaxnreg) and its backward (dQ
 * accumulated separately in fp32), read to understand, not copied; Tri
 * Dao, "FlashAttention-2" (2023) Algorithm 2; cuDNN 9's fused backward as
 * Nsight Compute shows its SASS (reports/hopper-bwd-wide/), observed, not
 * copied; PTX ISA cp.async.bulk, cp.async.bulk.tensor, cp.reduce.async.bulk
 * (.add.f32), cp.reduce.async.bulk.tensor (.add), mbarrier, setmaxnreg,
 * red.global.add (v4.f32).
 */
#ifndef ATTNBENCH_WGMMA_BWD_WS_CUH
#define ATTNBENCH_WGMMA_BWD_WS_CUH

#include "bwd_common.cuh"
#include "entry_points.h"
#include "gpu.h"
#include "wgmma_bwd.cuh"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>

namespace abwgws {

using namespace abwg;
using namespace abwgb;
using namespace abbwd;

constexpr int NWG = 2;              /* consumer warpgroups, 64 keys each */
constexpr int BC = 64 * NWG;        /* keys per block */
constexpr int BR = 64;              /* query rows per step */
constexpr int NT = 128 * (NWG + 1); /* producer warpgroup + consumers */

/* Feature bits of bwd_ws (its template parameter F) */
constexpr int WS_OVERLAP = 1; /* next tile's S^T, dP^T issued before this tile's dQ wait
                                 * (D = 64 only; bwd_ws says why) */
constexpr int WS_BULK_DQ = 2; /* dQ share added by cp.reduce.async.bulk, not atomics */
constexpr int WS_LOAD_WARP = 4; /* producer warp 0 only loads; warps 1-3 add the dQ shares */
constexpr int WS_SPLIT_FULL = 8; /* full and masked tiles' element-wise code chosen once a step */
constexpr int WS_DEFER_DQ = 16; /* tile it's dQ product issued in step it + 1 (no per-step
                                  * meeting of the consumers; bwd_ws says how) */
constexpr int WS_STAGGER = 32;  /* with WS_DEFER_DQ: the second consumer starts its first
                                  * products once the first has its first scores */
constexpr int WS_VEC_LSE = 128; /* logsumexp and Delta in bwd_vec_row's order (bwd_prep's
                                  * perm), read as float4 (bwd_wg_ds's VEC); DEFER path */
constexpr int WS_VEC_HOIST = 512; /* with WS_VEC_LSE at D = 64: a step's eight float4 loads
                                   * issued before its first element (bwd_wg_ds's VEC 2) */
constexpr int WS_STMATRIX = 256; /* dS^T stored by stmatrix (bwd_wg_ds's STSM); DEFER path */
constexpr int WS_TAIL = 2048;   /* with WS_REG_DQ: a one-head schedule's tile rows without
                                  * integer division (ws_add_dq_rows given them) */
constexpr int WS_RED4 = 1024;   /* with WS_REG_DQ: pairs of lanes swap halves (shfl.xor 1)
                                  * so that each adds four columns of one row, float4
                                  * atomics, half as many */
constexpr int WS_REG_DQ = 64;   /* with WS_DEFER_DQ: each consumer adds its dQ product to the
                                  * accumulator from its registers (no dQ buffer, no
                                  * producer atomics) */
constexpr int WS_EXP_FIRST = 4096; /* with WS_DEFER_DQ: S^T waited for alone, P^T computed
                                     * while the dP^T product still runs */
constexpr int WS_DQ_WIDE = 8192; /* with WS_DEFER_DQ and WS_BULK_DQ: a tile's whole dQ
                                   * product (all D columns, the block's 128 keys) by one
                                   * consumer, the consumers taking tiles in turn, into the dQ
                                   * buffer that the producer's bulk copies add */
constexpr int WS_DQ_TMA = 16384; /* with WS_DQ_WIDE: a dQ buffer per consumer in TMA's
                                   * 128-byte-swizzled fp32 layout, each tile added by D / 32
                                   * tensor reduce-add copies instead of 64 row copies */
constexpr int WS_DQ_EARLY = 32768; /* with WS_DQ_WIDE, at D = 64: a tile's dQ product issued
                                     * right behind the dV, dK products, not after their wait */
constexpr int WS_PINGPONG = 65536; /* with WS_DQ_WIDE: the consumers issue their products in
                                     * strict turn (S^T, dP^T of one, of the other, dV, dK and
                                     * dQ of one, of the other), a token passed by two named
                                     * barriers (bwd_ws says how) */
constexpr int WS_DS_LATE = 131072; /* with WS_DEFER_DQ: the wait for the dS^T buffer (both
                                    * consumers' dQ product of tile it - 2 done reading it)
                                    * right before the dS^T store, not before the step's
                                    * products */
constexpr int WS_WG_UNIFORM = 262144; /* the consumer's index read through a shuffle from lane
                                       * 0, which the compiler knows to be warp-uniform, so that
                                       * the operands' descriptors derived from it can live in
                                       * uniform registers (CUTLASS's canonical_warp_group_idx) */
constexpr int WS_DESC_ADD = 524288; /* with WS_DEFER_DQ: every wgmma descriptor of a step built
                                     * once per operand and stepped by constant adds
                                     * (bwd_wg_issue_scores' DA) */
constexpr int WS_KV_REGS = 1048576; /* with WS_DEFER_DQ, at D = 64: each consumer's 64 rows of
                                     * K and V held in registers (ldmatrix once per block), the
                                     * S^T, dP^T products with A from registers */

/* Byte offsets of the shared-memory regions for head dimension D, NDS
 * dS^T buffers of BC x BR and NDQ fp32 dQ buffers of BR rows (padded by
 * DQPAD floats: 8 makes 8-byte stores conflict-free; 0 for the swizzled
 * buffers of WS_DQ_TMA, 1024-aligned there), room for NBAR mbarriers. */
template <int D, int NDS, int NDQ, int NBAR = 8, int DQPAD = 8> struct ws_layout {
    static constexpr int TK = BC * D * 2;  /* one K or V tile */
    static constexpr int TQ = BR * D * 2;  /* one stage of Q or dO */
    static constexpr int TS = BC * BR * 2; /* one dS^T buffer */
    static constexpr int DQS = D + DQPAD;  /* floats per row of a dQ buffer */
    static constexpr int K = 0;
    static constexpr int V = K + TK;
    static constexpr int Q = V + TK;           /* two stages */
    static constexpr int G = Q + 2 * TQ;       /* dO, two stages */
    static constexpr int DS = G + 2 * TQ;      /* dS^T buffers */
    static constexpr int L = DS + NDS * TS;    /* lse log2 e, two stages of BR floats */
    static constexpr int DL = L + 2 * BR * 4;  /* Delta, two stages */
    static constexpr int DQ = DL + 2 * BR * 4; /* dQ shares [NDQ][BR][DQS] fp32 */
    static constexpr int BAR = DQ + NDQ * BR * DQS * 4; /* mbarriers */
    static constexpr int bytes = BAR + NBAR * 8 + 1024;  /* + alignment slack */
};

/* The layout of bwd_ws with feature bits F: two dS^T buffers, one dQ
 * buffer (none with WS_REG_DQ; two unpadded with WS_DQ_TMA); WS_DEFER_DQ's
 * four more mbarriers (five with WS_DQ_WIDE, six with WS_DQ_TMA; ws_bars). */
template <int D, int F>
using ws_layout_of =
    std::conditional_t<(F & WS_DQ_TMA) != 0, ws_layout<D, 2, 2, 14, 0>,
                       ws_layout<D, 2, (F & WS_REG_DQ) ? 0 : 1, (F & WS_DEFER_DQ) ? 12 : 8>>;

/* mbarrier addresses (8 bytes each) from the layout's BAR region; dsfull,
 * dsempty (two dS^T buffers each) and dqempty2 exist only in a WS_DEFER_DQ
 * layout; dqempty2 is used by WS_DQ_WIDE only (dqempty then completes for
 * even tiles, dqempty2 for odd ones: a consumer waits for the other's tile
 * without a third phase of one barrier in flight, which a parity wait
 * cannot tell from the first); dqfull2 by WS_DQ_TMA only (its second dQ
 * buffer's, as dqempty2) */
struct ws_bars {
    uint32_t full, empty, dqfull, dqempty, kv; /* full, empty: two stages each */
    uint32_t dsfull, dsempty, dqempty2, dqfull2;
};

static __device__ __forceinline__ ws_bars ws_bars_at(uint32_t bar)
{
    ws_bars m;
    m.full = bar;
    m.empty = bar + 16;
    m.dqfull = bar + 32;
    m.dqempty = bar + 40;
    m.kv = bar + 48;
    m.dsfull = bar + 56;
    m.dsempty = bar + 72;
    m.dqempty2 = bar + 88;
    m.dqfull2 = bar + 96;
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

/* bytes of fp32 at shared src added element by element to global dst
 * (both 16-byte aligned, bytes a multiple of 16) by the copy engine, in
 * this thread's current bulk group (PTX cp.reduce.async.bulk .add.f32) */
static __device__ __forceinline__ void bulk_reduce_add_f32(float *dst, uint32_t src,
                                                           uint32_t bytes)
{
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;\n" ::"l"(
                     dst),
                 "r"(src), "r"(bytes)
                 : "memory");
}
/* the box at coordinates (c0, c1, c2) of tensor map tm added element by
 * element (fp32) from the box's image at shared src (the map's swizzled
 * layout, 128-byte aligned) by the tensor copy engine, in this thread's
 * current bulk group; rows outside the tensor are not written (PTX
 * cp.reduce.async.bulk.tensor .add, tile mode) */
static __device__ __forceinline__ void tma_reduce_add_3d(const CUtensorMap *tm, uint32_t src,
                                                         int c0, int c1, int c2)
{
    asm volatile("cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group"
                 " [%0, {%1, %2, %3}], [%4];\n" ::"l"(reinterpret_cast<uint64_t>(tm)),
                 "r"(c0), "r"(c1), "r"(c2), "r"(src)
                 : "memory");
}

/* closes this thread's bulk group; waits until its groups have read their
 * shared-memory sources (read) or completed altogether (done) */
static __device__ __forceinline__ void bulk_commit(void)
{
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
static __device__ __forceinline__ void bulk_wait_read(void)
{
    asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}
static __device__ __forceinline__ void bulk_wait_done(void)
{
    asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

/* Thread 0 of the block initialises the mbarriers (consumer threads NCT;
 * dqe arrivals free the dQ buffer: the producer's 128 threads, or the one
 * lane that waited for the bulk copies; ds: the dS^T buffers' dsfull and
 * dsempty too, NCT arrivals each; dqf > 0: the arrivals that fill the dQ
 * buffer, NCT otherwise; alt 1: dqempty2 as dqempty; 2: also dqfull2 as
 * dqfull); every thread then meets at a block barrier. */
static __device__ __forceinline__ void ws_init_bars(const ws_bars &m, int NCT, int dqe = 128,
                                                    bool ds = false, int dqf = 0, int alt = 0)
{
    if (threadIdx.x == 0) {
        for (int st = 0; st < 2; st++) {
            mbar_init(m.full + st * 8, 1);
            mbar_init(m.empty + st * 8, NCT);
        }
        mbar_init(m.dqfull, dqf > 0 ? dqf : NCT);
        mbar_init(m.dqempty, dqe);
        if (alt)
            mbar_init(m.dqempty2, dqe);
        if (alt > 1)
            mbar_init(m.dqfull2, dqf > 0 ? dqf : NCT);
        mbar_init(m.kv, 1);
        for (int b = 0; ds && b < 2; b++) {
            mbar_init(m.dsfull + b * 8, NCT);
            mbar_init(m.dsempty + b * 8, NCT);
        }
        fence_mbar_init();
    }
    __syncthreads();
}

/* The producer warpgroup (wtid = thread within it; contract in the file
 * header). base: the 1024-aligned shared base; bk = b * HK + hk (K/V map
 * slice); sDQ: the NDQ dQ buffers; dqacc: [B, H, S, D] fp32. With BULK
 * (NDQ = 1) the dQ share goes by bulk reduce-add copies instead, one per
 * row of the tile inside S, issued by the 32 lanes of warp 1 (thread 0
 * keeps issuing loads meanwhile); lane 0 of warp 1 frees the buffer once
 * the copies have read it. With LOADW (and not BULK) warp 0 takes no part
 * in the atomics, only warps 1-3 (96 threads), so thread 0 issues each
 * stage's loads as soon as the consumers free it, not after its share of
 * the previous step's atomics (ALT, with BULK: the copies of odd tiles
 * free the buffer on dqempty2; TMA: two swizzled buffers, even tiles' in
 * the first (dqfull, dqempty), odd tiles' in the second (dqfull2,
 * dqempty2), each added by lane 0 of warp 1 with D / 32 tensor reduce-add
 * copies through tmDQ; NBAR, DQPAD: the layout's). LAG: the steps
 * between a tile's loads and the hand-over of its dQ share (1; 2 with
 * WS_DEFER_DQ, whose consumers hand tile it's share over in step it + 1):
 * the loop adds the share of tile it - LAG after issuing the loads of
 * tile it, so the loads still leave a step ahead. ADDQ false: the consumers add dQ themselves; the
 * producer only loads. */
template <int D, int NDS, int NDQ, bool BULK = false, bool LOADW = false, int LAG = 1,
          bool ADDQ = true, bool ALT = false, int NBAR = 8, int DQPAD = 8, bool TMA = false>
static __device__ __forceinline__ void
ws_producer(const ws_sweep &w, int wtid, uint32_t base, const ws_bars &m, const float *sDQ,
            const CUtensorMap *tmQ, const CUtensorMap *tmG, const CUtensorMap *tmK,
            const CUtensorMap *tmV, const float *lse2, const float *delta, float *dqacc, int j0,
            int bk, int S, int Sp, const CUtensorMap *tmDQ = nullptr)
{
    using L = ws_layout<D, NDS, NDQ, NBAR, DQPAD>;
    if (wtid == 0) {
        mbar_expect_tx(m.kv, 2 * L::TK);
#pragma unroll
        for (int cb = 0; cb < D / 64; cb++) {
            tma_load_3d(base + L::K + cb * BC * 128, tmK, m.kv, cb * 64, j0, bk);
            tma_load_3d(base + L::V + cb * BC * 128, tmV, m.kv, cb * 64, j0, bk);
        }
    }
    for (int it = 0; it < w.nsteps + LAG; it++) {
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
        if (ADDQ && BULK && it >= LAG && (wtid >> 5) == 1) { /* the dQ share of step it - LAG */
            static_assert(!BULK || NDQ == 1 || TMA, "one dQ buffer with bulk row copies");
            const int k = it - LAG, lane = wtid & 31;
            const int q0 = ws_q0(w, k);
            const size_t bh = (size_t)ws_bh(w, k);
            if constexpr (TMA) { /* tile k in buffer k & 1: D / 32 tensor copies */
                const int bf = k & 1;
                mbar_wait(bf ? m.dqfull2 : m.dqfull, (uint32_t)((k >> 1) & 1));
                if (lane == 0) {
                    const uint32_t src = base + L::DQ + bf * BR * D * 4;
#pragma unroll
                    for (int cb = 0; cb < D / 32; cb++)
                        tma_reduce_add_3d(tmDQ, src + cb * BR * 128, cb * 32, q0, (int)bh);
                    bulk_commit();
                    bulk_wait_read();
                    abmma::mbar_arrive(bf ? m.dqempty2 : m.dqempty);
                }
                __syncwarp();
                continue;
            }
            mbar_wait(m.dqfull, (uint32_t)(k & 1));
            float *dq = dqacc + (bh * S + q0) * D;
            const int nr = min(BR, S - q0);
            for (int r = lane; r < nr; r += 32)
                bulk_reduce_add_f32(dq + (size_t)r * D, base + L::DQ + r * L::DQS * 4, D * 4);
            bulk_commit();
            bulk_wait_read();
            __syncwarp();
            if (lane == 0) /* ALT: odd tiles' reads complete dqempty2 */
                abmma::mbar_arrive(ALT && (k & 1) ? m.dqempty2 : m.dqempty);
        }
        if (ADDQ && !BULK && it >= LAG && (!LOADW || wtid >= 32)) { /* the dQ share of step it - LAG */
            constexpr int NA = LOADW ? 96 : 128; /* threads adding */
            const int k = it - LAG, at = LOADW ? wtid - 32 : wtid;
            const int q0 = ws_q0(w, k);
            const size_t bh = (size_t)ws_bh(w, k);
            mbar_wait(m.dqfull, (uint32_t)(k & 1));
            float *dq = dqacc + (bh * S + q0) * D;
#pragma unroll 1
            for (int i = at; i < BR * D / 4; i += NA) {
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
    if (ADDQ && BULK && (wtid >> 5) == 1)
        bulk_wait_done(); /* every reduce-add of this block applied before exit */
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

/* The consumer's dQ share of step it (qacc: columns cw NQ .. + NQ - 1 of
 * the tile's BR rows) into the dQ buffer sDQ once the producer has taken
 * step it - 1's (ALT: waited for on that tile's parity's barrier), then the
 * hand-over; with BULK each thread also fences its stores for the copy
 * engine that reads them. */
template <int D, int NQ, bool BULK, bool ALT = false>
static __device__ __forceinline__ void ws_put_dq(float *sDQ, const ws_bars &m, const bwd_geo &x,
                                                 int cw, int it, const float (&qacc)[NQ / 2])
{
    constexpr int DQS = ws_layout<D, 2, 1>::DQS;
    if (ALT && it >= 1) /* tile it - 1's copies: its parity's barrier, its use of it */
        mbar_wait((it - 1) & 1 ? m.dqempty2 : m.dqempty, (uint32_t)(((it - 1) >> 1) & 1));
    else if (it >= 1)
        mbar_wait(m.dqempty, (uint32_t)((it - 1) & 1));
#pragma unroll
    for (int n = 0; n < NQ / 8; n++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int r = x.wi * 16 + x.g + 8 * h;
            *reinterpret_cast<float2 *>(sDQ + r * DQS + cw * NQ + 8 * n + 2 * x.t) =
                make_float2(qacc[4 * n + 2 * h], qacc[4 * n + 2 * h + 1]);
        }
    if (BULK)
        fence_proxy_async();
    abmma::mbar_arrive(m.dqfull);
}

/* The float2 atomics of ws_add_dq for the tile whose first row is q0 of
 * query row block bh (WS_TAIL gives them without a division of the step
 * index), rows past S skipped. */
template <int D, int NQ>
static __device__ __forceinline__ void ws_add_dq_rows(float *dqacc, size_t bh, int q0, int S,
                                                      const bwd_geo &x, int cw,
                                                      const float (&qacc)[NQ / 2])
{
    float *dq = dqacc + (bh * S + q0) * D + cw * NQ + 2 * x.t;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int r = x.wi * 16 + x.g + 8 * h;
        if (q0 + r < S)
#pragma unroll
            for (int n = 0; n < NQ / 8; n++)
                abmma::atomic_add_f2(dq + (size_t)r * D + 8 * n,
                                     make_float2(qacc[4 * n + 2 * h], qacc[4 * n + 2 * h + 1]));
    }
}

/* The consumer's dQ product of tile k (qacc: columns cw NQ .. + NQ - 1 of
 * the tile's BR rows) added to the fp32 accumulator dqacc [B, H, S, D]
 * from its registers (rows past S skipped): WS_REG_DQ. float2 atomics, or
 * with RED4 float4 atomics: lanes t and t ^ 1 (the same row pair g, g + 8,
 * neighbouring column pairs) swap one pair, so that the even lane holds
 * four columns of row g and the odd one four of row g + 8. */
template <int D, int NQ, bool RED4 = false>
static __device__ __forceinline__ void ws_add_dq(float *dqacc, const ws_sweep &w, int k, int S,
                                                 const bwd_geo &x, int cw,
                                                 const float (&qacc)[NQ / 2])
{
    const int q0 = ws_q0(w, k);
    if constexpr (RED4) {
        const int odd = x.t & 1;
        const int r = x.wi * 16 + x.g + 8 * odd; /* the row this lane adds */
        float *dq = dqacc + ((size_t)ws_bh(w, k) * S + q0 + r) * D + cw * NQ + 2 * (x.t - odd);
        const bool in = q0 + r < S;
#pragma unroll
        for (int n = 0; n < NQ / 8; n++) {
            /* even lane: keeps row g's pair, sends row g + 8's; odd: the other way */
            const float s0 = odd ? qacc[4 * n] : qacc[4 * n + 2];
            const float s1 = odd ? qacc[4 * n + 1] : qacc[4 * n + 3];
            const float r0 = __shfl_xor_sync(0xffffffffu, s0, 1);
            const float r1 = __shfl_xor_sync(0xffffffffu, s1, 1);
            const float4 v = odd ? make_float4(r0, r1, qacc[4 * n + 2], qacc[4 * n + 3])
                                 : make_float4(qacc[4 * n], qacc[4 * n + 1], r0, r1);
            if (in)
                atomicAdd(reinterpret_cast<float4 *>(dq + 8 * n), v);
        }
        return;
    }
    ws_add_dq_rows<D, NQ>(dqacc, (size_t)ws_bh(w, k), q0, S, x, cw, qacc);
}

/* WS_PINGPONG's turn (bwd_ws): consumer c waits for its turn on named
 * barrier 3 + c (bar.sync) or passes the turn to the other (bar.arrive on
 * 4 - c); 2 x 128 threads meet on each. Immediate barrier ids: with an id
 * in a register ptxas reserved all 16 barriers and spilled at D = 128. */
static __device__ __forceinline__ void pp_wait_turn(int c)
{
    if (c == 0)
        asm volatile("bar.sync 3, 256;\n" ::: "memory");
    else
        asm volatile("bar.sync 4, 256;\n" ::: "memory");
}
static __device__ __forceinline__ void pp_pass_turn(int c)
{
    if (c == 0)
        asm volatile("bar.arrive 4, 256;\n" ::: "memory");
    else
        asm volatile("bar.arrive 3, 256;\n" ::: "memory");
}

/* WS_DQ_WIDE: tile k's whole dQ product, dS K over the block's BC keys
 * and all D columns (wgmma m64nD, both operands transposed: the dS^T tile
 * at uDS, the K tile at uK), by this consumer alone; then, once the
 * producer's copies of tile k - 1 have read the dQ buffer, into it (fp32,
 * rows padded), fenced for the copy engine, and handed over (dqfull, 128
 * arrivals); with TMA (WS_DQ_TMA) into buffer k & 1 in the tensor map's
 * swizzled layout once tile k - 2's copies have read it, handed over on
 * that buffer's barrier. The caller has waited for both halves of the dS^T
 * tile. ws_wide_put: the part after the product (qacc: its accumulators). */
template <int D, bool TMA>
static __device__ __forceinline__ void ws_wide_put(float *sDQ, const ws_bars &m, const bwd_geo &x,
                                                   int k, const float (&qacc)[D / 2])
{
    if constexpr (TMA) {
        /* buffer k & 1 (this consumer's own), free once tile k - 2's copies
         * have read it; element (r, c) of a tile at column block c / 32 (BR
         * rows of 128 bytes), 16-byte chunk (c % 32) / 4 XOR r % 8 (TMA's
         * 128-byte swizzle; r % 8 = g for both of the thread's rows) */
        const int bf = k & 1;
        if (k >= 2)
            mbar_wait(bf ? m.dqempty2 : m.dqempty, (uint32_t)(((k - 2) >> 1) & 1));
        const uint32_t buf = smem_u32(sDQ) + bf * BR * D * 4;
#pragma unroll
        for (int n = 0; n < D / 8; n++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int r = x.wi * 16 + x.g + 8 * h;
                const int chunk = 2 * (n & 3) + (x.t >> 1);
                const uint32_t a = buf + (n >> 2) * BR * 128 + r * 128 +
                                   ((chunk ^ x.g) << 4) + 8 * (x.t & 1);
                asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(a),
                             "f"(qacc[4 * n + 2 * h]), "f"(qacc[4 * n + 2 * h + 1])
                             : "memory");
            }
        fence_proxy_async();
        abmma::mbar_arrive(bf ? m.dqfull2 : m.dqfull);
    } else {
        ws_put_dq<D, D, true, true>(sDQ, m, x, 0, k, qacc);
    }
}
template <typename T, int D, bool TMA = false, bool DA = false>
static __device__ __forceinline__ void ws_wide_dq(float *sDQ, const ws_bars &m, const bwd_geo &x,
                                                  uint32_t uDS, uint32_t uK, int k, int pp = 0)
{
    float qacc[D / 2];
    bwd_wg_issue_dq<T, BC, D, DA>(qacc, uDS, uK);
    if (pp) /* WS_PINGPONG (consumer pp - 1): the other's turn once the product is issued */
        pp_pass_turn(pp - 1);
    wg_wait<0>();
    reg_fence(qacc);
    ws_wide_put<D, TMA>(sDQ, m, x, k, qacc);
}
#endif

/* The main kernel of the rungs built on it (file header): NT threads,
 * ws_layout<D, 2, 1>::bytes of dynamic shared memory; the grid and what
 * each block does are Sched's (Sched::block(H, HK, S, SK, causal,
 * sched_arg, &b, &hk, &gq0, &ngq) returns the block's key tile index and
 * its query heads; sched_arg is the rung's own parameter of it), F its
 * feature bits (WS_OVERLAP, WS_BULK_DQ, WS_LOAD_WARP). tmQ, tmG: [B*H, S, D] maps with
 * 64-row boxes; tmK, tmV: [B*H_kv, S_kv, D] with BC-row boxes; lse2,
 * delta: [B*H, Sp] (Sp = S rounded up to 64). Adds dS K (unscaled) into
 * dqacc [B, H, S, D] (with WS_DQ_TMA through tmDQ, its [B*H, S, D] map
 * with 32 x 64 boxes; unused otherwise); writes dK = scale sum dS^T Q and
 * dV = sum P^T dO of its keys in the dtype, or, when dkvacc is not NULL,
 * adds the unscaled sums to dkvacc (dK) and dkvacc + B*H_kv*S_kv*D (dV) in
 * fp32.
 *
 * A consumer's step: S^T, dP^T (one wgmma group), the element-wise work
 * and dS^T to shared memory, dV/dK (a group), the barrier with the other
 * consumer, dQ (a group), then the dQ share to the producer. Without
 * WS_OVERLAP each step starts by issuing its S^T, dP^T and ends by waiting
 * for all three groups, so the tensor cores of this warpgroup idle from
 * the dQ wait until the next products are issued and have filled the
 * pipe. With it (at D = 64 only: see OVERLAP below) the next step's S^T
 * is issued as soon as dV/dK have completed (wait_group 1: their A
 * fragments and the stage are then free), behind the dQ product, the dQ
 * share is stored while it runs, and the next dP^T follows it; the step
 * then starts with the wait for both.
 *
 * WS_PINGPONG (deferred path with WS_DQ_WIDE): each consumer issues its
 * S^T, dP^T products only in its turn and passes the turn on once they are
 * issued; the same for its dV, dK products (and, when it computes the
 * previous tile's dQ, that product too). Named barrier 3 is consumer 0's
 * turn, 4 consumer 1's: a consumer waits (bar.sync) on its own and arrives
 * (bar.arrive) on the other's; consumer 1 arrives once before the loop so
 * that consumer 0 goes first, and consumer 0 takes consumer 1's last
 * arrival after it. The tensor cores then see one consumer's products
 * at a time, so each finishes at full rate and its element-wise work
 * runs beside the other's products (FlashAttention-3's forward ping-pong
 * applied to the backward's two phases). */
template <typename T, int D, typename Sched, int F = 0>
__global__ void __launch_bounds__(NT, 1)
    bwd_ws(const __grid_constant__ CUtensorMap tmQ, const __grid_constant__ CUtensorMap tmG,
           const __grid_constant__ CUtensorMap tmK, const __grid_constant__ CUtensorMap tmV,
           const float *__restrict__ lse2, const float *__restrict__ delta,
           float *__restrict__ dqacc, T *__restrict__ dK, T *__restrict__ dV,
           float *__restrict__ dkvacc, long long kvnumel, int H, int HK, int S, int SK, int Sp,
           int causal, float scale, int sched_arg, const __grid_constant__ CUtensorMap tmDQ)
{
#if AB_WGMMA_DEVICE
    using L = ws_layout_of<D, F>;
    constexpr bool BULK = (F & WS_BULK_DQ) != 0;
    constexpr bool LOADW = (F & WS_LOAD_WARP) != 0 && !BULK;
    /* D = 128: with any product in flight across the loop's back edge
     * ptxas (CUDA 13.0) serialised every wgmma of the kernel (C7512), in
     * most arrangements with spills (cuda_wgmma_bwd_overlap.cu says which
     * were tried) */
    constexpr bool OVERLAP = (F & WS_OVERLAP) != 0 && D == 64;
    /* WS_SPLIT_FULL: one branch a step between bwd_wg_ds's unmasked and
     * masked code instead of one per group of elements inside it */
    constexpr int FULLM = (F & WS_SPLIT_FULL) != 0 ? 3 : 0;
    /* WS_DEFER_DQ (not with the overlap): tile it's dQ product in step it + 1 */
    constexpr bool DEFER = (F & WS_DEFER_DQ) != 0 && !OVERLAP;
    constexpr bool STAGGER = DEFER && (F & WS_STAGGER) != 0;
    constexpr bool REGDQ = DEFER && (F & WS_REG_DQ) != 0;
    constexpr bool RED4 = REGDQ && (F & WS_RED4) != 0;
    /* WS_TAIL on a schedule whose blocks visit one query head */
    constexpr bool TAIL = REGDQ && (F & WS_TAIL) != 0 && Sched::ONE_HEAD;
    constexpr int VEC = (F & WS_VEC_LSE) == 0 ? 0 : (F & WS_VEC_HOIST) != 0 && D == 64 ? 2 : 1;
    constexpr bool STSM = (F & WS_STMATRIX) != 0;
    /* WS_EXP_FIRST: P^T while dP^T runs; WS_DQ_WIDE: one consumer a tile's dQ */
    constexpr bool EXPFIRST = DEFER && (F & WS_EXP_FIRST) != 0;
    constexpr bool WIDE = DEFER && BULK && !REGDQ && (F & WS_DQ_WIDE) != 0;
    constexpr bool DQTMA = WIDE && (F & WS_DQ_TMA) != 0;
    /* WS_DQ_EARLY at D = 64 only: at D = 128 ptxas (CUDA 13.0) serialised
     * every wgmma of the kernel (C7512: 128 + 32 + 64 registers live) */
    constexpr bool DQEARLY = WIDE && (F & WS_DQ_EARLY) != 0 && D == 64;
    /* WS_PINGPONG: the consumers issue in turn (pp_wait_turn, pp_pass_turn) */
    constexpr bool PP = WIDE && (F & WS_PINGPONG) != 0;
    /* WS_DS_LATE: dsempty waited for inside bwd_wg_ds, before its store */
    constexpr bool DSLATE = DEFER && (F & WS_DS_LATE) != 0;
    /* WS_DESC_ADD: descriptors stepped by adds on the deferred path */
    constexpr bool DA = DEFER && (F & WS_DESC_ADD) != 0;
    /* WS_KV_REGS at D = 64 only (D = 128: 64 more registers do not fit) */
    constexpr bool KVREG = DEFER && (F & WS_KV_REGS) != 0 && D == 64 && !EXPFIRST;
    static_assert(!STSM || DEFER, "WS_STMATRIX on the deferred-dQ path only");
    static_assert(!VEC || DEFER, "WS_VEC_LSE on the deferred-dQ path only");
    static_assert(!EXPFIRST || !STAGGER, "WS_EXP_FIRST without WS_STAGGER");
    static_assert(!PP || (!EXPFIRST && !STAGGER), "WS_PINGPONG without WS_EXP_FIRST, WS_STAGGER");
    static_assert(!DSLATE || !EXPFIRST, "WS_DS_LATE without WS_EXP_FIRST");
    static_assert((F & WS_DQ_WIDE) == 0 || WIDE, "WS_DQ_WIDE needs WS_DEFER_DQ and WS_BULK_DQ");
    static_assert((F & WS_DQ_TMA) == 0 || DQTMA, "WS_DQ_TMA needs WS_DQ_WIDE");
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

    ws_init_bars(m, NCT, BULK ? 1 : LOADW ? 96 : 128, DEFER, WIDE ? 128 : NCT,
                 DQTMA ? 2 : WIDE ? 1 : 0);

    if (wg == 0) {
        setmaxnreg_dec<24>();
        if constexpr (DQTMA)
            ws_producer<D, 2, 2, true, false, 2, true, true, 14, 0, true>(
                w, wtid, base, m, sDQ, &tmQ, &tmG, &tmK, &tmV, lse2, delta, dqacc, j0, bk, S, Sp,
                &tmDQ);
        else
            ws_producer<D, 2, 1, BULK, LOADW, DEFER ? 2 : 1, !REGDQ, WIDE>(
                w, wtid, base, m, sDQ, &tmQ, &tmG, &tmK, &tmV, lse2, delta, dqacc, j0, bk, S, Sp);
    } else {
        /* consumers: keys 64 (wg - 1) .. + 63 of the block */
        setmaxnreg_inc<240>();
        const int cw = (F & WS_WG_UNIFORM) != 0 ? __shfl_sync(0xffffffffu, wg - 1, 0) : wg - 1;
        const bwd_geo x = bwd_geo_of(wtid, cw);
        const uint32_t kcol = D == 128 ? (uint32_t)cw * BC * 128 : (uint32_t)cw * NQ * 2;
        const float sl2 = scale * 1.4426950408889634f;
        float dv[D / 2], dk[D / 2];
#pragma unroll
        for (int i = 0; i < D / 2; i++)
            dv[i] = dk[i] = 0.f;
        mbar_wait(m.kv, 0);
        uint32_t kf[KVREG ? 4 : 1][4], vf[KVREG ? 4 : 1][4]; /* WS_KV_REGS: K_w, V_w */
        if constexpr (KVREG) {
            bwd_wg_load_kv_frags(kf, x, wtid & 31, uK);
            bwd_wg_load_kv_frags(vf, x, wtid & 31, uV);
        }
        if constexpr (OVERLAP) {
            float s[32], dp[32];
            if (w.nsteps > 0) { /* step 0's products */
                mbar_wait(m.full, 0);
                bwd_wg_issue_score<T, D, BC>(s, x, uK, base + L::Q);
                bwd_wg_issue_score<T, D, BC>(dp, x, uV, base + L::G);
            }
            for (int it = 0; it < w.nsteps; it++) {
                const bool next = it + 1 < w.nsteps;
                const int st = it & 1, sn = st ^ 1;
                const int q0 = ws_q0(w, it);
                const uint32_t uQ = base + L::Q + st * L::TQ, uG = base + L::G + st * L::TQ;
                const uint32_t uDS = base + L::DS + st * L::TS;
                const float *lL = reinterpret_cast<const float *>(sbase + L::L) + st * BR;
                const float *lD = reinterpret_cast<const float *>(sbase + L::DL) + st * BR;
                const bool full =
                    q0 + BR <= S && j0 + BC <= SK && (!causal || j0 + BC - 1 <= q0 + off);
                wg_wait<0>(); /* this step's S^T, dP^T */
                reg_fence(s);
                reg_fence(dp);
                uint32_t pf[4][4], df[4][4];
                bwd_wg_ds<T, FULLM>(pf, df, s, dp, x, uDS, lL, 1.0f, lD, full, q0, j0, S, SK,
                                    causal, off, sl2);
                bwd_wg_issue_dkdv<T, D>(dv, dk, pf, df, uQ, uG);
                named_sync(1, NCT); /* both consumers' dS^T stored */
                float qacc[NQ / 2];
                bwd_wg_issue_dq<T, BC, NQ>(qacc, uDS, uK + kcol);
                wg_wait<1>(); /* dV, dK done: pf, df and stage st free */
                reg_fence(dv);
                reg_fence(dk);
                reg_fence_frag(pf);
                reg_fence_frag(df);
                abmma::mbar_arrive(m.empty + st * 8); /* Q, dO, lse, Delta of stage st read */
                if (next) { /* S^T of the next step behind this step's dQ product */
                    mbar_wait(m.full + sn * 8, (uint32_t)(((it + 1) >> 1) & 1));
                    bwd_wg_issue_score<T, D, BC>(s, x, uK, base + L::Q + sn * L::TQ);
                    wg_wait<1>(); /* dQ done, the next S^T may still run */
                } else {
                    wg_wait<0>();
                }
                reg_fence(qacc);
                ws_put_dq<D, NQ, BULK>(sDQ, m, x, cw, it, qacc);
                if (next) /* dP^T of the next step (its registers are free only now) */
                    bwd_wg_issue_score<T, D, BC>(dp, x, uV, base + L::G + sn * L::TQ);
            }
            /* nothing is in flight here; the wait says so to ptxas, which would
             * otherwise wait at every loop latch (C7517) */
            wg_wait<0>();
            reg_fence(s);
            reg_fence(dp);
        } else if constexpr (DEFER) {
            /* Step it: S^T, dP^T of tile it; once both consumers have
             * finished the dQ product of tile it - 2 (dsempty), which read
             * the dS^T buffer this tile's dS^T goes to, the element-wise
             * work and that store (dsfull: this consumer's half written);
             * dV, dK of tile it; once both halves of tile it - 1's dS^T are
             * written (dsfull of the other buffer), its dQ product; the
             * waits; then tile it - 1's dQ share to the producer. The
             * consumers never wait for each other inside a step, only for
             * work one step old, so one may run ahead of the other by part
             * of a step and its element-wise work overlap the other's
             * products. After the loop, the last tile's dQ. */
            if constexpr (STAGGER) { /* the second consumer starts behind the first */
                if (w.nsteps > 0 && cw == 1)
                    named_sync(2, NCT);
            }
            /* one step; FIRST (step 0): no earlier tile's dQ. No wait inside
             * a span with products in flight (ptxas then serialises them). */
            auto step = [&](int it, auto first) {
                constexpr bool FIRST = decltype(first)::value;
                const int st = it & 1, sp = st ^ 1;
                const int q0 = TAIL ? (w.t0 + it) * BR : ws_q0(w, it);
                const uint32_t uQ = base + L::Q + st * L::TQ, uG = base + L::G + st * L::TQ;
                const float *lL = reinterpret_cast<const float *>(sbase + L::L) + st * BR;
                const float *lD = reinterpret_cast<const float *>(sbase + L::DL) + st * BR;
                mbar_wait(m.full + st * 8, (uint32_t)((it >> 1) & 1));
                if (!DSLATE && it >= 2) /* both consumers' dQ of tile it - 2 read buffer st */
                    mbar_wait(m.dsempty + st * 8, (uint32_t)(((it - 2) >> 1) & 1));
                const bool full =
                    q0 + BR <= S && j0 + BC <= SK && (!causal || j0 + BC - 1 <= q0 + off);
                float s[32], dp[32];
                uint32_t pf[4][4], df[4][4];
                if constexpr (EXPFIRST) { /* S^T, then dP^T; P^T while dP^T runs */
                    bwd_wg_issue_score<T, D, BC>(s, x, uK, uQ);
                    bwd_wg_issue_score<T, D, BC>(dp, x, uV, uG);
                    wg_wait<1>();
                    reg_fence(s);
                    bwd_wg_ds<T, FULLM, VEC, STSM, 1>(pf, df, s, dp, x, base + L::DS + st * L::TS,
                                                      lL, 1.0f, lD, full, q0, j0, S, SK, causal,
                                                      off, sl2);
                    wg_wait<0>();
                    reg_fence(s);
                    reg_fence(dp);
                    bwd_wg_ds<T, FULLM, VEC, STSM, 2>(pf, df, s, dp, x, base + L::DS + st * L::TS,
                                                      lL, 1.0f, lD, full, q0, j0, S, SK, causal,
                                                      off, sl2);
                } else {
                    if constexpr (PP) /* this consumer's turn */
                        pp_wait_turn(cw);
                    if constexpr (KVREG)
                        bwd_wg_issue_scores_rs<T>(s, dp, kf, vf, uQ, uG);
                    else
                        bwd_wg_issue_scores<T, D, BC, DA>(s, dp, x, uK, uV, uQ, uG);
                    if constexpr (PP) /* the other's turn */
                        pp_pass_turn(cw);
                    wg_wait<0>();
                    reg_fence(s);
                    reg_fence(dp);
                    if constexpr (STAGGER && FIRST) {
                        if (cw == 0)
                            named_arrive(2, NCT);
                    }
                    if constexpr (DSLATE) /* buffer st's wait right before the store */
                        bwd_wg_ds<T, FULLM, VEC, STSM, 0, true>(
                            pf, df, s, dp, x, base + L::DS + st * L::TS, lL, 1.0f, lD, full, q0, j0,
                            S, SK, causal, off, sl2, it >= 2 ? m.dsempty + st * 8 : 0u,
                            (uint32_t)(((it - 2) >> 1) & 1));
                    else
                        bwd_wg_ds<T, FULLM, VEC, STSM>(pf, df, s, dp, x, base + L::DS + st * L::TS,
                                                       lL, 1.0f, lD, full, q0, j0, S, SK, causal,
                                                       off, sl2);
                }
                abmma::mbar_arrive(m.dsfull + st * 8); /* stores fenced for the async proxy */
                if constexpr (!FIRST) /* both halves of tile it - 1's dS^T written */
                    mbar_wait(m.dsfull + sp * 8, (uint32_t)(((it - 1) >> 1) & 1));
                if constexpr (PP)
                    pp_wait_turn(cw);
                bwd_wg_issue_dkdv<T, D, DA>(dv, dk, pf, df, uQ, uG);
                /* every group in flight done (dV, dK and any dQ product issued
                 * behind them): their accumulators and A fragments are final */
                auto wait_dkdv = [&]() {
                    wg_wait<0>();
                    reg_fence(dv);
                    reg_fence(dk);
                    reg_fence_frag(pf);
                    reg_fence_frag(df);
                };
                if constexpr (WIDE) {
                    if constexpr (DQEARLY && !FIRST) { /* dQ behind dV, dK, one wait */
                        if (((it - 1) & 1) == cw) {
                            float qacc[D / 2];
                            bwd_wg_issue_dq<T, BC, D, DA>(qacc, base + L::DS + sp * L::TS, uK);
                            if constexpr (PP)
                                pp_pass_turn(cw);
                            wait_dkdv();
                            reg_fence(qacc);
                            abmma::mbar_arrive(m.empty + st * 8);
                            abmma::mbar_arrive(m.dsempty + sp * 8);
                            ws_wide_put<D, DQTMA>(sDQ, m, x, it - 1, qacc);
                            return;
                        }
                    }
                    if constexpr (PP) { /* the consumer of tile it - 1's dQ passes
                                         * the turn once that product is issued */
                        if (FIRST || ((it - 1) & 1) != cw)
                            pp_pass_turn(cw);
                    }
                    /* tile it - 1's dQ by consumer (it - 1) & 1 alone, once dV, dK
                     * have completed (their fragments' registers are free then) */
                    wait_dkdv();
                    abmma::mbar_arrive(m.empty + st * 8); /* stage st read */
                    if constexpr (!FIRST) {
                        if (((it - 1) & 1) == cw)
                            ws_wide_dq<T, D, DQTMA, DA>(sDQ, m, x, base + L::DS + sp * L::TS,
                                                        uK, it - 1, PP ? cw + 1 : 0);
                        abmma::mbar_arrive(m.dsempty + sp * 8); /* tile it - 1's dS^T read */
                    }
                    return;
                }
                float qacc[NQ / 2];
                if constexpr (!FIRST)
                    bwd_wg_issue_dq<T, BC, NQ>(qacc, base + L::DS + sp * L::TS, uK + kcol);
                wait_dkdv();
                abmma::mbar_arrive(m.empty + st * 8); /* Q, dO, lse, Delta of stage st read */
                if constexpr (!FIRST) {
                    reg_fence(qacc);
                    abmma::mbar_arrive(m.dsempty + sp * 8); /* tile it - 1's dS^T read */
                    if constexpr (TAIL)
                        ws_add_dq_rows<D, NQ>(dqacc, (size_t)ws_bh(w, 0), q0 - BR, S, x, cw, qacc);
                    else if constexpr (REGDQ)
                        ws_add_dq<D, NQ, RED4>(dqacc, w, it - 1, S, x, cw, qacc);
                    else
                        ws_put_dq<D, NQ, BULK>(sDQ, m, x, cw, it - 1, qacc);
                }
            };
            if (PP && w.nsteps > 0 && cw == 1) /* consumer 0 issues first */
                pp_pass_turn(1);
            if (w.nsteps > 0)
                step(0, std::true_type{});
            for (int it = 1; it < w.nsteps; it++)
                step(it, std::false_type{});
            if (PP && w.nsteps > 0 && cw == 0) /* consumer 1's last pass, taken */
                pp_wait_turn(0);
            if (WIDE && w.nsteps > 0) { /* the last tile's dQ, by its consumer */
                const int k = w.nsteps - 1, sk = k & 1;
                if ((k & 1) == cw) {
                    mbar_wait(m.dsfull + sk * 8, (uint32_t)((k >> 1) & 1));
                    ws_wide_dq<T, D, DQTMA, DA>(sDQ, m, x, base + L::DS + sk * L::TS, uK, k);
                }
            } else if (w.nsteps > 0) { /* the last tile's dQ */
                const int k = w.nsteps - 1, sk = k & 1;
                float qacc[NQ / 2];
                mbar_wait(m.dsfull + sk * 8, (uint32_t)((k >> 1) & 1));
                bwd_wg_issue_dq<T, BC, NQ>(qacc, base + L::DS + sk * L::TS, uK + kcol);
                wg_wait<0>();
                reg_fence(qacc);
                if constexpr (TAIL)
                    ws_add_dq_rows<D, NQ>(dqacc, (size_t)ws_bh(w, 0), (w.t0 + k) * BR, S, x, cw,
                                          qacc);
                else if constexpr (REGDQ)
                    ws_add_dq<D, NQ, RED4>(dqacc, w, k, S, x, cw, qacc);
                else
                    ws_put_dq<D, NQ, BULK>(sDQ, m, x, cw, k, qacc);
            }
        } else {
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
                bwd_wg_scores<T, D, BC, FULLM>(pf, df, x, uK, uV, uQ, uG, uDS, lL, 1.0f, lD, full,
                                               q0, j0, S, SK, causal, off, sl2);
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
                ws_put_dq<D, NQ, BULK>(sDQ, m, x, cw, it, qacc);
            }
        }
        const size_t kvbase = (size_t)bk * SK * D;
        if (dkvacc)
            ws_add_dkdv<D>(dkvacc, dkvacc + kvnumel, kvbase, x, j0, SK, dk, dv);
        else
            bwd_wg_store_dkdv<T, D>(dK, dV, kvbase, x, j0, SK, dk, dv, scale);
    }
#endif
}

/* The schedule of cuda_wgmma_bwd_ws: grid (key tiles, B*H_kv); block (x,
 * y) owns keys x BC .. of K/V head y % H_kv of batch y / H_kv and sweeps
 * every query head of the group. Host side: grid(s), fits(s) (the grid's
 * y limit, 65535 K/V heads; else -1 and err), kv_acc(s) (no fp32 dK/dV
 * accumulators: a block owns its keys' sums), ARG (unused). */
struct sched_kv {
    static constexpr int ARG = 0;
    static constexpr bool ONE_HEAD = false; /* a block sweeps the group's query heads */
    static __device__ __forceinline__ int block(int H, int HK, int S, int SK, int causal, int arg,
                                                int *b, int *hk, int *gq0, int *ngq)
    {
        (void)S, (void)SK, (void)causal, (void)arg;
        *b = (int)blockIdx.y / HK;
        *hk = (int)blockIdx.y % HK;
        *gq0 = 0;
        *ngq = H / HK;
        return (int)blockIdx.x;
    }
    static dim3 grid(const ab_shape *s)
    {
        return dim3((unsigned)((ab_shape_skv(s) + BC - 1) / BC), (unsigned)(s->B * ab_shape_hkv(s)));
    }
    static int fits(const ab_shape *s, const char *name, char *err, size_t n)
    {
        const long long bkv = (long long)s->B * ab_shape_hkv(s);
        if (bkv <= 65535)
            return 0;
        snprintf(err, n, "%s: B*H_kv = %lld exceeds the grid's %lld", name, bkv, 65535LL);
        return -1;
    }
    static int kv_acc(const ab_shape *s)
    {
        (void)s;
        return 0;
    }
};

/* The schedule of cuda_wgmma_bwd_heads and the rungs after it: a 1-D grid
 * of nkt = S_kv/BC times B*H blocks, each visiting one query head (ngq =
 * 1). Causal: the query heads (bh = b * H + h) in sections of G = arg
 * consecutive heads (the last one shorter when G does not divide B*H),
 * sections one after another, and within a section block r owns key tile
 * r / ns of head section start + r % ns (ns heads in the section: every
 * head's key tile 0 first, longest first); otherwise key tile L % nkt of
 * head L / nkt. Host side: grid(s), fits(s) (at most INT_MAX blocks; else
 * -1 and err), kv_acc(s) (fp32 dK/dV accumulators when H_kv < H: the
 * group's blocks share their keys), ARG = SECTION_HEADS, the forward's
 * measured best (cuda_wgmma_persistent.cu: sections of 8 heads best or
 * within 1% of the best of {1, 2, 4, 8, all, half of L2} on an H200). */
struct sched_heads {
    static constexpr int ARG = 8;
    static constexpr bool ONE_HEAD = true; /* ngq = 1: a block's steps are one head's tiles */
    static __device__ __forceinline__ int block(int H, int HK, int S, int SK, int causal,
                                                int sec, int *b, int *hk, int *gq0, int *ngq)
    {
        (void)S;
        const int nkt = (SK + BC - 1) / BC;
        const int nbh = (int)gridDim.x / nkt; /* B * H */
        const int L = (int)blockIdx.x;
        int kt, bh;
        if (causal) {
            const int h0 = L / (nkt * sec) * sec; /* the section's first head */
            const int ns = min(sec, nbh - h0);
            const int r = L - h0 * nkt;
            kt = r / ns;
            bh = h0 + r % ns;
        } else {
            kt = L % nkt;
            bh = L / nkt;
        }
        const int h = bh % H, Gq = H / HK;
        *b = bh / H;
        *hk = h / Gq;
        *gq0 = h % Gq;
        *ngq = 1;
        return kt;
    }
    static long long blocks(const ab_shape *s)
    {
        return (long long)((ab_shape_skv(s) + BC - 1) / BC) * s->B * s->H;
    }
    static dim3 grid(const ab_shape *s) { return dim3((unsigned)blocks(s)); }
    static int fits(const ab_shape *s, const char *name, char *err, size_t n)
    {
        if (blocks(s) <= INT_MAX)
            return 0;
        snprintf(err, n, "%s: %lld blocks (S_kv/128 x B x H) exceed %d", name, blocks(s), INT_MAX);
        return -1;
    }
    static int kv_acc(const ab_shape *s) { return ab_shape_hkv(s) < s->H; }
};

/* What setup keeps: the forward's context and the backward workspace. */
struct ws_ctx {
    void *fwd;     /* cuda_wgmma_persistent's context (the forward) */
    float *dqacc;  /* [B,H,S,D] fp32 dQ accumulator (NULL for pass = fwd) */
    float *delta;  /* [B*H, Sp], padding rows zero */
    float *lse2;   /* [B*H, Sp] lse log2 e, padding rows zero */
    float *dkvacc; /* NULL, or [2][B,H_kv,S_kv,D] fp32 dK, dV accumulators */
    int Sp;        /* S rounded up to a multiple of BR */
};

/* The tensor maps of one call (dq: the fp32 dQ accumulator's, WS_DQ_TMA;
 * zero otherwise) */
struct ws_maps {
    CUtensorMap q, g, k, v, dq;
};

/* Before the main kernel: encodes the maps of q, dO (64-row boxes), k, v
 * (BC-row boxes) and, with dqmap, of the dQ accumulator (32 x 64 fp32
 * boxes) into *m, zeroes the dQ (and, if any, dK/dV) accumulators and runs
 * the pre-pass on st (perm: its logsumexp and Delta rows in bwd_vec_row's
 * order, WS_VEC_LSE). 0, a cudaError_t, or 3 when a tensor map cannot be
 * encoded (printed with the rung's name). */
template <typename T, int D>
int ws_before(const char *name, const ws_ctx *c, const ab_shape *s, const void *q, const void *k,
              const void *v, const void *o, const void *g, const float *lse, ws_maps *m,
              cudaStream_t st, int perm = 0, int dqmap = 0)
{
    const long long rows = (long long)s->B * s->H * s->S;
    const int HK = ab_shape_hkv(s), SK = ab_shape_skv(s);
    const int bf = std::is_same<T, __nv_bfloat16>::value;
    char err[256];
    memset(&m->dq, 0, sizeof m->dq);
    if (ab_wgmma_tensor_map(&m->q, q, bf, (long long)s->B * s->H, s->S, D, BR, err, sizeof err) ||
        ab_wgmma_tensor_map(&m->g, g, bf, (long long)s->B * s->H, s->S, D, BR, err, sizeof err) ||
        ab_wgmma_tensor_map(&m->k, k, bf, (long long)s->B * HK, SK, D, BC, err, sizeof err) ||
        ab_wgmma_tensor_map(&m->v, v, bf, (long long)s->B * HK, SK, D, BC, err, sizeof err) ||
        (dqmap && ab_wgmma_tensor_map_f32(&m->dq, c->dqacc, (long long)s->B * s->H, s->S, D, BR,
                                          err, sizeof err))) {
        fprintf(stderr, "%s: %s\n", name, err);
        return 3;
    }
    cudaError_t e = cudaMemsetAsync(c->dqacc, 0, (size_t)rows * D * sizeof(float), st);
    if (e == cudaSuccess && c->dkvacc)
        e = cudaMemsetAsync(c->dkvacc, 0, 2 * (size_t)s->B * HK * SK * D * sizeof(float), st);
    if (e != cudaSuccess)
        return (int)e;
    bwd_prep<T, D><<<(unsigned)((rows * (D / 8) + 255) / 256), 256, 0, st>>>(
        (const T *)o, (const T *)g, lse, c->delta, c->lse2, rows, s->S, c->Sp, perm);
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

/* Enqueues one backward pass of bwd_ws<T, D, Sched, F> on st: ws_before,
 * the main kernel on Sched's grid, ws_after. name: the rung's, for
 * messages. 0, a cudaError_t, or 3 when a tensor map cannot be encoded
 * (printed). */
template <typename Sched, int F, typename T, int D>
int ws_launch(const char *name, const ws_ctx *c, const ab_shape *s, const void *q, const void *k,
              const void *v, const void *o, const void *g, const float *lse, void *dq, void *dk,
              void *dv, cudaStream_t st)
{
    const int HK = ab_shape_hkv(s), SK = ab_shape_skv(s);
    ws_maps m;
    if (int rc = ws_before<T, D>(name, c, s, q, k, v, o, g, lse, &m, st,
                                 (F & WS_VEC_LSE) != 0, (F & WS_DQ_TMA) != 0))
        return rc;
    const long long kvnumel = (long long)s->B * HK * SK * D;
    bwd_ws<T, D, Sched, F><<<Sched::grid(s), NT, ws_layout_of<D, F>::bytes, st>>>(
        m.q, m.g, m.k, m.v, c->lse2, c->delta, c->dqacc, (T *)dk, (T *)dv, c->dkvacc, kvnumel,
        s->H, HK, s->S, SK, c->Sp, s->causal, 1.0f / sqrtf((float)D), Sched::ARG, m.dq);
    return ws_after<T>(c, s, dq, dk, dv, st);
}

/* Raises the dynamic shared-memory limit of bwd_ws<T, D, Sched, F> for
 * s's dtype and D; 0 or a cudaError_t. */
template <typename Sched, int F, typename T, int D> int ws_set_smem_of(void)
{
    return (int)cudaFuncSetAttribute(bwd_ws<T, D, Sched, F>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     ws_layout_of<D, F>::bytes);
}
template <typename Sched, int F> int ws_set_smem(const ab_shape *s)
{
    if (s->D == 64)
        return s->dtype == AB_FP16 ? ws_set_smem_of<Sched, F, __half, 64>()
                                   : ws_set_smem_of<Sched, F, __nv_bfloat16, 64>();
    return s->dtype == AB_FP16 ? ws_set_smem_of<Sched, F, __half, 128>()
                               : ws_set_smem_of<Sched, F, __nv_bfloat16, 128>();
}

/* setup of a rung that is bwd_ws<., ., Sched, F>: Sched::fits, then
 * ws_setup's contract (fp32 dK/dV accumulators when Sched::kv_acc). */
template <typename Sched, int F>
int ws_rung_setup(const char *name, const ab_shape *s, void **ctx, size_t *ws, char *err,
                  size_t n)
{
    *ctx = NULL;
    *ws = 0;
    if (Sched::fits(s, name, err, n))
        return -1;
    return ws_setup(name, s, ctx, ws, err, n, LLONG_MAX, ws_set_smem<Sched, F>,
                    Sched::kv_acc(s));
}

/* run_bwd of such a rung: the launch of s's dtype and D on stream (no
 * allocation, no synchronisation: graph-capturable); needs a setup with
 * s->pass != "fwd". 0, a cudaError_t, or 3 when a tensor map cannot be
 * encoded. */
template <typename Sched, int F>
int ws_run_bwd(const char *name, void *ctx, const ab_shape *s, const void *q, const void *k,
               const void *v, const void *o, const void *g, const float *lse, void *dq, void *dk,
               void *dv, void *stream)
{
    const ws_ctx *c = (const ws_ctx *)ctx;
    if (!c || !c->dqacc)
        return (int)cudaErrorInvalidValue;
    cudaStream_t st = (cudaStream_t)stream;
    if (s->D == 64)
        return s->dtype == AB_FP16
                   ? ws_launch<Sched, F, __half, 64>(name, c, s, q, k, v, o, g, lse, dq, dk, dv, st)
                   : ws_launch<Sched, F, __nv_bfloat16, 64>(name, c, s, q, k, v, o, g, lse, dq,
                                                            dk, dv, st);
    return s->dtype == AB_FP16
               ? ws_launch<Sched, F, __half, 128>(name, c, s, q, k, v, o, g, lse, dq, dk, dv, st)
               : ws_launch<Sched, F, __nv_bfloat16, 128>(name, c, s, q, k, v, o, g, lse, dq, dk,
                                                         dv, st);
}

} /* namespace abwgws */

/* The four entry points of rung NAME = bwd_ws with schedule SCHED and
 * feature bits F (inside a .cu file of the sm_90a build):
 *   NAME_setup     ws_rung_setup's contract (fp16/bf16, D in {64, 128},
 *                  any S, S_kv, H_kv dividing H, the schedule's grid
 *                  limit; compute capability 9.0, else
 *                  AB_SETUP_UNSUPPORTED with the reason)
 *   NAME_run       the forward, cuda_wgmma_persistent's (o = attention(q,
 *                  k, v))
 *   NAME_run_bwd   ws_run_bwd's contract (the memsets, the pre-pass, the
 *                  main kernel and the conversions enqueued on stream)
 *   NAME_teardown  frees what setup allocated; ctx may be NULL */
#define AB_WS_RUNG(NAME, SCHED, F)                                                                \
    extern "C" int NAME##_setup(const ab_shape *s, void **ctx, size_t *ws, char *err, size_t n)  \
    {                                                                                             \
        return abwgws::ws_rung_setup<SCHED, F>(#NAME, s, ctx, ws, err, n);                        \
    }                                                                                             \
    extern "C" int NAME##_run(void *ctx, const ab_shape *s, const void *q, const void *k,        \
                              const void *v, void *o, void *stream)                              \
    {                                                                                             \
        return cuda_wgmma_persistent_run(((abwgws::ws_ctx *)ctx)->fwd, s, q, k, v, o, stream);    \
    }                                                                                             \
    extern "C" int NAME##_run_bwd(void *ctx, const ab_shape *s, const void *q, const void *k,    \
                                  const void *v, const void *o, const void *dout,                \
                                  const float *lse, void *dq, void *dk, void *dv, void *stream)  \
    {                                                                                             \
        return abwgws::ws_run_bwd<SCHED, F>(#NAME, ctx, s, q, k, v, o, dout, lse, dq, dk, dv,     \
                                            stream);                                              \
    }                                                                                             \
    extern "C" void NAME##_teardown(void *ctx) { abwgws::ws_teardown(ctx); }

#endif
