/*
 * cuda_mma_swizzle.cu: forward attention on the tensor cores with an
 * XOR-swizzled shared-memory layout, rung "cuda_mma_swizzle" of the kernel
 * ladder.
 *
 * Idea. Exactly cuda_mma (FlashAttention-2 with mma.sync.m16n8k16, ldmatrix
 * operands, online softmax on the accumulator registers, P kept in
 * registers; Br = 64 rows per block of 4 warps, Bc = 64) with one change:
 * the Q, K, V tiles are stored in shared memory with the 16-byte chunk
 * index XORed with the row index (chunk ^ (row & 7): CUTLASS's
 * Swizzle<3,3,3> on 16-bit elements, FlashAttention-2's smem layout;
 * kernels/mma_common.cuh, tile_off). In cuda_mma each ldmatrix phase reads
 * one 16-byte chunk from 8 consecutive rows whose stride is a multiple of
 * 128 bytes, so all 8 land in the same 4 banks (8-way conflict, 8
 * wavefronts instead of 1). Swizzled, the 8 rows' chunks sit in 8 different
 * 16-byte bank groups: one wavefront. The 16-byte global->shared stores stay
 * conflict free (a row's chunks are only permuted within each 128-byte
 * segment). Since every operand of both products comes through ldmatrix,
 * this is expected to be the largest single step of the ladder on Ampere
 * and Hopper alike (public FlashAttention-2-from-scratch write-ups; seed 004
 * "SMEM Bank Conflicts: swizzle/pad shared memory layout").
 *
 * Source: Dao 2023 (FlashAttention-2); CUTLASS cute::Swizzle<3,3,3>; seed 004
 * (/work/shared/seeds/004_*.txt, priority 3). Builds on: cuda_mma (both
 * rungs instantiate one body, kernels/cuda_mma_body.cuh; this one with
 * SWIZZLE = true; everything else, synchronous loads included, is the same
 * code, so the step measures the swizzle alone).
 *
 * Any S >= 1, causal or not, D in {64, 128}, fp16 and bf16: as cuda_mma.
 *
 * Measured (reports/seeds-and-ladders/attnbench.db, NVIDIA H200, 2026-11-21,
 * hot timing, medians; run 10 ladder-d128, report
 * reports/seeds-and-ladders/ladder-d128-run10.md: D = 128, B*S = 16384, H =
 * 16, S = 512..8192, causal or not, fp16/bf16; run 9 ladder-d64, report
 * reports/seeds-and-ladders/ladder-d64-run9.md: B = 32, H = 8, D = 64, S =
 * 128..2048, fp16): 151.7-230.1 TFLOP/s over run 10's 20 configurations
 * (225.4 at B=4 S=4096 fp16 non-causal), 78.0-189.5 over run 9's 5 shapes;
 * 4.36x cuda_mma (geometric mean of the ratios of medians over run 10,
 * 3.78-4.76x). 63-83% of PyTorch flash's speed in run 10.
 *
 * The largest step of the ladder, as predicted. Profiled (Nsight Compute
 * the same day; no committed log or database; reports/seeds-and-ladders/ladder-profile.md
 * profiles every rung at another shape) at B=4 H=16 S=1024 D=128 fp16 non-causal: 19.0 M shared-load wavefronts for 4.72 M
 * ldmatrix.x4 (4.0 each, the conflict-free minimum; cuda_mma: 151.2 M, 32
 * each), 0.1 M bank conflicts (cuda_mma: 132.3 M); 184 us against 799 us;
 * tensor pipe active 32.5% of cycles (cuda_mma 7.6%). What is left is
 * exposed load latency (synchronous copies, two barriers per tile), Q
 * re-read from shared memory for every tile, per-element masking of every
 * tile, untuned tiles: cuda_mma_pipeline.
 *
 * ptxas (nvcc 13.0, sm_90a): 161 registers at D = 128, 101 at D = 64, 0
 * spill bytes; shared memory as cuda_mma (24 / 48 KiB); 128 threads.
 */
#include "cuda_mma_body.cuh"

namespace {
constexpr bool SWIZZLE = true; /* this rung: XOR-swizzled tiles (the one change) */
}

/* setup: checks the shape (fp16/bf16, D in {64, 128}, S, B, H >= 1) and
 * raises the kernels' dynamic shared-memory limit. No workspace. */
extern "C" int cuda_mma_swizzle_setup(const ab_shape *s, void **ctx, size_t *ws, char *err, size_t n)
{
    return mma_setup<SWIZZLE>("cuda_mma_swizzle", s, ctx, ws, err, n);
}

/* run: enqueues one forward pass on `stream`; 2 when the grid is too large. */
extern "C" int cuda_mma_swizzle_run(void *ctx, const ab_shape *s, const void *q, const void *k,
                                     const void *v, void *o, void *stream)
{
    (void)ctx;
    return mma_run<SWIZZLE>(s, q, k, v, o, stream);
}

extern "C" void cuda_mma_swizzle_teardown(void *ctx) { (void)ctx; }
