/*
 * cuda_wgmma_bwd_loadwarp.cu: the Hopper backward whose producer thread
 * issues each stage's loads without waiting behind the dQ atomics, rung
 * "cuda_wgmma_bwd_loadwarp" of the backward ladder (previous rung
 * cuda_wgmma_bwd_overlap, whose main loop and schedule it keeps). Its
 * forward is cuda_wgmma_persistent's.
 *
 * Idea: give the next stage's loads a whole step of slack again. The
 * producer warpgroup's loop step p lets thread 0 wait for stage p % 2 to
 * be free and issue its loads (Q, dO by TMA, logsumexp and Delta by bulk
 * copies), then has all 128 threads, thread 0 among them, wait for the
 * consumers' dQ share of step p - 1 and add it with float4 atomics. So
 * the loads of step p + 1 leave only after step p - 1's share has been
 * handed over (at the end of the consumers' step p - 1) and added: about
 * the start of step p. cuda_wgmma_bwd_heads needs them at the start of
 * step p + 1, a step later; cuda_wgmma_bwd_overlap (at D = 64) needs them
 * in the middle of step p, when it issues the next S^T behind the dQ
 * product, and its run (below) found the overlap slower at D = 64, the
 * consumers' waits on memory results (mbarrier waits among them) doubled
 * in the profile. Here (wgmma_bwd_ws.cuh, feature WS_LOAD_WARP)
 * warp 0 of the producer does no atomics; warps 1-3 (96 threads) add the
 * shares, and thread 0 issues the loads of step p + 1 as soon as the
 * consumers free the stage (in the middle of step p - 1 with the
 * overlap), a full step before they are needed.
 *
 * Measured for the previous rung (NVIDIA H100, 2026-11-26,
 * reports/hopper-bwd/hopper-bwd-overlap.db run 2, the bf16 grid of
 * experiments/hopper-bwd-overlap.cfg): cuda_wgmma_bwd_overlap 0.935x
 * cuda_wgmma_bwd_heads at D = 64 (geometric mean, 0.915-0.969; predicted
 * 1.05-1.12), 1.001x at D = 128 (the same code).
 *
 * Profiled (no database: the figures are in the log named): Nsight
 * Compute at B=4 H=16 S=4096 D=64 non-causal bf16
 * (reports/hopper-bwd/overlap-call1-ncu.log): cuda_wgmma_bwd_overlap 2.14
 * ms against cuda_wgmma_bwd_heads's 2.02 ms, tensor pipe 33.9% against
 * 36.2% of peak, warps stalled on long-scoreboard results 1.53 per issue
 * against 0.78, on the dS^T barrier 0.23 against 0.51.
 *
 * Not yet run when written (session 7's device time was spent): the first
 * run is experiments/hopper-bwd-loadwarp-quick.cfg with the gradient check
 * and the sanitizers; hopper-bwd-loadwarp{,-fp16,-llama3-8b}.cfg are the
 * full grids.
 *
 * Work and traffic (before the first run): FLOPs, bytes and launches as
 * cuda_wgmma_bwd_overlap; the float4 atomics of a step are spread over 96
 * threads instead of 128 (D / 6 instead of D / 8 a thread: the producer
 * has a whole step for them). Prediction: D = 64 1.07-1.15x
 * cuda_wgmma_bwd_overlap (the loss recovered and the overlap's own gain,
 * 1.00-1.08x cuda_wgmma_bwd_heads); D = 128 (no overlap: the loads were
 * already a step early) 0.99-1.02x.
 *
 * Checked as every rung: gpu_check_bwd (float64 oracle, every element,
 * FlashAttention's tolerance), compute-sanitizer memcheck, racecheck,
 * synccheck over gpu_check_bwd --small (racecheck with the reference's
 * kernels uninstrumented, which it could not finish with: 0 hazards in 40
 * cases, H200, reports/hopper-bwd-fullsplit/). Supported: as
 * cuda_wgmma_bwd_heads; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED. Shared memory: cuda_wgmma_bwd_ws's.
 *
 * Sources: Shah et al., "FlashAttention-3" (2024) section 3.1 (warp
 * specialisation: a producer that only issues loads), read to understand,
 * not copied; PTX ISA mbarrier, cp.async.bulk.tensor.
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_loadwarp, abwgws::sched_heads,
           abwgws::WS_OVERLAP | abwgws::WS_LOAD_WARP)
