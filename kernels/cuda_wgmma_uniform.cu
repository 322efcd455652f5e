/*
 * cuda_wgmma_uniform.cu: forward attention on wgmma + TMA + warp
 * specialisation + FlashAttention-3's overlaps on a persistent grid, with
 * the consumers' tile coordinates and warpgroup index made warp-uniform
 * to the compiler; rung "cuda_wgmma_uniform" of the kernel ladder (sm_90a
 * only: the other targets of a default build compile an empty kernel, and
 * setup refuses any GPU but compute capability 9.0).
 *
 * Idea. In cuda_wgmma_persistent (the previous rung) each consumer thread
 * reads its tile (b*h, query tile) from shared memory, and its warpgroup
 * index is threadIdx.x / 128. Both are the same in every lane of a warp,
 * but the compiler cannot know it: in the causal kernel the key-tile
 * count (from the query tile) and the masked-path choice (from the
 * warpgroup's first row) are then per-thread values, so the key-tile loop
 * and its branch are compiled as possibly divergent. Here the consumers
 * broadcast the two tile words and the warpgroup index from lane 0
 * (__shfl_sync; CUTLASS's canonical_warp_group_idx does the same for the
 * warpgroup index), and nothing else changes.
 *
 * Evidence before the run (SASS, no device time: nvcc 13.0 -cubin for
 * sm_90a, nvdisasm 13.5, the bf16 D = 128 instantiations; the loop is the
 * key-tile loop, 16 HGMMA per iteration). cuda_wgmma_persistent causal:
 * 1,090 instructions, 48 R2UR (descriptors built in per-thread registers,
 * then moved to uniform registers for each HGMMA), BSSY + 2 WARPSYNC
 * (divergence handling), no uniform-datapath arithmetic (UIADD3 0);
 * non-causal: 967 instructions, 16 R2UR, no BSSY/WARPSYNC, UIADD3 21.
 * This rung causal: 992 instructions, 0 R2UR, no BSSY/WARPSYNC, UIADD3
 * 22; non-causal 943, 0 R2UR (the extra causal instructions are the mask
 * compares of the masked path, run on the diagonal tile only). D = 64
 * causal the same (1,006 -> 947 instructions, 32 -> 0 R2UR). The extra
 * instructions sit between a wgmma wait and the next wgmma issue of the
 * same warpgroup, on the path that ping-pong must hide behind the other
 * warpgroup's GEMMs.
 *
 * Where the causal time goes (before coding, from the committed
 * databases). Time model per block: cost = (key tiles + X) t per query
 * tile, t the time of one 128 x 128 key tile at D = 128 (8.39 MFLOP of
 * wgmma, 64 KiB of K and V from L2). reports/fa4-on-hopper/fa3-grid-fa4.db
 * run 1 (H200, 2026-11-26, bf16, H = 16, B*S = 16K), with t scaled by the
 * run's SM clock per configuration (clock_blocks; non-causal ran power-
 * capped at 1.7-1.8 GHz at S >= 4096, causal at 1.8-1.98 GHz), t = 1.47 us
 * at 1980 MHz from the non-causal S = 16384 median (3.3865 ms): non-causal
 * X = 1.6-2.6 key tiles, causal X = 2.8, 3.2, 4.3, 6.5, 10.9 at S = 1024
 * .. 16384 (0.1662 .. 1.9193 ms): beyond a non-causal tile's fixed cost,
 * causal tiles cost 14-18% more per key tile at every S (for example
 * (4.3 - 2) / 16.5 key tiles on average at S = 4096). Causal waste of the
 * half-masked diagonal tile is in the key-tile count already (n(n + 1)/2
 * tiles for n^2/2 tiles of FLOPs: 12.5% at S = 1024, 0.8% at 16384), and
 * the LPT list's tail is small (132-block simulation, reports/
 * hopper-causal-uniform/tile_schedule_sim.py with one key tile of fixed
 * cost: makespan 1.025x the mean at Llama 3 8B S = 1024, <= 1.008x from
 * 2048 on). A per-key-tile
 * cost that only the causal kernel pays points at its loop code, above.
 *
 * Prediction (before the first run). If the divergent loop is the cause,
 * causal 8-14% faster than cuda_wgmma_persistent at every S (Llama 3 8B
 * prefill: 0.884-0.924x cudnn_sdpa in reports/llama3-8b-prefill-hopper/
 * run 1 -> 0.95-1.03x), D = 64 causal likewise; non-causal within 2%
 * (its loop lost 16 R2UR). If it is not, causal within 2%, and the
 * per-key-tile excess is elsewhere (Nsight Compute in this rung's run).
 *
 * Measured (reports/hopper-causal-uniform/, NVIDIA H200, driver
 * 580.159.04, 2026-11-26; ratios of medians, that folder's summarize.py).
 * Llama 3 8B prefill causal (H = 32, H_kv = 8 or 1, D = 128, bf16;
 * llama3-8b-prefill-lookahead.db run 2): 1.072-1.158x
 * cuda_wgmma_persistent, 0.946-1.075x cudnn_sdpa, geometric mean 1.029
 * over the 7 causal configurations (S = 1024 the lowest); run 1 of the
 * same database: 1.074-1.157x and 0.946-1.072x; non-causal (B = 4,
 * S = 4096) 1.004x persistent in run 2. FlashAttention-3's grid (H = 16,
 * B*S = 16K, fa3-grid-causal-lookahead.db run 2): causal 1.058-1.163x
 * persistent, against cudnn_sdpa 0.948-1.108x at D = 128 and
 * 0.901-1.069x at D = 64 (S = 1024 the lowest at both); non-causal
 * (fa3-grid-noncausal-lookahead.db run 1) 0.987-1.010x persistent. The
 * prediction (8-14% causal) held.
 *
 * Nsight Compute of that session (run2-ncu.log there; B = 4, H = 32,
 * H_kv = 8, S = 4096, causal bf16, one launch, clocks left alone): 858 us
 * against persistent's 936 us and cuDNN's 882 us; 297.2 M warp
 * instructions against 347.8 M; the same DRAM bytes (201.5 MB) and L2
 * traffic (4.85 GB against 4.92 GB). Checked the same day: gpu_check
 * (120 cases, 56 with H_kv < H or S_kv != S, and 5 shapes with more query
 * tiles than SMs), memcheck and racecheck clean.
 *
 * Source: CUTLASS, include/cutlass/cutlass.h, canonical_warp_group_idx
 * (documented as returning a warp-uniform value: the warpgroup index
 * through a __shfl_sync from lane 0), read, not copied. Previous
 * rung: cuda_wgmma_persistent, whose header describes everything else
 * (persistent grid, LPT causal scheduler, ping-pong, grouped-query heads,
 * bottom-right causal mask).
 *
 * Any S >= 1, causal or not, D in {64, 128}, fp16 and bf16, grouped-query
 * heads (H_kv dividing H) and any S_kv >= 1; sm_90a only.
 */

#include "wgmma_persist_fwd.cuh"

/* The kernel body, host side and entry points (setup, run, teardown) are
 * kernels/wgmma_persist_fwd.cuh's, instantiated with this rung's ideas. */
AB_PERSIST_FWD_RUNG(cuda_wgmma_uniform, PF_UNIFORM)
