/*
 * wgmma_common.cuh: the Hopper (sm_90a) building blocks shared by the
 * wgmma rungs of the ladder (cuda_wgmma, cuda_wgmma_tma, cuda_wgmma_ws,
 * cuda_wgmma_pingpong, cuda_wgmma_persistent):
 * warpgroup MMA (wgmma.mma_async m64nNk16, fp16/bf16 in, fp32 out) with
 * shared-memory matrix descriptors, the 128-byte-swizzled tile layout those
 * descriptors and the TMA engine share, TMA tensor loads completing on an
 * mbarrier, setmaxnreg and named barriers, the host-side tensor-map
 * encoder, and the consumer warpgroup's work on one key/value tile
 * (S = Q K^T, mask, online softmax on the accumulators, O += P V with P
 * from registers) plus the epilogue, whole (wg_tile) or in the pieces the
 * overlapping rungs interleave (wg_issue_qk, wg_issue_pv, wg_softmax,
 * wg_pack_p). Header-only; each rung's kernel (how
 * tiles reach shared memory and who waits for whom) is its own .cu file.
 *
 * Sources: PTX ISA 8.x, "Asynchronous Warpgroup Level Matrix Multiply-
 * Accumulate" (wgmma.mma_async, register fragments, matrix descriptor
 * bit fields: start address >> 4 in bits 0-13, leading byte offset >> 4
 * in 16-29, stride byte offset >> 4 in 32-45, swizzle mode in 62-63 with
 * 1 = 128B), "cp.async.bulk.tensor", "mbarrier" (expect_tx/complete_tx),
 * "setmaxnreg"; CUDA driver API cuTensorMapEncodeTiled; CUTLASS's
 * description of the canonical GMMA layouts (cute/atom/mma_traits_sm90_gmma.hpp,
 * comment of make_gmma_desc): K-major SW128 is ((8,m),(T,2k)):((8T,SBO),(1,T))
 * (SBO = bytes between 8-row groups, LBO unused), MN-major SW128 is
 * ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)) (LBO = bytes between 64-element
 * column blocks, SBO = bytes between 8-row groups along K). Read to
 * understand, not copied.
 *
 * Tile layout ("sw128", both operands, cp.async and TMA alike): a tile of
 * R rows x D 16-bit columns is stored as D/64 column blocks of R x 64
 * (cb at byte cb * R * 128); row r of a block is 128 bytes at r * 128, its
 * 16-byte chunk c (columns 8c..8c+7) at ((c ^ (r & 7)) << 4). This is
 * TMA's CU_TENSOR_MAP_SWIZZLE_128B for a box of {64, R} and wgmma's 128B
 * swizzle; the XOR uses address bits 7-9, so every block starts on a
 * 1024-byte boundary. K-step kk (16 columns) of a K-major operand is the
 * descriptor of block kk / 4 advanced by (kk % 4) * 32 bytes.
 *
 * Accumulator fragment of wgmma m64nN f32 (PTX ISA, "Matrix fragments for
 * wgmma .m64nNk16"): warp w of the warpgroup owns rows 16w..16w+15;
 * lane = 4g + t holds d[4n + e] = (row 16w + g + 8 (e >> 1), column
 * 8n + 2t + (e & 1)): per 8 columns the mma.sync m16n8 C layout. The A
 * register fragment (m64k16) is per warp the mma.sync m16n8k16 A
 * fragment, so the S accumulators of 16 keys packed to 16-bit pairs are
 * the A operand of P V (FlashAttention-2's register reuse, FlashAttention-3
 * section 3.1 does the same with wgmma).
 */
#ifndef ATTNBENCH_WGMMA_COMMON_CUH
#define ATTNBENCH_WGMMA_COMMON_CUH

#include "mma_common.cuh"
#include "soft_exp2.h"
#include "variant.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

/* The device code of the wgmma rungs exists only in the sm_90a pass of a
 * multi-target build; other passes compile empty kernels (never launched:
 * setup refuses devices other than compute capability 9.0). */
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define AB_WGMMA_DEVICE 1
#else
#define AB_WGMMA_DEVICE 0
#endif

