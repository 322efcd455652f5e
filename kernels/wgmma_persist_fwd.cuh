/*
 * wgmma_persist_fwd.cuh: the one kernel body and host side of the
 * persistent-grid Hopper forward rungs (cuda_wgmma_persistent,
 * cuda_wgmma_uniform, cuda_wgmma_lookahead, cuda_wgmma_wgskip,
 * cuda_wgmma_softexp, cuda_wgmma_widekv, cuda_wgmma_ilpsoft, cuda_wgmma_desciter,
 * cuda_wgmma_splitloop, cuda_wgmma_latewait, cuda_wgmma_splitwide), each rung
 * an instantiation with its idea as a template parameter (the PF_* bits
 * below); each rung's .cu file holds its header notes (idea, prediction,
 * measurements) and its three entry points, and includes this file once
 * (everything here is in an anonymous namespace: each rung gets its own
 * kernels and its own causal tile counters).
 *
 * The common design (cuda_wgmma_persistent's header has the why and the
 * measurements): one block per SM walks a list of query tiles; a producer
 * warpgroup (one thread) loads each tile's Q and its (K, V) tiles by TMA
 * into NST shared-memory stages on full/empty mbarriers; NWG consumer
 * warpgroups of 64 query rows each (D = 128: 2, BR = 128; D = 64: 3,
 * BR = 192) compute S = Q K^T, the online softmax on the accumulators and
 * O += P V by wgmma, issuing in ping-pong turns on named barriers, the
 * softmax of key tile j running during P V of key tile j - 1; O goes from
 * the accumulators to global memory. Non-causal tiles are handed out
 * statically, causal ones from an atomic counter in longest-first order
 * within sections of 8 heads. Grouped-query heads (query slice bh reads
 * K/V slice bh / (H / H_kv)) and S_kv != S with the causal mask aligned
 * bottom-right (kernels/key_tiles.h).
 *
 * The ideas (bits of IDEA; a rung sets those of its ladder step):
 *   PF_UNIFORM    the consumers' tile coordinates and warpgroup index
 *                 broadcast from lane 0 (__shfl_sync), so the compiler
 *                 knows them warp-uniform (cuda_wgmma_uniform's header);
 *   PF_LOOKAHEAD  the producer claims the next tile when it starts the
 *                 current one and prefetches its Q into L2
 *                 (cuda_wgmma_lookahead's header);
 *   PF_WGSKIP     each consumer warpgroup runs only the key tiles its own
 *                 64 rows need (causal: through the last key its last row
 *                 below S sees; none when all its rows are >= S), taking
 *                 its ping-pong turns and releasing the stages of the rest
 *                 without wgmma or softmax (cuda_wgmma_wgskip's header);
 *   PF_SOFTEXP    at D = 64, a quarter of the softmax's exponentials by a
 *                 polynomial on the FMA pipe instead of the MUFU unit
 *                 (wg_softmax's EMU, wgmma_common.cuh; cuda_wgmma_softexp's
 *                 header);
 *   PF_WIDEKV     non-causal D = 128: key tiles of 176 keys in 2 stages
 *                 instead of 128 in 3 (cfg below; cuda_wgmma_widekv's
 *                 header);
 *   PF_ILPSOFT    the softmax's row maximum and row sum over a thread's
 *                 columns in four independent chains (wg_softmax's ILP;
 *                 cuda_wgmma_ilpsoft's header);
 *   PF_KVSPLIT    the K and the V tile of a stage each on a full and an
 *                 empty barrier of their own: a consumer warp frees K_j
 *                 as soon as its S_j = Q K_j^T has landed and V_j after
 *                 P_j V_j, so the producer refills K one key tile sooner
 *                 (FlashAttention-3's separate K and V pipelines); what
 *                 lets PF_WIDEKV's two stages keep the tensor cores fed
 *                 (cuda_wgmma_widekv's header);
 *   PF_DESCADD    the wgmma descriptors of Q (once per tile), K and V (once
 *                 per key tile) built once and stepped through the k-steps
 *                 by constant adds to their low word (wg_issue_qk_lo,
 *                 wg_issue_pv_lo; cuda_wgmma_desciter's header);
 *   PF_SPLITLOOP  the key-tile loop split in two, the tiles that need no
 *                 element-wise mask first, then those that do, so that
 *                 neither loop branches on the mask and the compiler can
 *                 overlap a tile's exponentials with the rescale of O and
 *                 the conversion of P (cuda_wgmma_splitloop's header);
 *   PF_LATEWAIT   in the unmasked loop, the wait for P V after row 0's
 *                 softmax, held there by a shared-memory store of its row
 *                 sum (cuda_wgmma_latewait's header);
 *   PF_SPLITWIDE  PF_KVSPLIT only in the instantiations with PF_WIDEKV's
 *                 176-key tiles (D = 128 non-causal), the others back to one
 *                 barrier pair per stage (cuda_wgmma_splitwide's header).
 *
 * Sources: Shah et al. 2024 (FlashAttention-3) sections 3.1-3.2 and its
 * code's tile schedulers; CUTLASS's canonical_warp_group_idx; PTX ISA 8.x
 * (wgmma, cp.async.bulk.tensor, cp.async.bulk.prefetch.tensor, mbarrier,
 * setmaxnreg); read, not copied. sm_90a only: the other targets of a
 * multi-target build compile empty kernels, and setup refuses any GPU but
 * compute capability 9.0.
 */
