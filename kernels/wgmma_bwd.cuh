/*
 * wgmma_bwd.cuh: the consumer warpgroup's work of the Hopper backward
 * rungs (cuda_wgmma_bwd, cuda_wgmma_bwd_ws, cuda_wgmma_bwd_owndq,
 * cuda_wgmma_bwd_heads) on one
 * query tile of BR = 64 rows against the warpgroup's 64 keys, and the dQ
 * products; how tiles reach shared memory and where dQ goes is each
 * rung's own file. Header-only.
 *
 *   bwd_wg_scores   S^T = K_w Q^T and dP^T = V_w dO^T (wgmma m64n64, both
 *                   operands K-major from shared memory), P^T = exp2(S^T
 *                   scale log2e - lse log2e) with the bottom-right causal
 *                   mask and the sequence ends where the tile needs them,
 *                   dS^T = P^T (dP^T - Delta); returns P^T and dS^T as
 *                   16-bit A fragments and stores dS^T to shared memory
 *                   ([key][query], sw128, one 128-byte row per key) followed
 *                   by the async-proxy fence; its two halves, for rungs that
 *                   issue the products of one tile before finishing another:
 *   bwd_wg_issue_scores  the two products, one committed group, not waited for
 *   bwd_wg_issue_score   one of them, a committed group of its own
 *   bwd_wg_load_kv_frags, bwd_wg_issue_scores_rs
 *                   at D = 64, the warpgroup's K and V rows read once into
 *                   registers (ldmatrix) and the two products with their A
 *                   operand from there
 *   bwd_wg_ds            the element-wise part on their waited-for results
 *   bwd_wg_issue_dkdv   dV_w += P^T dO and dK_w += dS^T Q (wgmma m64nD, A
 *                   from registers, B MN-major), one committed group, not
 *                   waited for
 *   bwd_wg_issue_dq     dQ[:, cols] (=) dS K[:, cols] (wgmma m64nN with A and
 *                   B both transposed, wgmma_tt), one committed group, not
 *                   waited for
 *   bwd_wg_issue_dq_own  the warpgroup's own share dS_w K_w[:, 64 columns]
 *                   over its 64 keys only (no other warpgroup's dS^T rows
 *                   read), one committed group, not waited for
 *   bwd_wg_store_dkdv   the epilogue: dK and dV of the warpgroup's keys
 *                   from its accumulators, in the dtype
 *
 * Fragment layout (kernels/wgmma_common.cuh): in the S^T accumulators of
 * warp wi of the warpgroup, lane 4g + t holds d[4n + e] = (key 16 wi + g +
 * 8 (e >> 1), query 8n + 2t + (e & 1)); packed per 16 queries they are the
 * A fragment of a k16 step (FlashAttention-2's register reuse).
 *
 * Sources: Tri Dao, "FlashAttention-2" (2023) Algorithm 2 lines 11-19;
 * Shah et al., "FlashAttention-3" (2024), backward with wgmma (read to
 * understand, not copied); PTX ISA wgmma.mma_async (imm-trans-a,
 * imm-trans-b for 16-bit operands from shared memory).
 */
#ifndef ATTNBENCH_WGMMA_BWD_CUH
#define ATTNBENCH_WGMMA_BWD_CUH

#include "bwd_common.cuh"
#include "wgmma_common.cuh"