namespace abwg {

using abmma::cp_async16;
using abmma::cp_async_commit;
using abmma::cp_async_wait;
using abmma::dtype_ops;
using abmma::fast_exp2;
using abmma::mbar_init;
using abmma::mbar_wait;
using abmma::smem_u32;

/* ---- wgmma ------------------------------------------------------------- */

/* wgmma.mma_async for element type T (fp16 or bf16) and N columns (64,
 * 128; 176 for ss only), fp32 accumulators d[N / 2] (layout in the file header). scale_d 0:
 * d = A B (the accumulators' old values ignored), otherwise d += A B.
 * TRANS_B 0: B is K-major (rows of B^T contiguous, e.g. K for Q K^T);
 * 1: B is MN-major (e.g. V for P V). Issue only between wg_fence() and
 * wg_commit(); the results are valid after wg_wait<...>(). */
template <typename T, int N> struct wgmma_op;

template <> struct wgmma_op<__half, 64> {
    /* d (+)= A B, A and B by descriptor; trans_b 1: B is MN-major */
    template <int TRANS_B>
    static __device__ __forceinline__ void ss(float (&d)[32], uint64_t da, uint64_t db, int scale_d)
    {
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
                     "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, %35;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                     : "l"(da), "l"(db), "r"(scale_d), "n"(TRANS_B));
    }
    /* d (+)= A B, A (64 x 16) from registers in the mma.sync A-fragment layout
     * per warp (warp w of the warpgroup holds rows 16w..16w+15) */
    template <int TRANS_B>
    static __device__ __forceinline__ void rs(float (&d)[32], const uint32_t (&a)[4], uint64_t db, int scale_d)
    {
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
                     "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, p, 1, 1, %38;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d), "n"(TRANS_B));
    }
};

template <> struct wgmma_op<__nv_bfloat16, 64> {
    /* d (+)= A B, A and B by descriptor; trans_b 1: B is MN-major */
    template <int TRANS_B>
    static __device__ __forceinline__ void ss(float (&d)[32], uint64_t da, uint64_t db, int scale_d)
    {
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
                     "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, %35;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                     : "l"(da), "l"(db), "r"(scale_d), "n"(TRANS_B));
    }
    /* d (+)= A B, A (64 x 16) from registers in the mma.sync A-fragment layout
     * per warp (warp w of the warpgroup holds rows 16w..16w+15) */
    template <int TRANS_B>
    static __device__ __forceinline__ void rs(float (&d)[32], const uint32_t (&a)[4], uint64_t db, int scale_d)
    {
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
                     "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, p, 1, 1, %38;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d), "n"(TRANS_B));
    }
};

template <> struct wgmma_op<__half, 128> {
    /* d (+)= A B, A and B by descriptor; trans_b 1: B is MN-major */
    template <int TRANS_B>
    static __device__ __forceinline__ void ss(float (&d)[64], uint64_t da, uint64_t db, int scale_d)
    {
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
                     "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1, 0, %67;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                     : "l"(da), "l"(db), "r"(scale_d), "n"(TRANS_B));
    }
    /* d (+)= A B, A (64 x 16) from registers in the mma.sync A-fragment layout
     * per warp (warp w of the warpgroup holds rows 16w..16w+15) */
    template <int TRANS_B>
    static __device__ __forceinline__ void rs(float (&d)[64], const uint32_t (&a)[4], uint64_t db, int scale_d)
    {
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
                     "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, {%64,%65,%66,%67}, %68, p, 1, 1, %70;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d), "n"(TRANS_B));
    }
};

template <> struct wgmma_op<__nv_bfloat16, 128> {
    /* d (+)= A B, A and B by descriptor; trans_b 1: B is MN-major */
    template <int TRANS_B>
    static __device__ __forceinline__ void ss(float (&d)[64], uint64_t da, uint64_t db, int scale_d)
    {
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
                     "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1, 0, %67;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                     : "l"(da), "l"(db), "r"(scale_d), "n"(TRANS_B));
    }
    /* d (+)= A B, A (64 x 16) from registers in the mma.sync A-fragment layout
     * per warp (warp w of the warpgroup holds rows 16w..16w+15) */
    template <int TRANS_B>
    static __device__ __forceinline__ void rs(float (&d)[64], const uint32_t (&a)[4], uint64_t db, int scale_d)
    {
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
                     "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, {%64,%65,%66,%67}, %68, p, 1, 1, %70;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d), "n"(TRANS_B));
    }
};

/* N = 176 (88 accumulators a thread), descriptor operands only: the Q K^T
 * of cuda_wgmma_widekv's 176-key tiles (FlashAttention-3's non-causal
 * D = 128 tile width). */
template <> struct wgmma_op<__half, 176> {
    /* d (+)= A B, A and B by descriptor; trans_b 1: B is MN-major */
    template <int TRANS_B>
    static __device__ __forceinline__ void ss(float (&d)[88], uint64_t da, uint64_t db, int scale_d)
    {
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %90, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n176k16.f32.f16.f16 "
                     "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87}, %88, %89, p, 1, 1, 0, %91;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87])
                     : "l"(da), "l"(db), "r"(scale_d), "n"(TRANS_B));
    }
};

