/*
 * cuda_mma_pipeline.cu: forward attention on the tensor cores with cp.async
 * multi-stage prefetch and per-shape tile tuning, rung "cuda_mma_pipeline"
 * of the kernel ladder (its last hand-written rung).
 *
 * Idea. cuda_mma_swizzle (FlashAttention-2 on mma.sync.m16n8k16, ldmatrix
 * operands from XOR-swizzled shared memory, online softmax on the
 * accumulators, P in registers) plus the remaining FlashAttention-2
 * engineering:
 *   - cp.async.cg 16-byte copies (zero-filling past the sequence end) into
 *     NST shared-memory stages of (K, V): tile j+NST-1 is in flight while
 *     tile j is computed; one cp.async.wait_group + one __syncthreads per
 *     tile (the synchronous rungs had two barriers and exposed every load);
 *     or, for the mbarrier candidates, no block barrier in the loop at all:
 *     each thread's copies arrive on a per-stage "full" mbarrier
 *     (cp.async.mbarrier.arrive.noinc), each warp arrives on the stage's
 *     "empty" mbarrier when done with it, and tile j+NST-2 is issued once
 *     every warp has released tile j-2, so warps may drift a tile apart;
 *   - the element-wise mask compiled as a separate copy of the tile step,
 *     used only on tiles that cross S or a warp's diagonal;
 *   - exp2 with log2(e) * scale folded into one FFMA per score
 *     (FlashAttention-2's softmax_rescale_o trick; ex2.approx on the SFU);
 *   - Q fragments loaded once into registers for the whole key loop when
 *     they fit (16 rows per warp, or 32 rows at D = 64), instead of one
 *     ldmatrix per k-step per key tile;
 *   - warps may own 32 query rows (two m16 tiles, FlashAttention-2's own
 *     layout for Br = 128 with 4 warps): each K/V fragment from ldmatrix
 *     then feeds two mma, halving shared-memory reads per FLOP;
 *   - causal: key tiles wholly at or below a warp's diagonal skip the
 *     element-wise mask, tiles wholly above it skip the warp's compute, the
 *     diagonal tile comes last (tiles go in ascending order), and the query
 *     tiles of a (b, h) are scheduled longest first;
 *   - O is staged through the warp's own (no longer needed) Q rows in shared
 *     memory and written with coalesced 16-byte stores;
 *   - tile sizes (Br, Bc, warps, stages) chosen per (D, causal) from the
 *     tuning table below.
 *
 * Source: Dao 2023 (FlashAttention-2, Algorithm 1 and its CUDA code:
 * Flash_fwd_kernel_traits, softmax_rescale_o with exp2f and scale_log2);
 * seed 004 (/work/shared/seeds/004_*.txt, priorities 1, 2, 5: occupancy,
 * tensor cores, cp.async double buffering). Builds on: cuda_mma_swizzle.
 *
 * Any S >= 1 (zero-filled partial tiles, columns >= S masked, rows >= S not
 * stored), causal or not, D in {64, 128}, fp16 and bf16. The table is for
 * Hopper: on a GPU with less opt-in shared memory per block than the
 * table's entry needs (Ampere, Ada at D = 128), setup falls back to
 * candidate 2 (kFallback), checked and timed on Hopper only.
 *
 * Tuning. kCands below lists the candidate tile configurations (Br, warps,
 * Bc, stages, register cap, barrier scheme) and kTable picks one per
 * (D, causal). setup reads AB_TUNE=<candidate index> from the environment
 * to override the table (only tuning runs set it). How the table was found:
 * every candidate checked with gpu_check at S = 17, 113, 1025 (fp16, all
 * passed), then timed with `AB_TUNE=c gpu_check --time SHAPE
 * cuda_mma_pipeline` (5 warm-up, median of 50 hot-mode samples; fp16;
 * tests/gpu/mma_ladder.sh, steps tunecheck and tune) on an NVIDIA H200,
 * 2026-11-21; not in a committed database. TFLOP/s (higher is better;
 * * = chosen):
 *   cand  Br  warps Bc  stages       D=128 B4 H16 S4096   D=64 B32 H8 S512   D=64 B4 H32 S4096
 *                                     non-causal causal   non-causal          non-causal causal
 *   0     64  4     64  2             306.7      294.6    242.3               293.5      279.6
 *   1     128 8     64  2             325.6      300.9    199.4               255.3      240.5
 *   2     128 4x32  64  2             370.0      318.7    252.5*              317.8*     301.9*
 *   3     128 8     64  3             320.7      296.3    198.3               252.2      240.2
 *   4     128 8     32  3             271.5      247.5    219.4               257.1      240.0
 *   5     128 8     128 2             341.6      312.7    218.7               291.6      279.2
 *   6     128 8     64  2 (<=128 reg) -          -        253.2               302.8      267.2
 *   7     128 4x32  32  2             345.5      291.3    226.2               283.5      271.1
 *   8     128 8     64  4 mbarrier    340.4      310.0    199.0               260.8      247.9
 *   9     128 8     128 3 mbarrier    368.3*     332.1*   217.8               295.9      279.7
 *   10    128 4x32  64  4 mbarrier    250.0      215.6    250.8               316.4      290.6
 *   11    128 8     128 3 mbarrier, per-thread release (added 2026-11-23, below)
 * ("4x32": 4 warps owning 32 rows each.) Rule: the fastest median; within
 * 1% (the same kernel's medians moved 0.1-1.6% between two device runs) the one
 * without register spills. D = 128 non-causal: 2 and 9 tie (370.0, 368.3)
 * and 2 spills 132 bytes, so 9. D = 64, S = 512: 6, 2, 10 tie (253.2,
 * 252.5, 250.8); 2 wins at S = 4096 in both modes, so 2 for D = 64.
 * What the sweep says: at D = 128 the two winners are the two ways to feed
 * the tensor cores more per shared-memory byte and per barrier: 32 rows per
 * warp reuse every K/V fragment for two mma (2 blocks of 4 warps per SM),
 * or Bc = 128 halves the barriers, row-max/rescale passes per key; and with
 * one block of 8 warps per SM, handing stages over through mbarriers
 * instead of a __syncthreads per tile lets warps drift out of lock step
 * (one warp's softmax overlaps another's mma): 9 vs 5 +8% / +6%, 8 vs 1
 * +5% / +3%. Bc = 32 (4, 7) pays too many barriers and rescales. At D = 64
 * (Q fragments of 32 rows fit in registers) the 4 warps x 32 rows layout
 * wins outright.
 *
 * Candidate 11 (racecheck flagged 9's warp-level stage release,
 * see the MBAR comment in pipe_fwd) timed against 9 and 2 in one device run
 * (not in a committed database),
 * `AB_TUNE=c gpu_check --time` (median of 50 hot-mode samples), fp16, D=128,
 * NVIDIA H200, 2026-11-23, TFLOP/s for cand 9 / 11 / 2:
 *   B4 H16 S4096 non-causal 369.8 / 365.7 / 368.7   causal 331.4 / 331.8 / 319.3
 *   B8 H16 S2048 non-causal 354.1 / 353.7 / 360.0   causal 300.9 / 303.9 / 296.5
 *   B1 H16 S16384 causal    361.4 / 357.8 / 335.8
 * 11 is within 1.1% of 9 everywhere (the spread of one kernel between
 * device runs, above) and racecheck-clean, so D = 128 uses 11; the
 * attnbench runs below ran candidate 9.
 *
 * Measured (reports/seeds-and-ladders/attnbench.db, NVIDIA H200, 2026-11-21,
 * hot timing, medians; run 10 ladder-d128, report
 * reports/seeds-and-ladders/ladder-d128-run10.md: D = 128, B*S = 16384, H =
 * 16, S = 512..8192, causal or not, fp16/bf16; run 9 ladder-d64, report
 * reports/seeds-and-ladders/ladder-d64-run9.md: B = 32, H = 8, D = 64, S =
 * 128..2048, fp16): 202.9-379.5 TFLOP/s over run 10's 20 configurations
 * (370.3 at B=4 S=4096 fp16 non-causal), 95.6-317.4 over run 9's 5 shapes;
 * 1.54x cuda_mma_swizzle (geometric mean of the ratios of medians over run
 * 10, 1.34-1.67x). Against PyTorch flash, run 10's baseline (the report's
 * ratios of medians with BCa CIs): 1.094x [1.092, 1.097] at B=4 S=4096 fp16
 * non-causal; faster in 12 of the 12 configurations with S >= 2048; short at
 * S <= 1024 non-causal (0.95-0.99x); 1.049x [1.047, 1.051] at seed 004's B=32
 * H=8 S=512 D=64 (run 9).
 *
 * Profiled (Nsight Compute the same day; no committed log or database) at
 * B=4 H=16 S=1024 D=128 fp16 non-causal (candidate 9): 112 us (swizzle 184),
 * 4.23 M ldmatrix.x4 (Q once per block instead of once per tile), 17.1 M
 * shared-load wavefronts (4.0 each), 21 K bank conflicts, tensor pipe active
 * 52.0% of cycles (swizzle 32.5%), 8 warps per SM. mma.sync is Hopper's
 * legacy tensor path: wgmma (FlashAttention-3) is the next step, not more
 * tuning here.
 *
 * ptxas (nvcc 13.0, sm_90a), table entries: D = 128 (candidate 9, now 11, 256
 * threads) 254 registers non-causal / 255 causal, 0 / 4 spill bytes (the 4:
 * one value stored at entry and reloaded in the epilogue, none in the
 * loop), 229,424 bytes dynamic shared memory (Q 32 KiB + 3 x (K, V) 64 KiB
 * + 6 mbarriers), 1 block per SM; D = 64 (candidate 2, 128 threads) 252 /
 * 250 registers, 0 spills, 48 KiB shared memory, 2 blocks per SM. bf16 the
 * same within 5 registers. Candidate 2 at D = 128 spills 132 bytes (255
 * registers): o alone is 128 floats per thread there.
 */
