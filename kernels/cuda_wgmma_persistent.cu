/*
 * cuda_wgmma_persistent.cu: forward attention on wgmma + TMA + warp
 * specialisation + FlashAttention-3's overlaps with a persistent grid,
 * rung "cuda_wgmma_persistent" of the kernel ladder.
 *
 * Idea. cuda_wgmma_pingpong launched one block per 128-row query tile
 * (2,048 blocks at the headline shape, 15.5 waves of 132) at one block
 * per SM (224 KiB of shared memory), so every tile paid its start-up in
 * the open: barrier init, the Q load and the first (K, V) load before the
 * first wgmma, and the O stores after the last. Here the grid is one block
 * per SM and each block walks the tile list:
 *   - non-causal (equal tiles): statically, L = blockIdx.x, + gridDim.x,
 *     ...; L -> (b*h, query tile) with the query tiles of one head
 *     together, so the ~130 concurrent tiles share a few heads' K and V;
 *   - causal (tile q has q + 1 key tiles): dynamically, each block's next
 *     tile from an atomic counter, the list ordered longest first within
 *     sections of 8 heads (FlashAttention-3's longest-processing-time-first
 *     scheduler); the producer claims the tile when it may load its Q and
 *     publishes (b*h, query tile) in shared memory with the Q load's
 *     mbarrier arrive (-1: no more); the last block out resets the
 *     counter for the next launch;
 *   - the producer runs ahead across tiles: once the consumers have
 *     issued the last Q K^T of a tile (a "Q empty" mbarrier) it loads the
 *     next tile's Q and then its (K, V) stages while the consumers finish
 *     the last P V and store O; stage and phase counters run on across
 *     tiles;
 *   - O goes straight from the accumulators to global memory (4-byte
 *     stores, a quad writes 16 contiguous bytes), so the Q buffer is free
 *     for the next tile as soon as the last Q K^T has read it;
 *   - the ping-pong turn order of the consumers runs on across tiles;
 *   - D = 64: three consumer warpgroups (BR = 192 query rows per tile,
 *     FlashAttention-3's hdim-64 shape), registers 24 (producer) / 160
 *     (consumers); D = 128: two consumers, 24 / 240, 3 (K, V) stages.
 * The Q-empty barrier is released by every consumer thread (not one lane
 * per warp): the threads read the tile slot the producer rewrites after it.
 *
 * Source: Shah et al. 2024 (FlashAttention-3) section 3.1 (persistent
 * kernel, producer running ahead into the next tile, overlapping one
 * tile's epilogue with the next tile's loads), its hdim-64 tile shape
 * (3 consumer warpgroups x 64 rows) and its causal tile scheduler (longest
 * first, heads grouped for L2; the FlashAttention-3 code's LPT scheduler,
 * read, not copied). Previous rung: cuda_wgmma_pingpong.
 *
 * Prediction (before the first run). cuda_wgmma_pingpong timed 613
 * TFLOP/s at the headline (gpu_check --time before the committed run;
 * 0.95x cudnn_sdpa's 646); its ~58 us per block
 * spent an estimated 3-5 us on exposed start-up and O stores, so hiding
 * them should give +5-8% non-causal (640-660 TFLOP/s, ~1.0x cudnn_sdpa);
 * causal less (static schedule imbalance). D = 64: 413 -> 450-480 TFLOP/s
 * from the 1.5x taller tile (more wgmma per softmax row-reduction step).
 *
 * Any S >= 1, causal or not, D in {64, 128}, fp16 and bf16, grouped-query
 * heads (H_kv dividing H) and any S_kv >= 1; sm_90a only.
 *
 * Measured (attnbench run experiments/hopper-d128.cfg: run 1 of
 * reports/hopper-forward/hopper.db, report
 * reports/hopper-forward/hopper-d128-run1.md; NVIDIA H200, 2026-11-23, hot
 * timing, medians; B*S = 16K tokens, H = 16, D = 128): non-causal 623.5-698.8
 * TFLOP/s, the fastest own kernel in 7 of the 8 non-causal configurations and
 * at or above cudnn_sdpa from S = 4096 on (bf16 S = 8192: 697.2 vs 626.3,
 * 1.11x; fp16 B=4 S=4096: 652.2 vs 646.7, 1.01x; S = 2048: 0.98-0.985x).
 * Causal it is SLOWER than cuda_wgmma_pingpong (371.5-569.0, 0.60-0.92x
 * cudnn_sdpa; S = 16384: 0.60-0.64x): the static round-robin's imbalance
 * (below). Prediction (+5-8% non-causal) met at S >= 8192 (bf16 +9-11% over
 * pingpong), not at S <= 4096 (+0-1%). D = 64 (hopper-d64 run 2, fp16, three
 * consumer warpgroups): 523.4 TFLOP/s at B=4 S=4096 non-causal (cudnn_sdpa
 * 531.9, 0.98x; pingpong 423.1), 501.1 at S = 16384 (552.4, 0.91x); causal
 * again behind pingpong.
 *
 * The imbalance: the static round-robin gives block c the tiles L = c +
 * 132k, whose query-tile index within a head cycles with step 132 mod nqt,
 * so at S = 16384 (nqt = 128) block 0 gets tiles of 128, 124, ... key
 * tiles and block 64 tiles of 64, 60, ...: about 3x more work on some SMs
 * than on others. A longest-first order across heads (L -> query tile
 * nqt - 1 - L / (B*H)) or an atomic tile counter fixes that (below).
 * Profiled (no database: the figures are in the log named): Nsight
 * Compute at B=4 H=16 S=4096 D=128 fp16 non-causal (clocks left
 * alone; reports/hopper-forward/ncu-hopper-d128-headline.log): 849 us against cuDNN's
 * 854 us; tensor pipe active 76.9% of peak (cuDNN 75.7%), issue slots
 * 41.9% (43.8%), the same 8.39 M wgmma instructions, 201 MB DRAM read
 * (both), 4.04 GB of L2 traffic (cuDNN 3.12 GB). ptxas: 168 registers at
 * entry (D=128, 384 threads) / 128 (D=64, 512 threads), no spills.
 * Checked: gpu_check (64 cases), memcheck and racecheck clean.
 *
 * The causal scheduler (2026-11-24). Prediction: with the imbalance gone
 * (static round-robin: up to 3x the key tiles on some SMs), causal should
 * reach its non-causal ratio to cudnn_sdpa, about 1.0x. Section size
 * timed with gpu_check --time (no committed database; six causal shapes,
 * G in {1, 2, 4, 8, all heads, half of L2}): 8 heads best or within 1%;
 * all heads at once lost 6-17% at S <= 4096 (K/V of every head in flight,
 * L2 misses).
 * Measured (attnbench run experiments/hopper-lpt.cfg,
 * reports/hopper-forward/hopper-lpt.db run 1, report
 * reports/hopper-forward/hopper-lpt-run1.md; NVIDIA H200, 2026-11-24, hot
 * timing, 80-100 samples in rounds, 1230 of 2956 clock blocks at the software
 * power cap, SM 1440-1980 MHz; speedups against cudnn_sdpa are the report's
 * round estimates): causal D = 128 494.6-571.8 TFLOP/s, 0.96-0.98x cudnn_sdpa
 * (static schedule before: 0.60-0.92x) and 1.04-1.07x cuda_wgmma_pingpong for
 * S <= 8192 (0.98x at S = 16384, where pingpong's one-head-at-a-time hardware
 * order keeps K/V in L2 better); causal D = 64 349-470, 1.15-1.23x pingpong,
 * 0.91-0.95x cudnn_sdpa. Non-causal unchanged (615.6 at the headline, 1.03x
 * cudnn_sdpa's 599.4).
 *
 * ptxas: the
 * causal producer spills 8-16 bytes at its 24 registers (per tile, not in
 * the loop); 32 would leave the consumers' setmaxnreg.inc 240 short of the
 * 168 x 384 launch pool and hang (tried: it did, at D = 128).
 *
 * Grouped-query heads and S_kv != S (2026-11-26), the contract of
 * src/core/variant.h as cuda_mma_pipeline implements it: query slice
 * bh = b H + h reads K/V slice b H_kv + h / (H / H_kv), which is bh /
 * (H / H_kv) since H = (H / H_kv) H_kv, so the producer indexes the K and
 * V tensor maps ([B H_kv, S_kv, D]) with bh / grp; the causal mask is
 * aligned bottom-right, key j visible to query row i when j <= i + shift,
 * shift = S_kv - S, in the element-wise mask (wg_softmax's shift), in the
 * choice of the masked path per warpgroup and in each query tile's key-tile
 * count (kernels/key_tiles.h). A query tile none of whose rows sees a key (causal,
 * S > S_kv) runs one fully masked key tile: m stays -inf, l = 0, O = 0,
 * as the reference gives. The LPT order needs no change: a query tile's
 * key-tile count is nondecreasing in its index for any shift, so "last
 * query tile first" is still longest first. Consecutive bh share a K/V
 * head, so a causal section of 8 query heads reads 8 / grp K/V heads (a
 * smaller L2 working set than at H_kv = H). No pack-GQA (FlashAttention-3's
 * query heads of a group in one tile's rows): at prefill it moves no fewer
 * bytes (below). Prediction, written before the run: at Llama 3 8B prefill
 * (H = 32, H_kv = 8, D = 128, bf16, causal, B*S = 16K tokens;
 * experiments/llama3-8b-prefill-hopper.cfg) the FLOPs and the L2 -> shared
 * memory traffic per tile are those of H = 32 without GQA (every query
 * tile still loads its own (K, V) tiles; only DRAM reads shrink, 4x, and
 * they were not the limit), so the same ratio to cudnn_sdpa as causal
 * H_kv = H, 0.95-1.0x, i.e. about 500-570 TFLOP/s on an H200 at
 * S >= 2048 (S = 1024, 8 query tiles per head: less sure), 1.5-1.8x
 * cuda_mma_pipeline (0.55-0.63x cuDNN at llama3-8b run 2).
 * Why not pack-GQA at prefill: a tile of BR rows and a key tile of BC
 * keys cost 4 BR BC D FLOPs for 4 BC D bytes of K and V whichever query
 * heads the rows belong to (BR FLOP per byte: 128 at D = 128, 192 at
 * D = 64), and every (row, key tile) pair is computed once either way, so
 * rows of 4 heads x 32 positions load exactly as many (K, V) tiles as
 * rows of 1 head x 128 positions; with 128-aligned key tiles the causal
 * waste (63.5 masked keys per row on average in the diagonal tile) is
 * also the same. Packing pays where S * grp <= BR (decode, short chunks:
 * 4x the useful rows per tile at grp = 4), which is cuda_decode_split_kv's
 * regime. Sharing one (K, V) load between the grp query heads of a group
 * at prefill takes TMA multicast to a cluster of CTAs, not packing.
 * Measured (NVIDIA H200, 2026-11-26, reports/llama3-8b-prefill-hopper/,
 * run 1, round-paired Hodges-Lehmann speedup vs cudnn_sdpa): S = 1024..16384
 * at H_kv = 8 0.889x, 0.919x, 0.924x, 0.924x, 0.924x (412-580 TFLOP/s);
 * H_kv = 1 at S = 4096 0.926x; S = 2048 against S_kv = 8192 0.916x;
 * 1.63-1.78x cuda_mma_pipeline. The prediction (0.95-1.0x at S >= 2048) did not
 * hold. A second run at H_kv = 32, 8, 1 (gqa-vs-mha-hopper.db, same folder):
 * causal 0.918-0.930x at every H_kv, non-causal 1.023-1.026x: the K/V
 * head mapping costs nothing; the gap is the causal one at H = 32.
 *
 * GPU suite: 56 grouped-query / S_kv cases, 0 failed (same day).
 * That causal gap was this file's key-tile loop, compiled as divergent
 * (the tile coordinates read from shared memory and the warpgroup index
 * from threadIdx are per-thread values to the compiler): the next rung,
 * cuda_wgmma_uniform, broadcasts them from the first lane (its header).
 */