template <> struct wgmma_op<__nv_bfloat16, 176> {
    /* d (+)= A B, A and B by descriptor; trans_b 1: B is MN-major */
    template <int TRANS_B>
    static __device__ __forceinline__ void ss(float (&d)[88], uint64_t da, uint64_t db, int scale_d)
    {
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %90, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n176k16.f32.bf16.bf16 "
                     "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87}, %88, %89, p, 1, 1, 0, %91;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87])
                     : "l"(da), "l"(db), "r"(scale_d), "n"(TRANS_B));
    }
};

/* Orders this warpgroup's earlier register writes (accumulators, A
 * fragments) before the wgmma that follow. */
static __device__ __forceinline__ void wg_fence()
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
/* Closes the group of wgmma issued since the last commit. */
static __device__ __forceinline__ void wg_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
/* Waits until at most N committed wgmma groups are pending. */
template <int N> static __device__ __forceinline__ void wg_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
/* Keeps the compiler from moving reads or writes of r across a wgmma
 * wait (the asm of wgmma names them, the wait does not). */
template <int R> static __device__ __forceinline__ void reg_fence(float (&r)[R])
{
#pragma unroll
    for (int i = 0; i < R; i++)
        asm volatile("" : "+f"(r[i])::"memory");
}
/* Makes this thread's generic-proxy shared-memory writes (st.shared,
 * cp.async) visible to the async proxy (wgmma, TMA) after a barrier. */
static __device__ __forceinline__ void fence_proxy_async()
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* Descriptor of a 128B-swizzled operand at shared address addr (16-byte
 * units in the fields; lbo/sbo in bytes, see the file header for which is
 * which for K-major and MN-major operands). */
static __device__ __forceinline__ uint64_t desc_sw128(uint32_t addr, uint32_t lbo, uint32_t sbo)
{
    return (uint64_t)((addr & 0x3FFFFu) >> 4) | ((uint64_t)((lbo >> 4) & 0x3FFFu) << 16) |
           ((uint64_t)((sbo >> 4) & 0x3FFFu) << 32) | ((uint64_t)1 << 62);
}

/* The same descriptor as two 32-bit words, for operands stepped through
 * by adding constants: desc_lo holds the start address (bits 0-13, in 16
 * bytes) and the leading byte offset, desc_hi the stride byte offset and
 * the 128B-swizzle mode. A shared address below 256 KiB (every one on
 * sm_90) leaves the address field room for any in-bounds offset, so
 * desc_lo(addr, lbo) + (off >> 4) == desc_lo(addr + off, lbo) for a
 * 16-byte-aligned off: one integer add per k-step instead of the mask,
 * shift and merge of desc_sw128 (CUTLASS's descriptor iterator does the
 * same; PTX ISA 8.x, "Matrix Descriptor Format"). */
static __device__ __forceinline__ uint32_t desc_lo(uint32_t addr, uint32_t lbo)
{
    return ((addr & 0x3FFFFu) >> 4) | (((lbo >> 4) & 0x3FFFu) << 16);
}
static __host__ __device__ constexpr uint32_t desc_hi(uint32_t sbo)
{
    return ((sbo >> 4) & 0x3FFFu) | (1u << 30);
}
static __device__ __forceinline__ uint64_t desc_make(uint32_t lo, uint32_t hi)
{
    return ((uint64_t)hi << 32) | lo;
}

