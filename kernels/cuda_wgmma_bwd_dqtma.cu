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
 * two buffers take 2 x 64 x D x 4 bytes (225 KiB of shared memory at D =
 * 128, of 227). Prediction: 1.10-1.20x cuda_wgmma_bwd_dqwide at D = 128
 * and the Llama 3 8B shape (the two waits' share of its samples, about
 * 24%, mostly gone), 1.2-1.4x at D = 64 (where dqwide lost 0.70x to
 * lsevec); against cuda_wgmma_bwd_lsevec 1.00-1.08x at D = 128.
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
