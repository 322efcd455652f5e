/*
 * cuda_wgmma_bwd_headsplit.cu: cuda_wgmma_bwd_heads with its element-wise
 * code chosen once a step (full tile or masked) instead of branching inside
 * it; rung "cuda_wgmma_bwd_headsplit" of the backward ladder, a side step
 * from cuda_wgmma_bwd_heads (its main loop, producer and schedule) with
 * cuda_wgmma_bwd_fullsplit's idea. Its forward is cuda_wgmma_persistent's.
 *
 * Idea: cuda_wgmma_bwd_fullsplit took the branch out of bwd_wg_ds
 * (WS_SPLIT_FULL, kernels/wgmma_bwd_ws.cuh) on top of the overlap and load
 * warp rungs, and was faster than its previous rung everywhere; at
 * D = 128 those rungs trail cuda_wgmma_bwd_heads, which has neither (the
 * overlap is D = 64 only, and the load warp lost 5% there). Here the same
 * split on cuda_wgmma_bwd_heads.
 *
 * Prediction (before the first run): where fullsplit gained over
 * loadwarp at D = 128 (1.022x non-causal, 1.024x causal, 1.028x at
 * Llama 3 8B; reports/hopper-bwd-fullsplit/, NVIDIA H100, 2026-11-26),
 * 1.01-1.04x cuda_wgmma_bwd_heads at D = 128 and at Llama 3 8B; at D = 64,
 * where heads has no overlap to hide the element-wise latency behind,
 * 1.02-1.07x.
 *
 * Measured (NVIDIA H100 80GB HBM3, 2026-11-26, reports/hopper-bwd-fullsplit/
 * hopper-bwd-headsplit.db and hopper-bwd-headsplit-llama3-8b.db, run 1
 * each; the ratios are in that folder's README, from its summarize.py):
 * faster than cuda_wgmma_bwd_heads in every part of the grid and at
 * Llama 3 8B, within the prediction at D = 64 causal and D = 128
 * non-causal, below it at D = 64 non-causal, D = 128 causal and Llama 3 8B
 * (the split gains less without the overlap than with it); the fastest own
 * backward at D = 128 now, still well below cuDNN's fused backward.
 *
 * Checked as every rung: gpu_check_bwd (float64 oracle, every element,
 * FlashAttention's tolerance): 120 cases, 0 failed, with
 * cuda_wgmma_bwd_heads; compute-sanitizer memcheck and synccheck clean
 * (--small; H100, reports/hopper-bwd-fullsplit/call-headsplit-logs.tgz);
 * racecheck clean, 0 hazards in 40 cases, with the reference's kernels
 * uninstrumented (H200, racecheck-filtered-2026-11-26-logs.tgz there).
 * Supported: as cuda_wgmma_bwd_heads; sm_90a
 * only, other devices get AB_SETUP_UNSUPPORTED. Shared memory:
 * cuda_wgmma_bwd_ws's.
 *
 * Sources: previous rungs cuda_wgmma_bwd_heads and cuda_wgmma_bwd_fullsplit.
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_headsplit, abwgws::sched_heads, abwgws::WS_SPLIT_FULL)