#ifndef ATTNBENCH_WGMMA_PERSIST_FWD_CUH
#define ATTNBENCH_WGMMA_PERSIST_FWD_CUH

#include "entry_points.h"
#include "key_tiles.h"
#include "wgmma_common.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <type_traits>

namespace {

using namespace abwg;

/* The ideas a rung turns on (template parameter IDEA of the kernel). */
enum : int {
    PF_UNIFORM = 1,   /* tile coordinates and warpgroup index broadcast from lane 0 */
    PF_LOOKAHEAD = 2, /* next tile claimed and its Q prefetched to L2 one tile ahead */
    PF_WGSKIP = 4,    /* per-warpgroup key-tile count */
    PF_SOFTEXP = 8,   /* D = 64: a quarter of the softmax's exp2 on the FMA pipe */
    PF_WIDEKV = 16,   /* non-causal D = 128: key tiles of 176 keys, 2 stages */
    PF_ILPSOFT = 32,  /* the softmax's row max and row sum in 4 independent chains */
    PF_KVSPLIT = 64,  /* K and V of a stage on barriers of their own: K freed after Q K^T */
    PF_DESCADD = 128, /* wgmma descriptors stepped by constant adds (desc_lo) */
    PF_SPLITLOOP = 256, /* unmasked and masked key tiles in two loops, no branch inside */
    PF_LATEWAIT = 512,  /* unmasked tiles: the wait for P V after the first row's softmax */
    PF_SPLITWIDE = 1024, /* PF_KVSPLIT only where PF_WIDEKV's two stages need it */
};

constexpr int SECTION_HEADS = 8; /* heads per causal scheduling section (launch()) */

/* The geometry of one instantiation. Key tiles are 128 keys, except with
 * PF_WIDEKV at D = 128 non-causal: 176 keys (88 accumulators a thread for
 * S beside 64 for O and 44 for P, within the 240 registers) in 2 stages
 * (3 x 90 KiB would not fit shared memory). */
template <int IDEA, int D, bool CAUSAL> struct cfg {
    static constexpr bool WIDE = (IDEA & PF_WIDEKV) != 0 && !CAUSAL && D == 128;
    static constexpr int BC = WIDE ? 176 : 128;  /* keys per tile */
    static constexpr int NWG = D == 64 ? 3 : 2;  /* consumer warpgroups */
    static constexpr int BR = 64 * NWG;          /* query rows per tile */
    static constexpr int NT = 128 * (NWG + 1);   /* threads: producer + consumers */
    static constexpr int NST = WIDE ? 2 : D == 64 ? 4 : 3; /* (K, V) stages */
    static constexpr int REG_C = NWG == 3 ? 160 : 240;
    /* alignment slack, Q, the stages, 4 NST + 2 mbarriers and the tile slot
     * (and PF_LATEWAIT's scratch word per thread) */
    static constexpr int SMEM = 1024 + BR * D * 2 + NST * 2 * BC * D * 2 + (4 * NST + 3) * 8 +
                                ((IDEA & PF_LATEWAIT) ? 4 * NT : 0);
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

#if AB_WGMMA_DEVICE
/* One box of the 3-D tensor map into L2 only (no shared memory, no
 * barrier): PTX ISA 8.0 cp.async.bulk.prefetch.tensor, sm_90. Only the
 * sm_90a pass has the kernel that calls it. */
static __device__ __forceinline__ void tma_prefetch_l2_3d(const CUtensorMap *map, int c0, int c1,
                                                          int c2)
{
    asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%0, {%1, %2, %3}];\n" ::"l"(
                     reinterpret_cast<uint64_t>(map)),
                 "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
}
#endif

