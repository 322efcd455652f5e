/*
 * cuda_wgmma_bwd_wgstsm.cu: the Hopper backward of cuda_wgmma_bwd_wgdesc
 * with dS^T stored by stmatrix; rung "cuda_wgmma_bwd_wgstsm" of the
 * backward ladder (previous rung cuda_wgmma_bwd_wgdesc). Its forward is
 * cuda_wgmma_persistent's.
 *
 * Idea: each consumer thread stores its 32 dS^T values as sixteen 4-byte
 * st.shared, then fences them for the async proxy (the dQ product reads
 * the tile with wgmma); Nsight Compute of cuda_wgmma_bwd_wguni
 * (reports/hopper-bwd-pingpong/e2-logs.tgz, B=4 H=16 S=4096 D=128 bf16
 * non-causal) puts 5.9% of its warp-stall samples on that fence and 6.9%
 * on the stores. cuda_wgmma_bwd_stsm stored them with four stmatrix.x4
 * instead (WS_STMATRIX) and lost at D = 128 (0.85x) because ptxas spilled
 * 44 bytes a thread there; with the descriptors in uniform registers
 * (WS_WG_UNIFORM) the same code compiles without spills (ptxas, CUDA
 * 13.0). Here WS_STMATRIX is switched on again.
 *
 * Work and traffic (before the first run): wgdesc's; 4 store
 * instructions instead of 16 per thread and step, the same bytes.
 * Prediction: 1.00-1.03x cuda_wgmma_bwd_wgdesc at D = 128 and 64.
 *
 * Measured (NVIDIA H200, 2026-11-27,
 * reports/hopper-bwd-pingpong/hopper-bwd-wgdesc.db and -llama3-8b.db run 1,
 * nothing else on the GPU; ratios of the instances' geometric-mean medians,
 * geometric means over the part's configurations (S, and bf16 with fp16) with
 * their range, summarize.py there): against cuda_wgmma_bwd_wgdesc 1.031x at D
 * = 128 (1.014-1.048), 1.000x at D = 64 (0.995-1.007), 1.025x at Llama 3 8B
 * (1.016-1.034): the prediction (1.00-1.03x) held in geometric mean; against
 * cuda_wgmma_bwd_wguni 0.964x at D = 128 (0.947-0.983) (the descriptor adds'
 * loss is larger than the stores' gain).
 *
 * Supported: as cuda_wgmma_bwd_wgdesc; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: previous rung cuda_wgmma_bwd_wgdesc; cuda_wgmma_bwd_stsm;
 * PTX ISA stmatrix (m8n8, x4).
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_wgstsm, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_VEC_LSE | abwgws::WS_BULK_DQ |
               abwgws::WS_DQ_WIDE | abwgws::WS_DQ_TMA | abwgws::WS_DQ_EARLY | abwgws::WS_DS_LATE |
               abwgws::WS_WG_UNIFORM | abwgws::WS_DESC_ADD | abwgws::WS_STMATRIX)