namespace abwgb {

using namespace abwg;

/* wgmma m64nNk16 with both operands from shared memory, A transposed
 * (MN-major: M contiguous) and B transposed (MN-major): d (+)= A B with
 * d[N / 2] fp32 in the accumulator layout above; N in {32, 64, 128}. */
template <typename T, int N> struct wgmma_tt;
#include "wgmma_bwd_ops.inc"

/* Where this thread sits: warpgroup wg (keys 64 wg .. 64 wg + 63 of the
 * block), warp wi within it, g = lane / 4, t = lane % 4, and krow = the
 * block-local key of its accumulator rows d[4n + 0..1] (d[4n + 2..3]:
 * krow + 8). */
struct bwd_geo {
    int wg, wi, g, t, krow;
};

static __device__ __forceinline__ bwd_geo bwd_geo_of(int wtid, int wg)
{
    bwd_geo x;
    x.wg = wg;
    x.wi = wtid >> 5;
    x.g = (wtid & 31) >> 2;
    x.t = wtid & 3;
    x.krow = wg * 64 + x.wi * 16 + x.g;
    return x;
}

/* One product of bwd_wg_scores, K_w Q^T (uA = uK, uB = uQ: S^T) or V_w
 * dO^T (uA = uV, uB = uG: dP^T) into acc, issued as one committed group
 * and not waited for (acc must not be touched until a wait covers the
 * group). Arguments as bwd_wg_scores. */
template <typename T, int D, int BC>
static __device__ __forceinline__ void bwd_wg_issue_score(float (&acc)[32], const bwd_geo &x,
                                                          uint32_t uA, uint32_t uB)
{
    constexpr int BR = 64;
    /* acc's old values die here (the wgmma asm reads its accumulators: a
     * loop-carried acc would otherwise stay live since its last use); a
     * volatile asm, so that the compiler cannot move the zeros away from
     * the wgmma (32 registers more live elsewhere) */
#pragma unroll
    for (int i = 0; i < 32; i++)
        asm volatile("mov.b32 %0, 0;\n" : "=f"(acc[i]));
    wg_fence();
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++) {
        const uint32_t ka = (kk >> 2) * BC * 128 + x.wg * 64 * 128 + (kk & 3) * 32;
        const uint32_t qa = (kk >> 2) * BR * 128 + (kk & 3) * 32;
        wgmma_op<T, 64>::template ss<0>(acc, desc_sw128(uA + ka, 16, 1024),
                                        desc_sw128(uB + qa, 16, 1024), kk > 0);
    }
    wg_commit();
}

/* The two products of bwd_wg_scores, S^T = K_w Q^T into s and dP^T =
 * V_w dO^T into dp, issued as one committed group and not waited for (s
 * and dp must not be touched until a wait covers the group). Arguments as
 * bwd_wg_scores. DA: each operand's descriptor built once (desc_lo) and
 * stepped by constant adds, as wg_issue_qk_lo does. */
template <typename T, int D, int BC, bool DA = false>
static __device__ __forceinline__ void bwd_wg_issue_scores(float (&s)[32], float (&dp)[32],
                                                           const bwd_geo &x, uint32_t uK,
                                                           uint32_t uV, uint32_t uQ, uint32_t uG)
{
    constexpr int BR = 64;
    wg_fence();
    if constexpr (DA) {
        constexpr uint32_t HI = desc_hi(1024);
        const uint32_t wrow = (uint32_t)x.wg * 64 * 128;
        const uint32_t klo = desc_lo(uK + wrow, 16), vlo = desc_lo(uV + wrow, 16);
        const uint32_t qlo = desc_lo(uQ, 16), glo = desc_lo(uG, 16);
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++) {
            const uint32_t ko = (uint32_t)((kk >> 2) * BC * 128 + (kk & 3) * 32) >> 4;
            const uint32_t qo = (uint32_t)((kk >> 2) * BR * 128 + (kk & 3) * 32) >> 4;
            wgmma_op<T, 64>::template ss<0>(s, desc_make(klo + ko, HI), desc_make(qlo + qo, HI),
                                            kk > 0);
            wgmma_op<T, 64>::template ss<0>(dp, desc_make(vlo + ko, HI), desc_make(glo + qo, HI),
                                            kk > 0);
        }
    } else {
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++) {
            const uint32_t ka = (kk >> 2) * BC * 128 + x.wg * 64 * 128 + (kk & 3) * 32;
            const uint32_t qa = (kk >> 2) * BR * 128 + (kk & 3) * 32;
            wgmma_op<T, 64>::template ss<0>(s, desc_sw128(uK + ka, 16, 1024),
                                            desc_sw128(uQ + qa, 16, 1024), kk > 0);
            wgmma_op<T, 64>::template ss<0>(dp, desc_sw128(uV + ka, 16, 1024),
                                            desc_sw128(uG + qa, 16, 1024), kk > 0);
        }
    }
    wg_commit();
}

