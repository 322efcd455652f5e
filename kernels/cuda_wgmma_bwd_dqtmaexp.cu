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
 * Measured (NVIDIA H200, 2026-11-27, reports/hopper-bwd-wide/
 * hopper-bwd-dq-d128.db, -d64.db and -llama3-8b.db run 1, nothing else on
 * the GPU; ratios of the instances' geometric-mean medians, geometric means
 * over S, summarize.py there): SLOWER than cuda_wgmma_bwd_dqtma: 0.943x at
 * D = 128 non-causal (0.937-0.954), 0.950x causal (0.932-0.972), 0.953x at
 * Llama 3 8B (0.941-0.967), 0.888x at D = 64 non-causal (0.879-0.906),
 * 0.904x causal (0.879-0.943); the prediction (1.02-1.05x at D = 64,
 * 0.95-1.03x at D = 128) did not hold at D = 64; at D = 128 the geometric
 * means fall at or below its lower end. The feature is slower on every rung
 * but lsevec at D = 64.
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