/* The causal tile counters, one per (D, dtype) instantiation of the
 * including rung: tile blockIdx.x is a block's first; each later one is
 * gridDim.x plus an atomicAdd on sched[.][0] (claimed when the block frees
 * its Q buffer, or with PF_LOOKAHEAD one tile ahead, when the tile before
 * it starts). The last block to run out of tiles resets both words
 * (sched[.][1] counts blocks done) for the next launch; setup zeroes them
 * once. */
__device__ unsigned int g_sched[4][2];

template <int IDEA, typename T, int D, bool CAUSAL>
__global__ void __launch_bounds__(cfg<IDEA, D, CAUSAL>::NT, 1)
    wgmma_persist_fwd(const __grid_constant__ CUtensorMap tmQ,
                      const __grid_constant__ CUtensorMap tmK,
                      const __grid_constant__ CUtensorMap tmV, T *__restrict__ O, int S, int Skv,
                      int grp, int nqt, int ntiles, int nbh, int G, float scale_log2)
{
#if AB_WGMMA_DEVICE
    constexpr bool UNIFORM = (IDEA & PF_UNIFORM) != 0, LOOKAHEAD = (IDEA & PF_LOOKAHEAD) != 0,
                   WGSKIP = (IDEA & PF_WGSKIP) != 0,
                   SPLIT = (IDEA & PF_KVSPLIT) != 0 &&
                           ((IDEA & PF_SPLITWIDE) == 0 || cfg<IDEA, D, CAUSAL>::WIDE),
                   DESCADD = (IDEA & PF_DESCADD) != 0, SPLITLOOP = (IDEA & PF_SPLITLOOP) != 0,
                   LATEWAIT = (IDEA & PF_LATEWAIT) != 0;
    /* wg_softmax's EMU: every EMU-th group of 8 columns by ab_soft_exp2 (0: none) */
    constexpr int EMU = (IDEA & PF_SOFTEXP) != 0 && D == 64 ? 4 : 0;
    constexpr bool ILP = (IDEA & PF_ILPSOFT) != 0;
    using C = cfg<IDEA, D, CAUSAL>;
    constexpr int NWG = C::NWG, BR = C::BR, NST = C::NST, BC = C::BC;
    constexpr int TILE = BC * D * 2; /* bytes of one K or V tile */
    extern __shared__ unsigned char smem_raw[];
    const uint32_t raw = smem_u32(smem_raw);
    const uint32_t uQ = (raw + 1023u) & ~1023u;
    const uint32_t uKV = uQ + BR * D * 2;
    /* per stage: full and empty barriers of its (K, V) pair, or with
     * PF_KVSPLIT of its K (uFull, uEmpty) and its V (uFullV, uEmptyV) */
    const uint32_t uFull = uKV + NST * 2 * TILE, uEmpty = uFull + NST * 8,
                   uFullV = uEmpty + NST * 8, uEmptyV = uFullV + NST * 8,
                   uQfull = uEmptyV + NST * 8, uQempty = uQfull + 8;
    /* the tile (bh, qt) the producer publishes with each Q load (bh -1: no more) */
    volatile int *tile_slot = (volatile int *)(smem_raw + (uQempty + 8 - raw));
    /* PF_LATEWAIT: a word per thread, written and never read */
    const uint32_t uScratch = uQempty + 16;
    const int shift = Skv - S; /* bottom-right causal mask: key j <= query row + shift */

    const int tid = threadIdx.x;
    if (tid == 0) {
        for (int st = 0; st < NST; st++) {
            mbar_init(uFull + st * 8, 1);
            mbar_init(uEmpty + st * 8, 4 * NWG); /* one arrival per consumer warp */
            if (SPLIT) {
                mbar_init(uFullV + st * 8, 1);
                mbar_init(uEmptyV + st * 8, 4 * NWG);
            }
        }
        mbar_init(uQfull, 1);
        mbar_init(uQempty, 128 * NWG); /* every consumer thread: it read the tile slot */
        fence_mbar_init();
    }
    __syncthreads();

    /* PF_UNIFORM: the warpgroup index broadcast from lane 0, so that the
     * compiler knows it is the same in every lane of a warp (CUTLASS's
     * canonical_warp_group_idx) */
    const int wg = UNIFORM ? __shfl_sync(0xffffffffu, tid >> 7, 0) : tid >> 7, wtid = tid & 127;
    if (wg == 0) {
        /* producer warpgroup: one thread issues every load */
        setmaxnreg_dec<24>(); /* the pool: 168 x 384 = 24 x 128 + 240 x 256 (D = 128) */
        if (tid == 0) {
            int tc = 0; /* (K, V) tiles loaded so far: stage tc % NST */
            unsigned int *sched = g_sched[(D == 64) * 2 + std::is_same<T, __nv_bfloat16>::value];
            int L = blockIdx.x; /* the tile to run now */
            for (int it = 0;; it++) {
                if (it > 0) { /* the consumers issued (and finished) the last Q K^T of tile it-1 */
                    mbar_wait(uQempty, (uint32_t)((it - 1) & 1));
                    if (!LOOKAHEAD) /* claimed now that the Q buffer is free */
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
                /* PF_LOOKAHEAD: claim the tile after this one now; the atomic's
                 * round trip runs while this tile's loads are issued (its result
                 * is first used after the first (K, V) load below) */
                const int Ln = !LOOKAHEAD ? 0
                               : CAUSAL   ? (int)atomicAdd(&sched[0], 1u) + (int)gridDim.x
                                          : L + (int)gridDim.x;
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
                    const uint32_t ep = (uint32_t)((tc / NST - 1) & 1);
                    if (tc >= NST) /* every consumer warp released load tc - NST (its K) */
                        mbar_wait(uEmpty + st * 8, ep);
                    const uint32_t uK = uKV + (uint32_t)(st * 2 * TILE), bar = uFull + st * 8;
                    if (SPLIT) {
                        mbar_expect_tx(bar, TILE);
#pragma unroll
                        for (int cb = 0; cb < D / 64; cb++)
                            tma_load_3d(uK + cb * BC * 128, &tmK, bar, cb * 64, t * BC, kvh);
                        if (tc >= NST) /* and its V */
                            mbar_wait(uEmptyV + st * 8, ep);
                        mbar_expect_tx(uFullV + st * 8, TILE);
#pragma unroll
                        for (int cb = 0; cb < D / 64; cb++)
                            tma_load_3d(uK + TILE + cb * BC * 128, &tmV, uFullV + st * 8, cb * 64,
                                        t * BC, kvh);
                    } else {
                        mbar_expect_tx(bar, 2 * TILE);
#pragma unroll
                        for (int cb = 0; cb < D / 64; cb++) {
                            tma_load_3d(uK + cb * BC * 128, &tmK, bar, cb * 64, t * BC, kvh);
                            tma_load_3d(uK + TILE + cb * BC * 128, &tmV, bar, cb * 64, t * BC,
                                        kvh);
                        }
                    }
                    if (LOOKAHEAD && t == 0 && Ln < ntiles) {
                        /* the next tile's Q (read once, so never in L2 yet) into L2:
                         * its load after this tile's last Q K^T then hits L2 */
                        int bhn, qtn;
                        decode<CAUSAL>(Ln, nqt, nbh, G, bhn, qtn);
#pragma unroll
                        for (int cb = 0; cb < D / 64; cb++)
                            tma_prefetch_l2_3d(&tmQ, cb * 64, qtn * BR, bhn);
                    }
                }
                if (LOOKAHEAD)
                    L = Ln;
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
            /* PF_UNIFORM: broadcast from lane 0, so that the compiler knows them (and
             * jend, the masked-path choice, every stage index) to be warp-uniform: the
             * key-tile loop stays on the uniform datapath, without divergence handling */
            const int bh = UNIFORM ? __shfl_sync(0xffffffffu, tile_slot[0], 0) : tile_slot[0];
            const int qt = UNIFORM ? __shfl_sync(0xffffffffu, tile_slot[1], 0) : tile_slot[1];
            if (bh < 0)
                break;
            const int q0 = qt * BR;
            const int jend = ab_key_tiles(CAUSAL, q0, BR, S, Skv, BC);
            g.row0 = q0 + g.wrow + (wtid >> 5) * 16 + (lane >> 2);
            const int wfirst = q0 + g.wrow;
            /* the key tiles this warpgroup computes: the tile's jend, or with
             * PF_WGSKIP those its own rows need (0 when every row is >= S);
             * jw <= jend, since its rows are among the tile's */
            const int jw = !WGSKIP ? jend
                           : wfirst >= S ? 0
                                         : ab_key_tiles(CAUSAL, wfirst, 64, S, Skv, BC);
            /* whether key tile k0 needs the element-wise mask for this warpgroup */
            auto masked = [&](int k0) { return ab_key_tile_masked(CAUSAL, k0, BC, wfirst, S, Skv); };
            float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f}, corr[2];
            /* the products of stage st: S = Q K^T, O += P V (PF_DESCADD: descriptors
             * from low words; the stages are 2 TILE bytes apart, K first) */
            const uint32_t q_lo = desc_lo(uQ + (uint32_t)(g.wrow * 128), 16);
            auto issue_qk = [&](int st) {
                if (DESCADD)
                    wg_issue_qk_lo<T, D, BC, BR>(
                        s, q_lo, desc_lo(uKV, 16) + (uint32_t)(st * (2 * TILE >> 4)));
                else
                    wg_issue_qk<T, D, BC, BR>(s, g, uKV + (uint32_t)(st * 2 * TILE));
            };
            auto issue_pv = [&](int sp) {
                if (DESCADD)
                    wg_issue_pv_lo<T, D, BC>(
                        o, p, desc_lo(uKV + TILE, BC * 128) + (uint32_t)(sp * (2 * TILE >> 4)));
                else
                    wg_issue_pv<T, D, BC>(o, p, uKV + (uint32_t)(sp * 2 * TILE) + TILE);
            };
            /* PF_KVSPLIT: this warp is done with the K tile of stage st */
            auto release_k = [&](int st) {
                if (SPLIT) {
                    __syncwarp();
                    if (lane == 0)
                        abmma::mbar_arrive(uEmpty + st * 8);
                }
            };
            /* wait for the P V of stage sp; this warp is done with that stage
             * (PF_KVSPLIT: its V) */
            auto pv_done = [&](int sp) {
                wg_wait<0>();
                reg_fence(o);
                reg_fence_u(p);
                __syncwarp();
                if (lane == 0)
                    abmma::mbar_arrive((SPLIT ? uEmptyV : uEmpty) + sp * 8);
            };
            /* O's rows times the softmax's correction, then P to 16 bits */
            auto rescale_pack = [&]() {
                wg_rescale_o<D>(o, corr);
                wg_pack_p<T, BC>(s, p);
            };
#pragma unroll
            for (int i = 0; i < D / 2; i++)
                o[i] = 0.f;

            /* key tiles 0 .. jw - 1 as the pipeline of cuda_wgmma_uniform: a turn
             * per key tile and one for the last P V (jw = jend without PF_WGSKIP) */
            if (!WGSKIP || jw > 0) {
                /* key tile 0: S_0, softmax, P_0 */
                {
                    const int st = tc % NST;
                    mbar_wait(uFull + st * 8, (uint32_t)((tc / NST) & 1));
                    named_sync(my_turn, 256);
                    issue_qk(st);
                    named_arrive(next_turn, 256);
                    wg_wait<0>();
                    reg_fence(s);
                    release_k(st);
                    if (jw == 1) /* that was the tile's last read of Q */
                        abmma::mbar_arrive(uQempty);
                    if (masked(0))
                        wg_softmax<BC, CAUSAL, true, EMU, ILP>(s, m, l, corr, g, 0, Skv,
                                                          scale_log2, shift);
                    else
                        wg_softmax<BC, CAUSAL, false, EMU, ILP>(s, m, l, corr, g, 0, Skv,
                                                           scale_log2, shift);
                    wg_pack_p<T, BC>(s, p);
                }
                /* key tile j >= 1 (MODE 0: the mask chosen per tile; 1: unmasked;
                 * 2: masked) */
                auto step = [&](int j, auto mode) {
                    constexpr int MODE = decltype(mode)::value;
                    const int st = (tc + j) % NST, sp = (tc + j - 1) % NST;
                    mbar_wait(uFull + st * 8, (uint32_t)(((tc + j) / NST) & 1));
                    if (SPLIT) /* V_{j-1} (long landed, as a rule) */
                        mbar_wait(uFullV + sp * 8, (uint32_t)(((tc + j - 1) / NST) & 1));
                    named_sync(my_turn, 256);
                    issue_qk(st); /* S_j */
                    issue_pv(sp); /* O += P_{j-1} V_{j-1} */
                    named_arrive(next_turn, 256);
                    wg_wait<1>(); /* S_j landed; P V still running */
                    reg_fence(s);
                    release_k(st);
                    if (j == jw - 1) /* the tile's last read of Q is done */
                        abmma::mbar_arrive(uQempty);
                    const int k0 = j * BC;
                    if (LATEWAIT && MODE == 1) {
                        /* PF_LATEWAIT: row 0's softmax, its row sum stored to
                         * this thread's scratch word, then the wait: the
                         * compiler keeps the wait after the store, so after
                         * row 0's exponentials, and row 1's can overlap the
                         * rescale of O and the conversion of P */
                        wg_softmax<BC, CAUSAL, false, EMU, ILP, 0>(s, m, l, corr, g, k0, Skv,
                                                                   scale_log2, shift);
                        asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(uScratch + 4u * (uint32_t)tid),
                                     "f"(l[0])
                                     : "memory");
                        pv_done(sp); /* P_{j-1} V_{j-1} */
                        wg_softmax<BC, CAUSAL, false, EMU, ILP, 1>(s, m, l, corr, g, k0, Skv,
                                                                   scale_log2, shift);
                    } else {
                        if (MODE == 2 || (MODE == 0 && masked(k0)))
                            wg_softmax<BC, CAUSAL, true, EMU, ILP>(s, m, l, corr, g, k0, Skv,
                                                                   scale_log2, shift);
                        else
                            wg_softmax<BC, CAUSAL, false, EMU, ILP>(s, m, l, corr, g, k0, Skv,
                                                                    scale_log2, shift);
                        pv_done(sp); /* P_{j-1} V_{j-1} */
                    }
                    rescale_pack();
                };
                if (SPLITLOOP) {
                    /* PF_SPLITLOOP: tiles 1 .. jm - 1 unmasked, jm .. jw - 1 masked
                     * (ab_key_tile_masked grows with the tile: jm is its first
                     * masked tile), each loop without a branch on the mask */
                    int jm = Skv / BC; /* (j + 1) BC > S_kv from here on */
                    if (CAUSAL) {      /* (j + 1) BC - 1 > wfirst + shift from here on */
                        const int lim = wfirst + shift + 1;
                        jm = min(jm, lim <= 0 ? 0 : lim / BC);
                    }
                    jm = max(1, min(jm, jw));
                    for (int j = 1; j < jm; j++)
                        step(j, std::integral_constant<int, 1>{});
                    for (int j = jm; j < jw; j++)
                        step(j, std::integral_constant<int, 2>{});
                } else {
                    for (int j = 1; j < jw; j++)
                        step(j, std::integral_constant<int, 0>{});
                }
                /* the last P V of this warpgroup's key tiles */
                {
                    const int sp = (tc + jw - 1) % NST;
                    if (SPLIT)
                        mbar_wait(uFullV + sp * 8, (uint32_t)(((tc + jw - 1) / NST) & 1));
                    named_sync(my_turn, 256);
                    issue_pv(sp);
                    named_arrive(next_turn, 256);
                    pv_done(sp);
                }
            } else {
                /* PF_WGSKIP, no key tile: Q not needed; the turn of the last P V */
                abmma::mbar_arrive(uQempty);
                named_sync(my_turn, 256);
                named_arrive(next_turn, 256);
            }
            /* PF_WGSKIP: key tiles jw .. jend - 1, which none of this warpgroup's
             * rows needs: wait for each stage (so that an arrive never counts
             * toward the stage's previous use), take the turn, release it. Each
             * warpgroup takes jend + 1 turns per query tile either way. */
            if (WGSKIP) {
                for (int j = jw; j < jend; j++) {
                    const int st = (tc + j) % NST;
                    mbar_wait(uFull + st * 8, (uint32_t)(((tc + j) / NST) & 1));
                    if (SPLIT)
                        mbar_wait(uFullV + st * 8, (uint32_t)(((tc + j) / NST) & 1));
                    named_sync(my_turn, 256);
                    named_arrive(next_turn, 256);
                    __syncwarp();
                    if (lane == 0) {
                        abmma::mbar_arrive(uEmpty + st * 8);
                        if (SPLIT)
                            abmma::mbar_arrive(uEmptyV + st * 8);
                    }
                }
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
    int sms;          /* multiprocessors: the persistent grid's size */
    const char *name; /* the rung's name, for messages */
};

template <int IDEA, typename T, int D, bool CAUSAL> int set_attr()
{
    return cudaFuncSetAttribute(wgmma_persist_fwd<IDEA, T, D, CAUSAL>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                cfg<IDEA, D, CAUSAL>::SMEM) == cudaSuccess
               ? 0
               : -1;
}

template <int IDEA, typename T, int D, bool CAUSAL>
int launch(const ctx_t *c, const ab_shape *s, const void *q, const void *k, const void *v,
           void *o, cudaStream_t st)
{
    using C = cfg<IDEA, D, CAUSAL>;
    constexpr int BR = C::BR, BC = C::BC;
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
        fprintf(stderr, "%s: %s\n", c->name, err);
        return 3;
    }
    const float scale_log2 = 1.4426950408889634f / sqrtf((float)D);
    const int grid = (int)(ntiles < c->sms ? ntiles : c->sms);
    /* causal head sections of 8 heads (fewer when B*H is smaller): the best
     * or within 1% of the best of G in {1, 2, 4, 8, all, half-of-L2} at six
     * causal shapes (D = 64, 128; S = 2048..16384), gpu_check --time on an
     * H200, 2026-11-24; all heads at once lost 6-17% at S <= 4096 (L2) */
    const long long G = bh < SECTION_HEADS ? bh : SECTION_HEADS;
    wgmma_persist_fwd<IDEA, T, D, CAUSAL><<<grid, C::NT, C::SMEM, st>>>(
        mq, mk, mv, (T *)o, s->S, skv, s->H / hkv, nqt, (int)ntiles, (int)bh, (int)G, scale_log2);
    return 0;
}

template <int IDEA, typename T>
int dispatch_t(int op, const ctx_t *c, const ab_shape *s, const void *q, const void *k,
               const void *v, void *o, cudaStream_t st)
{
    const bool cz = s->causal != 0;
    if (s->D == 64)
        return op == 0 ? (cz ? set_attr<IDEA, T, 64, true>() : set_attr<IDEA, T, 64, false>())
                       : (cz ? launch<IDEA, T, 64, true>(c, s, q, k, v, o, st)
                             : launch<IDEA, T, 64, false>(c, s, q, k, v, o, st));
    return op == 0 ? (cz ? set_attr<IDEA, T, 128, true>() : set_attr<IDEA, T, 128, false>())
                   : (cz ? launch<IDEA, T, 128, true>(c, s, q, k, v, o, st)
                         : launch<IDEA, T, 128, false>(c, s, q, k, v, o, st));
}

/* op 0: set_attr, op 1: launch, for the shape's (dtype, D, causal). */
template <int IDEA>
int dispatch(int op, const ctx_t *c, const ab_shape *s, const void *q, const void *k,
             const void *v, void *o, cudaStream_t st)
{
    return s->dtype == AB_FP16 ? dispatch_t<IDEA, __half>(op, c, s, q, k, v, o, st)
                               : dispatch_t<IDEA, __nv_bfloat16>(op, c, s, q, k, v, o, st);
}

/* A rung's setup: checks the shape (fp16/bf16, D in {64, 128}, B, H, S,
 * S_kv >= 1, H_kv dividing H, B*H below 2^31) and the device (compute
 * capability 9.0), reads the number of multiprocessors (the grid size),
 * raises the dynamic shared-memory limit and zeroes the causal tile
 * counters. No workspace; *ctx holds the SM count and `name` (a string
 * that outlives the context). Fails (-1, or ab_wgmma_device_ok's code;
 * reason in err, prefixed by name) otherwise. */
template <int IDEA>
int persist_setup(const char *name, const ab_shape *s, void **ctx, size_t *ws, char *err, size_t n)
{
    *ctx = NULL;
    *ws = 0;
    if (s->dtype != AB_FP16 && s->dtype != AB_BF16) {
        snprintf(err, n, "%s: dtype must be fp16 or bf16", name);
        return -1;
    }
    if (s->D != 64 && s->D != 128) {
        snprintf(err, n, "%s: D must be 64 or 128", name);
        return -1;
    }
    if (ab_shape_skv(s) < 1 || ab_shape_hkv(s) < 1 || s->H % ab_shape_hkv(s) != 0) {
        snprintf(err, n, "%s: S_kv must be >= 1 and H_kv must divide H", name);
        return -1;
    }
    if (s->S < 1 || s->B < 1 || s->H < 1 || (long long)s->B * s->H > 0x7fffffffLL) {
        snprintf(err, n, "%s: B, H, S must be >= 1 and B*H < 2^31", name);
        return -1;
    }
    if (int dev_rc = ab_wgmma_device_ok(name, err, n))
        return dev_rc;
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        sms < 1) {
        snprintf(err, n, "%s: cannot read the multiprocessor count: %s", name,
                 cudaGetErrorString(cudaGetLastError()));
        return -1;
    }
    if (dispatch<IDEA>(0, NULL, s, NULL, NULL, NULL, NULL, 0)) {
        snprintf(err, n, "%s: cudaFuncSetAttribute: %s", name,
                 cudaGetErrorString(cudaGetLastError()));
        return -1;
    }
    static const unsigned int zero[4][2] = {{0}};
    if (cudaMemcpyToSymbol(g_sched, zero, sizeof zero) != cudaSuccess) {
        snprintf(err, n, "%s: cannot zero the tile counters: %s", name,
                 cudaGetErrorString(cudaGetLastError()));
        return -1;
    }
    ctx_t *c = (ctx_t *)malloc(sizeof *c);
    if (!c) {
        snprintf(err, n, "%s: out of host memory", name);
        return -1;
    }
    c->sms = sms;
    c->name = name;
    *ctx = c;
    return 0;
}

