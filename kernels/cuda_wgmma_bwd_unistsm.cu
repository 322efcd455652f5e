/*
 * cuda_wgmma_bwd_unistsm.cu: the Hopper backward of cuda_wgmma_bwd_wguni
 * with dS^T stored by stmatrix; rung "cuda_wgmma_bwd_unistsm" of the
 * backward ladder (previous rung cuda_wgmma_bwd_wguni). Its forward is
 * cuda_wgmma_persistent's.
 *
 * Idea: cuda_wgmma_bwd_wgstsm (stmatrix on cuda_wgmma_bwd_wgdesc) measured
 * 1.03x wgdesc at D = 128 (reports/hopper-bwd-pingpong/hopper-bwd-wgdesc.db,
 * H200), but wgdesc's descriptor adds cost 0.95x there: this rung takes
 * the stores without the adds. Each consumer thread's 32 dS^T values go
 * out as four stmatrix.x4 instead of sixteen 4-byte stores, before the
 * async-proxy fence that held 5.9% of wguni's warp-stall samples
 * (reports/hopper-bwd-pingpong/e2-logs.tgz); with the descriptors in
 * uniform registers ptxas (CUDA 13.0) no longer spills for it at D = 128.
 *
 * Prediction (before the first run): 1.01-1.04x cuda_wgmma_bwd_wguni at
 * D = 128, 0.99-1.01x at D = 64 (where wgstsm matched wgdesc).
 *
 * Measured (NVIDIA H200, 2026-11-27,
 * reports/hopper-bwd-pingpong/hopper-bwd-kvreg.db and -llama3-8b.db run 1,
 * nothing else on the GPU; ratios of the instances' geometric-mean medians,
 * geometric means over the part's configurations (S, and bf16 with fp16) with
 * their range, summarize.py there): against cuda_wgmma_bwd_wguni 1.002x at D =
 * 128 (0.998-1.006), 0.983x at D = 64 (0.978-0.993), 1.003x at Llama 3 8B
 * (1.001-1.005); on an NVIDIA H100 80GB HBM3 (hopper-bwd-kvreg-h100.db) 1.003x
 * at D = 128 (0.992-1.009), 0.981x at D = 64 (0.968-0.994). The prediction
 * (1.01-1.04x at D = 128, 0.99-1.01x at D = 64) did not hold: at D = 128 the
 * stores bought less than a percent, at D = 64 they cost two.
 *
 * Supported: as cuda_wgmma_bwd_wguni; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: previous rung cuda_wgmma_bwd_wguni; cuda_wgmma_bwd_wgstsm;
 * PTX ISA stmatrix (m8n8, x4).
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_unistsm, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_VEC_LSE | abwgws::WS_BULK_DQ |
               abwgws::WS_DQ_WIDE | abwgws::WS_DQ_TMA | abwgws::WS_DQ_EARLY | abwgws::WS_DS_LATE |
               abwgws::WS_WG_UNIFORM | abwgws::WS_STMATRIX)
