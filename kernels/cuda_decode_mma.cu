/*
 * cuda_decode_mma.cu: the `cuda_decode_mma` variant, attention for decode (one
 * query row, or a few, against a long K/V cache) with grouped-query heads, the
 * query rows of a K/V group packed as the rows of a tensor-core product: the
 * rung after cuda_decode_split_kv.
 *
 * Idea. cuda_decode_split_kv keeps a group's G = H / H_kv query rows in one
 * block so K and V are read once per group, but it forms the scores with a
 * butterfly reduction per key and row and is bound by those chains, not by DRAM
 * (its Nsight profile: 21% of DRAM peak). Here the R = G * S query rows of a
 * group (4 for Llama 3 8B's decode) are the M rows of mma.sync m16n8k16 (padded
 * to 16; with R <= 8 the rows 8..15 are known zero and their softmax is
 * skipped), so a 16-key tile costs 16 mma for Q K^T and 16 for P V (D = 128)
 * and one online-softmax step per 16 keys, and the per-key shuffle and exp2
 * chains are gone. Each of the 4 warps of a block owns every 4th 16-key tile of
 * the block's key range and runs its own 3-stage cp.async pipeline (16-byte
 * copies, XOR-swizzled rows, ldmatrix, only __syncwarp in the loop: no block
 * barrier while streaming), keeping 2 tiles (8 KB at D = 128) in flight per
 * warp, about 128 KB per multiprocessor at 2 blocks each. The key range is
 * split across blocks (flash-decoding) so that B * H_kv * splits fills one wave
 * of the GPU at B = 1; the warps of a block merge in shared memory and the
 * splits merge exactly in the same launch: each block writes its partial (O /
 * l, m, l: split_combine.cuh's layout and rule), and the last block of a (b,
 * h_kv, row chunk) to finish (an atomic counter, reset by that block for the
 * next launch) combines them, so there is no second kernel and no launch gap.
 * Causal masks key j > i + S_kv - S (bottom-right: a decode row sees every key;
 * a row that sees none is 0); rows beyond 16 (G * S > 16) take further row
 * chunks (grid z), each streaming K/V again: a decode rung (S <= 32). fp16 and
 * bf16 only (the tensor cores' inputs), D = 64 or 128.
 *
 * Prediction (written before the first run). Bytes per call: K and V once, 2 *
 * B * H_kv * S_kv * D * 2 = 4096 * B * S_kv bytes at Llama 3 8B's shape (H =
 * 32, H_kv = 8, D = 128, bf16): 134.2 MB at B = 1, S_kv = 32K, 536.9 MB at
 * 128K; Q and O 16 KB; the partials another 2 * 33 splits * 32 rows * 130
 * floats = 1.1 MB (0.8% at 32K). FLOPs 4 * 32 * S_kv * 128 (0.5 GFLOP at 32K)
 * are issued as 4x that on the tensor cores (rows padded 4 -> 16): about 16
 * FLOP per byte, a small fraction of mma.sync's rate, so the bound is DRAM.
 * Expected: 80-90% of the run's copy ceiling where K/V exceed 256 MB (a pure
 * read stream with ample bytes in flight), i.e. 3400-3800 GB/s against the
 * 4228 GB/s measured on an H200 (run 3 of reports/llama3-8b/llama3-8b.db). Predicted:
 * S_kv = 32K in 35-40 us, 128K in 141-159 us, within 0.9-1.1x of cudnn_sdpa's
 * time; short caches (B = 1, S_kv = 4K: 16.8 MB) well under it (launch and
 * the pipeline's fill, about 6-9 us).
 *
 * Measured (attnbench run of experiments/llama3-8b-decode.cfg, run 1 of
 * reports/llama3-8b-decode/llama3-8b-decode.db, report
 * reports/llama3-8b-decode/run1.md; NVIDIA H200, 2026-11-26, hot timing, tree
 * of commit c9cbdb4: this kernel; copy ceiling measured in the run 4221 GB/s).
 * Where K/V exceed 256 MB: B = 1, S_kv = 64K 0.0711 ms, 3774 GB/s (89% of the
 * ceiling; cudnn_sdpa 0.0703 ms: 0.984x its speed, CI [0.980, 0.990]); 128K
 * 0.1281 ms, 4192 GB/s (99%; 1.000x); B = 8, S_kv = 16K and 32K 4237 and 4465
 * GB/s (100%, 106%; 1.009x, 1.003x); B = 64, S_kv = 4K and 8K 4485 and 4568
 * GB/s (106%, 108%; 1.001x, 1.005x). Shorter caches: B = 1, S_kv = 4K, 16K, 32K
 * 1166, 2583, 3266 GB/s (1.046x, 1.027x, 0.997x); B = 8, 4K 3376 (1.009x).
 * cuda_decode_split_kv in the same run 380-1379 GB/s: this rung is 3.0-4.8x
 * faster. The prediction holds where K/V are large (89-108% where the
 * prediction said 80-90%; 128K in 128.1 us, predicted 141-159), misses at
 * 32K (41.1 us, predicted 35-40: 77%, the fixed cost below weighs more) and
 * is beaten at short caches (S_kv = 4K: 14.4 us, of which about 3.4 us is
 * the hot timer's floor).
 *
 * Profiled (no database: the figures are in the logs named): Nsight
 * Compute (reports/llama3-8b-decode/ncu-run1.log, same call; before:
 * reports/llama3-8b/ncu-decode-llama3-64k.log, cuda_decode_split_kv at 21% of DRAM peak):
 * at B = 1, S_kv = 64K the kernel takes 70.8 us, DRAM 79.5% of peak (cuDNN's
 * profiled kernel 65.4 us, 86.1%, though 70.3 us end to end: it spends about 5
 * us outside that kernel), 128K 127.0 us and 88.3% (cuDNN 122.4 us, 91.6%),
 * 268.6 / 537.0 MB read (K/V once), 149 registers, 2 blocks per SM (shared
 * memory), issue slots 24% busy, tensor pipe 11%, stalls mostly long scoreboard
 * (waiting on memory): DRAM-bound. ptxas (sm_90a): 149 registers with R <= 8,
 * 166 with two row halves, no spills; SASS 192 HMMA, 288 LDGSTS, 96 LDSM, no
 * local memory.
 *
 * Checked on the same GPU: the GPU suite (40 cases, 24 with H_kv
 * < H or S_kv != S), every configuration of the experiment over every row
 * (gpu_check --shape), and compute-sanitizer memcheck and racecheck clean on
 * small shapes reaching one and several splits, one and two row halves, several
 * row chunks and causal rows that see no key (tests/gpu/decode_mma.sh).
 *
 * Then (same day): the tail. Both profiles put the kernel about 5 us behind
 * cuDNN's profiled kernel at 64K and at 128K alike (70.8 vs 65.4, 127.0 vs
 * 122.4 us): a fixed cost, not the streaming rate. Guess: the last block's
 * merge, which reads the 33 partials with plain loads 8 at a time (5 dependent
 * L2 round trips) after the m, l loads. Tried: the last block fetching a whole
 * batch of partial rows into shared memory by cp.async at once, overlapped with
 * the m, l loads. Prediction: 2-3 us less at B = 1 (S_kv = 64K 71.1 -> 68-69
 * us; 4K 14.4 -> 12), unchanged at B = 64 (one split, no merge).
 * Measured (run 2 of the same database, same GPU and day, commit dde5d8e):
 * 1.1-2.4 us SLOWER at B = 1 (4K 14.4 -> 16.1 us, 64K 71.1 -> 72.2, 128K
 * 128.1 -> 129.2), B = 8 and 64 unchanged. With the addresses formed once
 * per thread (run 3, commit 93cdec7; the card about 1.6% slower for
 * cudnn_sdpa too, copy ceiling 4261 GB/s): back to run 1's level and no
 * better, 0.982-1.029x cudnn_sdpa at B = 1, 1.002-1.022x at B = 8 and 64.
 *
 * Why run 2 lost: its copies formed their addresses with three run-time
 * integer divisions each, 33 copies a thread, about 3000 instructions on
 * the tail's path. Nsight gives 70.9 us at 64K for run 3's code (run 1's
 * 70.8). So the merge's loads are not the 5 us; the change is not kept
 * (this file is run 1's kernel), and where the fixed cost goes (the first
 * tiles' latency, the 264 blocks' uneven finish, the in-block merge) is
 * open.
 *
 * Source: Dao, Haziza, Massa, Sizov, "Flash-Decoding for long-context
 * inference" (2023); FlashAttention-2's register reuse of the S accumulators as
 * P's A fragment (kernels/mma_common.cuh); packing a group's query heads into
 * the rows of one tile as FlashInfer's and FlashAttention-3's GQA decode paths
 * do; the last-block merge of the CUDA samples' threadFenceReduction. Previous
 * rung: cuda_decode_split_kv.
 */
