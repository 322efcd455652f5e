/*
 * cuda_wgmma_bwd_dqwide.cu: the Hopper backward with each query tile's
 * whole dQ product computed by one consumer warpgroup, the two taking
 * tiles in turn, and added to the accumulator by the copy engine; rung
 * "cuda_wgmma_bwd_dqwide" of the backward ladder (previous rung
 * cuda_wgmma_bwd_lsevec). Its forward is cuda_wgmma_persistent's.
 *
 * Idea: Nsight Compute of cuDNN's fused backward main kernel against
 * cuda_wgmma_bwd_lsevec (reports/hopper-bwd-wide/, H100, B=4 H=16 S=4096
 * D=128 bf16 non-causal; SASS with execution counts) shows the same tile
 * (128 keys a block in two consumer warpgroups of 64, 64 query rows a
 * step, S^T and dP^T by m64n64, dV and dK by m64n128 with A from
 * registers) and the same L2 reduction traffic (134 M sectors each), but a
 * different dQ: every other step one warpgroup computes the tile's whole
 * dQ, M = 64 rows, N = 128 columns, over all 128 keys (8 m64n128k16
 * with both operands transposed), stores it to shared memory (16
 * STS.128 a thread) and a producer warp adds it to global memory with
 * tensor reduce-add copies (UTMAREDG); no global atomics from the
 * consumers (0 RED instructions). In cuda_wgmma_bwd_lsevec both
 * warpgroups compute half of the columns each step (8 m64n64k16 each, 16
 * wgmma instructions where cuDNN has 8, 1.14x cuDNN's wgmma count in
 * all) and each thread issues 16 float2 atomics from the accumulator
 * registers, on whose address registers 19% of lsevec's stall samples
 * wait (reports/hopper-bwd-defer/). Here (feature WS_DQ_WIDE on the
 * deferred-dQ path with WS_BULK_DQ) consumer (it & 1) computes tile it's
 * dQ in step it + 1 once its own dV, dK products have completed, waits
 * until the copies of tile it - 1 have read the dQ buffer, stores it
 * there (64 fp32 accumulators a thread, float2 stores into rows padded to
 * D + 8 floats) and hands it over; lanes of producer warp 1 add each row
 * with cp.reduce.async.bulk .add.f32 (cuda_wgmma_bwd_bulkdq's copies).
 * The other consumer only releases the dS^T buffer.
 *
 * Work and traffic (before the first run): the same FLOPs; per step 8
 * m64nDk16 wgmma instead of 2 x 8 m64n(D/2)k16 (at D = 128 the shared
 * memory the dQ products read falls from 64 to 48 KiB a step), 16 float2
 * shared stores and one bulk copy per row instead of 2 x 16 float2
 * atomics a thread; the same bytes reduced into the accumulator in L2.
 * The dQ buffer (64 x (D + 8) x 4 bytes) comes back into shared memory:
 * 196 KiB at D = 128. Prediction: 1.03-1.10x cuda_wgmma_bwd_lsevec at
 * D = 128 and the Llama 3 8B shape; at D = 64 (N = 64 dQ products either
 * way, a smaller share of the step) 0.97-1.03x.
 *
 * Measured (NVIDIA H200, 2026-11-27, reports/hopper-bwd-wide/
 * hopper-bwd-dq-d128.db, -d64.db and -llama3-8b.db run 1, nothing else on
 * the GPU; ratios of the instances' geometric-mean medians, geometric means
 * over S, summarize.py there): SLOWER than cuda_wgmma_bwd_lsevec: 0.895x at
 * D = 128 non-causal (0.854-0.935), 0.925x causal (0.886-0.977), 0.930x at
 * Llama 3 8B (0.890-0.976), 0.702x at D = 64 non-causal (0.679-0.748),
 * 0.723x causal (0.672-0.791); the prediction (1.03-1.10x at D = 128,
 * 0.97-1.03x at D = 64) did not hold.
 *
 * Profiled (no database: the counters are in the logs named): Nsight
 * Compute at B=4 H=16 S=4096 D=128 bf16 non-causal (H200,
 * reports/hopper-bwd-wide/d3-logs.tgz): 3.22 ms against
 * cuda_wgmma_bwd_lsevec's 2.85 ms in the same call; 29.4 M warp-level wgmma
 * instructions, cuDNN's count (p1-ncu-cudnn-lsevec.tgz), against lsevec's
 * 33.6 M; 861 M warp instructions; 9.4% of the warp-stall samples on the dQ
 * consumer's wait for the dQ buffer (the previous tile's row copies still
 * reading it) and 14.3% on a step's first mbarrier wait, where the other
 * consumer waits for it: cuda_wgmma_bwd_dqtma's reason.
 *
 * Supported: as cuda_wgmma_bwd_lsevec; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: previous rung cuda_wgmma_bwd_lsevec; cuDNN 9's fused backward
 * as Nsight Compute shows its SASS (observed, nothing of it copied); Shah
 * et al., "FlashAttention-3" (2024), backward dQ accumulation in fp32 by
 * TMA reduce-add (read to understand, not copied); PTX ISA
 * cp.reduce.async.bulk .add.f32, wgmma.mma_async m64n128k16
 * (imm-trans-a, imm-trans-b).
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_dqwide, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_VEC_LSE | abwgws::WS_BULK_DQ |
               abwgws::WS_DQ_WIDE)