#include "entry_points.h"
#include "key_tiles.h"
#include "wgmma_common.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <type_traits>

using namespace abwg;

namespace {

constexpr int BC = 128; /* keys per tile */
constexpr int SECTION_HEADS = 8; /* heads per causal scheduling section (launch()) */

template <int D> struct cfg {
    static constexpr int NWG = D == 64 ? 3 : 2;  /* consumer warpgroups */
    static constexpr int BR = 64 * NWG;          /* query rows per tile */
    static constexpr int NT = 128 * (NWG + 1);   /* threads: producer + consumers */
    static constexpr int NST = D == 64 ? 4 : 3;  /* (K, V) stages */
    static constexpr int REG_C = NWG == 3 ? 160 : 240;
    static constexpr int SMEM = 1024 + BR * D * 2 + NST * 2 * BC * D * 2 + (2 * NST + 3) * 8;
};

/* Tile L of the list -> (bh, qt). Non-causal: the query tiles of one head
 * together. Causal: heads in sections of G (SECTION_HEADS), and within a
 * section the longest query tiles first (rank-major: every head's last query tile,
 * then every head's second last, ...), so that the dynamic scheduler
 * below hands out the longest remaining work first (LPT) while the ~130
 * tiles in flight share the K and V of a few heads. */
template <bool CAUSAL>
static __device__ __forceinline__ void decode(int L, int nqt, int nbh, int G, int &bh, int &qt)
{
    if (!CAUSAL) {
        bh = L / nqt;
        qt = L % nqt;
        return;
    }
    const int sec_tiles = G * nqt, sec = L / sec_tiles, r = L % sec_tiles;
    const int gh = min(G, nbh - sec * G); /* heads in this (maybe last, shorter) section */
    bh = sec * G + r % gh;
    qt = nqt - 1 - r / gh;
}

/* The causal tile counters, one per (D, dtype) instantiation: tile
 * blockIdx.x is a block's first; each later one is gridDim.x plus an
 * atomicAdd on sched[.][0]. The last block to run out of tiles resets
 * both words (sched[.][1] counts blocks done) for the next launch; setup
 * zeroes them once. */
__device__ unsigned int g_sched[4][2];

template <typename T, int D, bool CAUSAL>
__global__ void __launch_bounds__(cfg<D>::NT, 1)
    wgmma_persist_fwd(const __grid_constant__ CUtensorMap tmQ,
                      const __grid_constant__ CUtensorMap tmK,
                      const __grid_constant__ CUtensorMap tmV, T *__restrict__ O, int S, int Skv,
                      int grp, int nqt, int ntiles, int nbh, int G, float scale_log2)
{
#if AB_WGMMA_DEVICE
    using C = cfg<D>;
    constexpr int NWG = C::NWG, BR = C::BR, NST = C::NST;
    constexpr int TILE = BC * D * 2; /* bytes of one K or V tile */
    extern __shared__ unsigned char smem_raw[];
    const uint32_t raw = smem_u32(smem_raw);
    const uint32_t uQ = (raw + 1023u) & ~1023u;
    const uint32_t uKV = uQ + BR * D * 2;
    const uint32_t uFull = uKV + NST * 2 * TILE, uEmpty = uFull + NST * 8,
                   uQfull = uEmpty + NST * 8, uQempty = uQfull + 8;
    /* the tile (bh, qt) the producer publishes with each Q load (bh -1: no more) */
    volatile int *tile_slot = (volatile int *)(smem_raw + (uQempty + 8 - raw));
    const int shift = Skv - S; /* bottom-right causal mask: key j <= query row + shift */

    const int tid = threadIdx.x;
    if (tid == 0) {
        for (int st = 0; st < NST; st++) {
            mbar_init(uFull + st * 8, 1);
            mbar_init(uEmpty + st * 8, 4 * NWG); /* one arrival per consumer warp */
        }
        mbar_init(uQfull, 1);
        mbar_init(uQempty, 128 * NWG); /* every consumer thread: it read the tile slot */
        fence_mbar_init();
    }
    __syncthreads();

    const int wg = tid >> 7, wtid = tid & 127;
    if (wg == 0) {
        /* producer warpgroup: one thread issues every load */
        setmaxnreg_dec<24>(); /* the pool: 168 x 384 = 24 x 128 + 240 x 256 (D = 128) */
        if (tid == 0) {
            int tc = 0; /* (K, V) tiles loaded so far: stage tc % NST */
            unsigned int *sched = g_sched[(D == 64) * 2 + std::is_same<T, __nv_bfloat16>::value];
            for (int it = 0, L = blockIdx.x;; it++) {
                if (it > 0) { /* the consumers issued (and finished) the last Q K^T of tile it-1 */
                    mbar_wait(uQempty, (uint32_t)((it - 1) & 1));
                    L = CAUSAL ? (int)atomicAdd(&sched[0], 1u) + (int)gridDim.x
                               : L + (int)gridDim.x;
                }
                if (L >= ntiles) { /* publish the end; the last block out resets the counters */
                    tile_slot[0] = -1;
                    abmma::mbar_arrive(uQfull);
                    if (CAUSAL && atomicAdd(&sched[1], 1u) == gridDim.x - 1) {
                        sched[0] = 0;
                        sched[1] = 0;
                    }
                    break;
                }
                int bh, qt;
                decode<CAUSAL>(L, nqt, nbh, G, bh, qt);
                const int q0 = qt * BR;
                const int jend = ab_key_tiles(CAUSAL, q0, BR, S, Skv, BC);
                /* grouped-query attention: query slice bh = b H + h reads K/V slice
                 * b H_kv + h / grp = bh / grp (H = grp H_kv) */
                const int kvh = ab_kv_slice(bh, grp);
                tile_slot[0] = bh; /* released to the consumers by the expect_tx arrive */
                tile_slot[1] = qt;
                mbar_expect_tx(uQfull, BR * D * 2);
#pragma unroll
                for (int cb = 0; cb < D / 64; cb++)
                    tma_load_3d(uQ + cb * BR * 128, &tmQ, uQfull, cb * 64, q0, bh);
                for (int t = 0; t < jend; t++, tc++) {
                    const int st = tc % NST;
                    if (tc >= NST) /* every consumer warp released load tc - NST */
                        mbar_wait(uEmpty + st * 8, (uint32_t)((tc / NST - 1) & 1));
                    const uint32_t uK = uKV + (uint32_t)(st * 2 * TILE), bar = uFull + st * 8;
                    mbar_expect_tx(bar, 2 * TILE);
#pragma unroll
                    for (int cb = 0; cb < D / 64; cb++) {
                        tma_load_3d(uK + cb * BC * 128, &tmK, bar, cb * 64, t * BC, kvh);
                        tma_load_3d(uK + TILE + cb * BC * 128, &tmV, bar, cb * 64, t * BC, kvh);
                    }
                }
            }
        }
    } else {
        setmaxnreg_inc<C::REG_C>();
        const int cw = wg - 1, lane = wtid & 31;
        /* ping-pong: barrier 3 + c is consumer c's turn to issue wgmma; it
         * completes when c's 128 threads sync and the previous consumer's
         * 128 arrive (turns go 0, 1, .., NWG-1, 0, ..) */
        const int my_turn = 3 + cw, next_turn = 3 + (cw + 1) % NWG;
        if (cw == NWG - 1)
            named_arrive(3, 256); /* consumer 0 goes first */
        wg_geo g;
        g.uQ = uQ;
        g.wrow = cw * 64;
        g.t = tid & 3;
        float s[BC / 2];
        uint32_t p[BC / 16][4];
        float o[D / 2];
        int tc = 0; /* (K, V) tiles consumed so far */
        for (int it = 0;; it++) {
            mbar_wait(uQfull, (uint32_t)(it & 1)); /* Q of tile it landed, or the end */
            const int bh = tile_slot[0], qt = tile_slot[1];
            if (bh < 0)
                break;
            const int q0 = qt * BR;
            const int jend = ab_key_tiles(CAUSAL, q0, BR, S, Skv, BC);
            g.row0 = q0 + g.wrow + (wtid >> 5) * 16 + (lane >> 2);
            const int wfirst = q0 + g.wrow;
            /* whether key tile k0 needs the element-wise mask for this warpgroup */
            auto masked = [&](int k0) { return ab_key_tile_masked(CAUSAL, k0, BC, wfirst, S, Skv); };
#pragma unroll
            for (int i = 0; i < D / 2; i++)
                o[i] = 0.f;
            float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f}, corr[2];

            /* key tile 0: S_0, softmax, P_0 */
            {
                const int st = tc % NST;
                mbar_wait(uFull + st * 8, (uint32_t)((tc / NST) & 1));
                named_sync(my_turn, 256);
                wg_issue_qk<T, D, BC, BR>(s, g, uKV + (uint32_t)(st * 2 * TILE));
                named_arrive(next_turn, 256);
                wg_wait<0>();
                reg_fence(s);
                if (jend == 1) /* that was the tile's last read of Q */
                    abmma::mbar_arrive(uQempty);
                if (masked(0))
                    wg_softmax<BC, CAUSAL, true>(s, m, l, corr, g, 0, Skv, scale_log2, shift);
                else
                    wg_softmax<BC, CAUSAL, false>(s, m, l, corr, g, 0, Skv, scale_log2, shift);
                wg_pack_p<T, BC>(s, p);
            }
            for (int j = 1; j < jend; j++) {
                const int st = (tc + j) % NST, sp = (tc + j - 1) % NST;
                const uint32_t uK = uKV + (uint32_t)(st * 2 * TILE);
                const uint32_t uVp = uKV + (uint32_t)(sp * 2 * TILE) + TILE;
                mbar_wait(uFull + st * 8, (uint32_t)(((tc + j) / NST) & 1));
                named_sync(my_turn, 256);
                wg_issue_qk<T, D, BC, BR>(s, g, uK); /* S_j */
                wg_issue_pv<T, D, BC>(o, p, uVp);     /* O += P_{j-1} V_{j-1} */
                named_arrive(next_turn, 256);
                wg_wait<1>(); /* S_j landed; P V still running */
                reg_fence(s);
                if (j == jend - 1) /* the tile's last read of Q is done */
                    abmma::mbar_arrive(uQempty);
                const int k0 = j * BC;
                if (masked(k0))
                    wg_softmax<BC, CAUSAL, true>(s, m, l, corr, g, k0, Skv, scale_log2, shift);
                else
                    wg_softmax<BC, CAUSAL, false>(s, m, l, corr, g, k0, Skv, scale_log2, shift);
                wg_wait<0>(); /* P_{j-1} V_{j-1} done */
                reg_fence(o);
                reg_fence_u(p);
                __syncwarp();
                if (lane == 0)
                    abmma::mbar_arrive(uEmpty + sp * 8); /* this warp is done with that stage */
#pragma unroll
                for (int n = 0; n < D / 8; n++) {
                    o[4 * n] *= corr[0];
                    o[4 * n + 1] *= corr[0];
                    o[4 * n + 2] *= corr[1];
                    o[4 * n + 3] *= corr[1];
                }
                wg_pack_p<T, BC>(s, p);
            }
            /* the last P V of the tile */
            {
                const int sp = (tc + jend - 1) % NST;
                named_sync(my_turn, 256);
                wg_issue_pv<T, D, BC>(o, p, uKV + (uint32_t)(sp * 2 * TILE) + TILE);
                named_arrive(next_turn, 256);
                wg_wait<0>();
                reg_fence(o);
                reg_fence_u(p);
                __syncwarp();
                if (lane == 0)
                    abmma::mbar_arrive(uEmpty + sp * 8);
            }
            tc += jend;

            /* O / l straight from the accumulators, rows >= S skipped */
            using ops = dtype_ops<T>;
            T *Ob = O + (size_t)bh * S * D;
#pragma unroll
            for (int h = 0; h < 2; h++) {
                float lt = l[h];
                lt += __shfl_xor_sync(0xffffffffu, lt, 1);
                lt += __shfl_xor_sync(0xffffffffu, lt, 2);
                const float inv = lt > 0.f ? 1.f / lt : 0.f;
                const int row = g.row0 + 8 * h;
                if (row < S) {
                    T *orow = Ob + (size_t)row * D + 2 * g.t;
#pragma unroll
                    for (int n = 0; n < D / 8; n++)
                        *reinterpret_cast<uint32_t *>(orow + 8 * n) =
                            ops::pack(o[4 * n + 2 * h] * inv, o[4 * n + 2 * h + 1] * inv);
                }
            }
        }
        /* the last consumer's last turn was passed on to consumer 0, whose
         * barrier still holds those 128 arrivals: complete it */
        if (cw == 0)
            named_sync(my_turn, 256);
    }
#endif
}

