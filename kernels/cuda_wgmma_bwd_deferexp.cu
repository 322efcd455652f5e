/*
 * cuda_wgmma_bwd_deferexp.cu: the Hopper backward of cuda_wgmma_bwd_defer
 * with each tile's P^T computed while its dP^T product still runs; rung
 * "cuda_wgmma_bwd_deferexp" of the backward ladder (previous rung
 * cuda_wgmma_bwd_defer, the fastest own backward at D = 64). Its forward
 * is cuda_wgmma_persistent's.
 *
 * Idea: cuda_wgmma_bwd_expfirst (feature WS_EXP_FIRST: S^T waited for
 * alone, P^T = exp2(S^T scale log2e - lse log2e) under the dP^T product,
 * then dS^T) gained at D = 64 on cuda_wgmma_bwd_lsevec and lost at D = 128
 * (reports/hopper-bwd-wide/). At D = 64 the fastest rung is
 * cuda_wgmma_bwd_defer (the producer adds the dQ shares; lsevec's
 * consumer atomics and float4 loads cost it 4-5% there), so the feature
 * goes on it here, where it should help most.
 *
 * Prediction (before the first run): 1.02-1.06x cuda_wgmma_bwd_defer at
 * D = 64, causal and not (expfirst's 1.037x over lsevec at D = 64 on an
 * H200, hopper-bwd-wide-d64.db).
 *
 * Measured (NVIDIA H200, 2026-11-27, reports/hopper-bwd-wide/
 * hopper-bwd-dq-d128.db, -d64.db and -llama3-8b.db run 1, nothing else on
 * the GPU; ratios of the instances' geometric-mean medians, geometric means
 * over S, summarize.py there): SLOWER than cuda_wgmma_bwd_defer at D = 64,
 * 0.941x non-causal (0.932-0.956), 0.953x causal (0.934-0.979); the
 * prediction (1.02-1.06x) did not hold: the feature that helps lsevec there
 * hurts defer.
 *
 * Supported: as cuda_wgmma_bwd_defer; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: previous rung cuda_wgmma_bwd_defer; cuda_wgmma_bwd_expfirst.cu
 * for the feature.
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_deferexp, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_EXP_FIRST)