#include "entry_points.h"
#include "gpu.h"
#include "mma_common.cuh"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <type_traits>

using namespace abmma;

namespace {

/* Candidate tile configurations. MT = BR / (16 * NW) query m16 tiles per
 * warp. Indices are what AB_TUNE and the tuning table name. */
struct cand {
    int BR, NW, BC, NST;
    int MINB; /* blocks per SM asked of ptxas (its register cap) */
    int MBAR; /* 1: stages handed over with mbarriers, no __syncthreads in the loop: a warp
               * releases a stage by __syncwarp + lane 0's arrive; 2: every thread arrives */
};
constexpr int NCAND = 12;
constexpr cand kCands[NCAND] = {
    {64, 4, 64, 2, 1, 0},   /* 0: 4 warps x 16 rows, double buffer */
    {128, 8, 64, 2, 1, 0},  /* 1: 8 warps x 16 rows */
    {128, 4, 64, 2, 1, 0},  /* 2: 4 warps x 32 rows (FlashAttention-2's hdim128 layout) */
    {128, 8, 64, 3, 1, 0},  /* 3: as 1, three stages */
    {128, 8, 32, 3, 1, 0},  /* 4: as 1, Bc = 32, three stages */
    {128, 8, 128, 2, 1, 0}, /* 5: as 1, Bc = 128 */
    {128, 8, 64, 2, 2, 0},  /* 6: as 1, <= 128 registers: 2 blocks (16 warps) per SM; D = 64 only */
    {128, 4, 32, 2, 1, 0},  /* 7: as 2, Bc = 32 (FlashAttention-2's sm8x non-causal hdim128) */
    {128, 8, 64, 4, 1, 1},  /* 8: as 1, mbarrier pipeline, 4 stages (prefetch distance 2) */
    {128, 8, 128, 3, 1, 1}, /* 9: as 5, mbarrier pipeline, 3 stages (distance 1) */
    {128, 4, 64, 4, 1, 1},  /* 10: as 2, mbarrier pipeline, 4 stages */
    {128, 8, 128, 3, 1, 2}, /* 11: as 9, every thread arrives on the stage's empty barrier */
};

/* The tuning table: candidate index per (D, causal). See the file header
 * for how it was found. bf16 kernels are built for these entries only
 * (tuning runs use fp16). */
constexpr int kTable[2 /* D = 64, 128 */][2 /* causal */] = {
    {2, 2}, /* D = 64: 4 warps x 32 rows, Q in registers, Bc = 64, 2 stages */
    {11, 11}, /* D = 128: 8 warps x 16 rows, Bc = 128, 3 mbarrier stages, per-thread release */
};

/* Candidate used instead of the table's when the device offers less shared
 * memory per block than the table's needs (candidate 9 at D = 128 takes
 * 224 KiB: Hopper only; Ampere and Ada get candidate 2, 96 KiB). Not timed
 * on those GPUs. */
constexpr int kFallback = 2;

template <int D, int BR, int BC, int NST, int MBAR> constexpr int smem_bytes()
{
    return BR * D * 2 + NST * 2 * BC * D * 2 + (MBAR ? NST * 16 : 0);
}

/* Whether candidate cd is compiled for (dtype, D, causal); mirrors inst::OK.
 * Not built: 8 warps capped at 128 registers (MINB 2) at D = 128, whose
 * accumulators alone need 128; bf16 other than the table's and the
 * fallback (tuning runs are fp16). */
constexpr bool cand_built(int cd, bool fp16, int D, bool causal)
{
    return !(D == 128 && kCands[cd].MINB > 1) &&
           (fp16 || kTable[D == 128][causal] == cd || cd == kFallback);
}

constexpr int cand_smem(int cd, int D)
{
    return kCands[cd].BR * D * 2 + kCands[cd].NST * 2 * kCands[cd].BC * D * 2 +
           (kCands[cd].MBAR ? kCands[cd].NST * 16 : 0);
}

/* Swizzled shared address: row_base (row * row bytes + tile base, a multiple
 * of 128) plus the logical 16-byte chunk C + c_lane (C even, compile-time;
 * c_lane in {0, 1}); y16 = ((c_lane ^ (row & 7)) << 4) per lane. Because C
 * is even, (C + c_lane) ^ r7 = C ^ (c_lane ^ r7), so the only run-time part
 * is a XOR on bits 4..6 the compiler can hoist out of the loops. */
template <int C> static __device__ __forceinline__ uint32_t swz(uint32_t row_base, uint32_t y16)
{
    return row_base + ((C >> 3) << 7) + ((uint32_t)((C & 7) << 4) ^ y16);
}

/* ldmatrix.x4 (or .trans) at logical chunk 2*kk (+ the lane's own half) of
 * the rows at row_base; kk is a compile-time index after unrolling. */
template <bool TRANS>
static __device__ __forceinline__ void ldsm_chunk(uint32_t r[4], uint32_t row_base, int kk,
                                                  uint32_t y16)
{
    const uint32_t rb = row_base + (kk >> 2) * 128;
    uint32_t a;
    switch (kk & 3) {
    case 0: a = swz<0>(rb, y16); break;
    case 1: a = swz<2>(rb, y16); break;
    case 2: a = swz<4>(rb, y16); break;
    default: a = swz<6>(rb, y16); break;
    }
    if (TRANS)
        ldsm_x4_trans(r, a);
    else
        ldsm_x4(r, a);
}

/* Per-warp geometry and state handed to the tile step. */
struct lane_geo {
    uint32_t rowQ, rowK, rowV; /* this lane's ldmatrix row offsets */
    uint32_t yA, yB;           /* swizzle XOR terms (Q and V; K) */
    int grow0;                 /* global query row of o[0][.][0..1] */
    int lane;
};

/* One key/value tile for one warp: S = Q K^T (MT x 16 rows x BC), the mask
 * when MASK (columns >= S; causal: column > row), the online softmax in the
 * exp2 domain on the accumulators, O += P V with P from the accumulators. */
template <typename T, int D, bool CAUSAL, bool MASK, int MT, int BC, bool QREG>
static __device__ __forceinline__ void
tile_step(float (&o)[MT][D / 8][4], float (&m)[MT][2], float (&l)[MT][2],
          const uint32_t (&qf)[QREG ? MT : 1][QREG ? D / 16 : 1][4], const lane_geo &g,
          uint32_t uK, uint32_t uV, int k0, int S, float scale_log2, int shift)
{
    using ops = dtype_ops<T>;
    constexpr int RB = D * 2;
    const int lane = g.lane;
    float s[MT][BC / 8][4];
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int i = 0; i < BC / 8; i++)
            s[mt][i][0] = s[mt][i][1] = s[mt][i][2] = s[mt][i][3] = 0.f;
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++) {
        uint32_t a[MT][4];
#pragma unroll
        for (int mt = 0; mt < MT; mt++) {
            if constexpr (QREG) {
#pragma unroll
                for (int x = 0; x < 4; x++)
                    a[mt][x] = qf[mt][kk][x];
            } else {
                ldsm_chunk<false>(a[mt], g.rowQ + mt * 16 * RB, kk, g.yA);
            }
        }
#pragma unroll
        for (int np = 0; np < BC / 16; np++) {
            uint32_t b[4];
            ldsm_chunk<false>(b, uK + g.rowK + np * 16 * RB, kk, g.yB);
#pragma unroll
            for (int mt = 0; mt < MT; mt++) {
                ops::mma(s[mt][2 * np], a[mt], b[0], b[1]);
                ops::mma(s[mt][2 * np + 1], a[mt], b[2], b[3]);
            }
        }
    }

    if constexpr (MASK) {
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int nt = 0; nt < BC / 8; nt++)
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const int col = k0 + nt * 8 + 2 * (lane & 3) + (e & 1);
                    const int row = g.grow0 + mt * 16 + (e >> 1) * 8;
                    if (col >= S || (CAUSAL && col > row + shift))
                        s[mt][nt][e] = -INFINITY;
                }
    }

    /* online softmax, exp2 domain: p = 2^(s * scale_log2 - m) */
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            float mx = -INFINITY;
#pragma unroll
            for (int nt = 0; nt < BC / 8; nt++)
                mx = fmaxf(mx, fmaxf(s[mt][nt][2 * h], s[mt][nt][2 * h + 1]));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
            const float mnew = fmaxf(m[mt][h], mx * scale_log2);
            /* a row with nothing unmasked yet keeps m = -inf: use 0 as the base */
            const float mb = (MASK && mnew == -INFINITY) ? 0.f : mnew;
            const float corr = fast_exp2(m[mt][h] - mb);
            m[mt][h] = mnew;
            float ls = 0.f;
