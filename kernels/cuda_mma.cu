/*
 * cuda_mma.cu: forward attention on the tensor cores, rung "cuda_mma" of the
 * kernel ladder: FlashAttention-2's algorithm with mma.sync.
 *
 * Idea. FlashAttention-2 (Dao 2023, "FlashAttention-2: Faster Attention with
 * Better Parallelism and Work Partitioning", Algorithm 1) with the two
 * products on the tensor cores through inline PTX
 * mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16} (kernels/mma_common.cuh),
 * fp32 accumulation. One block of 4 warps per (query tile of Br = 64 rows,
 * b, h); each warp owns 16 query rows. For each key/value tile of Bc = 64
 * rows, staged in shared memory, a warp computes its 16 x 64 block of
 * S = Q K^T with its Q and K fragments loaded by ldmatrix.x4, does the online
 * softmax directly on the accumulator registers (each row of an m16n8 C
 * fragment lives in the 4 lanes of a quad: row max and row sum are the
 * thread's values plus two __shfl_xor_sync), converts P to fp16/bf16 in
 * registers, where the C fragments of two n-tiles are exactly the A
 * fragment of the next product, and accumulates O += P V with V fragments
 * from ldmatrix.x4.trans: P never goes through shared memory. O is
 * normalised by the row sums at the end and stored in the dtype.
 *
 * Source: Dao 2023 (above); seed 004 (/work/shared/seeds/004_*.txt,
 * "Optimization Priorities": tensor cores through mma.sync and ldmatrix);
 * PTX ISA, "Matrix fragments for mma.m16n8k16". Builds on the ladder's
 * CUDA-core FlashAttention-2 rung (cuda_fa2_warps: same work partition,
 * warps own query rows) by moving both products onto the tensor cores.
 *
 * Deliberately unoptimised on one point: Q, K, V tiles sit in shared memory
 * plain row-major (row stride D*2 = 128 or 256 bytes), so the 8 row
 * addresses of each ldmatrix phase all fall in the same 4 banks: every
 * ldmatrix is an 8-way bank conflict. The next rung (cuda_mma_swizzle)
 * removes exactly that. Loads are synchronous (global -> registers ->
 * shared, two __syncthreads per tile); Q fragments are re-read from shared
 * memory for every key tile; every tile is masked element-wise.
 *
 * Any S >= 1: the last partial key tile is zero-filled and its columns >= S
 * masked to -inf, query rows >= S are computed on zeros and not stored.
 * Causal (key j > query i masked) stops at the tile holding the block's last
 * diagonal element. D in {64, 128}; fp16 and bf16 (templated).
 *
 * Measured (reports/seeds-and-ladders/attnbench.db, NVIDIA H200, 2026-11-21,
 * hot timing, medians; run 10 ladder-d128, report
 * reports/seeds-and-ladders/ladder-d128-run10.md: D = 128, B*S = 16384, H =
 * 16, S = 512..8192, causal or not, fp16/bf16; run 9 ladder-d64, report
 * reports/seeds-and-ladders/ladder-d64-run9.md: B = 32, H = 8, D = 64, S =
 * 128..2048, fp16): 40.0-49.2 TFLOP/s over run 10's 20 configurations (49.2
 * at B=4 S=4096 fp16 non-causal), 35.6-48.4 over run 9's 5 shapes; 1.59x
 * cuda_fa2_warps (geometric mean of the ratios of medians over run 10,
 * 1.44-1.74x). 14-22% of PyTorch flash's speed in run 10, 3.8-4.8x slower
 * than cuda_mma_swizzle.
 *
 * Profiled (Nsight Compute the same day; no committed log or database;
 * reports/seeds-and-ladders/ladder-profile.md profiles every rung at another shape) at B=4
 * H=16 S=1024 D=128 fp16 non-causal: 4.72 M
 * ldmatrix.x4, 151.2 M shared-load wavefronts (32 per ldmatrix.x4, 8x the
 * conflict-free 4), of which 132.3 M are bank conflicts; 799 us; tensor pipe
 * active 7.6% of cycles (cuda_mma_swizzle: 19.0 M wavefronts, 0.1 M
 * conflicts, 184 us, 32.5%). The bank conflicts are the whole story of this
 * rung.
 *
 * ptxas (nvcc 13.0, sm_90a): 135 registers at D = 128, 101 (119 causal) at
 * D = 64, 0 spill bytes; dynamic shared memory (64 + 2 * 64) * D * 2 bytes
 * (24 KiB at D = 64, 48 KiB at D = 128); 128 threads per block.
 */
#include "cuda_mma_body.cuh"

namespace {
constexpr bool SWIZZLE = false; /* this rung: plain row-major tiles */
}

/* setup: checks the shape (fp16/bf16, D in {64, 128}, S, B, H >= 1) and
 * raises the kernels' dynamic shared-memory limit. No workspace. */
extern "C" int cuda_mma_setup(const ab_shape *s, void **ctx, size_t *ws, char *err, size_t n)
{
    return mma_setup<SWIZZLE>("cuda_mma", s, ctx, ws, err, n);
}

/* run: enqueues one forward pass on `stream`; 2 when the grid is too large. */
extern "C" int cuda_mma_run(void *ctx, const ab_shape *s, const void *q, const void *k,
                             const void *v, void *o, void *stream)
{
    (void)ctx;
    return mma_run<SWIZZLE>(s, q, k, v, o, stream);
}

extern "C" void cuda_mma_teardown(void *ctx) { (void)ctx; }
