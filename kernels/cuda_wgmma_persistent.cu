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

#include "wgmma_persist_fwd.cuh"

/* The kernel body, host side and entry points (setup, run, teardown) are
 * kernels/wgmma_persist_fwd.cuh's, instantiated with this rung's ideas. */
AB_PERSIST_FWD_RUNG(cuda_wgmma_persistent, 0)
