/*
 * cuda_wgmma_bwd_dqearly.cu: the Hopper backward of cuda_wgmma_bwd_dqtma
 * with a tile's dQ product issued right behind the dV, dK products; rung
 * "cuda_wgmma_bwd_dqearly" of the backward ladder (previous rung
 * cuda_wgmma_bwd_dqtma). Its forward is cuda_wgmma_persistent's.
 *
 * Idea: in cuda_wgmma_bwd_dqtma the consumer whose turn it is waits for
 * its dV, dK products (wait_group 0) before issuing the tile's dQ product,
 * so that the P^T and dS^T fragments' registers are free for the 64 dQ
 * accumulators (D = 128); that wait is the kernel's most sampled
 * instruction (10.0% of Nsight Compute's warp-stall samples,
 * reports/hopper-bwd-wide/d4-logs.tgz), and between it and the first dQ
 * wgmma the tensor pipe has nothing of this consumer queued. Here (feature
 * WS_DQ_EARLY) the dQ product is issued behind dV, dK and one wait covers
 * all three, at D = 64 only: at D = 128 the 128 + 32 + 64 accumulator and
 * fragment registers live together made ptxas (CUDA 13.0) serialise every
 * wgmma of the kernel (C7512, insufficient registers), so at D = 128 this
 * rung is cuda_wgmma_bwd_dqtma's code (64 + 16 + 32 at D = 64: no
 * serialisation, no spills).
 *
 * Prediction (before the first run): 1.01-1.05x cuda_wgmma_bwd_dqtma at
 * D = 64.
 *
 * Measured (NVIDIA H200, 2026-11-27, reports/hopper-bwd-wide/
 * hopper-bwd-dq-d128.db, -d64.db and -llama3-8b.db run 1, nothing else on
 * the GPU; ratios of the instances' geometric-mean medians, geometric means
 * over S, summarize.py there): against cuda_wgmma_bwd_dqtma at D = 64
 * 1.012x non-causal (1.007-1.016), 1.008x causal (1.007-1.010); the
 * prediction (1.01-1.05x) held in geometric mean non-causal and not causal.
 * Against cuDNN's fused backward 0.836x non-causal (0.824-0.856), 0.940x
 * causal (0.892-0.961): the fastest own backward at D = 64.
 *
 * Supported: as cuda_wgmma_bwd_dqtma; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: previous rung cuda_wgmma_bwd_dqtma; PTX ISA wgmma.wait_group.
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_dqearly, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_VEC_LSE | abwgws::WS_BULK_DQ |
               abwgws::WS_DQ_WIDE | abwgws::WS_DQ_TMA | abwgws::WS_DQ_EARLY)