#pragma unroll
            for (int nt = 0; nt < BC / 8; nt++) {
                s[mt][nt][2 * h] = fast_exp2(fmaf(s[mt][nt][2 * h], scale_log2, -mb));
                s[mt][nt][2 * h + 1] = fast_exp2(fmaf(s[mt][nt][2 * h + 1], scale_log2, -mb));
                ls += s[mt][nt][2 * h] + s[mt][nt][2 * h + 1];
            }
            l[mt][h] = l[mt][h] * corr + ls;
#pragma unroll
            for (int dt = 0; dt < D / 8; dt++) {
                o[mt][dt][2 * h] *= corr;
                o[mt][dt][2 * h + 1] *= corr;
            }
        }

    /* O += P V: P from the accumulators, V fragments by ldmatrix.trans */
#pragma unroll
    for (int kk = 0; kk < BC / 16; kk++) {
        uint32_t a[MT][4];
#pragma unroll
        for (int mt = 0; mt < MT; mt++) {
            a[mt][0] = ops::pack(s[mt][2 * kk][0], s[mt][2 * kk][1]);
            a[mt][1] = ops::pack(s[mt][2 * kk][2], s[mt][2 * kk][3]);
            a[mt][2] = ops::pack(s[mt][2 * kk + 1][0], s[mt][2 * kk + 1][1]);
            a[mt][3] = ops::pack(s[mt][2 * kk + 1][2], s[mt][2 * kk + 1][3]);
        }
#pragma unroll
        for (int dp = 0; dp < D / 16; dp++) {
            uint32_t b[4];
            ldsm_chunk<true>(b, uV + g.rowV + kk * 16 * RB, dp, g.yA);
#pragma unroll
            for (int mt = 0; mt < MT; mt++) {
                ops::mma(o[mt][2 * dp], a[mt], b[0], b[1]);
                ops::mma(o[mt][2 * dp + 1], a[mt], b[2], b[3]);
            }
        }
    }
}

