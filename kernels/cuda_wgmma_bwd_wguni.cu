/*
 * cuda_wgmma_bwd_wguni.cu: the Hopper backward of cuda_wgmma_bwd_dslate
 * with the consumer warpgroup's index made warp-uniform for the compiler;
 * rung "cuda_wgmma_bwd_wguni" of the backward ladder (previous rung
 * cuda_wgmma_bwd_dslate). Its forward is cuda_wgmma_persistent's.
 *
 * Idea: every wgmma names its shared-memory operands by 64-bit
 * descriptors in uniform registers. The K and V operands of a consumer's
 * S^T, dP^T products start at row 64 cw of the block's tiles, and cw comes
 * from threadIdx.x, which the compiler cannot know to be the same across a
 * warp: Nsight Compute's SASS of cuda_wgmma_bwd_dqtma
 * (reports/hopper-bwd-pingpong/p2-logs.tgz, H200, B=4 H=16 S=4096 D=128
 * bf16 non-causal) builds each descriptor in ordinary registers (add,
 * mask, shift, merge) and moves it with R2UR: 15.1% of its 802 M warp
 * instructions are LOP3 and 11.6% R2UR, against 1.7% LOP3 in cuDNN's
 * kernel (748 M). Here (feature WS_WG_UNIFORM) cw is read through
 * __shfl_sync from lane 0, a value the compiler knows is warp-uniform (as
 * CUTLASS's canonical_warp_group_idx does), so the descriptor arithmetic
 * can stay in the uniform datapath.
 *
 * Work and traffic (before the first run): dslate's products and bytes;
 * fewer instructions if the compiler takes the hint. Prediction: Nsight
 * Compute's instruction count 5-15% lower at D = 128; speed 1.00-1.04x
 * cuda_wgmma_bwd_dslate (cuda_wgmma_desciter, the forward's version of
 * fewer descriptor instructions, bought 0.99-1.01x: issue slots were not
 * what limited it).
 *
 * Measured (NVIDIA H200, 2026-11-27,
 * reports/hopper-bwd-pingpong/hopper-bwd-dslate.db and -llama3-8b.db run 1,
 * nothing else on the GPU; ratios of the instances' geometric-mean medians,
 * geometric means over the part's configurations (S, and bf16 with fp16) with
 * their range, summarize.py there): against cuda_wgmma_bwd_dslate 1.143x at D
 * = 128 non-causal (1.104-1.165), 1.126x causal (1.076-1.159), 1.064x at D =
 * 64 non-causal (1.056-1.076), 1.054x at D = 64 causal (1.038-1.063), 1.116x
 * at Llama 3 8B (1.078-1.149): the prediction (1.00-1.04x) was exceeded
 * everywhere. Against cuDNN's fused backward 1.001x over the grid's 40
 * configurations (0.897-1.138), 0.905x at D = 64 non-causal (0.897-0.913),
 * 1.146x at Llama 3 8B (1.124-1.164); on an NVIDIA H100 80GB HBM3
 * (hopper-bwd-kvreg-h100.db run 1) 0.999x over the grid (0.890-1.125).
 *
 * Profiled (no database: the counters are in the logs named): Nsight Compute
 * at B=4 H=16 S=4096 D=128 bf16 non-causal, one launch each (H200,
 * reports/hopper-bwd-pingpong/e2-logs.tgz): 729 M warp instructions against
 * cuda_wgmma_bwd_dslate's 811 M, 3.91 M SM cycles against 4.50 M, the tensor
 * pipe active in 65.7% of the cycles against 56.7% (cuDNN's fused kernel 63.7%
 * in p2-logs.tgz); the descriptor work now sits in uniform instructions
 * (ULOP3, UMOV, UIADD3, USHF: 41% of the instructions), R2UR falls from 11.6%
 * to 1.2%.
 *
 * Supported: as cuda_wgmma_bwd_dslate; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: previous rung cuda_wgmma_bwd_dslate; CUTLASS
 * canonical_warp_group_idx (read to understand, not copied); CUDA C++
 * Programming Guide, __shfl_sync.
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_wguni, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_VEC_LSE | abwgws::WS_BULK_DQ |
               abwgws::WS_DQ_WIDE | abwgws::WS_DQ_TMA | abwgws::WS_DQ_EARLY | abwgws::WS_DS_LATE |
               abwgws::WS_WG_UNIFORM)
