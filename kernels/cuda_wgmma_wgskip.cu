/*
 * cuda_wgmma_wgskip.cu: forward attention on wgmma + TMA + warp
 * specialisation + FlashAttention-3's overlaps on a persistent grid, each
 * consumer warpgroup running only the key tiles its own rows need; rung
 * "cuda_wgmma_wgskip" of the kernel ladder (sm_90a only: the other targets
 * of a default build compile an empty kernel, and setup refuses any GPU
 * but compute capability 9.0).
 *
 * Idea. In cuda_wgmma_uniform (the previous rung) every consumer
 * warpgroup of a query tile runs the tile's whole key-tile range, the one
 * its last row needs. At D = 64 a tile is 192 rows (three warpgroups of
 * 64) and key tiles are 128 keys, so under the causal mask the first
 * warpgroup of a tile often needs one key tile fewer than the last
 * (rows q0 .. q0 + 63 against q0 + 128 .. q0 + 191), and it computes that
 * tile fully masked; and where S is not a multiple of 192 (every S of
 * FlashAttention-3's grid) the last tile's warpgroups whose rows are all
 * >= S compute on the TMA's zero fill. Here each warpgroup computes its own
 * count (kernels/key_tiles.h on its 64 rows; 0 when every row is >= S)
 * and, past it, still waits for each (K, V) stage, takes its ping-pong
 * turn and releases the stage, but issues no wgmma and runs no softmax
 * (the pipeline's barriers keep their counts; kernels/wgmma_persist_fwd.cuh,
 * PF_WGSKIP). Nothing else changes. At D = 128 (128-row tiles, two
 * warpgroups) both warpgroups need the same key tiles whenever S is a
 * multiple of 128 and S_kv - S of 128, so the kernel does the same work as
 * cuda_wgmma_uniform there.
 *
 * The work it saves (counted before coding: warpgroup x key-tile products,
 * each 4 x 64 x 128 x D FLOPs of wgmma and 64 x 128 exponentials, on
 * FlashAttention-3's grid, B*S = 16K tokens, H = 16;
 * reports/hopper-wgskip/work_model.py over the tile lists with
 * key_tiles.h's rules). D = 64 causal, S = 1024, 2048,
 * 4096, 8192, 16384: 96 -> 72, 303 -> 272, 1152 -> 1056, 4287 -> 4160,
 * 16896 -> 16512 products per head (25%, 10%, 8%, 3%, 2% fewer); D = 64
 * non-causal: 144 -> 128 at S = 1024 (11%), 3% at 2048 and 4096, 0.8% from
 * 8192 on; D = 128: none. Bytes: unchanged (the same (K, V) tiles reach
 * shared memory; Q, K, V read and O written once from DRAM: 134 MB at
 * D = 64, 268 MB at D = 128, 32 and 64 us at the H200's ~4.2 TB/s). FLOPs
 * (the harness's count, 4 B H S^2 D, half of it causal): 34-550 GFLOP at
 * D = 64 causal, 36-580 us at ~950 TFLOP/s of dense wgmma (the power-capped
 * clock's rate), so the grid is compute-bound; D = 64 causal S = 1024 is
 * the closest to its memory floor (36 against 32 us), and cuda_wgmma_uniform
 * took 127 us there, cudnn_sdpa 115 (bf16, reports/hopper-causal-uniform/
 * fa3-grid-causal-lookahead.db run 2, NVIDIA H200, 2026-11-26).
 *
 * Prediction (before the first run). A skipped product costs its turn
 * (two named-barrier operations and an mbarrier arrive) instead of a
 * 64 x 128 x 64 QK^T and P V (~500 tensor-core cycles) and its softmax, but
 * the remaining warpgroup runs with fewer partners to overlap with, so the
 * time saved is between half and all of the work saved: D = 64 causal
 * 1.14-1.33x cuda_wgmma_uniform's speed at S = 1024, 1.05-1.11x at 2048,
 * 1.04-1.09x at 4096, 1.01-1.03x from 8192 on; D = 64 non-causal
 * 1.06-1.12x at S = 1024, 1.01-1.03x at 2048 and 4096, within 1% from 8192
 * on; D = 128 and Llama 3 8B prefill within 1% (no work saved). Against
 * cudnn_sdpa that would lift D = 64 S = 1024 from 0.90x causal and 0.93x
 * non-causal (the same folder's runs, H200, 2026-11-26) to about 1.0x or
 * more.
 *
 * Measured (NVIDIA H100 80GB HBM3, 2026-11-26, main at 5f806fb,
 * reports/hopper-wgskip/fa3-grid-wgskip.db run 1; speed ratios, geometric
 * means over bf16 and fp16): D = 64 causal 1.132x cuda_wgmma_uniform at S = 1024,
 * 1.012x at S = 16384 (held from S = 2048, just short at the shortest S);
 * D = 64 non-causal 0.986-1.014x by configuration (no predicted gain came);
 * D = 128 0.998x. Against FlashAttention-4 in one run
 * (reports/fa4-same-run/fa3-grid-fa4.db): the fastest own rung per
 * configuration 0.999x FA4 in geometric mean over the grid (0.909-1.226x).
 *
 * Status (2026-11-26): compiled for sm_90a (and empty for 80, 86, 89);
 * gpu_check 120 cases, memcheck and synccheck clean on the H100; racecheck
 * did not finish at the sanitize suite's shapes (killed at 100 s,
 * reports/hopper-wgskip/), and later ran clean at two small shapes (one
 * query tile or two; reports/hopper-widekv/final-check-logs.tgz). The
 * barrier protocol with per-warpgroup counts was checked on the CPU
 * instead: reports/hopper-wgskip/pipeline_sim.py runs the block's producer
 * and consumers under random interleavings of random tile lists (any jw in
 * 0..jend per warpgroup): no deadlock and every shared-memory read sees the
 * tile it expects, while four deliberately broken versions (no wait before
 * an idle release, no idle tail, no Q release by an idle warpgroup, the
 * last P V from the wrong stage) each fail.
 *
 * Source: the causal tile-range rule of FlashAttention-2/3 (a query block
 * visits key blocks through the diagonal), applied per warpgroup instead
 * of per block; previous rung cuda_wgmma_uniform, whose header and
 * cuda_wgmma_persistent's describe everything else (persistent grid, LPT
 * causal scheduler, ping-pong, grouped-query heads, bottom-right causal
 * mask).
 *
 * Any S >= 1, causal or not, D in {64, 128}, fp16 and bf16, grouped-query
 * heads (H_kv dividing H) and any S_kv >= 1; sm_90a only.
 */

#include "wgmma_persist_fwd.cuh"

/* The kernel body, host side and entry points (setup, run, teardown) are
 * kernels/wgmma_persist_fwd.cuh's, instantiated with this rung's ideas. */
AB_PERSIST_FWD_RUNG(cuda_wgmma_wgskip, PF_UNIFORM | PF_WGSKIP)
