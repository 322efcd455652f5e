/*
 * cuda_wgmma_bwd_lsevec.cu: the Hopper backward with each consumer
 * thread's logsumexp and Delta values read as four float4 loads each;
 * rung "cuda_wgmma_bwd_lsevec" of the backward ladder (previous rung
 * cuda_wgmma_bwd_regdq, whose main loop it keeps). Its forward is
 * cuda_wgmma_persistent's.
 *
 * Idea: in the previous rungs the element-wise work of a step reads, per
 * consumer thread, the logsumexp and Delta of its 16 query rows (8n + 2t
 * + e) as 32 four-byte shared-memory loads; each is one shared-memory
 * wavefront for its warp (four distinct addresses), 256 wavefronts a step
 * and block, about 8% of the step's shared-memory traffic counted in
 * cuda_wgmma_bwd_regdq.cu, and 32 instructions a thread on the
 * element-wise path that the tensor cores wait on. Here (feature
 * WS_VEC_LSE) the pre-pass (bwd_prep) writes each 64-row tile's values
 * in the order bwd_vec_row gives (kernels/bwd_common.cuh), so a thread's
 * 16 values are four contiguous float4 and the four threads of a quad
 * read 64 contiguous bytes: 8 loads and 8 wavefronts a thread where there
 * were 32.
 *
 * Prediction (before the first run): 1.01-1.04x cuda_wgmma_bwd_regdq at
 * D = 64 and 128 (a quarter of the loads, 6% of the traffic).
 *
 * Measured (NVIDIA H200, 2026-11-26, reports/hopper-bwd-defer/; ratios as
 * cuda_wgmma_bwd_defer.cu's): in hopper-bwd-regdq.db against
 * cuda_wgmma_bwd_regdq 1.081x at D = 128 non-causal (1.058-1.107), 1.067x
 * causal (1.026-1.100), but 0.953x and 0.959x at D = 64; in
 * hopper-bwd-regdq-llama3-8b.db 1.062x at Llama 3 8B (1.032-1.090);
 * against cuda_wgmma_bwd_defer in the two later runs on the same machine
 * 1.076x and 1.057x at D = 128 (hopper-bwd-stsm.db), 1.080x and 1.059x
 * (hopper-bwd-red4.db), 0.954x and 0.950x at D = 64 in both. The
 * prediction (1.01-1.04x) was exceeded at D = 128 and wrong in sign at D =
 * 64. The loads are not the whole reason: cuda_wgmma_bwd_defervec, the
 * same loads with the producer's atomics, is cuda_wgmma_bwd_defer's speed
 * at D = 128 (1.003x and 1.002x, hopper-bwd-red4.db), so the gain comes
 * with regdq's consumer atomics, whose own change was neutral; read as a
 * schedule the compiler finds for the two together, not as the loads'
 * cost. The fastest own backward at D = 128: 0.800x cuDNN non-causal,
 * 0.856x causal (hopper-bwd-regdq.db); 0.918x at Llama 3 8B (0.876-0.969,
 * hopper-bwd-regdq-llama3-8b.db).
 *
 * Profiled (no database: the counters are in the log named): Nsight
 * Compute at B=4 H=16 S=4096 D=128 bf16 non-causal (H200,
 * reports/hopper-bwd-defer/ncu-lsevec-2026-11-26.tgz): 830 M warp
 * instructions against cuda_wgmma_bwd_defer's 1,039 M and cuDNN's 748 M,
 * shared-memory wavefronts 331 M (cuDNN 346 M), yet 1.28x cuDNN's cycles
 * at 32% issue activity: the rest is latency.
 *
 * Supported: as cuda_wgmma_bwd_regdq; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: previous rung cuda_wgmma_bwd_regdq; CUDA C++ Programming Guide,
 * shared memory banks (compute capability 9.0).
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_lsevec, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_REG_DQ | abwgws::WS_VEC_LSE)
