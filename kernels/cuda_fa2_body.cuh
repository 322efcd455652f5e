/*
 * cuda_fa2_body.cuh: the FlashAttention-2 style SIMT (no tensor core) block
 * body shared by cuda_fa2_warps (one block per query tile, the whole key
 * range) and cuda_split_kv (the key range split across blocks, partial
 * results combined by a second kernel).
 *
 * Work partition (Dao 2023, FlashAttention-2 section 3.2, without the
 * tensor cores): a block of 4 warps owns a tile of BR = 64 query rows of one
 * (b, h) slice; warp w owns rows 16w..16w+15 of the tile, and every lane of
 * every warp computes (seed 002 "priority 2": no idle threads):
 *   - S = Q K^T for a tile of BC = 64 keys: lane l owns keys l and l+32 of
 *     the tile for all 16 rows of its warp (32 fp32 scores in registers);
 *     K sits in shared memory transposed ([d][key], row stride 65) so the
 *     lanes read consecutive words, Q transposed ([d][row], stride 68) so a
 *     16-byte broadcast load brings 4 rows;
 *   - online softmax with FlashAttention-2's bookkeeping: row max m by warp
 *     shuffles each tile, the row sum l kept per lane and reduced once at the
 *     end, the accumulator rescaled by exp2(m_old - m_new) and divided by l
 *     only at the end (not every tile as in FlashAttention-1);
 *   - O += P V: lane l owns columns l, l+32, ... of the 16 rows of its warp
 *     (16 x D/32 accumulators); P goes through a per-warp shared buffer
 *     ([key][row], stride 20 floats: conflict-free 16-byte stores, broadcast
 *     16-byte loads), V is read in rows ([key][d]) by consecutive lanes.
 * K and V share one shared-memory buffer (K for S, then V for PV), which
 * keeps a block's shared memory at 53.25 KiB (D=64) resp. 86.5 KiB (D=128).
 * Tiles are staged synchronously (global -> registers -> shared memory, 8- or 16-byte loads,
 * converted to fp32; rows past S are zero-filled). All arithmetic fp32;
 * Q is pre-multiplied by scale*log2(e), so the softmax uses exp2f and m is
 * in log2 units. Causal: key tiles past the query tile's last row are not
 * visited, keys j > i of the diagonal tile get score -inf; query tiles are
 * launched heaviest first (blockIdx.y reversed), as FlashAttention-2 does.
 *
 * Split mode (SPLIT = true): blockIdx.z = split index s of nsplit; the block
 * visits key tiles [s*per, min(n_k, (s+1)*per)) of its query tile's n_k
 * tiles (per = ceil(n_k / nsplit), n_k counted per query tile, so causal
 * splits stay balanced), and writes, per row, O_s = acc / l_s (fp32), m_s and
 * l_s to the workspace. A split with no key tile, or a row all of whose keys
 * in the split are masked, writes O_s = 0, m_s = -inf, l_s = 0.
 * fa2_combine_kernel merges them exactly: m = max m_s,
 * l = sum l_s 2^(m_s - m), O = sum O_s l_s 2^(m_s - m) / l.
 */
#ifndef ATTNBENCH_CUDA_FA2_BODY_CUH
#define ATTNBENCH_CUDA_FA2_BODY_CUH

#include "cuda_attn_util.cuh"
#include "split_combine.cuh"