/* A rung's run: encodes the three tensor maps and enqueues one forward
 * pass on `stream` (min(tiles, SMs) blocks); 2 when the tile count is too
 * large, 3 when a tensor map cannot be encoded (message on stderr). */
template <int IDEA>
int persist_run(void *ctx, const ab_shape *s, const void *q, const void *k, const void *v, void *o,
                void *stream)
{
    return dispatch<IDEA>(1, (const ctx_t *)ctx, s, q, k, v, o, (cudaStream_t)stream);
}

} /* namespace */

/* The three entry points of rung NAME (NAME_setup, NAME_run, NAME_teardown;
 * the contract of src/core/variant.h, declared by entry_points.h) over
 * persist_setup and persist_run with the rung's ideas IDEA_BITS (PF_*). */
#define AB_PERSIST_FWD_RUNG(NAME, IDEA_BITS)                                                       \
    extern "C" int NAME##_setup(const ab_shape *s, void **ctx, size_t *ws, char *err, size_t n)   \
    {                                                                                              \
        return persist_setup<(IDEA_BITS)>(#NAME, s, ctx, ws, err, n);                              \
    }                                                                                              \
    extern "C" int NAME##_run(void *ctx, const ab_shape *s, const void *q, const void *k,         \
                              const void *v, void *o, void *stream)                                \
    {                                                                                              \
        return persist_run<(IDEA_BITS)>(ctx, s, q, k, v, o, stream);                               \
    }                                                                                              \
    extern "C" void NAME##_teardown(void *ctx) { free(ctx); }

#endif
