/*
 * cuda_wgmma_bwd_defervec.cu: cuda_wgmma_bwd_defer with cuda_wgmma_bwd_lsevec's
 * logsumexp and Delta loads (four float4 a thread), the dQ shares added
 * by the producer as in cuda_wgmma_bwd_defer; rung
 * "cuda_wgmma_bwd_defervec", a side step from cuda_wgmma_bwd_lsevec
 * without cuda_wgmma_bwd_regdq's idea. Its forward is
 * cuda_wgmma_persistent's.
 *
 * Idea: cuda_wgmma_bwd_regdq (each consumer adds its dQ product with
 * float2 atomics) was as fast as cuda_wgmma_bwd_defer, and
 * cuda_wgmma_bwd_lsevec, built on it, gained 6-8% at D = 128. Nsight
 * Compute's warp-stall sampling of lsevec (reports/hopper-bwd-defer/)
 * shows its consumers waiting on the atomics (19% of the samples on the
 * instructions right after them); with the producer adding the shares
 * (its float4 atomics, off the consumers' path) and the consumers only
 * storing theirs to shared memory, the loads' gain may show whole.
 *
 * Prediction (before the first run): at D = 128 1.00-1.06x
 * cuda_wgmma_bwd_lsevec; at D = 64, where lsevec lost 4-5% against
 * defer, between the two.
 *
 * Measured (NVIDIA H200, 2026-11-26,
 * reports/hopper-bwd-defer/hopper-bwd-red4.db and -llama3-8b.db run 1;
 * ratios as cuda_wgmma_bwd_defer.cu's): against cuda_wgmma_bwd_lsevec
 * 0.929x at D = 128 non-causal (0.909-0.965), 0.946x causal, 0.952x at
 * Llama 3 8B, 1.044x and 1.049x at D = 64; against cuda_wgmma_bwd_defer
 * 1.003x and 1.002x at D = 128, 0.996x and 0.997x at D = 64: the float4
 * loads alone change nothing, and lsevec's gain at D = 128 needs regdq's
 * consumer atomics with them (and costs at D = 64). The prediction
 * (1.00-1.06x lsevec at D = 128) did not hold.
 *
 * Supported: as cuda_wgmma_bwd_defer; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: rungs cuda_wgmma_bwd_defer and cuda_wgmma_bwd_lsevec.
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_defervec, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_VEC_LSE)
