/*
 * cuda_wgmma_bwd_lsehoist.cu: cuda_wgmma_bwd_lsevec with, at D = 64, a
 * step's eight float4 loads of logsumexp and Delta issued before its
 * first element; rung "cuda_wgmma_bwd_lsehoist", a side step from
 * cuda_wgmma_bwd_lsevec (identical code at D = 128). Its forward is
 * cuda_wgmma_persistent's.
 *
 * Idea: cuda_wgmma_bwd_lsevec (two float4 loads before each pair of the
 * thread's eight row groups) gained 7-8% over its previous rung at D = 128
 * and lost 4-5% at D = 64 (reports/hopper-bwd-defer/, H200). One reading:
 * at D = 64 the step is short, and loads issued group by group put a
 * shared-memory latency in front of every second group's exponentials.
 * Here (feature WS_VEC_HOIST, bwd_wg_ds's VEC 2) all eight loads come
 * first, so that latency is paid once a step; 32 more registers are live
 * through the element-wise work, which D = 64's consumers have to spare
 * (at D = 128 the same hoisting spilled 100 bytes, so D = 128 keeps
 * lsevec's loads).
 *
 * Prediction (before the first run): at D = 64 1.03-1.08x
 * cuda_wgmma_bwd_lsevec if the reading holds; at D = 128 1.00x (the same
 * code: an A/A pair in the run).
 *
 * Measured (NVIDIA H200, 2026-11-26,
 * reports/hopper-bwd-defer/hopper-bwd-stsm.db run 1; ratios as
 * cuda_wgmma_bwd_defer.cu's): at D = 64 1.018x cuda_wgmma_bwd_lsevec
 * non-causal (1.013-1.026), 1.017x causal (1.013-1.024), still below
 * cuda_wgmma_bwd_defer (0.776x and 0.871x cuDNN against defer's 0.799x and
 * 0.901x); at D = 128 1.000x and 0.999x (the same code: the run's A/A
 * pair). The prediction (1.03-1.08x at D = 64) did not hold.
 *
 * Supported: as cuda_wgmma_bwd_lsevec; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: previous rung cuda_wgmma_bwd_lsevec.
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_lsehoist, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_REG_DQ | abwgws::WS_VEC_LSE |
               abwgws::WS_VEC_HOIST)