#include "cuda_attn_util.cuh"
#include "entry_points.h"
#include "mma_common.cuh"
#include "split_combine.cuh"

#include <stdlib.h>

namespace {

using namespace abmma;

constexpr int NW = 4;          /* warps per block, each with its own pipeline */
constexpr int BC = 16;         /* keys per warp tile */
constexpr int NST = 3;         /* pipeline stages per warp */
constexpr int MAX_SPLIT = 256; /* bounds the merge's weight table (32 KB of shared memory) */

struct mdec_params {
    const void *q, *k, *v; /* Q [B, H, S, D]; K, V [B, H_kv, S_kv, D] */
    void *o;               /* [B, H, S, D] */
    float *opart;          /* [nsplit, B*H*S, D] when nsplit > 1 */
    float *mpart, *lpart;  /* [nsplit, B*H*S] */
    int *count;            /* [B*H_kv, row chunks]: splits done; 0 between launches */
    int B, H, Hkv, S, Skv, nsplit, per, causal;
    float scale_log2;
};

/* Dynamic shared memory of one block: NW warps x NST stages x (K, V) tiles. */
template <int D> constexpr int smem_bytes() { return NW * NST * 2 * BC * D * 2; }
/* Row stride (floats) of the warp-merge scratch: a float2 per lane, 4 rows
 * of a quad's 8 lanes on distinct banks. */
template <int D> constexpr int merge_ld() { return D + 8; }

/* Global row index in [B*H*S] of chunk row rr of group (b, hk). */
__device__ __forceinline__ size_t q_row(const mdec_params &p, int b, int hk, int rr)
{
    const int G = p.H / p.Hkv;
    return ((size_t)b * p.H + hk * G + rr / p.S) * p.S + rr % p.S;
}

/* grid (B * H_kv, nsplit, ceil(G*S / 16)), block 32 * NW. TWO: the chunk
 * has more than 8 rows (the m16 tile's rows 8..15 are real). */
template <typename T, int D, bool TWO>
__global__ void __launch_bounds__(32 * NW) decode_mma_kernel(const mdec_params p)
{
    using ops = dtype_ops<T>;
    constexpr int RB = D * 2;               /* bytes per K/V row */
    constexpr int TILE = BC * RB;           /* one K (or V) tile */
    constexpr int CPR = D / 8;              /* 16-byte chunks per row */
    constexpr int CPL = BC * CPR / 32;      /* chunks per lane per tile */
    constexpr int NH = TWO ? 2 : 1;         /* row halves computed */
    extern __shared__ __align__(128) unsigned char smem[];
    __shared__ float sm_m[NW][16], sm_l[NW][16];
    __shared__ int s_last;

    const int kvbh = blockIdx.x, split = blockIdx.y, c0 = blockIdx.z * 16;
    const int b = kvbh / p.Hkv, hk = kvbh % p.Hkv;
    const int R = (p.H / p.Hkv) * p.S, nr = min(16, R - c0);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    const int shift = p.Skv - p.S;
    const size_t rows_all = (size_t)p.B * p.H * p.S;

    /* last visible key of this thread's rows g (h = 0) and g + 8 (h = 1);
     * rows past the chunk's end (zero Q) see every key: finite, unwritten */
    int last[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int r = g + 8 * h;
        last[h] = p.Skv - 1;
        if (r < nr && p.causal)
            last[h] = min(p.Skv - 1, (c0 + r) % p.S + shift);
    }
    /* keys of this split any row of the chunk sees */
    const int k0 = split * p.per;
    int kend = min(p.Skv, k0 + p.per);
    if (p.causal) {
        const int rlo = c0, rhi = c0 + nr - 1;
        const int imax = rlo / p.S == rhi / p.S ? rhi % p.S : p.S - 1;
        kend = min(kend, imax + shift + 1);
    }
    const int ntile = kend > k0 ? (kend - k0 + BC - 1) / BC : 0;
    const int nit = ntile > warp ? (ntile - warp + NW - 1) / NW : 0;

    /* Q fragments (A of m16n8k16), unscaled; rows >= nr are zero */
    uint32_t qa[D / 16][4];
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++)
        qa[kk][0] = qa[kk][1] = qa[kk][2] = qa[kk][3] = 0u;
#pragma unroll
    for (int h = 0; h < NH; h++) {
        const int r = g + 8 * h;
        if (r < nr) {
            const T *qr = (const T *)p.q + q_row(p, b, hk, c0 + r) * D + 2 * t;
#pragma unroll
            for (int kk = 0; kk < D / 16; kk++) {
                qa[kk][h] = *reinterpret_cast<const uint32_t *>(qr + kk * 16);
                qa[kk][2 + h] = *reinterpret_cast<const uint32_t *>(qr + kk * 16 + 8);
            }
        }
    }