/* The element-wise part of bwd_wg_scores on the waited-for products s
 * (S^T) and dp (dP^T), both overwritten: P^T and dS^T as A fragments in
 * pf, df and dS^T stored at uDS, followed by the async-proxy fence.
 * Arguments as bwd_wg_scores. FULLM 0: the mask is chosen from `full` per
 * group of elements (the compiler branches there); 1: the caller knows
 * the tile is full (no mask code); 2: the caller knows it is not (the
 * mask on every element, no branch); 3: 1 or 2 chosen from `full` once,
 * here (WS_SPLIT_FULL). VEC: lL and lD hold the tile's rows in
 * bwd_vec_row's order (kernels/bwd_common.cuh), read as four float4 each
 * instead of sixteen floats (VEC 1: two float4 before each pair of
 * n-groups; 2: all eight before the first, 32 more registers live).
 * STSM: dS^T stored by four stmatrix.x4 (each k-step's four 8 x 8
 * fragments, lanes 8j .. 8j + 7 giving the rows of fragment j) instead of
 * sixteen 4-byte stores. PART 0: all of it; 1: only P^T (into s, masked:
 * needs s waited for, not dp); 2: the rest on a PART 1 result (dS^T =
 * P^T (dP^T - Delta), the fragments, the store), so that the P^T of a
 * step can be computed while its dP^T product still runs. WAITST: wait
 * for phase parity wpar of mbarrier wbar (unless wbar is 0) right before
 * the store, so that whatever frees the dS^T buffer is waited for only
 * once the products and the element-wise work are done. */
template <typename T, int FULLM = 0, int VEC = 0, bool STSM = false, int PART = 0,
          bool WAITST = false>