template <typename T, int D, bool CAUSAL, int BR, int NW, int BC, int NST, int MINB, int MBAR>
__global__ void __launch_bounds__(NW * 32, MINB)
    pipe_fwd(const T *__restrict__ Q, const T *__restrict__ K, const T *__restrict__ V,
             T *__restrict__ O, int S, int nqt, float scale_log2, int H, int Hkv, int Skv)
{
    using ops = dtype_ops<T>;
    constexpr int NT = NW * 32;
    constexpr int MT = BR / (16 * NW);   /* m16 tiles per warp */
    constexpr bool QREG = MT * D <= 128; /* Q fragments fit in registers */
    constexpr int RB = D * 2;            /* bytes per tile row */
    constexpr int CH = D / 8;            /* 16-byte chunks per row */
    constexpr int TILE = BC * RB;        /* bytes of one K or V tile */
    constexpr int RPI = NT / CH;         /* rows one pass of the block copies */
    static_assert(BR == MT * 16 * NW, "BR must be a multiple of 16 * NW");
    static_assert(RPI % 8 == 0 && BC % RPI == 0 && BR % RPI == 0, "tile copies must divide evenly");
    static_assert(BC % 16 == 0 && NST >= (MBAR ? 3 : 2), "bad tile");

    extern __shared__ __align__(128) unsigned char smem[];
    const uint32_t uQ = smem_u32(smem);
    const uint32_t uKV = uQ + BR * RB; /* stage s: K at uKV + 2s TILE, V at + TILE */
    const uint32_t uFull = uKV + NST * 2 * TILE, uEmpty = uFull + NST * 8; /* MBAR only */

    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    int qt = (int)(blockIdx.x % (unsigned)nqt);
    if (CAUSAL)
        qt = nqt - 1 - qt; /* longest query tiles of a (b, h) first */
    const size_t bh = blockIdx.x / (unsigned)nqt;
    const size_t base = bh * (size_t)S * D;
    /* grouped-query attention: K/V head h / (H / H_kv) of batch b, [B, H_kv, S_kv, D] */
    const size_t kvbase = ((bh / H) * Hkv + (bh % H) / (H / Hkv)) * (size_t)Skv * D;
    const T *Qg = Q + base, *Kg = K + kvbase, *Vg = V + kvbase;
    const int q0 = qt * BR;
    const int wrow = warp * MT * 16; /* first local query row of this warp */
    const int shift = Skv - S; /* bottom-right causal mask: key j <= row + shift */

    const int nkv = (Skv + BC - 1) / BC;
    /* causal: through the tile's last row's last key; at least one tile, so
     * the pipeline runs even when no row of the tile sees a key (S > S_kv),
     * every tile step then skipped or fully masked and O = 0 */
    const int klast = min(q0 + BR, S) - 1 + shift;
    const int jend = CAUSAL ? (klast < 0 ? 1 : min(nkv, klast / BC + 1)) : nkv;

    /* async tile copy: thread tid copies chunk lc of rows lr + it * RPI; the
     * swizzled chunk is the same for all of them (RPI % 8 == 0) */
    const int lr = tid / CH, lc = tid % CH;
    const uint32_t s_ld = tile_off<RB, true>(lr, lc);
    auto load_rows = [&](uint32_t sdst, const T *g, int g0, int rows, int lim) {
        const T *p = g + (size_t)(g0 + lr) * D + lc * 8;
#pragma unroll
        for (int it = 0; it < rows / RPI; it++) {
            const bool ok = g0 + lr + it * RPI < lim;
            cp_async16(sdst + s_ld + it * RPI * RB, ok ? p + it * RPI * D : g, ok ? 16 : 0);
        }
    };
    auto load_kv = [&](int j) {
        const uint32_t st = uKV + (uint32_t)((j % NST) * 2 * TILE);
        load_rows(st, Kg, j * BC, BC, Skv);
        load_rows(st + TILE, Vg, j * BC, BC, Skv);
    };
    /* MBAR: tile t into stage t % NST once every warp has released the
     * stage's previous tile (t - NST); completion arrives on full[stage].
     * Why the refill cannot overwrite data still being read: every
     * ldmatrix read of tile t - NST by a thread is followed in that thread
     * by its own mbarrier.arrive on empty[stage] (MBAR == 2; release, CTA
     * scope, PTX ISA "mbarrier.arrive"); the phase completes after all NT
     * threads arrived; a refilling thread issues its cp.async only after its
     * mbarrier.try_wait.parity on that phase returned true (acquire), so
     * every read of tile t - NST happens before every write of tile t.
     * MBAR == 1 (candidates 8-10) releases per warp instead: __syncwarp,
     * then lane 0's arrive (init count NW); that ordering of the other
     * lanes' reads is transitive through bar.warp.sync, and compute-
     * sanitizer's racecheck (2025.3) does not follow it: it reports every
     * refill as a WAR hazard (ldsm_x4 read vs cp_async16 write). With
     * every thread arriving (candidate 11) racecheck reports 0 hazards over
     * gpu_check --small (S = 17 and 520, stages reused; H200, 2026-11-23)
     * at the same speed (table above), so the table uses 11. RAW
     * the same way: each thread's copies arrive on full[stage] through
     * cp.async.mbarrier.arrive.noinc (the arrival fires when its copies have
     * landed; init count NT), and readers wait on full[stage]. The
     * correctness check compares every row of every configuration run with
     * this kernel. */
    auto produce = [&](int t) {
        const int st = t % NST;
        if (t >= NST)
            mbar_wait(uEmpty + st * 8, (uint32_t)((t / NST - 1) & 1));
        load_kv(t);
        mbar_arrive_cp_async(uFull + st * 8);
    };

    if (MBAR) {
        if (tid == 0)
            for (int st = 0; st < NST; st++) {
                mbar_init(uFull + st * 8, NT);
                mbar_init(uEmpty + st * 8, MBAR == 2 ? NT : NW);
            }
        __syncthreads();
        load_rows(uQ, Qg, q0, BR, S); /* lands with tile 0's arrival */
        for (int t = 0; t < NST - 2 && t < jend; t++)
            produce(t);
    } else {
        /* Q and tile 0 in group 0, tiles 1..NST-2 in their own groups */
        load_rows(uQ, Qg, q0, BR, S);
#pragma unroll
        for (int t = 0; t < NST - 1; t++) {
            if (t < jend)
                load_kv(t);
            cp_async_commit();
        }
    }

    lane_geo g;
    {
        const int r7 = lane & 7;
        g.yA = (uint32_t)(((lane >> 4) ^ r7) << 4);
        g.yB = (uint32_t)((((lane >> 3) & 1) ^ r7) << 4);
        g.rowQ = uQ + (uint32_t)((wrow + (lane & 15)) * RB);
        g.rowK = (uint32_t)(((lane & 7) + ((lane >> 4) << 3)) * RB);
        g.rowV = (uint32_t)(((lane & 7) + (((lane >> 3) & 1) << 3)) * RB);
        g.grow0 = q0 + wrow + (lane >> 2);
        g.lane = lane;
    }

    uint32_t qf[QREG ? MT : 1][QREG ? D / 16 : 1][4];
    float o[MT][D / 8][4];
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int i = 0; i < D / 8; i++)
            o[mt][i][0] = o[mt][i][1] = o[mt][i][2] = o[mt][i][3] = 0.f;
    float m[MT][2], l[MT][2]; /* m in log2 units (raw max * scale_log2) */
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
        m[mt][0] = m[mt][1] = -INFINITY, l[mt][0] = l[mt][1] = 0.f;

    const int wlast = q0 + wrow + MT * 16 - 1; /* last global row of this warp */
    const bool warp_live = q0 + wrow < S;      /* some row of this warp is < S */

    for (int j = 0; j < jend; j++) {
        const int st = j % NST;
        if (MBAR) {
            if (j + NST - 2 < jend)
                produce(j + NST - 2);
            mbar_wait(uFull + st * 8, (uint32_t)((j / NST) & 1));
        } else {
            cp_async_wait<NST - 2>(); /* tile j (and Q) landed for this thread */
            __syncthreads();          /* ... for all threads; tile j-1's stage is free */
            if (j + NST - 1 < jend)
                load_kv(j + NST - 1);
            cp_async_commit();
        }
        if constexpr (QREG) {
            if (j == 0) {
#pragma unroll
                for (int mt = 0; mt < MT; mt++)
#pragma unroll
                    for (int kk = 0; kk < D / 16; kk++)
                        ldsm_chunk<false>(qf[mt][kk], g.rowQ + mt * 16 * RB, kk, g.yA);
            }
        }

        const int k0 = j * BC;
        const uint32_t uK = uKV + (uint32_t)(st * 2 * TILE), uV = uK + TILE;
        /* causal: a tile wholly above this warp's last row is all masked */
        if (warp_live && (!CAUSAL || k0 <= wlast + shift)) {
            /* only tiles that cross S_kv or this warp's diagonal need the mask */
            if (k0 + BC > Skv || (CAUSAL && k0 + BC - 1 > q0 + wrow + shift))
                tile_step<T, D, CAUSAL, true, MT, BC, QREG>(o, m, l, qf, g, uK, uV, k0, Skv,
                                                            scale_log2, shift);
            else
                tile_step<T, D, CAUSAL, false, MT, BC, QREG>(o, m, l, qf, g, uK, uV, k0, Skv,
                                                             scale_log2, shift);
        }
        if (MBAR == 2) {
            mbar_arrive(uEmpty + st * 8); /* this thread is done with the stage */
        } else if (MBAR) {
            __syncwarp();
            if (lane == 0)
                mbar_arrive(uEmpty + st * 8); /* this warp is done with the stage */
        }
    }
    if (!MBAR)
        cp_async_wait<0>(); /* nothing may land in shared memory after exit */

    /* normalise, stage through this warp's own Q rows, store 16-byte chunks.
     * The __syncwarp orders this warp's last ldmatrix reads of its Q rows
     * (at j == 0 when Q sits in registers, else in every tile step) before
     * the lanes' writes to the same rows: ldmatrix is warp-collective, but
     * under independent thread scheduling only bar.warp.sync orders one
     * lane's read before another lane's later write (PTX ISA, memory
     * consistency model), and racecheck flagged exactly this pair when no
     * barrier came between (one key tile: S <= Bc, or a causal first query
     * tile, on the __syncthreads path). No other warp touches these rows: Q
     * rows wrow .. wrow + 16 MT - 1 are read only by warp `warp`, and every
     * cp.async into Q completed before the first tile step (wait_group +
     * __syncthreads, or the full barrier of tile 0). */
    __syncwarp();
    unsigned char *sQ = smem;
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            float lt = l[mt][h];
            lt += __shfl_xor_sync(0xffffffffu, lt, 1);
            lt += __shfl_xor_sync(0xffffffffu, lt, 2);
            const float inv = lt > 0.f ? 1.f / lt : 0.f;
            const int r = wrow + mt * 16 + (lane >> 2) + h * 8;