/* Byte offset of 16-byte chunk c of row r in an sw128 tile of R rows. */
template <int R> static __device__ __forceinline__ uint32_t sw128_off(int r, int c)
{
    return (uint32_t)((c >> 3) * R * 128 + r * 128 + (((c & 7) ^ (r & 7)) << 4));
}

/* ---- TMA, mbarrier, registers, named barriers ------------------------- */

/* After mbarrier.init by one thread, before the barrier is used by the TMA
 * engine (then a __syncthreads). */
static __device__ __forceinline__ void fence_mbar_init()
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
/* This thread's arrival on bar, announcing `bytes` more transaction bytes
 * that the phase must receive before it completes. */
static __device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar),
                 "r"(bytes)
                 : "memory");
}
/* One box of a 3-D tensor map (coordinates innermost first: column, row,
 * slice) into shared memory at dst; the bytes complete_tx on bar. Rows
 * past the tensor's extent are zero-filled (and still counted). */
static __device__ __forceinline__ void tma_load_3d(uint32_t dst, const CUtensorMap *map,
                                                   uint32_t bar, int c0, int c1, int c2)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(dst),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
}
/* Register reallocation for the whole warpgroup (sm_90a): the kernel needs
 * a register cap at entry (__launch_bounds__(threads, 1)). */
template <int R> static __device__ __forceinline__ void setmaxnreg_inc()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R));
}
template <int R> static __device__ __forceinline__ void setmaxnreg_dec()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R));
}
/* Named barrier id (1..15; 0 is __syncthreads) among n threads (multiple
 * of 32). */
static __device__ __forceinline__ void named_sync(int id, int n)
{
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(n) : "memory");
}

/* ---- the consumer warpgroup's work ------------------------------------ */

/* Geometry of one consumer warpgroup: 64 query rows. */
struct wg_geo {
    uint32_t uQ;  /* shared address of the block's Q tile (sw128, BR rows) */
    int wrow;     /* first local query row of the warpgroup (64 * index) */
    int row0;     /* global query row of this thread's d[4n + 0..1] */
    int t;        /* lane % 4 */
};

/* One key/value tile of BC keys starting at key k0 for one warpgroup:
 *   S = Q K^T (64 x BC, D/16 wgmma k-steps, both operands K-major sw128),
 *   the mask when MASK (columns >= S_len; causal: column > row),
 *   the online softmax in the exp2 domain (m in log2 units; scale_log2 =
 *   log2(e)/sqrt(D)), FlashAttention-2's rescale of O and l,
 *   O += P V (BC/16 wgmma k-steps, P from registers, V MN-major sw128).
 * uK, uV: shared addresses of the K and V tiles (sw128, BC rows). BR: rows
 * of the block's Q tile. Both wgmma groups are waited for before return.
 * Method: FlashAttention-2 (Dao 2023) Algorithm 1 lines 8-10 with wgmma
 * as in FlashAttention-3 (Shah et al. 2024) section 3 without the
 * intra-warpgroup overlap. */
template <typename T, int D, int BC, int BR, bool CAUSAL, bool MASK>
static __device__ __forceinline__ void wg_tile(float (&o)[D / 2], float (&m)[2], float (&l)[2],
                                               const wg_geo &g, uint32_t uK, uint32_t uV, int k0,
                                               int S, float scale_log2)
{
    using ops = dtype_ops<T>;
    float s[BC / 2];
    /* S = Q K^T */
    wg_fence();
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++) {
        const uint64_t dq = desc_sw128(g.uQ + (kk >> 2) * BR * 128 + g.wrow * 128 + (kk & 3) * 32,
                                       16, 1024);
        const uint64_t dk = desc_sw128(uK + (kk >> 2) * BC * 128 + (kk & 3) * 32, 16, 1024);
        wgmma_op<T, BC>::template ss<0>(s, dq, dk, kk > 0);
    }
    wg_commit();
    wg_wait<0>();
    reg_fence(s);

    if constexpr (MASK) {
#pragma unroll
        for (int i = 0; i < BC / 2; i++) {
            const int col = k0 + (i >> 2) * 8 + 2 * g.t + (i & 1);
            const int row = g.row0 + ((i >> 1) & 1) * 8;
            if (col >= S || (CAUSAL && col > row))
                s[i] = -INFINITY;
        }
    }

    /* online softmax: p = 2^(s * scale_log2 - m) */
