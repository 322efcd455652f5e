/*
 * cuda_wgmma_bwd_widexp.cu: the Hopper backward with both of cuDNN's
 * orderings seen in its SASS: each tile's whole dQ by one consumer
 * (cuda_wgmma_bwd_dqwide) and P^T computed while dP^T runs
 * (cuda_wgmma_bwd_expfirst); rung "cuda_wgmma_bwd_widexp" of the backward
 * ladder (previous rung cuda_wgmma_bwd_dqwide). Its forward is
 * cuda_wgmma_persistent's.
 *
 * Idea: the two changes touch different parts of a step (the element-wise
 * work before dV, dK; the dQ product after them), so their gains should
 * add. Prediction (before the first run): cuda_wgmma_bwd_dqwide's speed
 * times cuda_wgmma_bwd_expfirst's gain over cuda_wgmma_bwd_lsevec, within
 * 2%: 1.02-1.06x cuda_wgmma_bwd_dqwide.
 *
 * Measured (NVIDIA H200, 2026-11-27, reports/hopper-bwd-wide/
 * hopper-bwd-dq-d128.db, -d64.db and -llama3-8b.db run 1, nothing else on
 * the GPU; ratios of the instances' geometric-mean medians, geometric means
 * over S, summarize.py there): against cuda_wgmma_bwd_dqwide 1.001x at D =
 * 128 non-causal (0.991-1.007), 1.004x causal (0.996-1.011), 1.003x at D =
 * 64 non-causal (0.995-1.008), 1.017x causal (1.011-1.030), 1.004x at Llama
 * 3 8B (0.998-1.007); the prediction (1.02-1.06x) did not hold: the two
 * changes do not add.
 *
 * Supported: as cuda_wgmma_bwd_lsevec; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: the two rungs named.
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_widexp, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_VEC_LSE | abwgws::WS_BULK_DQ |
               abwgws::WS_DQ_WIDE | abwgws::WS_EXP_FIRST)