#pragma unroll
            for (int dt = 0; dt < D / 8; dt++)
                *reinterpret_cast<uint32_t *>(sQ + tile_off<RB, true>(r, dt) + 4 * (lane & 3)) =
                    ops::pack(o[mt][dt][2 * h] * inv, o[mt][dt][2 * h + 1] * inv);
        }
    __syncwarp();
#pragma unroll
    for (int it = 0; it < MT * 16 * CH / 32; it++) {
        const int i = lane + it * 32, r = i / CH, c = i % CH;
        const int grow = q0 + wrow + r;
        if (grow < S)
            *reinterpret_cast<uint4 *>(O + base + (size_t)grow * D + c * 8) =
                *reinterpret_cast<const uint4 *>(sQ + tile_off<RB, true>(wrow + r, c));
    }
}

struct ctx_t {
    int cand;
};

/* Instantiation of candidate I for (T, D, CAUSAL): set_attr and launch;
 * both return -1 where cand_built says the kernel is not compiled. */
template <typename T, int D, bool CAUSAL, int I> struct inst {
    static constexpr bool OK = cand_built(I, std::is_same<T, __half>::value, D, CAUSAL);
    static int set_attr()
    {
        if constexpr (!OK) {
            return -1;
        } else {
            constexpr cand c = kCands[I];
            constexpr int SMEM = smem_bytes<D, c.BR, c.BC, c.NST, c.MBAR>();
            auto *kern = pipe_fwd<T, D, CAUSAL, c.BR, c.NW, c.BC, c.NST, c.MINB, c.MBAR>;
            return cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM) ==
                           cudaSuccess
                       ? 0
                       : -1;
        }
    }
    static int launch(const ab_shape *s, const void *q, const void *k, const void *v, void *o,
                      cudaStream_t st)
    {
        if constexpr (!OK) {
            return -1;
        } else {
            constexpr cand c = kCands[I];
            constexpr int SMEM = smem_bytes<D, c.BR, c.BC, c.NST, c.MBAR>();
            const int nqt = (s->S + c.BR - 1) / c.BR;
            const long long blocks = (long long)nqt * s->B * s->H;
            if (blocks > 0x7fffffffLL)
                return 2;
            const float scale_log2 = 1.4426950408889634f / sqrtf((float)D);
            auto *kern = pipe_fwd<T, D, CAUSAL, c.BR, c.NW, c.BC, c.NST, c.MINB, c.MBAR>;
            kern<<<(unsigned)blocks, c.NW * 32, SMEM, st>>>((const T *)q, (const T *)k,
                                                             (const T *)v, (T *)o, s->S, nqt,
                                                             scale_log2, s->H, ab_shape_hkv(s),
                                                             ab_shape_skv(s));
            return 0;
        }
    }
};

