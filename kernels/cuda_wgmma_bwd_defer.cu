/*
 * cuda_wgmma_bwd_defer.cu: the Hopper backward with each query tile's dQ
 * product issued one step later, so that the two consumer warpgroups no
 * longer meet every step; rung "cuda_wgmma_bwd_defer" of the backward
 * ladder (previous rung cuda_wgmma_bwd_headsplit, whose schedule, producer
 * and element-wise code it keeps). Its forward is cuda_wgmma_persistent's.
 *
 * Idea: in the previous rungs a consumer's step is S^T, dP^T (its 64 keys
 * against the tile's 64 query rows), the element-wise work and its half of
 * dS^T stored, dV/dK, then a 256-thread barrier (both halves of dS^T
 * stored) before the dQ product, which needs all 128 keys. The barrier
 * puts both warpgroups in the same phase every step: both issue their
 * products together, then both do their element-wise work while the
 * tensor cores have nothing queued (the Nsight profile in
 * reports/hopper-bwd-fullsplit/: the tensor pipe busy 44-48% of the time).
 * Here (wgmma_bwd_ws.cuh, feature WS_DEFER_DQ) tile it's dQ product is
 * issued in step it + 1, after that step's dV/dK; the two dS^T buffers
 * are handed over by mbarriers (dsfull: both halves of a tile written;
 * dsempty: both dQ products that read it done) instead of the barrier, so a
 * consumer waits only for work one step old and the two may drift apart,
 * one's element-wise work running under the other's products. The
 * producer adds a tile's dQ share two steps after its loads (it used to be
 * one), so the loads still leave a step early.
 *
 * Work and traffic (before the first run): the same FLOPs, bytes, wgmma
 * instructions and atomics as cuda_wgmma_bwd_headsplit; per step two
 * mbarrier arrivals and at most two waits instead of one barrier; one more
 * dQ product at the end of each block. Nothing forces the consumers apart
 * (cuda_wgmma_bwd_stagger starts them apart), so the gain is whatever
 * drift the hardware's scheduling gives. Prediction: 1.00-1.05x
 * cuda_wgmma_bwd_headsplit at D = 64 and 128, causal and not, and at
 * Llama 3 8B.
 *
 * Measured (NVIDIA H200, 2026-11-26, reports/hopper-bwd-defer/; ratios of
 * the instances' geometric-mean medians, geometric means over S,
 * summarize.py there): in hopper-bwd-defer.db against
 * cuda_wgmma_bwd_headsplit 1.084x at D = 64 non-causal (1.031-1.123),
 * 1.071x causal (1.020-1.106), 1.003x at D = 128 non-causal (0.996-1.014),
 * 0.999x causal (0.985-1.009); in hopper-bwd-defer-llama3-8b.db 0.996x at
 * Llama 3 8B (0.990-1.001); in hopper-bwd-regdq.db, the next call, 1.087x,
 * 1.069x, 1.006x and 0.997x. The prediction (1.00-1.05x) held at D = 128
 * and Llama 3 8B, as no gain, and was exceeded at D = 64, where the
 * element-wise work is the larger part of a step. The fastest own backward
 * at D = 64: 0.799x cuDNN non-causal, 0.903x causal (hopper-bwd-defer.db).
 *
 * Supported: as cuda_wgmma_bwd_heads (fp16, bf16; D in {64, 128}; causal
 * or not; any S, S_kv with the bottom-right mask; H_kv dividing H); sm_90a
 * only, other devices get AB_SETUP_UNSUPPORTED. Shared memory:
 * cuda_wgmma_bwd_ws's and four more mbarriers.
 *
 * Sources: previous rung cuda_wgmma_bwd_headsplit; Shah et al.,
 * "FlashAttention-3" (2024) section 3.1 (mbarrier hand-over between
 * warpgroups), read to understand, not copied; PTX ISA mbarrier,
 * fence.proxy.async, wgmma.
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_defer, abwgws::sched_heads, abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ)