    const T *K = (const T *)p.k + (size_t)kvbh * p.Skv * D;
    const T *V = (const T *)p.v + (size_t)kvbh * p.Skv * D;
    unsigned char *wsm = smem + warp * NST * 2 * TILE;
    const uint32_t ubase = smem_u32(wsm);

    /* the warp's it-th tile into stage it % NST (an empty group past the end) */
    auto issue = [&](int it) {
        if (it < nit) {
            const int key0 = k0 + (warp + it * NW) * BC;
            const uint32_t uk = ubase + (it % NST) * 2 * TILE, uv = uk + TILE;
#pragma unroll
            for (int c = 0; c < CPL; c++) {
                const int ch = lane + 32 * c, row = ch / CPR, col = ch % CPR;
                const int key = key0 + row;
                const bool ok = key < p.Skv;
                const size_t off = ok ? (size_t)key * D + col * 8 : 0;
                cp_async16(uk + tile_off<RB, true>(row, col), K + off, ok ? 16 : 0);
                cp_async16(uv + tile_off<RB, true>(row, col), V + off, ok ? 16 : 0);
            }
        }
        cp_async_commit();
    };

    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};
    float o[D / 8][4];
#pragma unroll
    for (int dt = 0; dt < D / 8; dt++)
        o[dt][0] = o[dt][1] = o[dt][2] = o[dt][3] = 0.f;