struct ctx_t {
    int sms; /* multiprocessors: the persistent grid's size */
};

template <typename T, int D, bool CAUSAL> int set_attr()
{
    return cudaFuncSetAttribute(wgmma_persist_fwd<T, D, CAUSAL>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                cfg<D>::SMEM) == cudaSuccess
               ? 0
               : -1;
}

template <typename T, int D, bool CAUSAL>
int launch(const ctx_t *c, const ab_shape *s, const void *q, const void *k, const void *v,
           void *o, cudaStream_t st)
{
    constexpr int BR = cfg<D>::BR;
    const int nqt = (s->S + BR - 1) / BR;
    const long long bh = (long long)s->B * s->H, ntiles = (long long)nqt * bh;
    const int hkv = ab_shape_hkv(s), skv = ab_shape_skv(s);
    const long long bhkv = (long long)s->B * hkv;
    if (ntiles > 0x7fffffffLL)
        return 2;
    char err[256];
    CUtensorMap mq, mk, mv;
    const int bf = std::is_same<T, __nv_bfloat16>::value;
    /* Q: [B H, S, D]; K, V: [B H_kv, S_kv, D] */
    if (ab_wgmma_tensor_map(&mq, q, bf, bh, s->S, D, BR, err, sizeof err) ||
        ab_wgmma_tensor_map(&mk, k, bf, bhkv, skv, D, BC, err, sizeof err) ||
        ab_wgmma_tensor_map(&mv, v, bf, bhkv, skv, D, BC, err, sizeof err)) {
        fprintf(stderr, "cuda_wgmma_persistent: %s\n", err);
        return 3;
    }
    const float scale_log2 = 1.4426950408889634f / sqrtf((float)D);
    const int grid = (int)(ntiles < c->sms ? ntiles : c->sms);
    /* causal head sections of 8 heads (fewer when B*H is smaller): the best
     * or within 1% of the best of G in {1, 2, 4, 8, all, half-of-L2} at six
     * causal shapes (D = 64, 128; S = 2048..16384), gpu_check --time on an
     * H200, 2026-11-24; all heads at once lost 6-17% at S <= 4096 (L2) */
    const long long G = bh < SECTION_HEADS ? bh : SECTION_HEADS;
    wgmma_persist_fwd<T, D, CAUSAL><<<grid, cfg<D>::NT, cfg<D>::SMEM, st>>>(
        mq, mk, mv, (T *)o, s->S, skv, s->H / hkv, nqt, (int)ntiles, (int)bh, (int)G, scale_log2);
    return 0;
}

