/*
 * cuda_wgmma_bwd_dslate.cu: the Hopper backward of cuda_wgmma_bwd_dqearly
 * with the wait for a dS^T buffer moved from before a step's products to
 * right before the dS^T store; rung "cuda_wgmma_bwd_dslate" of the
 * backward ladder (previous rung cuda_wgmma_bwd_dqearly, which at D = 128
 * is cuda_wgmma_bwd_dqtma's code). Its forward is cuda_wgmma_persistent's.
 *
 * Idea: a step of the deferred path writes its dS^T into buffer it & 1,
 * which tile it - 2's dQ product read; that product is computed in step
 * it - 1 by one consumer only, after its dV, dK products, and the buffer
 * is free once both consumers have arrived on dsempty. The other consumer
 * reaches step it early (it had no dQ product) and waits for dsempty at
 * the step's start, before issuing its S^T, dP^T products: Nsight Compute
 * of cuda_wgmma_bwd_dqtma (reports/hopper-bwd-pingpong/p2-logs.tgz, H200,
 * B=4 H=16 S=4096 D=128 bf16 non-causal) puts 7.8% of all warp-stall
 * samples on that wait (2.0% for dqearly at D = 64, whose dQ product is
 * issued behind dV, dK). Nothing in the products needs the buffer, only
 * the store at the end of the element-wise work. Here (feature WS_DS_LATE)
 * the wait is made inside bwd_wg_ds just before the store, so the waiting
 * consumer's products run on the tensor cores behind the other's dQ.
 *
 * Work and traffic (before the first run): dqearly's; the same waits,
 * later. Prediction: 1.02-1.06x cuda_wgmma_bwd_dqearly at D = 128 (and
 * the Llama 3 8B shape), 1.00-1.02x at D = 64.
 *
 * Measured (NVIDIA H200, 2026-11-27,
 * reports/hopper-bwd-pingpong/hopper-bwd-dslate.db and -llama3-8b.db run 1,
 * nothing else on the GPU; ratios of the instances' geometric-mean medians,
 * geometric means over the part's configurations (S, and bf16 with fp16) with
 * their range, summarize.py there): against cuda_wgmma_bwd_dqearly 1.071x at D
 * = 128 non-causal (1.049-1.093), 1.059x causal (1.032-1.083), 1.021x at D =
 * 64 non-causal (1.010-1.037), 1.018x at D = 64 causal (1.008-1.026), 1.057x
 * at Llama 3 8B (1.041-1.072). The prediction (1.02-1.06x at D = 128 and Llama
 * 3 8B, 1.00-1.02x at D = 64) held in geometric mean but at D = 128
 * non-causal, where it was exceeded. Against cuDNN's fused backward 0.924x at
 * D = 128 (0.866-0.982), 0.902x at D = 64 (0.834-0.977).
 *
 * Supported: as cuda_wgmma_bwd_dqearly; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: previous rung cuda_wgmma_bwd_dqearly; PTX ISA mbarrier.try_wait
 * (.parity).
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_dslate, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_VEC_LSE | abwgws::WS_BULK_DQ |
               abwgws::WS_DQ_WIDE | abwgws::WS_DQ_TMA | abwgws::WS_DQ_EARLY | abwgws::WS_DS_LATE)