#pragma unroll
    for (int s = 0; s < NST - 1; s++)
        issue(s);
    for (int it = 0; it < nit; it++) {
        issue(it + NST - 1); /* refills the stage read in it - 1 (fenced below) */
        cp_async_wait<NST - 1>();
        __syncwarp();
        const uint32_t uk = ubase + (it % NST) * 2 * TILE, uv = uk + TILE;
        const int key0 = k0 + (warp + it * NW) * BC;

        /* S = Q K^T: 16 rows x 16 keys */
        float s[2][4];
#pragma unroll
        for (int n = 0; n < 2; n++)
            s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.f;
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++) {
            uint32_t bk[4];
            ldsm_x4(bk, uk + tile_off<RB, true>((lane & 7) + ((lane >> 4) << 3),
                                                 kk * 2 + ((lane >> 3) & 1)));
            ops::mma(s[0], qa[kk], bk[0], bk[1]);
            ops::mma(s[1], qa[kk], bk[2], bk[3]);
        }

        /* scale to log2 units, mask, online softmax per row half */
#pragma unroll
        for (int h = 0; h < NH; h++) {
            float mx = m[h];
#pragma unroll
            for (int n = 0; n < 2; n++)
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    const int key = key0 + n * 8 + 2 * t + e;
                    float x = s[n][2 * h + e] * p.scale_log2;
                    if (key > last[h])
                        x = -INFINITY;
                    s[n][2 * h + e] = x;
                    mx = fmaxf(mx, x);
                }
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
            const float mb = mx == -INFINITY ? 0.f : mx;
            const float corr = fast_exp2(m[h] - mb);
            m[h] = mx;
            float ls = 0.f;
#pragma unroll
            for (int n = 0; n < 2; n++)
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    const float pe = fast_exp2(s[n][2 * h + e] - mb);
                    s[n][2 * h + e] = pe;
                    ls += pe;
                }
            l[h] = fmaf(l[h], corr, ls);
#pragma unroll
            for (int dt = 0; dt < D / 8; dt++) {
                o[dt][2 * h] *= corr;
                o[dt][2 * h + 1] *= corr;
            }
        }

        /* O += P V, P straight from the accumulators */
        uint32_t a[4];
        a[0] = ops::pack(s[0][0], s[0][1]);
        a[1] = TWO ? ops::pack(s[0][2], s[0][3]) : 0u;
        a[2] = ops::pack(s[1][0], s[1][1]);
        a[3] = TWO ? ops::pack(s[1][2], s[1][3]) : 0u;
