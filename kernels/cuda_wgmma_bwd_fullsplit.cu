/*
 * cuda_wgmma_bwd_fullsplit.cu: the Hopper backward with its element-wise
 * code chosen once a step (full tile or masked) instead of branching inside
 * it, rung "cuda_wgmma_bwd_fullsplit" of the backward ladder (previous
 * rung cuda_wgmma_bwd_loadwarp, whose main loop, producer and schedule it
 * keeps). Its forward is cuda_wgmma_persistent's.
 *
 * Idea: the forward's lesson (kernels/cuda_wgmma_splitloop.cu) applied to
 * the backward. bwd_wg_ds computes P^T = exp2(S^T scale log2e - lse) and
 * dS^T = P^T (dP^T - Delta) for a consumer's 64 keys x 64 queries, and
 * masks the elements past S, S_kv or the causal diagonal unless the step's
 * tile is full. The check `if (!full)` sits inside the unrolled element
 * loop, and the compiler keeps it as a branch around each group's mask
 * code: in the SASS of cuda_wgmma_bwd_loadwarp (bf16, D = 128) the 64
 * exponentials of a step come in 16 basic blocks of four MUFU.EX2 each,
 * a branch between them, so no exponential's latency can overlap the
 * next group's work, and the 16-bit conversions wait for all of them.
 * Here (WS_SPLIT_FULL, kernels/wgmma_bwd_ws.cuh) the step chooses once
 * between bwd_wg_ds's unmasked and masked code (its FULLM), each branch
 * free inside. FLOPs, bytes and launches as cuda_wgmma_bwd_loadwarp.
 *
 * Prediction (before the first run): the element-wise part is about a
 * fifth of a step's issue slots; if a third of its time was exposed
 * latency, 1.02-1.06x cuda_wgmma_bwd_loadwarp at D = 64 and D = 128,
 * causal and not (causal tiles on the diagonal keep the mask, now on every
 * element without a branch).
 *
 * Measured (NVIDIA H100 80GB HBM3, 2026-11-26, reports/hopper-bwd-fullsplit/
 * hopper-bwd-fullsplit.db run 1, bf16, four instances of each variant;
 * the report's speed ratios, geometric means): 1.025x
 * cuda_wgmma_bwd_loadwarp at D = 64 non-causal, 1.069x causal, 1.022x at
 * D = 128 non-causal, 1.024x causal (predicted 1.02-1.06: held; D = 64
 * causal above it); Llama 3 8B (hopper-bwd-fullsplit-llama3-8b.db run 1)
 * 1.028x. Against cuDNN's fused backward in the same run: 0.796x and
 * 0.898x at D = 64 (non-causal, causal), 0.745x and 0.803x at D = 128,
 * 0.859x at Llama 3 8B; at D = 128 cuda_wgmma_bwd_heads (no overlap, no
 * load warp) is still faster, 0.764x and 0.820x.
 *
 * Checked as every rung: gpu_check_bwd (float64 oracle, every element,
 * FlashAttention's tolerance): 120 cases, 0 failed, with its previous rung
 * (whose shared code changed); compute-sanitizer memcheck and synccheck
 * clean (--small; H100, reports/hopper-bwd-fullsplit/call-logs.tgz);
 * racecheck clean, 0 hazards in 40 cases, with the reference's kernels
 * uninstrumented (H200, racecheck-filtered-2026-11-26-logs.tgz there).
 * Supported: as cuda_wgmma_bwd_heads; sm_90a
 * only, other devices get AB_SETUP_UNSUPPORTED. Shared memory:
 * cuda_wgmma_bwd_ws's.
 *
 * Sources: the masked/unmasked split of FlashAttention-2/3's main loops
 * (read, not copied); previous rung cuda_wgmma_bwd_loadwarp.
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_fullsplit, abwgws::sched_heads,
           abwgws::WS_OVERLAP | abwgws::WS_LOAD_WARP | abwgws::WS_SPLIT_FULL)
