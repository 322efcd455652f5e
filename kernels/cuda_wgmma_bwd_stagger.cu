/*
 * cuda_wgmma_bwd_stagger.cu: cuda_wgmma_bwd_defer with the second consumer
 * warpgroup started behind the first; rung "cuda_wgmma_bwd_stagger" of the
 * backward ladder (previous rung cuda_wgmma_bwd_defer). Its forward is
 * cuda_wgmma_persistent's.
 *
 * Idea: cuda_wgmma_bwd_defer lets the two consumers drift apart, but both
 * start at once, on the same products, so nothing moves them out of step.
 * Here (feature WS_STAGGER) the second waits at a named barrier until the
 * first has its first tile's scores: the second's S^T, dP^T products then
 * run while the first does its element-wise work, and as neither waits for
 * the other inside a step (the deferred dQ), the offset can stay, like the
 * forward's ping-pong of FlashAttention-3 without its per-step barriers.
 *
 * Work and traffic (before the first run): cuda_wgmma_bwd_defer's, and one
 * barrier per block. Prediction: if the offset holds, the element-wise
 * work of one consumer overlaps the other's products: 1.05-1.15x
 * cuda_wgmma_bwd_headsplit; if the warpgroups fall back into step, as
 * cuda_wgmma_bwd_defer.
 *
 * Measured (NVIDIA H200, 2026-11-26,
 * reports/hopper-bwd-defer/hopper-bwd-defer.db and -llama3-8b.db run 1;
 * ratios as cuda_wgmma_bwd_defer.cu's): against cuda_wgmma_bwd_defer
 * 0.995x at D = 64 non-causal, 0.996x causal, 0.992x at D = 128
 * non-causal, 0.991x causal, 0.994x at Llama 3 8B: the prediction
 * (1.05-1.15x if the offset holds) did not hold; a staggered start bought
 * nothing, and costs a barrier.
 *
 * Supported: as cuda_wgmma_bwd_defer; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: previous rung cuda_wgmma_bwd_defer; Shah et al.,
 * "FlashAttention-3" (2024) section 3.1 (ping-pong scheduling of two
 * warpgroups), read to understand, not copied; PTX ISA bar.sync, bar.arrive.
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_stagger, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_STAGGER)
