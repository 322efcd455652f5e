/*
 * cuda_wgmma_bwd_dqtmaexp.cu: the Hopper backward of cuda_wgmma_bwd_dqtma
 * with each tile's P^T computed while its dP^T product still runs
 * (cuda_wgmma_bwd_expfirst's WS_EXP_FIRST); rung
 * "cuda_wgmma_bwd_dqtmaexp" of the backward ladder (previous rung
 * cuda_wgmma_bwd_dqtma). Its forward is cuda_wgmma_persistent's.
 *
 * Idea: WS_EXP_FIRST gained on cuda_wgmma_bwd_lsevec at D = 64 (1.03-1.05x
 * in two runs) and lost at D = 128 (0.85-0.92x), where lsevec's consumers
 * also wait on their dQ atomics' address registers; cuda_wgmma_bwd_dqtma
 * has no consumer atomics, so the feature is tried again on it.
 *
 * Prediction (before the first run): 1.02-1.05x cuda_wgmma_bwd_dqtma at
 * D = 64; 0.95-1.03x at D = 128 and the Llama 3 8B shape.
 *
 * Supported: as cuda_wgmma_bwd_dqtma; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: previous rung cuda_wgmma_bwd_dqtma; cuda_wgmma_bwd_expfirst.cu.
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_dqtmaexp, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_VEC_LSE | abwgws::WS_BULK_DQ |
               abwgws::WS_DQ_WIDE | abwgws::WS_DQ_TMA | abwgws::WS_EXP_FIRST)
