/*
 * cuda_wgmma_bwd_pingpong.cu: the Hopper backward of cuda_wgmma_bwd_dqearly
 * with the two consumer warpgroups issuing their products in strict turn;
 * rung "cuda_wgmma_bwd_pingpong" of the backward ladder (previous rung
 * cuda_wgmma_bwd_dqearly, which at D = 128 is cuda_wgmma_bwd_dqtma's
 * code). Its forward is cuda_wgmma_persistent's.
 *
 * Idea: the two consumers of cuda_wgmma_bwd_dqtma each run a chain
 * (S^T, dP^T products; their wait; the element-wise work; dV, dK and
 * every other step the previous tile's dQ; their wait) in which their own
 * tensor-core work and their element-wise work cannot overlap; only the
 * other consumer's products can fill the gap. Nothing keeps them apart:
 * cuda_wgmma_bwd_stagger's one-time offset bought nothing (0.99x), and
 * when both issue at once the tensor cores interleave their products, both
 * finish late, and both then do element-wise work with the tensor cores
 * idle. Nsight Compute puts 17% of dqtma's warp-stall samples on wgmma
 * waits (reports/hopper-bwd-wide/d4-logs.tgz). Here (feature WS_PINGPONG)
 * a token passed by two named barriers makes the consumers issue in turn,
 * phase by phase (bwd_ws in wgmma_bwd_ws.cuh says how), as
 * FlashAttention-3's forward does with its softmax and GEMMs.
 *
 * Work and traffic (before the first run): dqearly's, and four named
 * barrier operations per consumer per step. A model of one step at D =
 * 128 (5 M MACs per 128-key block, 2,048 MACs a clock: 2,560 clocks of
 * tensor work; the element-wise work about 800 clocks a consumer) puts an
 * alternating schedule near 2,850 clocks against the 5,100 a step that
 * dqtma's time implies (B=4 H=16 S=4096 non-causal, H100): the model is
 * optimistic (latencies, the producer's loads, the dQ stores are left
 * out). Prediction: 1.03-1.15x
 * cuda_wgmma_bwd_dqearly at D = 128 and 64, causal or not, and at the
 * Llama 3 8B shape; if the consumers already alternate, 0.97-1.01x (the
 * barriers' cost).
 *
 * Measured (NVIDIA H200, 2026-11-27,
 * reports/hopper-bwd-pingpong/hopper-bwd-pingpong.db and -llama3-8b.db run 1,
 * nothing else on the GPU; ratios of the instances' geometric-mean medians,
 * geometric means over the part's configurations (S, and bf16 with fp16) with
 * their range, summarize.py there): against cuda_wgmma_bwd_dqearly 0.997x at D
 * = 128 (0.983-1.007), 0.987x at D = 64 (0.973-0.996), 0.996x at Llama 3 8B
 * (0.990-1.000). The prediction (1.03-1.15x) did not hold; the alternative it
 * named held: the consumers already alternate, and forcing the turn costs its
 * barriers.
 *
 * Supported: as cuda_wgmma_bwd_dqearly; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: previous rung cuda_wgmma_bwd_dqearly; Shah et al.,
 * "FlashAttention-3" (2024) section 3.1 (ping-pong scheduling of two
 * warpgroups with named barriers), read to understand, not copied; PTX ISA
 * bar.sync, bar.arrive.
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_pingpong, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_VEC_LSE | abwgws::WS_BULK_DQ |
               abwgws::WS_DQ_WIDE | abwgws::WS_DQ_TMA | abwgws::WS_DQ_EARLY |
               abwgws::WS_PINGPONG)