/* op 0: set_attr, op 1: launch; candidate index cd chosen at run time. */
template <typename T, int D, bool CAUSAL>
int dispatch_cand(int op, int cd, const ab_shape *s, const void *q, const void *k, const void *v,
                  void *o, cudaStream_t st)
{
#define CAND_CASE(I)                                                                       \
    case I:                                                                                \
        return op == 0 ? inst<T, D, CAUSAL, I>::set_attr()                                 \
                       : inst<T, D, CAUSAL, I>::launch(s, q, k, v, o, st);
    switch (cd) {
        CAND_CASE(0)
        CAND_CASE(1)
        CAND_CASE(2)
        CAND_CASE(3)
        CAND_CASE(4)
        CAND_CASE(5)
        CAND_CASE(6)
        CAND_CASE(7)
        CAND_CASE(8)
        CAND_CASE(9)
        CAND_CASE(10)
        CAND_CASE(11)
    default:
        return -1;
    }
#undef CAND_CASE
    static_assert(NCAND == 12, "update CAND_CASE list");
}

int dispatch(int op, int cd, const ab_shape *s, const void *q, const void *k, const void *v,
             void *o, cudaStream_t st)
{
    const bool h = s->dtype == AB_FP16, d64 = s->D == 64, c = s->causal != 0;
    if (h)
        return d64 ? (c ? dispatch_cand<__half, 64, true>(op, cd, s, q, k, v, o, st)
                        : dispatch_cand<__half, 64, false>(op, cd, s, q, k, v, o, st))
                   : (c ? dispatch_cand<__half, 128, true>(op, cd, s, q, k, v, o, st)
                        : dispatch_cand<__half, 128, false>(op, cd, s, q, k, v, o, st));
    return d64 ? (c ? dispatch_cand<__nv_bfloat16, 64, true>(op, cd, s, q, k, v, o, st)
                    : dispatch_cand<__nv_bfloat16, 64, false>(op, cd, s, q, k, v, o, st))
               : (c ? dispatch_cand<__nv_bfloat16, 128, true>(op, cd, s, q, k, v, o, st)
                    : dispatch_cand<__nv_bfloat16, 128, false>(op, cd, s, q, k, v, o, st));
}

} /* namespace */

