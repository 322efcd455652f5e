/*
 * cuda_wgmma_bwd_red4.cu: the Hopper backward with the consumers' dQ
 * atomics four floats wide; rung "cuda_wgmma_bwd_red4" of the backward
 * ladder (previous rung cuda_wgmma_bwd_lsevec, whose main loop it keeps).
 * Its forward is cuda_wgmma_persistent's.
 *
 * Idea: Nsight Compute's warp-stall sampling of cuda_wgmma_bwd_lsevec
 * (H200, B=4 H=16 S=4096 D=128 bf16; reports/hopper-bwd-defer/) puts 19%
 * of the kernel's stall samples on two integer instructions right after
 * the consumers' sixteen float2 atomics (red.global.add.v2.f32) a step,
 * waiting on the long scoreboard: the register that held the atomics'
 * address is reused at once and cannot be overwritten until the queued
 * atomics have read it (and the load/store queue throttles, 3.5% more).
 * Here (feature WS_RED4) lanes t and t ^ 1 swap one column pair per
 * 8-column group (two shfl.xor), so each lane adds four consecutive
 * columns of one row: eight float4 atomics a step instead of sixteen
 * float2, the same bytes to L2.
 *
 * Prediction (before the first run): if half the atomics take half the
 * stalls, 1.03-1.08x cuda_wgmma_bwd_lsevec at D = 128 and at Llama 3 8B;
 * at D = 64 (eight float2 atomics a step before, four now) 1.01-1.04x.
 *
 * Measured (NVIDIA H200, 2026-11-26,
 * reports/hopper-bwd-defer/hopper-bwd-red4.db and -llama3-8b.db run 1;
 * ratios as cuda_wgmma_bwd_defer.cu's): SLOWER, 0.839x
 * cuda_wgmma_bwd_lsevec at D = 128 non-causal (0.815-0.887), 0.863x
 * causal, 0.951x and 0.963x at D = 64, 0.872x at Llama 3 8B: the
 * prediction (1.03-1.08x) did not hold; two shuffles per float4 atomic
 * cost more than the float2 atomics they halved.
 *
 * Supported: as cuda_wgmma_bwd_lsevec; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: previous rung cuda_wgmma_bwd_lsevec; PTX ISA shfl.sync,
 * red.global.add (.v4.f32).
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_red4, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_REG_DQ | abwgws::WS_VEC_LSE |
               abwgws::WS_RED4)
