/*
 * cuda_wgmma_bwd_overlap.cu: the Hopper backward with the next query
 * tile's S^T product issued before the wait for this tile's dQ product,
 * rung "cuda_wgmma_bwd_overlap" of the backward ladder (previous rung
 * cuda_wgmma_bwd_heads, whose schedule it keeps). Its forward is
 * cuda_wgmma_persistent's.
 *
 * Idea: keep the tensor cores fed across the end of a step. In
 * cuda_wgmma_bwd_heads a consumer warpgroup's step is: issue S^T = K_w Q^T
 * and dP^T = V_w dO^T, wait, the element-wise work (P, dS), issue dV/dK,
 * meet the other consumer, issue dQ, wait for everything, store the fp32
 * dQ share to shared memory and hand it to the producer, and only then
 * issue the next step's S^T and dP^T. From the dQ wait until the next
 * products have filled the pipe, the warpgroup's tensor work is nothing
 * but pipeline latency, the 8-16 shared-memory stores of the dQ share and
 * two mbarrier hand-overs. Here (wgmma_bwd_ws.cuh, feature WS_OVERLAP) the
 * step waits only for dV/dK (wait_group 1: their register A fragments
 * and the Q/dO stage are then free), waits for the next stage's full
 * barrier, issues the next S^T behind the still-running dQ product,
 * waits for dQ (wait_group 1 again), stores and hands over the dQ share
 * while S^T runs, and issues the next dP^T; the next step starts with the
 * wait for both. FlashAttention-3's intra-warpgroup overlap of softmax
 * and GEMMs is the same kind of idea (its forward; read to understand,
 * not copied).
 *
 * D = 64 only. At D = 128 ptxas (CUDA 13.0) serialised every wgmma of the
 * kernel (C7512, "insufficient register resources", with spills in most
 * arrangements) as soon as a product stayed in flight across the loop's
 * back edge, in each arrangement tried (S^T and dP^T both issued at the
 * end of the step, S^T alone early, the mbarrier waits moved out of the
 * in-flight region, the whole kernel capped at 240 registers); with the
 * dQ store deferred into the next step instead it injected a wait before
 * the store (C7517), which undoes the overlap. Apparently an accumulator
 * in flight across the back edge stays reserved through the whole loop,
 * and dV, dK (2 x 64 registers), their A fragments (32), the dQ share (32)
 * and S^T, dP^T (64) exceed the consumers' 240. At
 * D = 64 (dV, dK 2 x 32) the SASS shows the order above (HGMMA of S^T
 * between the two WARPGROUP.DEPBAR.LE 1), no spills, no C75xx notes. At
 * D = 128 the rung runs cuda_wgmma_bwd_heads's loop unchanged.
 *
 * Work and traffic (before the first run): the same FLOPs (10 B H S S_kv
 * D, half causal), bytes and launches as cuda_wgmma_bwd_heads; only the
 * order of issue changes. A block-step (128 keys x 64 query rows) at D =
 * 64 is 5 x 2 x 128 x 64 x 64 = 5.2 MFLOP, 1,280 cycles of the SM's dense
 * 16-bit tensor rate (4,096 FLOP per cycle); cuda_wgmma_bwd_heads took
 * 2.08 ms at B=4 H=16 S=4096 D=64 non-causal bf16 on an H200
 * (reports/hopper-bwd/quick-time-heads.log, 30 samples): 131,072
 * block-steps over 132 SMs, about 2.1 us or 3,700 cycles a step, the
 * tensor pipe busy about 35% of it. What the overlap can hide per step:
 * the fill latency of S^T (its 1 MFLOP for both warpgroups, 256 cycles at
 * the dense rate, plus the pipe latency) and the dQ tail (the wait, 8
 * shared-memory stores, two hand-overs): 300-500 cycles of the 3,700, so
 * at most 1.09-1.16x; the element-wise work of both warpgroups still
 * runs with the tensor pipe idle (they stay in lock step at the dS^T
 * barrier).
 * Prediction: D = 64 1.05-1.12x cuda_wgmma_bwd_heads (causal and not);
 * D = 128 1.00x within 1% (the same code).
 *
 * Measured (NVIDIA H100, 2026-11-26, reports/hopper-bwd/hopper-bwd-overlap.db
 * run 2, experiments/hopper-bwd-overlap.cfg, the 20 bf16 configurations,
 * and run 1, hopper-bwd-overlap-llama3-8b.cfg; hot timing, medians of
 * 20-30 samples, clocks left alone): SLOWER at D = 64, 0.935x
 * cuda_wgmma_bwd_heads (geometric mean, 0.915-0.969; predicted 1.05-1.12:
 * did not hold); D = 128 1.001x (0.983-1.029), Llama 3 8B 0.995x
 * (0.991-0.999; predicted 1.00 within 1%: held in the mean). Against
 * cudnn_sdpa over the bf16 grid 0.756x (0.679-0.871), where
 * cuda_wgmma_bwd_heads was 0.781x (0.717-0.883) in the same run.
 *
 * Profiled (no database: the figures are in the log named): Nsight
 * Compute at B=4 H=16 S=4096 D=64 non-causal bf16
 * (reports/hopper-bwd/overlap-call1-ncu.log): 2.14 ms against
 * cuda_wgmma_bwd_heads's 2.02 ms, tensor pipe 33.9% against 36.2% of
 * peak, warps stalled on the dS^T barrier 0.23 per issue against 0.51 (the
 * overlap's intent) but on long-scoreboard results (mbarrier waits among
 * them) 1.53 against 0.78. Reading, not yet tested: the next stage's Q
 * and dO are now needed in the middle of a step, but the producer's
 * thread 0 issues them only after its share of the previous step's dQ
 * atomics, about the start of the step, so the consumers wait for the
 * copies the overlap was to hide behind. The next rung,
 * cuda_wgmma_bwd_loadwarp (a producer warp that only loads), tests it.
 *
 * Checked as every rung: gpu_check_bwd (float64 oracle, every element,
 * FlashAttention's tolerance), compute-sanitizer memcheck, racecheck,
 * synccheck over gpu_check_bwd --small. Supported: as cuda_wgmma_bwd_heads
 * (fp16, bf16; D in {64, 128}; causal or not; any S, S_kv >= 1 with the
 * bottom-right mask; H_kv dividing H); sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED. Shared memory: cuda_wgmma_bwd_ws's.
 *
 * Sources: Shah et al., "FlashAttention-3" (2024) section 3.2
 * (intra-warpgroup overlapping of GEMMs and softmax), read to understand,
 * not copied; PTX ISA wgmma.wait_group (groups complete in order).
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_overlap, abwgws::sched_heads, abwgws::WS_OVERLAP)