#pragma unroll
        for (int dp = 0; dp < D / 16; dp++) {
            uint32_t bv[4];
            ldsm_x4_trans(bv, uv + tile_off<RB, true>((lane & 7) + (((lane >> 3) & 1) << 3),
                                                       dp * 2 + (lane >> 4)));
            ops::mma(o[2 * dp], a, bv[0], bv[1]);
            ops::mma(o[2 * dp + 1], a, bv[2], bv[3]);
        }
        __syncwarp(); /* every lane has read this stage before it is refilled */
    }
    cp_async_wait<0>();

    /* merge the warps: each writes its rows (unnormalised O, m, l) */
#pragma unroll
    for (int h = 0; h < 2; h++) {
        l[h] += __shfl_xor_sync(0xffffffffu, l[h], 1);
        l[h] += __shfl_xor_sync(0xffffffffu, l[h], 2);
    }
    __syncthreads(); /* every warp is done with its stages: reuse them */
    float *wo = reinterpret_cast<float *>(smem);
    constexpr int LD = merge_ld<D>();
#pragma unroll
    for (int h = 0; h < NH; h++) {
        const int r = g + 8 * h;
        if (r < nr) {
            float *row = wo + (warp * 16 + r) * LD + 2 * t;
#pragma unroll
            for (int dt = 0; dt < D / 8; dt++)
                *reinterpret_cast<float2 *>(row + dt * 8) = make_float2(o[dt][2 * h], o[dt][2 * h + 1]);
            if (t == 0) {
                sm_m[warp][r] = m[h];
                sm_l[warp][r] = l[h];
            }
        }
    }
    __syncthreads();
    for (int e = threadIdx.x; e < nr * D; e += 32 * NW) {
        const int r = e / D, d = e % D;
        float mx = -INFINITY;
#pragma unroll
        for (int w = 0; w < NW; w++)
            mx = fmaxf(mx, sm_m[w][r]);
        const float mu = mx == -INFINITY ? 0.f : mx;
        float ls = 0.f, os = 0.f;
#pragma unroll
        for (int w = 0; w < NW; w++) {
            const float f = exp2f(sm_m[w][r] - mu); /* 0 for a warp that saw no key */
            ls = fmaf(sm_l[w][r], f, ls);
            os = fmaf(wo[(w * 16 + r) * LD + d], f, os);
        }
        const size_t row = q_row(p, b, hk, c0 + r);
        const float inv = ls > 0.f ? 1.f / ls : 0.f;
        if (p.nsplit == 1) {
            ((T *)p.o)[row * D + d] = ab_from_f<T>(os * inv);
        } else {
            const size_t pr = (size_t)split * rows_all + row;
            p.opart[pr * D + d] = os * inv;
            if (d == 0) {
                p.mpart[pr] = ls > 0.f ? mx : -INFINITY;
                p.lpart[pr] = ls;
            }
        }
    }
    if (p.nsplit == 1)
        return;

    /* the last split of this (b, h_kv, chunk) to finish merges them all */
    __threadfence();
    __syncthreads();
    const size_t cidx = (size_t)kvbh * gridDim.z + blockIdx.z;
    if (threadIdx.x == 0) {
        const int done = atomicAdd(p.count + cidx, 1);
        s_last = done == p.nsplit - 1;
    }
    __syncthreads();
    if (!s_last)
        return;
    __threadfence();
    if (threadIdx.x == 0)
        p.count[cidx] = 0; /* ready for the next launch */
    /* weights w_s = l_s 2^(m_s - m) per row in shared memory [nsplit][16] */
    float *wm = reinterpret_cast<float *>(smem), *wl = wm + MAX_SPLIT * 16;
    __shared__ float s_inv[16];
    for (int e = threadIdx.x; e < p.nsplit * nr; e += 32 * NW) {
        const int sp = e / nr, r = e % nr;
        const size_t pr = (size_t)sp * rows_all + q_row(p, b, hk, c0 + r);
        wm[sp * 16 + r] = __ldcg(p.mpart + pr);
        wl[sp * 16 + r] = __ldcg(p.lpart + pr);
    }
    __syncthreads();
    for (int r = warp; r < nr; r += NW) {
        float mx = -INFINITY;
        for (int sp = lane; sp < p.nsplit; sp += 32)
            mx = fmaxf(mx, wm[sp * 16 + r]);
        mx = ab_warp_max(mx);
        const float mu = mx == -INFINITY ? 0.f : mx;
        float ls = 0.f;
        for (int sp = lane; sp < p.nsplit; sp += 32) {
            const float w = wl[sp * 16 + r] * exp2f(wm[sp * 16 + r] - mu);
            wl[sp * 16 + r] = w;
            ls += w;
        }
        ls = ab_warp_sum(ls);
        if (lane == 0)
            s_inv[r] = ls > 0.f ? 1.f / ls : 0.f;
    }
    __syncthreads();
    for (int e = threadIdx.x; e < nr * (D / 4); e += 32 * NW) {
        const int r = e / (D / 4), d4 = e % (D / 4);
        const size_t row = q_row(p, b, hk, c0 + r);
        float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 8
        for (int sp = 0; sp < p.nsplit; sp++) {
            const float w = wl[sp * 16 + r];
            const float4 x =
                __ldcg(reinterpret_cast<const float4 *>(p.opart + ((size_t)sp * rows_all + row) * D) + d4);
            acc.x = fmaf(w, x.x, acc.x);
            acc.y = fmaf(w, x.y, acc.y);
            acc.z = fmaf(w, x.z, acc.z);
            acc.w = fmaf(w, x.w, acc.w);
        }
        const float inv = s_inv[r];
        uint2 out;
        out.x = ops::pack(acc.x * inv, acc.y * inv);
        out.y = ops::pack(acc.z * inv, acc.w * inv);
        *reinterpret_cast<uint2 *>((T *)p.o + row * D + d4 * 4) = out;
    }
}

