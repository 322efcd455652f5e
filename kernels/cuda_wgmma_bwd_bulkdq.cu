/*
 * cuda_wgmma_bwd_bulkdq.cu: the Hopper backward with each query tile's dQ
 * share added to the fp32 accumulator by the copy engine, rung
 * "cuda_wgmma_bwd_bulkdq" of the backward ladder (previous rung
 * cuda_wgmma_bwd_overlap, whose main loop and schedule it keeps). Its
 * forward is cuda_wgmma_persistent's.
 *
 * Idea: take the dQ reduction off the SM's load/store pipe. In the
 * previous rungs the producer warpgroup's 128 threads add each step's dQ
 * share (64 rows x D fp32, 32 KiB at D = 128) to the accumulator with
 * float4 atomics: per step and thread D / 8 shared-memory loads of 16
 * bytes, D / 8 red.global.add.v4.f32 and their address arithmetic (2,048
 * atomics a step at D = 128), issued through the same MIO/LSU queues as
 * the consumers' shared-memory stores of dS^T and of the dQ share (the
 * profile of cuda_wgmma_bwd_heads, reports/hopper-bwd/ncu-heads-grid.log:
 * 0.35 warps a cycle stalled on the global-memory queue, 0.50 on the
 * shared-memory queue). Here (wgmma_bwd_ws.cuh, feature WS_BULK_DQ) the
 * 32 lanes of one producer warp issue one cp.reduce.async.bulk .add.f32
 * per row of the tile inside S (D x 4 bytes from the padded shared row
 * to the accumulator row), commit, wait until the copies have read
 * shared memory, and free the buffer (one arrival); the consumers fence
 * their stores of the share for the async proxy before handing it over.
 * The producer's thread 0 no longer takes part in the dQ work, so its
 * loads of the next stages are not queued behind it. FlashAttention-3's
 * backward writes its dQ accumulator by TMA reduce-add in the same way
 * (read to understand, not copied).
 *
 * Work and traffic (before the first run): FLOPs, bytes to L2 (the same
 * 4 x 64 x D bytes a step) and launches as cuda_wgmma_bwd_overlap; per
 * step 64 bulk copies from one warp instead of 64 x D / 4 float4 atomics
 * from 128 threads, and the shared-memory reads of the share done by the
 * copy engine. The gain is whatever the atomics' instructions and queue
 * slots cost the consumers, which the profiles bound but do not measure.
 * Prediction: 1.00-1.04x cuda_wgmma_bwd_overlap at D = 64 and 128, causal
 * and not, and at the Llama 3 8B shape.
 *
 * Measured (NVIDIA H100, 2026-11-26, reports/hopper-bwd/hopper-bwd-overlap.db
 * run 2, experiments/hopper-bwd-overlap.cfg, the 20 bf16 configurations,
 * and run 1, hopper-bwd-overlap-llama3-8b.cfg; hot timing, medians of
 * 20-30 samples, clocks left alone): SLOWER, 0.784x cuda_wgmma_bwd_overlap
 * at D = 64 (geometric mean, 0.727-0.848), 0.993x at D = 128
 * (0.977-1.016), Llama 3 8B 0.997x (0.992-1.002); predicted 1.00-1.04: did
 * not hold at D = 64, within it or just below at D = 128. Against
 * cudnn_sdpa over the bf16 grid 0.667x (0.504-0.866).
 *
 * Profiled (no database: the figures are in the log named): Nsight
 * Compute at B=4 H=16 S=4096 bf16 non-causal
 * (reports/hopper-bwd/overlap-call1-ncu.log): D = 64 2.83 ms against
 * cuda_wgmma_bwd_overlap's 2.14 ms, tensor pipe 25.6% against 33.9% of
 * peak, warps stalled on long-scoreboard results 2.89 per issue against
 * 1.53, on the global-memory queue 0.06 against 0.03 (the atomics had not
 * been throttling); D = 128 3.09 ms against 3.07 ms. Reading, not yet
 * tested: the consumers wait (dQ-empty mbarrier) until the copies of the
 * previous share have read shared memory, and the 64 copies of 4 D bytes
 * each take longer to read their rows than 128 threads take to issue
 * float4 atomics, which need no completion before the buffer is reused;
 * at D = 64 a step is short enough for that wait to show. A second dQ
 * buffer would hide it at D = 64 (the shared memory has room there, not
 * at D = 128); rows of 256 bytes may also be below the copy engine's
 * efficient size.
 *
 * Checked as every rung: gpu_check_bwd (float64 oracle, every element,
 * FlashAttention's tolerance), compute-sanitizer memcheck, racecheck,
 * synccheck over gpu_check_bwd --small. Supported: as
 * cuda_wgmma_bwd_heads; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED. Shared memory: cuda_wgmma_bwd_ws's (rows of the
 * dQ buffer padded to D + 8 floats: 16-byte aligned sources).
 *
 * Sources: Shah et al., "FlashAttention-3" (2024), its backward's dQ
 * accumulation (read to understand, not copied); PTX ISA
 * cp.reduce.async.bulk (.global.shared::cta.bulk_group.add.f32),
 * cp.async.bulk.commit_group, cp.async.bulk.wait_group(.read),
 * fence.proxy.async.
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_bulkdq, abwgws::sched_heads, abwgws::WS_OVERLAP | abwgws::WS_BULK_DQ)
