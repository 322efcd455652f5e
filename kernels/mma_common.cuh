/*
 * mma_common.cuh: the PTX building blocks shared by the tensor-core rungs of
 * the ladder (cuda_mma, cuda_mma_swizzle, cuda_mma_pipeline): the
 * mma.sync.m16n8k16 wrappers for fp16 and bf16 with fp32 accumulation,
 * ldmatrix (.x4, .x4.trans), cp.async (16-byte, zero-filling) with its
 * commit/wait, mbarrier (init, arrive, cp.async arrive, parity wait), the
 * float-pair atomic add (vector on sm_90, two scalars before), the
 * XOR swizzle of a shared-memory tile, and the fragment
 * layouts each kernel relies on. Header-only, device code only; each rung's
 * kernel body lives in its own .cu file.
 *
 * Fragment layouts of mma.sync.aligned.m16n8k16.row.col (PTX ISA, "Matrix
 * fragments for mma.m16n8k16"), lane = threadIdx.x % 32, g = lane / 4,
 * t = lane % 4; each 32-bit register holds two 16-bit values, the lower
 * column (k or n) index in the lower half:
 *   A (16x16, row-major)  a0: (g,   2t..2t+1)   a1: (g+8, 2t..2t+1)
 *                         a2: (g,   2t+8..+9)   a3: (g+8, 2t+8..+9)
 *   B (16x8, "col")       b0: (k=2t..2t+1, n=g) b1: (k=2t+8..+9, n=g)
 *   C/D (16x8, fp32)      c0,c1: (g, 2t..2t+1)  c2,c3: (g+8, 2t..2t+1)
 * So each row of an m16n8 accumulator is spread over the 4 lanes of a quad
 * (same g): a row reduction is the thread's own values plus two
 * __shfl_xor_sync steps (1 and 2). And the C fragments of two adjacent
 * n-tiles of S = Q K^T, converted to 16-bit pairs, are exactly the A
 * fragment of P for the next product P V (FlashAttention-2's register reuse):
 *   a0 = pack(S[2j].c0, c1)  a1 = pack(S[2j].c2, c3)
 *   a2 = pack(S[2j+1].c0, c1) a3 = pack(S[2j+1].c2, c3).
 *
 * ldmatrix.x4: lanes 8i..8i+7 give the row addresses (16 bytes each) of the
 * i-th 8x8 matrix, which lands in register i of every lane, thread t holding
 * (row t/4, cols 2(t%4)..+1), or with .trans (row 2(t%4)..+1, col t/4).
 */
#ifndef ATTNBENCH_MMA_COMMON_CUH
#define ATTNBENCH_MMA_COMMON_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

