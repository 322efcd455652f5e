/*
 * cuda_wgmma_bwd_kvreg.cu: the Hopper backward of cuda_wgmma_bwd_wguni
 * with each consumer's K and V rows held in registers at D = 64; rung
 * "cuda_wgmma_bwd_kvreg" of the backward ladder (previous rung
 * cuda_wgmma_bwd_wguni, whose code it is at D = 128). Its forward is
 * cuda_wgmma_persistent's.
 *
 * Idea: at D = 64 the shared-memory traffic of a step outweighs its
 * tensor work. Per block and step (128 keys, 64 queries): S^T and dP^T
 * with both operands from shared memory read 2 x 2 x 16 KB, dV and dK 2 x
 * 8 KB, dQ 32 KB, and besides the wgmma operands the step writes Q and dO
 * (16 KB), dS^T (16 KB) and the fp32 dQ tile (16 KB, read again by the
 * tensor reduce-add copies): about 192 KB, 1,500 clocks at 128 bytes a
 * clock, against 1,280 clocks of tensor work at 2,048 MACs a clock. The K
 * and V rows of a consumer never change within a block: here (feature
 * WS_KV_REGS) they are read once by ldmatrix into the register A operand
 * of the S^T, dP^T products (32 registers; D = 64 has the room, D = 128
 * does not), which then read only Q and dO from shared memory: 32 KB less
 * a step, a sixth. cuda_wgmma_bwd_wguni is at 0.90x cuDNN's fused
 * backward at D = 64 non-causal (reports/hopper-bwd-pingpong/
 * hopper-bwd-dslate.db and -wgdesc.db), its lowest part of the grid.
 *
 * Prediction (before the first run): 1.03-1.10x cuda_wgmma_bwd_wguni at
 * D = 64 (more where the step is busiest: non-causal), 1.00x at D = 128
 * (the same code).
 *
 * Measured (NVIDIA H200, 2026-11-27,
 * reports/hopper-bwd-pingpong/hopper-bwd-kvreg.db run 1, nothing else on the
 * GPU; ratios of the instances' geometric-mean medians, geometric means over
 * the part's configurations (S, and bf16 with fp16) with their range,
 * summarize.py there): against cuda_wgmma_bwd_wguni 1.048x at D = 64
 * non-causal (1.024-1.076), 1.041x at D = 64 causal (1.022-1.055), 0.999x at D
 * = 128 (0.984-1.007), the same code; the prediction (1.03-1.10x at D = 64)
 * held in geometric mean. Against cuDNN's fused backward 1.020x over the
 * grid's 40 configurations (0.924-1.134), 0.944x at D = 64 non-causal
 * (0.924-0.955). On an NVIDIA H100 80GB HBM3 (2026-11-27,
 * hopper-bwd-kvreg-h100.db run 1): against wguni 1.044x at D = 64 non-causal
 * (1.022-1.058), 1.038x at D = 64 causal (1.020-1.054); against cuDNN 1.019x
 * over the grid (0.942-1.125). The first own backward at or above cuDNN's over
 * the whole grid in geometric mean, with every configuration ≥ 0.9x, on either
 * GPU.
 *
 * Profiled (no database: the counters are in the log named): Nsight Compute at
 * B=4 H=16 S=4096 D=64 bf16 non-causal (H200,
 * reports/hopper-bwd-pingpong/e4-logs.tgz): 2.74 M SM cycles against
 * cuda_wgmma_bwd_wguni's 2.89 M, the tensor pipe active in 46.5% of them
 * against 44.1% (cuDNN's fused kernel 49.1% in p2-logs.tgz), 567 M warp
 * instructions against 614 M.
 *
 * Supported: as cuda_wgmma_bwd_wguni; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: previous rung cuda_wgmma_bwd_wguni; PTX ISA wgmma.mma_async
 * (register A operand), ldmatrix; Shah et al., "FlashAttention-3" (2024),
 * whose backward can keep V in registers (read to understand, not
 * copied).
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_kvreg, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_VEC_LSE | abwgws::WS_BULK_DQ |
               abwgws::WS_DQ_WIDE | abwgws::WS_DQ_TMA | abwgws::WS_DQ_EARLY | abwgws::WS_DS_LATE |
               abwgws::WS_WG_UNIFORM | abwgws::WS_KV_REGS)