namespace {

enum {
    FA2_BR = 64,        /* query rows per block */
    FA2_BC = 64,        /* keys per tile */
    FA2_NW = 4,         /* warps per block */
    FA2_NT = 128,       /* threads per block */
    FA2_RW = 16,        /* query rows per warp */
    FA2_QS = FA2_BR + 4, /* row stride of the transposed Q tile (16-byte aligned) */
    FA2_KS = FA2_BC + 1, /* row stride of the transposed K tile (conflict-free store) */
    FA2_PS = 20          /* row stride of a warp's P buffer (conflict-free float4) */
};

/* Dynamic shared memory of one block, bytes: 53.25 KiB (D=64), 86.5 KiB (D=128). */
template <int D> constexpr size_t fa2_smem_bytes()
{
    return sizeof(float) * ((size_t)D * FA2_QS +
                            (D * FA2_KS > FA2_BC * D ? (size_t)D * FA2_KS : (size_t)FA2_BC * D) +
                            (size_t)FA2_NW * FA2_BC * FA2_PS);
}

struct fa2_params {
    const void *q, *k, *v; /* Q [BH, S, D], K and V [B*H_kv, S_kv, D] in the dtype */
    void *o;               /* [BH, S, D] in the dtype (SPLIT = false) */
    float *opart;          /* [nsplit, BH, S, D] (SPLIT = true) */
    float *mpart, *lpart;  /* [nsplit, BH, S] (SPLIT = true) */
    int S, BH, nsplit, causal;
    float scale_log2;      /* log2(e) / sqrt(D) */
    int H, Hkv, Skv;       /* query heads, K/V heads, key length (variant.h) */
};

/* grid (BH, ceil(S/64), nsplit), block 128, dynamic shared memory
 * fa2_smem_bytes<D>(). */
template <typename T, int D, bool SPLIT>
__global__ void __launch_bounds__(FA2_NT) fa2_kernel(const fa2_params p)
{
    constexpr int C = D / 32; /* output columns per lane */
    extern __shared__ float4 sm4[];
    float *sm = reinterpret_cast<float *>(sm4);
    float *qt = sm;                               /* [D][QS] */
    float *kv = qt + D * FA2_QS;                  /* [D][KS] (K^T) or [BC][D] (V) */
    float *ps = kv + (D * FA2_KS > FA2_BC * D ? D * FA2_KS : FA2_BC * D); /* [NW][BC][PS] */

    const int S = p.S;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const size_t bh = blockIdx.x;
    const int q0 = (gridDim.y - 1 - blockIdx.y) * FA2_BR; /* heaviest (causal) first */
    const int split = SPLIT ? (int)blockIdx.z : 0;
    const int SK = p.Skv, shift = SK - S; /* bottom-right causal: key j <= i + shift */
    /* query head h of batch b reads K/V head h / (H / H_kv) */
    const size_t kvbh = (bh / p.H) * p.Hkv + (bh % p.H) / (p.H / p.Hkv);
    const T *Q = (const T *)p.q + bh * (size_t)S * D;
    const T *K = (const T *)p.k + kvbh * (size_t)SK * D;
    const T *V = (const T *)p.v + kvbh * (size_t)SK * D;
    float *pw = ps + warp * FA2_BC * FA2_PS;
    const int r0 = warp * FA2_RW; /* first row of this warp within the tile */

    /* key tiles of this query tile, and of this split */
    const int n_keys = p.causal ? max(0, min(SK, q0 + FA2_BR + shift)) : SK;
    const int n_k = (n_keys + FA2_BC - 1) / FA2_BC;
    const int per = (n_k + p.nsplit - 1) / p.nsplit;
    const int t_begin = split * per, t_end = min(n_k, t_begin + per);

    float acc[FA2_RW][C], m[FA2_RW], l[FA2_RW];
#pragma unroll
    for (int r = 0; r < FA2_RW; r++) {
        m[r] = -INFINITY;
        l[r] = 0.0f;
#pragma unroll
        for (int c = 0; c < C; c++)
            acc[r][c] = 0.0f;
    }

    if (t_begin < t_end) {
        /* Q tile, transposed and pre-scaled */
        for (int e = tid; e < FA2_BR * D / 4; e += FA2_NT) {
            const int rr = e / (D / 4), d = (e % (D / 4)) * 4;
            float x[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            if (q0 + rr < S)
                ab_load4(Q + (size_t)(q0 + rr) * D + d, x);
#pragma unroll
            for (int c = 0; c < 4; c++)
                qt[(d + c) * FA2_QS + rr] = x[c] * p.scale_log2;
        }
    }

    for (int t = t_begin; t < t_end; t++) {
        const int j0 = t * FA2_BC;
        __syncthreads(); /* V of the previous tile consumed; Q stored */
        for (int e = tid; e < FA2_BC * D / 4; e += FA2_NT) {
            const int jj = e / (D / 4), d = (e % (D / 4)) * 4;
            float x[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            if (j0 + jj < SK)
                ab_load4(K + (size_t)(j0 + jj) * D + d, x);
#pragma unroll
            for (int c = 0; c < 4; c++)
                kv[(d + c) * FA2_KS + jj] = x[c];
        }
        __syncthreads();

        /* S = Q K^T: rows r0..r0+15, keys lane and lane+32 */
        float s[FA2_RW][2];
#pragma unroll
        for (int r = 0; r < FA2_RW; r++)
            s[r][0] = s[r][1] = 0.0f;
#pragma unroll 4
        for (int d = 0; d < D; d++) {
            const float k0 = kv[d * FA2_KS + lane], k1 = kv[d * FA2_KS + lane + 32];
            const float4 *qrow = reinterpret_cast<const float4 *>(qt + d * FA2_QS + r0);
#pragma unroll
            for (int g = 0; g < FA2_RW / 4; g++) {
                const float4 qv = qrow[g];
                s[4 * g + 0][0] = fmaf(qv.x, k0, s[4 * g + 0][0]);
                s[4 * g + 0][1] = fmaf(qv.x, k1, s[4 * g + 0][1]);
                s[4 * g + 1][0] = fmaf(qv.y, k0, s[4 * g + 1][0]);
                s[4 * g + 1][1] = fmaf(qv.y, k1, s[4 * g + 1][1]);
                s[4 * g + 2][0] = fmaf(qv.z, k0, s[4 * g + 2][0]);
                s[4 * g + 2][1] = fmaf(qv.z, k1, s[4 * g + 2][1]);
                s[4 * g + 3][0] = fmaf(qv.w, k0, s[4 * g + 3][0]);
                s[4 * g + 3][1] = fmaf(qv.w, k1, s[4 * g + 3][1]);
            }
        }

        /* mask, online softmax; P overwrites s */
        const int ja = j0 + lane, jb = j0 + lane + 32;
#pragma unroll
        for (int r = 0; r < FA2_RW; r++) {
            const int i = q0 + r0 + r;
            const int lim = p.causal ? min(SK - 1, i + shift) : SK - 1; /* last key kept */
            if (ja > lim)
                s[r][0] = -INFINITY;
            if (jb > lim)
                s[r][1] = -INFINITY;
            const float mn = fmaxf(m[r], ab_warp_max(fmaxf(s[r][0], s[r][1])));
            const float mu = mn == -INFINITY ? 0.0f : mn; /* row fully masked so far */
            const float alpha = exp2f(m[r] - mu);
            s[r][0] = exp2f(s[r][0] - mu);
            s[r][1] = exp2f(s[r][1] - mu);
            l[r] = fmaf(l[r], alpha, s[r][0] + s[r][1]);
            m[r] = mn;
#pragma unroll
            for (int c = 0; c < C; c++)
                acc[r][c] *= alpha;
        }
#pragma unroll
        for (int g = 0; g < FA2_RW / 4; g++) {
            *reinterpret_cast<float4 *>(pw + lane * FA2_PS + 4 * g) =
                make_float4(s[4 * g][0], s[4 * g + 1][0], s[4 * g + 2][0], s[4 * g + 3][0]);
            *reinterpret_cast<float4 *>(pw + (lane + 32) * FA2_PS + 4 * g) =
                make_float4(s[4 * g][1], s[4 * g + 1][1], s[4 * g + 2][1], s[4 * g + 3][1]);
        }

        __syncthreads(); /* every warp done reading K */
        for (int e = tid; e < FA2_BC * D / 4; e += FA2_NT) {
            const int jj = e / (D / 4), d = (e % (D / 4)) * 4;
            float x[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            if (j0 + jj < SK)
                ab_load4(V + (size_t)(j0 + jj) * D + d, x);
            *reinterpret_cast<float4 *>(kv + jj * D + d) = make_float4(x[0], x[1], x[2], x[3]);
        }
        __syncthreads(); /* V stored, P of every warp visible */

        /* O += P V: rows r0..r0+15, columns lane + 32c */
#pragma unroll 4
        for (int j = 0; j < FA2_BC; j++) {
            float vv[C];
#pragma unroll
            for (int c = 0; c < C; c++)
                vv[c] = kv[j * D + lane + 32 * c];
            const float4 *prow = reinterpret_cast<const float4 *>(pw + j * FA2_PS);
#pragma unroll
            for (int g = 0; g < FA2_RW / 4; g++) {
                const float4 pv = prow[g];
#pragma unroll
                for (int c = 0; c < C; c++) {
                    acc[4 * g + 0][c] = fmaf(pv.x, vv[c], acc[4 * g + 0][c]);
                    acc[4 * g + 1][c] = fmaf(pv.y, vv[c], acc[4 * g + 1][c]);
                    acc[4 * g + 2][c] = fmaf(pv.z, vv[c], acc[4 * g + 2][c]);
                    acc[4 * g + 3][c] = fmaf(pv.w, vv[c], acc[4 * g + 3][c]);
                }
            }
        }
    }

    /* epilogue: l reduced across the lanes, O = acc / l */
#pragma unroll
    for (int r = 0; r < FA2_RW; r++) {
        const int i = q0 + r0 + r;
        const float lsum = ab_warp_sum(l[r]);
        if (i >= S)
            continue;
        const float inv = lsum > 0.0f ? 1.0f / lsum : 0.0f;
        if (SPLIT) {
            const size_t row = ((size_t)split * p.BH + bh) * S + i;
#pragma unroll
            for (int c = 0; c < C; c++)
                p.opart[row * D + lane + 32 * c] = acc[r][c] * inv;
            if (lane == 0) {
                p.mpart[row] = lsum > 0.0f ? m[r] : -INFINITY;
                p.lpart[row] = lsum;
            }
        } else {
            T *o = (T *)p.o + (bh * S + i) * (size_t)D;
#pragma unroll
            for (int c = 0; c < C; c++)
                o[lane + 32 * c] = ab_from_f<T>(acc[r][c] * inv);
        }
    }
}

/* Raises the dynamic shared-memory limit of fa2_kernel<T, D, SPLIT>;
 * returns 0 or -1 with err. */
template <typename T, int D, bool SPLIT> int fa2_prepare(char *err, size_t errlen)
{
    AB_CK_SETUP(cudaFuncSetAttribute(fa2_kernel<T, D, SPLIT>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)fa2_smem_bytes<D>()));
    return 0;
}

/* Enqueues fa2_kernel (grid (BH, ceil(S/64), nsplit)) and, when SPLIT, the
 * combine kernel on st. */
template <typename T, int D, bool SPLIT> void fa2_launch(const fa2_params &p, cudaStream_t st)
{
    const dim3 grid((unsigned)p.BH, (unsigned)((p.S + FA2_BR - 1) / FA2_BR),
                    SPLIT ? (unsigned)p.nsplit : 1u);
    fa2_kernel<T, D, SPLIT><<<grid, FA2_NT, fa2_smem_bytes<D>(), st>>>(p);
    if constexpr (SPLIT)
        ab_split_combine_launch<T, D>({p.opart, p.mpart, p.lpart}, p.o, (size_t)p.BH * p.S,
                                      p.nsplit, st);
}

} // namespace

#endif
