/*
 * cuda_wgmma_bwd_tail.cu: the Hopper backward with the step's tile found
 * without an integer division, after the consumers' dQ atomics; rung "cuda_wgmma_bwd_tail" of the
 * backward ladder (previous rung cuda_wgmma_bwd_lsevec, whose main loop it
 * keeps). Its forward is cuda_wgmma_persistent's.
 *
 * Idea: Nsight Compute's warp-stall sampling of cuda_wgmma_bwd_lsevec
 * (reports/hopper-bwd-defer/, H200, B=4 H=16 S=4096 D=128) puts 9% of the
 * kernel's samples on the first instruction of a step, part of an integer
 * division (the step's query head and tile, it / nt and it % nt) whose
 * register the previous step's dQ atomics still read (and 10% on the
 * address of the atomics' second row, for the same reason). Here (feature
 * WS_TAIL) a schedule whose blocks visit one query head (sched_heads,
 * ONE_HEAD) takes a step's first row as (t0 + it) 64 and the head as the
 * block's, with no division. (Both rows' atomics off one base without a
 * branch, the second half of the idea, made ptxas spill 80 bytes at
 * D = 128, so it is not here.)
 *
 * Prediction (before the first run): 1.02-1.06x cuda_wgmma_bwd_lsevec at
 * D = 128, D = 64 and Llama 3 8B if the division's wait goes; about 1.0x
 * if the compiler makes the next step's first values wait on the atomics
 * anyway.
 *
 * Measured (NVIDIA H100 80GB HBM3, 2026-11-27, reports/hopper-bwd-defer/
 * hopper-bwd-tail.db and -llama3-8b.db run 1; ratios as
 * cuda_wgmma_bwd_defer.cu's): SLOWER at D = 128, 0.877x
 * cuda_wgmma_bwd_lsevec non-causal (0.843-0.925), 0.903x causal
 * (0.861-0.964), 0.909x at Llama 3 8B (0.866-0.955); at D = 64 1.016x
 * non-causal (1.009-1.023) and 1.025x causal (1.016-1.034). The
 * prediction (1.02-1.06x) did not hold at D = 128 and Llama 3 8B, and held
 * in part at D = 64; removing a wait the profile showed cost more than it
 * saved where the consumers are at ptxas's register limit (D = 128).
 *
 * Supported: as cuda_wgmma_bwd_lsevec; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: previous rung cuda_wgmma_bwd_lsevec; NVIDIA Nsight Compute
 * documentation, warp stall reasons (long scoreboard).
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_tail, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_REG_DQ | abwgws::WS_VEC_LSE |
               abwgws::WS_TAIL)