static __device__ __forceinline__ void
bwd_wg_ds(uint32_t (&pf)[4][4], uint32_t (&df)[4][4], float (&s)[32], float (&dp)[32],
          const bwd_geo &x, uint32_t uDS, const float *lL, float lmul, const float *lD, bool full,
          int q0, int j0, int S, int SK, int causal, int off, float sl2, uint32_t wbar = 0,
          uint32_t wpar = 0)
{
    if constexpr (FULLM == 3) {
        if (full)
            bwd_wg_ds<T, 1, VEC, STSM, PART, WAITST>(pf, df, s, dp, x, uDS, lL, lmul, lD, full,
                                                     q0, j0, S, SK, causal, off, sl2, wbar, wpar);
        else
            bwd_wg_ds<T, 2, VEC, STSM, PART, WAITST>(pf, df, s, dp, x, uDS, lL, lmul, lD, full,
                                                     q0, j0, S, SK, causal, off, sl2, wbar, wpar);
    } else {
        using ops = dtype_ops<T>;
        float4 la = make_float4(0.f, 0.f, 0.f, 0.f), da = la;
        float4 l4[4], d4[4];
        if constexpr (VEC == 2) {
#pragma unroll
            for (int a = 0; a < 4; a++) {
                if (PART != 2)
                    l4[a] = reinterpret_cast<const float4 *>(lL)[4 * a + x.t];
                if (PART != 1)
                    d4[a] = reinterpret_cast<const float4 *>(lD)[4 * a + x.t];
            }
        }
#pragma unroll
        for (int n = 0; n < 8; n++)
#pragma unroll
            for (int e1 = 0; e1 < 2; e1++) {
                const int qi = 8 * n + 2 * x.t + e1;
                float lq, dq;
                if constexpr (VEC != 0) { /* bwd_vec_row(qi) = 16 (n / 2) + 4 t + c */
                    const int c = 2 * (n & 1) + e1;
                    if (VEC == 2) {
                        la = l4[n >> 1];
                        da = d4[n >> 1];
                    } else if (c == 0) { /* rows of n and n + 1: one float4 each */
                        if (PART != 2)
                            la = reinterpret_cast<const float4 *>(lL)[2 * n + x.t];
                        if (PART != 1)
                            da = reinterpret_cast<const float4 *>(lD)[2 * n + x.t];
                    }
                    lq = (c == 0 ? la.x : c == 1 ? la.y : c == 2 ? la.z : la.w) * lmul;
                    dq = c == 0 ? da.x : c == 1 ? da.y : c == 2 ? da.z : da.w;
                } else {
                    lq = PART != 2 ? lL[qi] * lmul : 0.f;
                    dq = PART != 1 ? lD[qi] : 0.f;
                }
#pragma unroll
                for (int e2 = 0; e2 < 2; e2++) {
                    const int i = 4 * n + 2 * e2 + e1;
                    float p;
                    if constexpr (PART != 2) {
                        p = fast_exp2(fmaf(s[i], sl2, -lq));
                        if (FULLM == 2 || (FULLM == 0 && !full)) {
                            const int qr = q0 + qi, kj = j0 + x.krow + 8 * e2;
                            const bool vis = qr < S && kj < SK && (!causal || kj <= qr + off);
                            p = vis ? p : 0.f;
                        }
                        s[i] = p;
                    } else {
                        p = s[i];
                    }
                    if constexpr (PART != 1)
                        dp[i] = p * (dp[i] - dq);
                }
            }
        if constexpr (PART != 1) { /* the fragments and the store */
#pragma unroll
            for (int kk = 0; kk < 4; kk++)
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    pf[kk][e] = ops::pack(s[8 * kk + 2 * e], s[8 * kk + 2 * e + 1]);
                    df[kk][e] = ops::pack(dp[8 * kk + 2 * e], dp[8 * kk + 2 * e + 1]);
                }
            if constexpr (WAITST) {
                if (wbar)
                    mbar_wait(wbar, wpar);
            }
            /* fragment e of k-step kk: key krow + 8 (e & 1), queries 16 kk + 8 (e >> 1)
             * + 2t, +1 -> 16-byte chunk 2 kk + (e >> 1) of the key's row, byte 4t */
            if constexpr (STSM) {
                /* lane 8j + i: row i of fragment j = key 64 wg + 16 wi + 8 (j & 1) + i,
                 * k-step kk's chunk c = 2 kk + (j >> 1) at ((c ^ i) << 4) in the key's
                 * 128-byte row (uDS is 1024-aligned), so at a0 ^ (kk << 5). The lane's
                 * part of a0 is computed inside the asm from %laneid, so that nothing
                 * of it is live before the stores; at D = 128 ptxas spills with this
                 * form too, as with the two others tried (cuda_wgmma_bwd_stsm.cu) */
                const uint32_t wbase = uDS + (uint32_t)(x.wg * 64 + x.wi * 16) * 128;
                asm volatile("{\n"
                             ".reg .u32 l, i, j, c, a;\n"
                             "mov.u32 l, %%laneid;\n"
                             "and.b32 i, l, 7;\n"        /* i */
                             "shr.u32 j, l, 3;\n"        /* j */
                             "and.b32 c, j, 1;\n"
                             "shl.b32 c, c, 3;\n"
                             "add.u32 c, c, i;\n"        /* 8 (j & 1) + i */
                             "shl.b32 c, c, 7;\n"
                             "add.u32 a, %0, c;\n"       /* wbase + key row */
                             "shr.u32 j, j, 1;\n"
                             "xor.b32 j, j, i;\n"
                             "shl.b32 j, j, 4;\n"
                             "add.u32 a, a, j;\n"        /* a0 */
                             "stmatrix.sync.aligned.m8n8.x4.shared.b16 [a], {%1, %2, %3, %4};\n"
                             "xor.b32 a, a, 32;\n"
                             "stmatrix.sync.aligned.m8n8.x4.shared.b16 [a], {%5, %6, %7, %8};\n"
                             "xor.b32 a, a, 96;\n"       /* a0 ^ 64 */
                             "stmatrix.sync.aligned.m8n8.x4.shared.b16 [a], {%9, %10, %11, %12};\n"
                             "xor.b32 a, a, 32;\n"       /* a0 ^ 96 */
                             "stmatrix.sync.aligned.m8n8.x4.shared.b16 [a], {%13, %14, %15, %16};\n"
                             "}\n" ::"r"(wbase),
                             "r"(df[0][0]), "r"(df[0][1]), "r"(df[0][2]), "r"(df[0][3]),
                             "r"(df[1][0]), "r"(df[1][1]), "r"(df[1][2]), "r"(df[1][3]),
                             "r"(df[2][0]), "r"(df[2][1]), "r"(df[2][2]), "r"(df[2][3]),
                             "r"(df[3][0]), "r"(df[3][1]), "r"(df[3][2]), "r"(df[3][3])
                             : "memory");
            } else {
#pragma unroll
                for (int kk = 0; kk < 4; kk++)
#pragma unroll
                    for (int e = 0; e < 4; e++) {
                        const int r = x.krow + 8 * (e & 1), c = 2 * kk + (e >> 1);
                        const uint32_t a = uDS + r * 128 + ((c ^ (r & 7)) << 4) + 4 * x.t;
                        asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(a), "r"(df[kk][e])
                                     : "memory");
                    }
            }
            fence_proxy_async();
        }
    }
}

