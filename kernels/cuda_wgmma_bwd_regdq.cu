/*
 * cuda_wgmma_bwd_regdq.cu: the Hopper backward with each consumer adding
 * its dQ product to the fp32 accumulator from its registers; rung
 * "cuda_wgmma_bwd_regdq" of the backward ladder (previous rung
 * cuda_wgmma_bwd_defer, whose schedule, deferred dQ and element-wise code
 * it keeps). Its forward is cuda_wgmma_persistent's.
 *
 * Idea: take the dQ share's round trip out of shared memory. In the
 * previous rungs each consumer stores its half of a tile's dQ product
 * (64 rows x D/2 fp32) to a shared buffer, and the producer warpgroup
 * reads the buffer back and adds it to the accumulator with float4
 * atomics: per step and block 2 x 64 x D x 4 bytes of shared-memory
 * traffic (64 KiB at D = 128) besides the mbarrier hand-over. Counted per
 * step and block at D = 128 (cuda_wgmma_bwd_defer): the wgmma operands
 * read from shared memory 256 KiB (S^T, dP^T and dQ from shared memory on
 * both sides, m64n64; dV, dK with B from shared memory), Q and dO written
 * by TMA 32 KiB, dS^T stored 16 KiB, the dQ round trip 64 KiB, the
 * logsumexp and Delta loads about 32 KiB of wavefronts: about 400 KiB,
 * against 128 bytes a clock, about 3,200 clocks, more than the 2,560 the
 * tensor cores need for the step's 5.2 M multiply-adds at their peak. If
 * shared memory is what bounds the rung at D = 128 (the deferred dQ gained
 * nothing there, 1.00x, and 1.07-1.08x at D = 64:
 * reports/hopper-bwd-defer/), 16% less of it should show. Here (feature
 * WS_REG_DQ) each consumer adds its product with float2 atomics straight
 * from the accumulator registers (16 per thread and step at D = 128; the
 * same bytes to L2 as the producer's float4 atomics), the dQ buffer and
 * its mbarrier hand-over are gone, and the producer only loads.
 *
 * Prediction (before the first run): 1.05-1.15x cuda_wgmma_bwd_defer at
 * D = 128 and at Llama 3 8B if the reading above holds; at D = 64, where
 * the shared-memory traffic per multiply-add is the same but the
 * deferred dQ already gained, 1.00-1.10x. The consumers issue the atomics
 * themselves (the same count of instructions as the stores they replace),
 * so if the LSU queue rather than shared memory is what binds, no gain.
 *
 * Measured (NVIDIA H200, 2026-11-26,
 * reports/hopper-bwd-defer/hopper-bwd-regdq.db and -llama3-8b.db run 1;
 * ratios as cuda_wgmma_bwd_defer.cu's): against cuda_wgmma_bwd_defer
 * 1.000x at D = 128 non-causal (0.980-1.022), 0.991x causal (0.988-0.995),
 * 0.999x and 0.991x at D = 64, 0.988x at Llama 3 8B (0.982-0.994): the
 * prediction (1.05-1.15x at D = 128) did not hold; shared-memory bandwidth
 * is not what bounds the step there, or the consumers' atomics cost what
 * the round trip saved (the warp-stall sampling of the next rung shows
 * them waiting on the atomics).
 *
 * Supported: as cuda_wgmma_bwd_defer; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED. Shared memory: cuda_wgmma_bwd_defer's less the dQ
 * buffer (64 x (D + 8) x 4 bytes).
 *
 * Sources: previous rung cuda_wgmma_bwd_defer; PTX ISA red.global.add
 * (.v2.f32), wgmma.
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_regdq, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_REG_DQ)