#pragma unroll
    for (int h = 0; h < 2; h++) {
        float mx = -INFINITY;
#pragma unroll
        for (int n = 0; n < BC / 8; n++)
            mx = fmaxf(mx, fmaxf(s[4 * n + 2 * h], s[4 * n + 2 * h + 1]));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        const float mnew = fmaxf(m[h], mx * scale_log2);
        /* a row with nothing unmasked yet keeps m = -inf: use 0 as the base */
        const float mb = (MASK && mnew == -INFINITY) ? 0.f : mnew;
        const float corr = fast_exp2(m[h] - mb);
        m[h] = mnew;
        float ls = 0.f;
#pragma unroll
        for (int n = 0; n < BC / 8; n++) {
            s[4 * n + 2 * h] = fast_exp2(fmaf(s[4 * n + 2 * h], scale_log2, -mb));
            s[4 * n + 2 * h + 1] = fast_exp2(fmaf(s[4 * n + 2 * h + 1], scale_log2, -mb));
            ls += s[4 * n + 2 * h] + s[4 * n + 2 * h + 1];
        }
        l[h] = l[h] * corr + ls;
#pragma unroll
        for (int n = 0; n < D / 8; n++) {
            o[4 * n + 2 * h] *= corr;
            o[4 * n + 2 * h + 1] *= corr;
        }
    }

    /* O += P V: P (16-bit) from the accumulators, 16 keys per k-step */
    uint32_t p[BC / 16][4];
#pragma unroll
    for (int kk = 0; kk < BC / 16; kk++) {
        p[kk][0] = ops::pack(s[8 * kk + 0], s[8 * kk + 1]);
        p[kk][1] = ops::pack(s[8 * kk + 2], s[8 * kk + 3]);
        p[kk][2] = ops::pack(s[8 * kk + 4], s[8 * kk + 5]);
        p[kk][3] = ops::pack(s[8 * kk + 6], s[8 * kk + 7]);
    }
    wg_fence();
#pragma unroll
    for (int kk = 0; kk < BC / 16; kk++) {
        const uint64_t dv = desc_sw128(uV + kk * 16 * 128, BC * 128, 1024);
        wgmma_op<T, D>::template rs<1>(o, p[kk], dv, 1);
    }
    wg_commit();
    wg_wait<0>();
    reg_fence(o);
}

/* The pieces of wg_tile for a warpgroup that overlaps them (FlashAttention-3
 * section 3.2, intra-warpgroup pipelining): issue S = Q K^T without
 * waiting (one committed group); issue O += P V without waiting (one
 * committed group); the softmax of S alone (mask, max, exp2, l) returning
 * the rescale factor of O instead of applying it, so it can run while the
 * P V of the previous tile still writes O. Same contracts as wg_tile. */
template <typename T, int D, int BC, int BR>
static __device__ __forceinline__ void wg_issue_qk(float (&s)[BC / 2], const wg_geo &g,
                                                   uint32_t uK)
{
    wg_fence();
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++) {
        const uint64_t dq = desc_sw128(g.uQ + (kk >> 2) * BR * 128 + g.wrow * 128 + (kk & 3) * 32,
                                       16, 1024);
        const uint64_t dk = desc_sw128(uK + (kk >> 2) * BC * 128 + (kk & 3) * 32, 16, 1024);
        wgmma_op<T, BC>::template ss<0>(s, dq, dk, kk > 0);
    }
    wg_commit();
}