/* One warpgroup's scores of one query tile (contract in the file header).
 * uK, uV: the block's K, V tiles (sw128, BC rows); uQ, uG: the tile's Q,
 * dO (sw128, 64 rows); uDS: the dS^T tile (BC rows of 128 bytes). lL, lD:
 * the tile's 64 logsumexp values times lmul (so lmul * lL = lse log2e:
 * lmul = log2e for a raw logsumexp, 1 for one stored pre-scaled) and
 * Delta values in shared memory. full: no (row, key) of the block's tile
 * is past S, S_kv or causally hidden. q0, j0: the tile's first query row
 * and the block's first key; off = S_kv - S; sl2 = scale log2e. FULLM:
 * as bwd_wg_ds's (3: the choice made here, before the products). */
template <typename T, int D, int BC, int FULLM = 0>
static __device__ __forceinline__ void
bwd_wg_scores(uint32_t (&pf)[4][4], uint32_t (&df)[4][4], const bwd_geo &x, uint32_t uK,
              uint32_t uV, uint32_t uQ, uint32_t uG, uint32_t uDS, const float *lL, float lmul,
              const float *lD, bool full, int q0, int j0, int S, int SK, int causal, int off,
              float sl2)
{
    if constexpr (FULLM == 3) { /* as bwd_wg_ds's 3: the whole step's scores chosen once */
        if (full)
            bwd_wg_scores<T, D, BC, 1>(pf, df, x, uK, uV, uQ, uG, uDS, lL, lmul, lD, full, q0, j0,
                                       S, SK, causal, off, sl2);
        else
            bwd_wg_scores<T, D, BC, 2>(pf, df, x, uK, uV, uQ, uG, uDS, lL, lmul, lD, full, q0, j0,
                                       S, SK, causal, off, sl2);
    } else {
        float s[32], dp[32];
        bwd_wg_issue_scores<T, D, BC>(s, dp, x, uK, uV, uQ, uG);
        wg_wait<0>();
        reg_fence(s);
        reg_fence(dp);
        bwd_wg_ds<T, FULLM>(pf, df, s, dp, x, uDS, lL, lmul, lD, full, q0, j0, S, SK, causal,
                            off, sl2);
    }
}

