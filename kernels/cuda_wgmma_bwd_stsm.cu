/*
 * cuda_wgmma_bwd_stsm.cu: the Hopper backward with dS^T stored by
 * stmatrix; rung "cuda_wgmma_bwd_stsm" of the backward ladder (previous
 * rung cuda_wgmma_bwd_lsevec, whose main loop it keeps). Its forward is
 * cuda_wgmma_persistent's.
 *
 * Idea: after a step's element-wise work each consumer thread stores its
 * 32 dS^T values (16-bit, packed in pairs) to the shared dS^T tile for the
 * dQ product: in the previous rungs sixteen 4-byte st.shared a thread,
 * each a wavefront for its warp. The values are already the fragments of
 * the tile's 8 x 8 sub-matrices that stmatrix stores (a thread holds
 * row g, columns 2t and 2t + 1 of each), so here (feature WS_STMATRIX,
 * bwd_wg_ds's STSM) a k-step's four fragments go in one stmatrix.x4, its
 * lanes giving the addresses of the 32 rows (16-byte chunks of the
 * 128-byte swizzled key rows): four instructions a thread instead of
 * sixteen, the same bytes. The previous rung showed the element-wise
 * path's shared-memory instructions matter at D = 128 (a quarter of the
 * logsumexp and Delta loads: 1.07-1.08x).
 *
 * Prediction (before the first run): 1.01-1.04x cuda_wgmma_bwd_lsevec at
 * D = 128 and at Llama 3 8B; at D = 64, where cuda_wgmma_bwd_lsevec lost
 * 4-5% against its previous rung, 1.00-1.03x.
 *
 * Measured (NVIDIA H200, 2026-11-26,
 * reports/hopper-bwd-defer/hopper-bwd-stsm.db and -llama3-8b.db run 1;
 * ratios as cuda_wgmma_bwd_defer.cu's): SLOWER at D = 128, 0.848x
 * cuda_wgmma_bwd_lsevec non-causal (0.815-0.893), 0.873x causal, 0.878x at
 * Llama 3 8B; at D = 64 1.003x and 1.012x (the prediction, 1.00-1.03x,
 * held there).
 *
 * Compiled: ptxas (CUDA 13.0) spills 44 bytes a thread in the D = 128
 * consumers (none in lsevec), whatever the stores' addresses were computed
 * as (three forms tried, all spilling 40-60 bytes); none at D = 64.
 *
 * Supported: as cuda_wgmma_bwd_lsevec; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: previous rung cuda_wgmma_bwd_lsevec; PTX ISA stmatrix (m8n8,
 * .x4, .b16; sm_90).
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_stsm, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_REG_DQ | abwgws::WS_VEC_LSE |
               abwgws::WS_STMATRIX)