template <typename T, int D, int BC>
static __device__ __forceinline__ void wg_issue_pv(float (&o)[D / 2],
                                                   const uint32_t (&p)[BC / 16][4], uint32_t uV)
{
    wg_fence();
#pragma unroll
    for (int kk = 0; kk < BC / 16; kk++) {
        const uint64_t dv = desc_sw128(uV + kk * 16 * 128, BC * 128, 1024);
        wgmma_op<T, D>::template rs<1>(o, p[kk], dv, 1);
    }
    wg_commit();
}

/* wg_issue_qk and wg_issue_pv with the operands' descriptors given as
 * low words (desc_lo) and stepped by constant adds: q_lo of the
 * warpgroup's 64 rows of the Q tile (desc_lo(uQ + wrow * 128, 16)), k_lo
 * of the K tile (desc_lo(uK, 16)), v_lo of the V tile
 * (desc_lo(uV, BC * 128)). Same products, same contracts. */
template <typename T, int D, int BC, int BR>
static __device__ __forceinline__ void wg_issue_qk_lo(float (&s)[BC / 2], uint32_t q_lo,
                                                      uint32_t k_lo)
{
    constexpr uint32_t HI = desc_hi(1024);
    wg_fence();
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++) {
        const uint64_t dq = desc_make(q_lo + (uint32_t)(((kk >> 2) * BR * 128 + (kk & 3) * 32) >> 4), HI);
        const uint64_t dk = desc_make(k_lo + (uint32_t)(((kk >> 2) * BC * 128 + (kk & 3) * 32) >> 4), HI);
        wgmma_op<T, BC>::template ss<0>(s, dq, dk, kk > 0);
    }
    wg_commit();
}

template <typename T, int D, int BC>
static __device__ __forceinline__ void wg_issue_pv_lo(float (&o)[D / 2],
                                                      const uint32_t (&p)[BC / 16][4], uint32_t v_lo)
{
    constexpr uint32_t HI = desc_hi(1024);
    wg_fence();
#pragma unroll
    for (int kk = 0; kk < BC / 16; kk++)
        wgmma_op<T, D>::template rs<1>(o, p[kk], desc_make(v_lo + (uint32_t)(kk * 16 * 128 >> 4), HI), 1);
    wg_commit();
}

/* Keeps the A fragments of an issued P V alive (their registers not
 * reused) until after the wgmma wait that follows. */
template <int R> static __device__ __forceinline__ void reg_fence_u(uint32_t (&r)[R][4])
{
#pragma unroll
    for (int i = 0; i < R; i++)
#pragma unroll
        for (int x = 0; x < 4; x++)
            asm volatile("" : "+r"(r[i][x])::"memory");
}

/* Online softmax of one tile's scores in place (s becomes P in fp32),
 * updating m and l; corr[h] is what O's rows must be multiplied by
 * before the next P V is added. With MASK, columns >= Skv (the keys) are
 * masked and, when CAUSAL, columns > row + shift: shift = S_kv - S aligns
 * the causal mask to the bottom-right corner of the S x S_kv scores
 * (src/core/variant.h; 0 for S_kv = S). A row whose every column so far is
 * masked keeps m = -inf and l = 0 (its O stays 0). EMU > 0: the columns of
 * every EMU-th group of 8 (n % EMU == EMU - 1, 1 / EMU of them) take
 * ab_soft_exp2 (kernels/soft_exp2.h) instead of ex2.approx, moving that
 * share of the exponentials off the MUFU unit (16 a clock per SM, as many
 * as the tensor cores' products need at D = 64). ILP: the row maximum and
 * the row sum over the thread's BC / 4 columns of a row in four
 * independent partial results (dependent chains of about BC / 16
 * operations instead of BC / 8), combined at the end; the sum's rounding
 * order changes, nothing else. ROW 0 or 1: only that row of the
 * thread's two (d[4n + 0..1] or d[4n + 2..3]), for a caller that splits
 * the softmax around other work (unmasked tiles only). */