namespace abmma {

/* Per-dtype pieces: the mma instruction and float pair -> packed 16-bit. */
template <typename T> struct dtype_ops;

template <> struct dtype_ops<__half> {
    /* lo goes to the lower 16 bits (the lower k/n index). */
    static __device__ __forceinline__ uint32_t pack(float lo, float hi)
    {
        __half2 h = __floats2half2_rn(lo, hi);
        return *reinterpret_cast<uint32_t *>(&h);
    }
    /* c += a * b, m16n8k16, fp16 inputs, fp32 accumulators. */
    static __device__ __forceinline__ void mma(float c[4], const uint32_t a[4], uint32_t b0,
                                               uint32_t b1)
    {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
            "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};

template <> struct dtype_ops<__nv_bfloat16> {
    static __device__ __forceinline__ uint32_t pack(float lo, float hi)
    {
        __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
        return *reinterpret_cast<uint32_t *>(&h);
    }
    static __device__ __forceinline__ void mma(float c[4], const uint32_t a[4], uint32_t b0,
                                               uint32_t b1)
    {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
            "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};

/* Shared-memory address (32-bit, state space .shared) of a generic pointer. */
static __device__ __forceinline__ uint32_t smem_u32(const void *p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

/* Four 8x8 b16 matrices; addr is this lane's row address (16-byte aligned).
 * volatile: the result depends on shared memory the compiler cannot see. */
static __device__ __forceinline__ void ldsm_x4(uint32_t r[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

static __device__ __forceinline__ void ldsm_x4_trans(uint32_t r[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

/* 16-byte asynchronous copy global -> shared, bypassing L1 (.cg). src_bytes
 * is 16 or 0: with 0 nothing is read and the 16 shared bytes are zeroed
 * (the zero-fill of rows past the sequence end); gsrc must still be a
 * valid address. */
static __device__ __forceinline__ void cp_async16(uint32_t sdst, const void *gsrc, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(sdst), "l"(gsrc),
                 "r"(src_bytes)
                 : "memory");
}

static __device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Waits until at most N of this thread's committed groups are pending. */
template <int N> static __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/* mbarrier (shared memory, 64-bit) for the asynchronous pipeline: init by
 * one thread, then a __syncthreads before any other use. */
static __device__ __forceinline__ void mbar_init(uint32_t bar, int count)
{
    asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

/* One arrival (release semantics: this thread's earlier shared-memory reads
 * are ordered before it). */
static __device__ __forceinline__ void mbar_arrive(uint32_t bar)
{
    asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared.b64 st, [%0];\n}\n" ::"r"(bar)
                 : "memory");
}

/* The arrival of this thread happens once all of its earlier cp.async
 * copies have landed (.noinc: that arrival is one of the init count). */
static __device__ __forceinline__ void mbar_arrive_cp_async(uint32_t bar)
{
    asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\n" ::"r"(bar) : "memory");
}

/* Blocks until the phase of parity `parity` (0 for the first phase, then
 * alternating) has completed; acquire semantics. */
static __device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("{\n.reg .pred p;\nWAIT:\n"
                 "mbarrier.try_wait.parity.shared.b64 p, [%0], %1;\n"
                 "@!p bra WAIT;\n}\n" ::"r"(bar),
                 "r"(parity)
                 : "memory");
#else
    asm volatile("{\n.reg .pred p;\nWAIT:\n"
                 "mbarrier.test_wait.parity.shared.b64 p, [%0], %1;\n"
                 "@!p bra WAIT;\n}\n" ::"r"(bar),
                 "r"(parity)
                 : "memory");
#endif
}

/* dst[0] += v.x, dst[1] += v.y in global memory (dst 8-byte aligned).
 * sm_90 and later: one vector atomic (atomicAdd(float2 *), CUDA
 * Programming Guide, "atomicAdd"; declared from nvcc 12.1 on), half the
 * atomic transactions; earlier targets or nvcc 12.0: two scalar float
 * atomics, the same sums. Each element is added atomically in either path;
 * the pair is not one indivisible update. */
static __device__ __forceinline__ void atomic_add_f2(float *dst, float2 v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 1))
    atomicAdd(reinterpret_cast<float2 *>(dst), v);
#else
    atomicAdd(dst, v.x);
    atomicAdd(dst + 1, v.y);
#endif
}

/* 2^x on the special-function unit (ex2.approx.ftz: ~2 ulp, -inf -> +0). */
static __device__ __forceinline__ float fast_exp2(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

/* Byte offset of the 16-byte chunk `chunk` of row `row` in a row-major tile
 * of ROW_BYTES bytes per row (a multiple of 128).
 * Plain: row * ROW_BYTES + chunk * 16.
 * Swizzled (CUTLASS Swizzle<3,3,3> on 16-bit elements, FlashAttention-2's
 * shared-memory layout): the chunk index's low 3 bits are XORed with the
 * row's low 3 bits, so the 8 rows an ldmatrix phase reads (same logical
 * chunk, 8 consecutive rows) land in 8 different 16-byte bank groups, and
 * a row's 8 chunks of one 128-byte segment stay a permutation of it (the
 * 16-byte global->shared stores of consecutive lanes stay conflict free). */
template <int ROW_BYTES, bool SWIZZLE>
static __device__ __forceinline__ uint32_t tile_off(int row, int chunk)
{
    static_assert(ROW_BYTES % 128 == 0, "rows must be whole 128-byte segments");
    return (uint32_t)(row * ROW_BYTES + ((SWIZZLE ? (chunk ^ (row & 7)) : chunk) << 4));
}

} /* namespace abmma */

#endif