/* The A fragments of this warpgroup's 64 rows of a D = 64 key-side tile
 * (K or V: BC rows of 128 bytes, sw128, 1024-aligned at uT) for its D / 16
 * = 4 k-steps, read once by ldmatrix.x4 (lanes 8i .. 8i + 7 give the rows
 * of 8 x 8 matrix i: rows + 8 (i & 1), 16-byte chunk 2 kk + (i >> 1)),
 * in the mma.sync A-fragment layout that wgmma's register A operand
 * takes (file header). */
static __device__ __forceinline__ void bwd_wg_load_kv_frags(uint32_t (&f)[4][4], const bwd_geo &x,
                                                            int lane, uint32_t uT)
{
    const int r = x.wg * 64 + x.wi * 16 + (lane & 7) + 8 * ((lane >> 3) & 1);
#pragma unroll
    for (int kk = 0; kk < 4; kk++) {
        const int c = 2 * kk + (lane >> 4);
        abmma::ldsm_x4(f[kk], uT + (uint32_t)(r * 128 + ((c ^ (r & 7)) << 4)));
    }
}

/* bwd_wg_issue_scores at D = 64 with K_w and V_w from registers (kf, vf:
 * bwd_wg_load_kv_frags) instead of shared memory: half the shared-memory
 * operand bytes of the two products. Same contract. */
template <typename T>
static __device__ __forceinline__ void bwd_wg_issue_scores_rs(float (&s)[32], float (&dp)[32],
                                                              const uint32_t (&kf)[4][4],
                                                              const uint32_t (&vf)[4][4],
                                                              uint32_t uQ, uint32_t uG)
{
    wg_fence();
#pragma unroll
    for (int kk = 0; kk < 4; kk++) {
        wgmma_op<T, 64>::template rs<0>(s, kf[kk], desc_sw128(uQ + kk * 32, 16, 1024), kk > 0);
        wgmma_op<T, 64>::template rs<0>(dp, vf[kk], desc_sw128(uG + kk * 32, 16, 1024), kk > 0);
    }
    wg_commit();
}

/* dV_w += P^T dO, dK_w += dS^T Q over the tile's 64 queries (uQ, uG: sw128
 * tiles of 64 rows). The A fragments must stay alive until the wait. DA:
 * descriptors stepped by constant adds (bwd_wg_issue_scores). */
template <typename T, int D, bool DA = false>
static __device__ __forceinline__ void bwd_wg_issue_dkdv(float (&dv)[D / 2], float (&dk)[D / 2],
                                                         const uint32_t (&pf)[4][4],
                                                         const uint32_t (&df)[4][4], uint32_t uQ,
                                                         uint32_t uG)
{
    wg_fence();
    if constexpr (DA) {
        constexpr uint32_t HI = desc_hi(1024);
        const uint32_t glo = desc_lo(uG, 64 * 128), qlo = desc_lo(uQ, 64 * 128);
#pragma unroll
        for (int kk = 0; kk < 4; kk++)
            wgmma_op<T, D>::template rs<1>(dv, pf[kk], desc_make(glo + kk * 128, HI), 1);
#pragma unroll
        for (int kk = 0; kk < 4; kk++)
            wgmma_op<T, D>::template rs<1>(dk, df[kk], desc_make(qlo + kk * 128, HI), 1);
    } else {
#pragma unroll
        for (int kk = 0; kk < 4; kk++)
            wgmma_op<T, D>::template rs<1>(dv, pf[kk],
                                           desc_sw128(uG + kk * 16 * 128, 64 * 128, 1024), 1);
#pragma unroll
        for (int kk = 0; kk < 4; kk++)
            wgmma_op<T, D>::template rs<1>(dk, df[kk],
                                           desc_sw128(uQ + kk * 16 * 128, 64 * 128, 1024), 1);
    }
    wg_commit();
}