template <int BC, bool CAUSAL, bool MASK, int EMU = 0, bool ILP = false, int ROW = -1>
static __device__ __forceinline__ void wg_softmax(float (&s)[BC / 2], float (&m)[2],
                                                  float (&l)[2], float (&corr)[2],
                                                  const wg_geo &g, int k0, int Skv,
                                                  float scale_log2, int shift = 0)
{
    static_assert(!MASK || ROW < 0, "the mask is applied by a call for both rows");
    if constexpr (MASK) {
#pragma unroll
        for (int i = 0; i < BC / 2; i++) {
            const int col = k0 + (i >> 2) * 8 + 2 * g.t + (i & 1);
            const int row = g.row0 + ((i >> 1) & 1) * 8;
            if (col >= Skv || (CAUSAL && col > row + shift))
                s[i] = -INFINITY;
        }
    }
#pragma unroll
    for (int h = 0; h < 2; h++) {
        if (ROW >= 0 && h != ROW)
            continue;
        float mx = -INFINITY;
        if constexpr (ILP) {
            static_assert(BC % 16 == 0, "ILP pairs the thread's groups of 8 columns");
            float m4[4] = {s[2 * h], s[2 * h + 1], s[4 + 2 * h], s[4 + 2 * h + 1]};
#pragma unroll
            for (int n = 2; n < BC / 8; n += 2) {
                m4[0] = fmaxf(m4[0], s[4 * n + 2 * h]);
                m4[1] = fmaxf(m4[1], s[4 * n + 2 * h + 1]);
                m4[2] = fmaxf(m4[2], s[4 * n + 4 + 2 * h]);
                m4[3] = fmaxf(m4[3], s[4 * n + 4 + 2 * h + 1]);
            }
            mx = fmaxf(fmaxf(m4[0], m4[1]), fmaxf(m4[2], m4[3]));
        } else {
#pragma unroll
            for (int n = 0; n < BC / 8; n++)
                mx = fmaxf(mx, fmaxf(s[4 * n + 2 * h], s[4 * n + 2 * h + 1]));
        }
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        const float mnew = fmaxf(m[h], mx * scale_log2);
        const float mb = (MASK && mnew == -INFINITY) ? 0.f : mnew;
        corr[h] = fast_exp2(m[h] - mb);
        m[h] = mnew;
        float ls = 0.f;
        float l4[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
        for (int n = 0; n < BC / 8; n++) {
            if (EMU > 0 && n % (EMU > 0 ? EMU : 1) == EMU - 1) {
                s[4 * n + 2 * h] = ab_soft_exp2(fmaf(s[4 * n + 2 * h], scale_log2, -mb), MASK);
                s[4 * n + 2 * h + 1] =
                    ab_soft_exp2(fmaf(s[4 * n + 2 * h + 1], scale_log2, -mb), MASK);
            } else {
                s[4 * n + 2 * h] = fast_exp2(fmaf(s[4 * n + 2 * h], scale_log2, -mb));
                s[4 * n + 2 * h + 1] = fast_exp2(fmaf(s[4 * n + 2 * h + 1], scale_log2, -mb));
            }
            if constexpr (ILP) {
                l4[2 * (n & 1)] += s[4 * n + 2 * h];
                l4[2 * (n & 1) + 1] += s[4 * n + 2 * h + 1];
            } else {
                ls += s[4 * n + 2 * h] + s[4 * n + 2 * h + 1];
            }
        }
        if constexpr (ILP)
            ls = (l4[0] + l4[1]) + (l4[2] + l4[3]);
        l[h] = l[h] * corr[h] + ls;
    }
}

/* O (accumulator layout, D / 2 a thread) times the softmax's correction of
 * its two rows (corr[0] for elements 4n, 4n + 1; corr[1] for 4n + 2, 4n + 3). */
template <int D>
static __device__ __forceinline__ void wg_rescale_o(float (&o)[D / 2], const float (&corr)[2])
{
#pragma unroll
    for (int n = 0; n < D / 8; n++) {
        o[4 * n] *= corr[0];
        o[4 * n + 1] *= corr[0];
        o[4 * n + 2] *= corr[1];
        o[4 * n + 3] *= corr[1];
    }
}

/* P (fp32, accumulator layout) -> 16-bit A fragments, 16 keys per k-step. */
template <typename T, int BC>
static __device__ __forceinline__ void wg_pack_p(const float (&s)[BC / 2], uint32_t (&p)[BC / 16][4])
{
    using ops = dtype_ops<T>;
#pragma unroll
    for (int kk = 0; kk < BC / 16; kk++) {
        p[kk][0] = ops::pack(s[8 * kk + 0], s[8 * kk + 1]);
        p[kk][1] = ops::pack(s[8 * kk + 2], s[8 * kk + 3]);
        p[kk][2] = ops::pack(s[8 * kk + 4], s[8 * kk + 5]);
        p[kk][3] = ops::pack(s[8 * kk + 6], s[8 * kk + 7]);
    }
}

/* Named-barrier arrive without waiting (the producer side of bar.sync). */
static __device__ __forceinline__ void named_arrive(int id, int n)
{
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(n) : "memory");
}

