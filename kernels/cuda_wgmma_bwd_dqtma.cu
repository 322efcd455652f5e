/*
 * cuda_wgmma_bwd_dqtma.cu: the Hopper backward with each tile's whole dQ
 * (cuda_wgmma_bwd_dqwide) written to a dQ buffer of its consumer's own in
 * TMA's swizzled layout and added by a few tensor reduce-add copies; rung
 * "cuda_wgmma_bwd_dqtma" of the backward ladder (previous rung
 * cuda_wgmma_bwd_dqwide). Its forward is cuda_wgmma_persistent's.
 *
 * Idea: cuda_wgmma_bwd_dqwide matched cuDNN's wgmma count (29.4 M
 * warp-level HGMMA at B=4 H=16 S=4096 D=128) and was still slower than
 * cuda_wgmma_bwd_lsevec: Nsight Compute's warp-stall sampling
 * (reports/hopper-bwd-wide/d3-logs.tgz) puts 9.4% of its samples on the
 * dQ consumer's wait for the single dQ buffer (the previous tile's 64 row
 * copies, one bulk copy of D x 4 bytes per row, not yet done reading it)
 * and 14.3% on the step's first wait, where the other consumer then
 * waits for it. cuDNN's kernel adds its dQ with 8 UTMAREDG (tensor
 * reduce-add) per tile and its wait there takes 0.6% of its samples.
 * Here (feature WS_DQ_TMA) each consumer has its own dQ buffer (the
 * consumers take tiles in turn, so tile k's buffer is k & 1 and its
 * previous use was tile k - 2, two steps earlier), unpadded and laid out
 * as the 128-byte swizzle of a [B*H, S, D] fp32 tensor map with 32 x 64
 * boxes; the consumer's float2 stores follow the swizzle (bank-conflict
 * free, as the padding was); lane 0 of producer warp 1 adds a tile with
 * D / 32 cp.reduce.async.bulk.tensor copies (rows past S clipped by the
 * map) instead of 64 row copies from 32 lanes.
 *
 * Work and traffic (before the first run): as cuda_wgmma_bwd_dqwide; the
 * two buffers take 2 x 64 x D x 4 bytes (226 KiB of shared memory at D =
 * 128, of 227). Prediction: 1.10-1.20x cuda_wgmma_bwd_dqwide at D = 128
 * and the Llama 3 8B shape (the two waits' share of its samples, about
 * 24%, mostly gone), 1.2-1.4x at D = 64 (where dqwide lost 0.70x to
 * lsevec); against cuda_wgmma_bwd_lsevec 1.00-1.08x at D = 128.
 *
 * Measured (NVIDIA H200, 2026-11-27, reports/hopper-bwd-wide/
 * hopper-bwd-dq-d128.db, -d64.db and -llama3-8b.db run 1, nothing else on
 * the GPU; ratios of the instances' geometric-mean medians, geometric means
 * over S, summarize.py there): against cuda_wgmma_bwd_dqwide 1.165x at D =
 * 128 non-causal (1.116-1.198), 1.141x causal (1.086-1.181), 1.137x at
 * Llama 3 8B (1.101-1.174), 1.544x at D = 64 non-causal (1.435-1.602),
 * 1.504x causal (1.344-1.633); against cuda_wgmma_bwd_lsevec 1.042x at D =
 * 128 non-causal (1.024-1.055), 1.056x causal (1.045-1.067), 1.058x at
 * Llama 3 8B (1.045-1.074); against cuda_wgmma_bwd_defer 1.033x at D = 64
 * non-causal (1.005-1.059), 1.032x causal (1.026-1.043). The prediction
 * (1.10-1.20x dqwide and 1.00-1.08x lsevec at D = 128 and Llama 3 8B,
 * 1.20-1.40x dqwide at D = 64) held in geometric mean at D = 128 and Llama
 * 3 8B and was exceeded at D = 64. Against cuDNN's fused backward 0.837x at
 * D = 128 non-causal (0.831-0.849), 0.903x causal (0.877-0.915), 0.972x at
 * Llama 3 8B (0.919-1.038), 0.826x at D = 64 non-causal (0.813-0.849),
 * 0.932x causal (0.883-0.953): the fastest own backward at D = 128 and
 * Llama 3 8B.
 *
 * Profiled (no database: the counters are in the log named): Nsight Compute
 * at B=4 H=16 S=4096 D=128 bf16 non-causal (H200,
 * reports/hopper-bwd-wide/d4-logs.tgz): 802 M warp instructions (cuDNN's
 * kernel 748 M, p1-ncu-cudnn-lsevec.tgz), 29.4 M warp-level wgmma
 * instructions, issue active in 32% of cycles; the dQ buffer's wait is gone
 * from the most sampled instructions, which are now the wgmma waits (17% of
 * the warp-stall samples over three instructions) and a step's first
 * mbarrier wait (7.8%).
 *
 * Supported: as cuda_wgmma_bwd_lsevec; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: previous rung cuda_wgmma_bwd_dqwide; PTX ISA
 * cp.reduce.async.bulk.tensor (.add, tile mode, bulk_group); CUDA driver
 * API cuTensorMapEncodeTiled (FLOAT32, SWIZZLE_128B: a box row of at most
 * 128 bytes); CUDA C++ Programming Guide, "Tensor Memory Access"
 * (swizzle patterns).
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_dqtma, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_VEC_LSE | abwgws::WS_BULK_DQ |
               abwgws::WS_DQ_WIDE | abwgws::WS_DQ_TMA)