/* Raises the dynamic shared-memory limit and reads the blocks per
 * multiprocessor of one instantiation. */
template <typename T, int D, bool TWO> cudaError_t prepare(int *blocks_per_sm)
{
    auto k = decode_mma_kernel<T, D, TWO>;
    cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes<D>());
    if (e != cudaSuccess)
        return e;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, k, 32 * NW, smem_bytes<D>());
}

template <typename T, int D> cudaError_t prepare_two(bool two, int *bps)
{
    return two ? prepare<T, D, true>(bps) : prepare<T, D, false>(bps);
}

template <typename T, int D> void launch(const mdec_params &p, bool two, int chunks, cudaStream_t st)
{
    const dim3 grid((unsigned)(p.B * p.Hkv), (unsigned)p.nsplit, (unsigned)chunks);
    if (two)
        decode_mma_kernel<T, D, true><<<grid, 32 * NW, smem_bytes<D>(), st>>>(p);
    else
        decode_mma_kernel<T, D, false><<<grid, 32 * NW, smem_bytes<D>(), st>>>(p);
}

struct mdec_ctx {
    int nsplit, per, chunks, two;
    float *opart, *mpart, *lpart;
    int *count;
};

} // namespace

/* setup: fp16/bf16, D in {64, 128}, S <= 32 (a decode rung: the registry
 * skips other shapes). Picks the splits: as many blocks as fit on the GPU at
 * once (occupancy x multiprocessors) over B * H_kv * row chunks, each split
 * a multiple of 16 keys and at least 64, at most 256 splits; with more than
 * one, allocates the partials (nsplit * B*H*S * (D + 2) floats) and the
 * per-(b, h_kv, chunk) counters (zeroed), reported through *ws. Returns 0,
 * AB_SETUP_UNSUPPORTED when this GPU cannot give a block the shared memory
 * (96 KB at D = 128), -1 with a message otherwise. */