/* Epilogue of one consumer warpgroup: O / l in 16-bit, staged through the
 * warpgroup's own 64 rows of the Q tile (sw128, conflict-free 4-byte
 * stores) and written with 16-byte stores, rows >= S skipped. wtid: thread
 * index within the warpgroup (0..127); bar_id: a named barrier for the
 * warpgroup's 128 threads. The caller guarantees that no wgmma still
 * reads the Q tile. */
template <typename T, int D, int BR>
static __device__ __forceinline__ void wg_store_o(const float (&o)[D / 2], const float (&l)[2],
                                                  const wg_geo &g, unsigned char *sQ, int wtid,
                                                  int bar_id, T *Ob, int q0, int S)
{
    using ops = dtype_ops<T>;
    const int lrow = g.wrow + (wtid >> 5) * 16 + ((wtid & 31) >> 2);
#pragma unroll
    for (int h = 0; h < 2; h++) {
        float lt = l[h];
        lt += __shfl_xor_sync(0xffffffffu, lt, 1);
        lt += __shfl_xor_sync(0xffffffffu, lt, 2);
        const float inv = lt > 0.f ? 1.f / lt : 0.f;
        const int r = lrow + 8 * h;
#pragma unroll
        for (int n = 0; n < D / 8; n++)
            *reinterpret_cast<uint32_t *>(sQ + sw128_off<BR>(r, n) + 4 * g.t) =
                ops::pack(o[4 * n + 2 * h] * inv, o[4 * n + 2 * h + 1] * inv);
    }
    named_sync(bar_id, 128);
    constexpr int CH = D / 8;
#pragma unroll
    for (int it = 0; it < 64 * CH / 128; it++) {
        const int i = wtid + it * 128, r = i / CH, c = i % CH;
        const int grow = q0 + g.wrow + r;
        if (grow < S)
            *reinterpret_cast<uint4 *>(Ob + (size_t)grow * D + c * 8) =
                *reinterpret_cast<const uint4 *>(sQ + sw128_off<BR>(g.wrow + r, c));
    }
}

} /* namespace abwg */

/* ---- host ---------------------------------------------------------------- */

/* Encodes a TMA descriptor for a [BH, S, D] 16-bit tensor at gptr (D
 * contiguous): 3-D {D, S, BH}, box {64, rows, 1}, 128-byte swizzle,
 * out-of-range rows zero-filled. The driver's cuTensorMapEncodeTiled is
 * looked up once through the runtime (no link against libcuda). Returns 0
 * or -1 (reason in err). */
int ab_wgmma_tensor_map(CUtensorMap *map, const void *gptr, int is_bf16, long long BH, int S,
                        int D, int rows, char *err, size_t n);

/* The same for a [BH, S, D] fp32 tensor at gptr (a reduction target):
 * 3-D {D, S, BH}, box {32, rows, 1} (one 128-byte row of 32 floats per
 * box row), 128-byte swizzle; rows past S are not written by a reduce-add
 * copy. Returns 0 or -1 (reason in err). */
int ab_wgmma_tensor_map_f32(CUtensorMap *map, float *gptr, long long BH, int S, int D, int rows,
                            char *err, size_t n);

/* 0 when the current device can run sm_90a code (compute capability 9.0);
 * AB_SETUP_UNSUPPORTED (src/core/variant.h) with the reason in err
 * (prefixed by name) on any other GPU; -1 when the device cannot be
 * queried. */
int ab_wgmma_device_ok(const char *name, char *err, size_t n);

#endif