template <typename T>
int dispatch_t(int op, const ctx_t *c, const ab_shape *s, const void *q, const void *k,
               const void *v, void *o, cudaStream_t st)
{
    const bool cz = s->causal != 0;
    if (s->D == 64)
        return op == 0 ? (cz ? set_attr<T, 64, true>() : set_attr<T, 64, false>())
                       : (cz ? launch<T, 64, true>(c, s, q, k, v, o, st)
                             : launch<T, 64, false>(c, s, q, k, v, o, st));
    return op == 0 ? (cz ? set_attr<T, 128, true>() : set_attr<T, 128, false>())
                   : (cz ? launch<T, 128, true>(c, s, q, k, v, o, st)
                         : launch<T, 128, false>(c, s, q, k, v, o, st));
}

/* op 0: set_attr, op 1: launch, for the shape's (dtype, D, causal). */
int dispatch(int op, const ctx_t *c, const ab_shape *s, const void *q, const void *k,
             const void *v, void *o, cudaStream_t st)
{
    return s->dtype == AB_FP16 ? dispatch_t<__half>(op, c, s, q, k, v, o, st)
                               : dispatch_t<__nv_bfloat16>(op, c, s, q, k, v, o, st);
}

} /* namespace */

/* setup: checks the shape (fp16/bf16, D in {64, 128}, B, H, S, S_kv >= 1,
 * H_kv dividing H, B*H below 2^31) and the device (compute capability 9.0), reads the number of
 * multiprocessors (the grid size) and raises the dynamic shared-memory
 * limit. No workspace; ctx holds the SM count. Fails (-1, reason in err)
 * otherwise. */