/* q = dS K[:, cols] over the BC keys: A = dS read transposed from the dS^T
 * tile at uDS, B = the K tile (sw128, BC rows) from byte offset kcol (the
 * first of the NQ columns: column block * BC * 128 + in-row bytes). */
template <typename T, int BC, int NQ, bool DA = false>
static __device__ __forceinline__ void bwd_wg_issue_dq(float (&q)[NQ / 2], uint32_t uDS,
                                                       uint32_t uKcol)
{
    wg_fence();
    if constexpr (DA) { /* descriptors stepped by constant adds (bwd_wg_issue_scores) */
        constexpr uint32_t HI = desc_hi(1024);
        const uint32_t slo = desc_lo(uDS, 64 * 128), klo = desc_lo(uKcol, BC * 128);
#pragma unroll
        for (int kk = 0; kk < BC / 16; kk++)
            wgmma_tt<T, NQ>::ss(q, desc_make(slo + kk * 128, HI), desc_make(klo + kk * 128, HI),
                                kk > 0);
    } else {
#pragma unroll
        for (int kk = 0; kk < BC / 16; kk++)
            wgmma_tt<T, NQ>::ss(q, desc_sw128(uDS + kk * 16 * 128, 64 * 128, 1024),
                                desc_sw128(uKcol + kk * 16 * 128, BC * 128, 1024), kk > 0);
    }
    wg_commit();
}

/* q = dS_w K_w[:, 64 h .. 64 h + 63]: the warpgroup's 64 keys (rows 64 wg
 * .. of the dS^T tile at uDS and of the K tile at uK, both BC rows) and
 * the h-th 64-column block of K. */
template <typename T, int BC>
static __device__ __forceinline__ void bwd_wg_issue_dq_own(float (&q)[32], uint32_t uDS,
                                                           uint32_t uK, int wg, int h)
{
    wg_fence();
#pragma unroll
    for (int kk = 0; kk < 4; kk++) {
        const uint32_t row = (uint32_t)(wg * 64 + kk * 16) * 128;
        wgmma_tt<T, 64>::ss(q, desc_sw128(uDS + row, 64 * 128, 1024),
                            desc_sw128(uK + h * BC * 128 + row, BC * 128, 1024), kk > 0);
    }
    wg_commit();
}

/* dK = scale * dk, dV = dv of the thread's accumulator rows (keys j0 +
 * x.krow, + 8) in the dtype, rows past SK skipped; kvbase: the element
 * offset of the block's K/V head ([B, H_kv, S_kv, D]). The last step of
 * every wgmma backward rung whose block owns its keys' whole sums. */
template <typename T, int D>
static __device__ __forceinline__ void bwd_wg_store_dkdv(T *dK, T *dV, size_t kvbase,
                                                         const bwd_geo &x, int j0, int SK,
                                                         const float (&dk)[D / 2],
                                                         const float (&dv)[D / 2], float scale)
{
#pragma unroll
    for (int n = 0; n < D / 8; n++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int j = j0 + x.krow + 8 * h, d = 8 * n + 2 * x.t;
            if (j < SK)
                abbwd::bwd_store_kv2<T>(dK, dV, kvbase + (size_t)j * D + d, dk[4 * n + 2 * h],
                                        dk[4 * n + 2 * h + 1], dv[4 * n + 2 * h],
                                        dv[4 * n + 2 * h + 1], scale);
        }
}

/* Keeps the 16-bit A fragments of an issued wgmma alive until after the
 * wait that follows. */
static __device__ __forceinline__ void reg_fence_frag(uint32_t (&r)[4][4])
{
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int e = 0; e < 4; e++)
            asm volatile("" : "+r"(r[i][e])::"memory");
}

} /* namespace abwgb */

#endif
