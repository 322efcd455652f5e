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
