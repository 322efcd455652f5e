/*
 * cuda_wgmma_bwd_ws.cu: the backward pass of attention on Hopper with a
 * producer warpgroup, rung "cuda_wgmma_bwd_ws" of the backward ladder
 * (previous rung cuda_wgmma_bwd). Its forward is cuda_wgmma_persistent's.
 *
 * Idea: take every memory operation off the two consumer warpgroups.
 * cuda_wgmma_bwd's 256 threads issue the cp.async copies of each query
 * tile and, after the dQ product, 64 x D / 256 fp32 vector atomics each,
 * both on the critical path of the tensor cores (the two warpgroups meet
 * at two block barriers per step, so neither hides the other's memory
 * work). Here a third warpgroup, the producer (FlashAttention-3's warp
 * specialisation, its backward's dQ writer folded into it):
 *   - one thread loads each query tile by TMA: Q and dO (cp.async.bulk.
 *     tensor, 128B swizzle, rows past S zero-filled) and the tile's 64
 *     logsumexp (pre-scaled by log2 e) and Delta values (cp.async.bulk of
 *     256 bytes from buffers padded to a multiple of 64 rows, written by
 *     the pre-pass), into two stages handed over by full/empty mbarriers;
 *     K and V of the block by TMA once;
 *   - all 128 producer threads add the consumers' dQ share of the previous
 *     tile to the fp32 accumulator with float4 atomics (red.global.add.v4)
 *     from a shared-memory buffer, handed over by dQ-full/dQ-empty
 *     mbarriers, while the consumers compute the next tile;
 *   - the consumers (setmaxnreg 240, the producer 24: 128 x 24 + 256 x 240
 *     = 384 x 168, the block's allocation at launch; setmaxnreg.inc cannot
 *     take more than the block was given, and a first try with 32 / 240
 *     waited forever) only wait on
 *     mbarriers, run the wgmma products and the element-wise work of
 *     wgmma_bwd.cuh, write their fp32 dQ share to shared memory (rows
 *     padded by 8 floats: conflict-free 8-byte stores) and meet once per
 *     step at a 256-thread named barrier (dS^T complete, double-buffered
 *     so a warpgroup may run into the next tile while the other still
 *     reads the last one's).
 * Launches per call: the accumulator memset, the pre-pass (Delta and
 * lse log2 e into padded buffers), the main kernel, dQ = scale * acc.
 * The producer, the main kernel, the schedule (sched_kv: one block per
 * key tile of BC keys and K/V head, sweeping every query head of the
 * group) and the host side live in wgmma_bwd_ws.cuh (shared with the
 * later rungs); this file names the rung's entry points (AB_WS_RUNG).
 *
 * Prediction (before the first run): the consumers' step loses the copy
 * issue and the atomics (about 64 x D x 4 bytes of red per step per block;
 * at D = 128, 16 float2 reds per consumer thread) and one block barrier;
 * the S/dP wait and the element-wise work stay exposed. 1.15-1.35x
 * cuda_wgmma_bwd at D = 128, 1.1-1.3x at D = 64.
 *
 * Measured (NVIDIA H200, 2026-11-26, reports/hopper-bwd/hopper-bwd.db runs
 * 1-3, the same experiments as cuda_wgmma_bwd's): 200.6-445.7 TFLOP/s over
 * the 20 bf16 configurations; 1.28x cuda_wgmma_bwd at D = 128 (geometric
 * mean, 1.20-1.32; predicted 1.15-1.35: held), 1.22x at D = 64 (1.16-1.28;
 * predicted 1.1-1.3: held); 0.78x cudnn_sdpa (0.73-0.88; fp16 0.78x,
 * 0.73-0.88), the best own backward; Llama 3 8B (S = 2K/4K/8K) 200.5,
 * 270.6, 364.7 TFLOP/s, 0.66x cudnn_sdpa (0.63-0.70: B = 1 and H_kv = 8
 * leave the 132 SMs short of blocks).
 *
 * Checked: every gradient within FlashAttention's tolerance; gpu_check_bwd
 * 120 cases and memcheck, racecheck, synccheck clean (reports/hopper-bwd/).
 * ptxas: 168 registers at entry, no spills (the producer's dQ loop kept at
 * unroll 1 to stay inside 24). Profiled (no database: the figures are in
 * the log named): Nsight Compute at B=4 H=16 S=4096 D=128 bf16 non-causal
 * (reports/hopper-bwd/ncu-call3.log): 3.06 ms for the main kernel
 * (cuda_wgmma_bwd 3.97), tensor pipe active 48.1% of peak (36.9%), issue
 * slots 41.1%; the consumers still wait on their own wgmma results (1.32
 * per issue: the S/dP products are waited for before the element-wise
 * work, the dQ product before its shared-memory store) and on memory
 * (1.17). What is left to take, and what FlashAttention-3 has that this
 * rung lacks: overlap of the element-wise work with the products inside a
 * warpgroup (S and dP committed apart, exp2 while dP runs), more blocks at
 * small B * H_kv (the Llama shape fills 128-512 blocks on 132 SMs), and a
 * causal schedule longest first across heads.
 *
 * Shared memory (bytes, regions on 1024-byte boundaries): K, V 2 x 128 x D
 * x 2; Q, dO two stages 4 x 64 x D x 2; dS^T two buffers 2 x 128 x 64 x 2;
 * logsumexp, Delta two stages 1 KiB; dQ 64 x (D + 8) x 4; 7 mbarriers;
 * + 1 KiB alignment slack: 116 KiB (D = 64), 196 KiB (D = 128). One
 * block of 384 threads per SM.
 *
 * Supported: as cuda_wgmma_bwd (fp16, bf16; D in {64, 128}; causal or not;
 * any S, S_kv >= 1 with the bottom-right mask; H_kv dividing H); sm_90a
 * only, other devices get AB_SETUP_UNSUPPORTED.
 *
 * Sources: Shah et al., "FlashAttention-3" (2024) sections 3.1 (producer
 * warpgroup, TMA, mbarrier pipeline, setmaxnreg) and its backward (a
 * separate dQ accumulation), read to understand, not copied; Tri Dao,
 * "FlashAttention-2" (2023) Algorithm 2; PTX ISA cp.async.bulk,
 * cp.async.bulk.tensor, mbarrier, setmaxnreg, red.global.add (v4.f32).
 */
#include "wgmma_bwd_ws.cuh"

/* Its schedule is abwgws::sched_kv (wgmma_bwd_ws.cuh). */
AB_WS_RUNG(cuda_wgmma_bwd_ws, abwgws::sched_kv, 0)