/* setup: checks the shape (fp16/bf16, D in {64, 128}, B, H, S >= 1), picks
 * the tile configuration from the tuning table (or AB_TUNE, 0..11, when set;
 * kFallback when the device's opt-in shared memory per block is too small
 * for the table's) and raises that kernel's dynamic shared-memory limit.
 * No device workspace; ctx holds the chosen candidate. Fails (-1, reason in
 * err) on other dtypes or D, a candidate not built for the dtype, or a CUDA
 * error. */
extern "C" int cuda_mma_pipeline_setup(const ab_shape *s, void **ctx, size_t *ws, char *err,
                                       size_t n)
{
    *ctx = NULL;
    *ws = 0;
    if (s->dtype != AB_FP16 && s->dtype != AB_BF16) {
        snprintf(err, n, "cuda_mma_pipeline: dtype must be fp16 or bf16");
        return -1;
    }
    if (s->D != 64 && s->D != 128) {
        snprintf(err, n, "cuda_mma_pipeline: D must be 64 or 128");
        return -1;
    }
    if (s->S < 1 || s->B < 1 || s->H < 1) {
        snprintf(err, n, "cuda_mma_pipeline: B, H, S must be >= 1");
        return -1;
    }
    int cd = kTable[s->D == 128][s->causal != 0];
    const char *tune = getenv("AB_TUNE");
    if (tune && *tune) {
        char *end = NULL;
        long x = strtol(tune, &end, 10);
        if (*end || x < 0 || x >= NCAND) {
            snprintf(err, n, "cuda_mma_pipeline: AB_TUNE=%s is not a candidate 0..%d", tune,
                     NCAND - 1);
            return -1;
        }
        cd = (int)x;
    } else {
        char why[160];
        if (ab_gpu_smem_fits((size_t)cand_smem(cd, s->D), "cuda_mma_pipeline", s->D, why,
                             sizeof why) == AB_SETUP_UNSUPPORTED)
            cd = kFallback;
    }
    if (!cand_built(cd, s->dtype == AB_FP16, s->D, s->causal != 0)) {
        snprintf(err, n, "cuda_mma_pipeline: candidate %d is not built for %s D=%d", cd,
                 s->dtype == AB_FP16 ? "fp16" : "bf16", s->D);
        return -1;
    }
    if (dispatch(0, cd, s, NULL, NULL, NULL, NULL, 0)) {
        snprintf(err, n, "cuda_mma_pipeline: cudaFuncSetAttribute: %s",
                 cudaGetErrorString(cudaGetLastError()));
        return -1;
    }
    ctx_t *c = (ctx_t *)malloc(sizeof *c);
    if (!c) {
        snprintf(err, n, "cuda_mma_pipeline: out of host memory");
        return -1;
    }
    c->cand = cd;
    *ctx = c;
    return 0;
}

/* run: enqueues one forward pass on `stream`; 2 when the grid is too large. */
extern "C" int cuda_mma_pipeline_run(void *ctx, const ab_shape *s, const void *q, const void *k,
                                     const void *v, void *o, void *stream)
{
    const ctx_t *c = (const ctx_t *)ctx;
    return dispatch(1, c->cand, s, q, k, v, o, (cudaStream_t)stream);
}

extern "C" void cuda_mma_pipeline_teardown(void *ctx) { free(ctx); }