extern "C" int cuda_wgmma_persistent_setup(const ab_shape *s, void **ctx, size_t *ws, char *err,
                                           size_t n)
{
    *ctx = NULL;
    *ws = 0;
    if (s->dtype != AB_FP16 && s->dtype != AB_BF16) {
        snprintf(err, n, "cuda_wgmma_persistent: dtype must be fp16 or bf16");
        return -1;
    }
    if (s->D != 64 && s->D != 128) {
        snprintf(err, n, "cuda_wgmma_persistent: D must be 64 or 128");
        return -1;
    }
    if (ab_shape_skv(s) < 1 || ab_shape_hkv(s) < 1 || s->H % ab_shape_hkv(s) != 0) {
        snprintf(err, n, "cuda_wgmma_persistent: S_kv must be >= 1 and H_kv must divide H");
        return -1;
    }
    if (s->S < 1 || s->B < 1 || s->H < 1 || (long long)s->B * s->H > 0x7fffffffLL) {
        snprintf(err, n, "cuda_wgmma_persistent: B, H, S must be >= 1 and B*H < 2^31");
        return -1;
    }
    if (int dev_rc = ab_wgmma_device_ok("cuda_wgmma_persistent", err, n))
        return dev_rc;
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        sms < 1) {
        snprintf(err, n, "cuda_wgmma_persistent: cannot read the multiprocessor count: %s",
                 cudaGetErrorString(cudaGetLastError()));
        return -1;
    }
    if (dispatch(0, NULL, s, NULL, NULL, NULL, NULL, 0)) {
        snprintf(err, n, "cuda_wgmma_persistent: cudaFuncSetAttribute: %s",
                 cudaGetErrorString(cudaGetLastError()));
        return -1;
    }
    static const unsigned int zero[4][2] = {{0}};
    if (cudaMemcpyToSymbol(g_sched, zero, sizeof zero) != cudaSuccess) {
        snprintf(err, n, "cuda_wgmma_persistent: cannot zero the tile counters: %s",
                 cudaGetErrorString(cudaGetLastError()));
        return -1;
    }
    ctx_t *c = (ctx_t *)malloc(sizeof *c);
    if (!c) {
        snprintf(err, n, "cuda_wgmma_persistent: out of host memory");
        return -1;
    }
    c->sms = sms;
    *ctx = c;
    return 0;
}

/* run: encodes the three tensor maps and enqueues one forward pass on
 * `stream` (min(tiles, SMs) blocks); 2 when the tile count is too large, 3
 * when a tensor map cannot be encoded (message on stderr). */
extern "C" int cuda_wgmma_persistent_run(void *ctx, const ab_shape *s, const void *q,
                                         const void *k, const void *v, void *o, void *stream)
{
    return dispatch(1, (const ctx_t *)ctx, s, q, k, v, o, (cudaStream_t)stream);
}

extern "C" void cuda_wgmma_persistent_teardown(void *ctx) { free(ctx); }
