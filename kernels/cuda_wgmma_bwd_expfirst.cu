/*
 * cuda_wgmma_bwd_expfirst.cu: the Hopper backward with a tile's P^T
 * computed while its dP^T product still runs; rung
 * "cuda_wgmma_bwd_expfirst" of the backward ladder (previous rung
 * cuda_wgmma_bwd_lsevec, whose main loop it keeps). Its forward is
 * cuda_wgmma_persistent's.
 *
 * Idea: in the previous rungs a consumer issues S^T = K Q^T and dP^T =
 * V dO^T as one group and waits for both before any element-wise work, so
 * its 32 exponentials a thread (MUFU.EX2, the FFMA before each, the mask)
 * wait for a product they do not need. cuDNN's fused backward (Nsight
 * Compute's SASS of its main kernel, reports/hopper-bwd-wide/, H100,
 * B=4 H=16 S=4096 D=128 bf16) issues the second product, waits for the
 * first alone and interleaves the MUFU.EX2 of P with the second product's
 * HGMMAs. Here (feature WS_EXP_FIRST) the two products are two committed
 * groups: wait_group 1 (S^T done), P^T = exp2(S^T scale log2e - lse log2e)
 * with the mask (bwd_wg_ds PART 1), wait_group 0, then dS^T = P^T (dP^T -
 * Delta), the fragments and the store (PART 2).
 *
 * Work and traffic (before the first run): the same FLOPs, bytes and
 * instructions as cuda_wgmma_bwd_lsevec but one more wgmma fence and
 * commit; per step and consumer the exponentials' issue (about 32 x 3
 * instructions a thread, 4 warps) moves under 8 k-steps of m64n64 (about
 * 256 tensor-pipe cycles at the SM's rate). Prediction: 1.02-1.06x
 * cuda_wgmma_bwd_lsevec at D = 64 and 128, causal and not, and at the
 * Llama 3 8B shape; about 1.0x if the other consumer's products already
 * fill that time.
 *
 * Measured (NVIDIA H200, 2026-11-27, reports/hopper-bwd-wide/
 * hopper-bwd-dq-d128.db, -d64.db and -llama3-8b.db run 1, nothing else on
 * the GPU; ratios of the instances' geometric-mean medians, geometric means
 * over S, summarize.py there): against cuda_wgmma_bwd_lsevec 1.035x at D =
 * 64 non-causal (1.015-1.050), 1.040x causal (1.030-1.052); SLOWER at D =
 * 128, 0.902x non-causal (0.875-0.930), 0.928x causal (0.891-0.977), and
 * 0.929x at Llama 3 8B (0.896-0.968). The prediction (1.02-1.06x) held at D
 * = 64 in geometric mean and did not at D = 128 and Llama 3 8B.
 *
 * Profiled (no database: the counters are in the log named): Nsight Compute
 * at B=4 H=16 S=4096 D=128 bf16 non-causal (H200,
 * reports/hopper-bwd-wide/d3-logs.tgz): 3.18 ms against
 * cuda_wgmma_bwd_lsevec's 2.85 ms in the same call, issue active in 29% of
 * cycles (lsevec 32%), 844 M warp instructions (831 M); 21.5% of the
 * warp-stall samples on two integer instructions waiting (long scoreboard)
 * for the address register of the consumers' dQ atomics, as in lsevec.
 *
 * Supported: as cuda_wgmma_bwd_lsevec; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: previous rung cuda_wgmma_bwd_lsevec; PTX ISA
 * wgmma.commit_group / wgmma.wait_group; Shah et al., "FlashAttention-3"
 * (2024) section 3.2 (softmax overlapped with the other GEMM, there in the
 * forward), read to understand, not copied.
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_expfirst, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_REG_DQ | abwgws::WS_VEC_LSE |
               abwgws::WS_EXP_FIRST)
