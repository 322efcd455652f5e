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
 * Supported: as cuda_wgmma_bwd_regdq; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: previous rung cuda_wgmma_bwd_regdq; CUDA C++ Programming Guide,
 * shared memory banks (compute capability 9.0).
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_lsevec, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_REG_DQ | abwgws::WS_VEC_LSE)