extern "C" int cuda_decode_mma_setup(const ab_shape *s, void **ctx, size_t *ws, char *err,
                                     size_t errlen)
{
    *ctx = NULL;
    *ws = 0;
    if (s->D != 64 && s->D != 128) {
        snprintf(err, errlen, "cuda_decode_mma: D=%d not supported (64, 128)", s->D);
        return -1;
    }
    if (s->dtype != AB_FP16 && s->dtype != AB_BF16) {
        snprintf(err, errlen, "cuda_decode_mma: dtype not supported (fp16, bf16)");
        return -1;
    }
    const int hkv = ab_shape_hkv(s), skv = ab_shape_skv(s);
    const long rows = (long)(s->H / hkv) * s->S, chunks = (rows + 15) / 16;
    if ((long long)s->B * hkv > 0x7fffffffLL || chunks > 65535) {
        snprintf(err, errlen, "cuda_decode_mma: B*H_kv or the row chunks too large for one grid");
        return -1;
    }
    const bool two = rows > 8;
    int dev = 0, sms = 0, bps = 0;
    AB_CK_SETUP(cudaGetDevice(&dev));
    AB_CK_SETUP(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    cudaError_t e = cudaSuccess;
    if (s->dtype == AB_FP16)
        e = s->D == 64 ? prepare_two<__half, 64>(two, &bps) : prepare_two<__half, 128>(two, &bps);
    else
        e = s->D == 64 ? prepare_two<__nv_bfloat16, 64>(two, &bps)
                       : prepare_two<__nv_bfloat16, 128>(two, &bps);
    if (e != cudaSuccess || bps < 1) {
        (void)cudaGetLastError();
        snprintf(err, errlen, "cuda_decode_mma: a block needs %d bytes of shared memory: %s",
                 s->D == 64 ? smem_bytes<64>() : smem_bytes<128>(),
                 e != cudaSuccess ? cudaGetErrorString(e) : "no block fits");
        return AB_SETUP_UNSUPPORTED;
    }
    const long units = (long)s->B * hkv * chunks, slots = (long)bps * sms;
    long ns = slots / units;
    ns = ns < 1 ? 1 : ns;
    long per = (skv + ns - 1) / ns;
    per = (per + BC - 1) / BC * BC;
    per = per < 64 ? 64 : per;
    if ((skv + per - 1) / per > MAX_SPLIT)
        per = ((skv + MAX_SPLIT - 1) / MAX_SPLIT + BC - 1) / BC * BC;
    ns = (skv + per - 1) / per;
    mdec_ctx *c = (mdec_ctx *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    c->nsplit = (int)ns;
    c->per = (int)per;
    c->chunks = (int)chunks;
    c->two = two;
    if (ns > 1) {
        ab_split_parts parts;
        size_t pb = 0;
        if (ab_split_parts_alloc(&parts, (int)ns, (size_t)s->B * s->H * (size_t)s->S, s->D,
                                 "cuda_decode_mma", &pb, err, errlen)) {
            free(c);
            return -1;
        }
        c->opart = parts.opart;
        c->mpart = parts.mpart;
        c->lpart = parts.lpart;
        const size_t cb = (size_t)units * sizeof(int);
        if (cudaMalloc((void **)&c->count, cb) != cudaSuccess ||
            cudaMemset(c->count, 0, cb) != cudaSuccess) {
            snprintf(err, errlen, "cuda_decode_mma: the split counters (%zu bytes): %s", cb,
                     cudaGetErrorString(cudaGetLastError()));
            cudaFree(c->count);
            cudaFree(c->opart);
            free(c);
            return -1;
        }
        *ws = pb + cb;
    }
    *ctx = c;
    return 0;
}

/* run: one launch (splits merged inside it) on `stream`. */
extern "C" int cuda_decode_mma_run(void *ctx, const ab_shape *s, const void *q, const void *k,
                                   const void *v, void *o, void *stream)
{
    const mdec_ctx *c = (const mdec_ctx *)ctx;
    mdec_params p = {};
    p.q = q, p.k = k, p.v = v, p.o = o;
    p.opart = c->opart, p.mpart = c->mpart, p.lpart = c->lpart, p.count = c->count;
    p.B = s->B, p.H = s->H, p.Hkv = ab_shape_hkv(s), p.S = s->S, p.Skv = ab_shape_skv(s);
    p.nsplit = c->nsplit, p.per = c->per, p.causal = s->causal;
    p.scale_log2 = AB_LOG2E / sqrtf((float)s->D);
    cudaStream_t st = (cudaStream_t)stream;
    const bool two = c->two != 0;
    if (s->dtype == AB_FP16) {
        if (s->D == 64)
            launch<__half, 64>(p, two, c->chunks, st);
        else
            launch<__half, 128>(p, two, c->chunks, st);
    } else if (s->dtype == AB_BF16) {
        if (s->D == 64)
            launch<__nv_bfloat16, 64>(p, two, c->chunks, st);
        else
            launch<__nv_bfloat16, 128>(p, two, c->chunks, st);
    } else {
        return -1;
    }
    return 0;
}

extern "C" void cuda_decode_mma_teardown(void *ctx)
{
    mdec_ctx *c = (mdec_ctx *)ctx;
    if (!c)
        return;
    cudaFree(c->count);
    cudaFree(c->opart);
    free(c);
}
