/*
 * cuda_decode_split_kv.cu: the `cuda_decode_split_kv` variant, attention
 * for decode (one query row, or a few, against a long K/V cache) with
 * grouped-query heads: the flash-decoding rung of the ladder.
 *
 * Idea. A decode step has S = 1: the query tile of a prefill kernel
 * (cuda_split_kv: 64 rows) is 1/64 full, and with grouped-query attention
 * the G = H / H_kv query heads of a group are separate blocks that each
 * stream the same K and V. Here one block owns one K/V head (b, h_kv) and
 * a contiguous range of keys (a split), and ALL the query rows that read
 * that head: R = G * S rows (G = 4 for Llama 3 8B), taken 8 at a time. Its
 * 4 warps stride over the keys; per key a warp loads the K and V rows once
 * (lanes over D: 8-byte loads for D = 128, 4-byte for D = 64, coalesced),
 * forms the R scores with a butterfly reduction, and keeps an online
 * softmax per row (running max m, sum l, accumulator; exp2 with log2 e
 * folded into Q's scale). The warps' states merge in shared memory at the
 * end; the splits merge exactly in a second kernel (split_combine.cuh,
 * shared with cuda_split_kv). The number of splits fills the GPU:
 * about 8 blocks per multiprocessor over the B * H_kv heads, each split at
 * least 64 keys. Causal masks key j > i + S_kv - S (bottom-right: a decode
 * row sees every key); a row that sees none is 0. Any S works (rows in
 * chunks of 8, K/V streamed once per chunk), but it is a decode kernel:
 * prefill belongs to the tensor-core rungs.
 *
 * Bytes and ceilings (Llama 3 8B decode, B = 1, S_kv = 64K, bf16): K and V
 * are 2 * 8 * 65536 * 128 * 2 = 268 MB, Q and O 16 KB; 4 * 32 * 65536 *
 * 128 = 1.07 GFLOP: 4 FLOP per byte, so the copy ceiling (~4.0-4.8 TB/s on
 * an H200) bounds it at about 56-67 us. Prediction (before the first run):
 * memory-bound at 50-70% of the copy ceiling at long caches (the loads of
 * a warp are one K and one V row per step, 2-4 in flight); cuda_split_kv
 * (64-row tiles, one block per query head) measured 0.36-0.44 TFLOP/s
 * where K/V exceed 256 MB, cudnn_sdpa 15-18 (reports/llama3-8b/llama3-8b.db run 1).
 *
 * Measured (attnbench run experiments/llama3-8b.cfg,
 * reports/llama3-8b/llama3-8b.db run 1, report
 * reports/llama3-8b/llama3-8b-run1.md; NVIDIA H200, 2026-11-24, hot timing; H
 * = 32, H_kv = 8, D = 128, bf16, S = 1; copy ceiling measured in the run 4228
 * GB/s): B = 1, S_kv = 1K..64K 0.026-0.314 ms, 159-855 GB/s (cudnn_sdpa
 * 271-3797, cuda_split_kv 74-106); B = 8 and 64: 632-1023 GB/s (cudnn_sdpa
 * 1807-4497). 4.1-9.6x cuda_split_kv at S_kv >= 4096, but only 17-24% of the
 * copy ceiling where K/V exceed 256 MB (B = 1 S_kv = 64K, B = 8 S_kv = 8K and
 * 32K, B = 64 S_kv = 1K and 4K), 4.2-5.8x behind cuDNN there: the prediction
 * (50-70%) is NOT met.
 *
 * Profiled (no database: the figures are in the log named): Nsight Compute at B = 1,
 * S_kv = 64K (reports/llama3-8b/ncu-decode-llama3-64k.log; same day): 268 us, DRAM
 * 21% of peak (cuDNN's kernel: 65 us, 86%), issue slots busy 41.9% of
 * active cycles against cuDNN's 17.9% for the same 268 MB, warps active
 * 24.7% (116 registers: 4 blocks per SM), stalls per issue short
 * scoreboard 2.99, wait 2.34, long scoreboard 2.01: the kernel is bound
 * by the dependent chains of each key (4 butterfly reductions of 5
 * shuffles, 8 exp2) and too few warps to hide them, not by DRAM. cuDNN
 * does the group's 4 rows x keys product on tensor cores (a 16-row MMA
 * tile, wmma, 182 registers). Next: the rows x keys product as one MMA per
 * key tile (rows padded to 16), or lanes over keys for Q K^T (no
 * reductions); fewer registers for more warps.
 * Then (same day): 4-row chunks when a group has at most 4 rows, 64
 * registers instead of 116, 8 blocks per SM instead of 4. Prediction:
 * 1.5-1.9x at long caches (twice the warps to hide the chains). Measured
 * (run 3 of reports/llama3-8b/llama3-8b.db, reports/llama3-8b/llama3-8b-run3.md): B = 1,
 * S_kv = 64K 855 -> 1241 GB/s (1.45x), 16K 585 -> 776, B = 8 and 64
 * 864-1250 GB/s (1.22-1.37x); short caches unchanged (157-381 at B = 1,
 * S_kv <= 4K); cudnn_sdpa in the same run 3824-4479 where K/V exceed 256
 * MB, so still 3.1-4.8x behind. The prediction's lower end is not reached.
 *
 * Checked: gpu_check (60 cases, 36 of them H_kv < H or S_kv != S) and
 * compute-sanitizer memcheck clean. ptxas: 111-116 registers, no spills.
 *
 * Source: Dao, Haziza, Massa, Sizov, "Flash-Decoding for long-context
 * inference" (2023); the online softmax of Milakov & Gimelshein (2018);
 * packing a group's query heads into one tile as FlashInfer and
 * FlashAttention's GQA decode paths do. Previous rung: cuda_split_kv.
 */
#include "cuda_attn_util.cuh"
#include "entry_points.h"
#include "split_combine.cuh"

#include <stdlib.h>

namespace {

constexpr int NW = 4;   /* warps per block */
/* query rows per chunk: RC = 4 when a group has at most 4 rows (G * S <=
 * 4: Llama 3's decode), so the per-row state fits in fewer registers and
 * twice the blocks fit on a multiprocessor; else 8 */

struct dec_params {
    const void *q, *k, *v; /* Q [B, H, S, D]; K, V [B, H_kv, S_kv, D] */
    void *o;               /* [B, H, S, D] */
    float *opart;          /* [nsplit, B*H*S, D] when nsplit > 1 */
    float *mpart, *lpart;  /* [nsplit, B*H*S] */
    int B, H, Hkv, S, Skv, nsplit, causal;
    float scale_log2;
};

/* E consecutive elements at p as floats (E = 2 or 4). */
template <int E, typename T> __device__ __forceinline__ void load_e(const T *p, float x[E])
{
    if constexpr (E == 4) {
        ab_load4(p, x);
    } else {
#pragma unroll
        for (int e = 0; e < E; e++)
            x[e] = ab_to_f(p[e]);
    }
}

/* grid (B * H_kv, nsplit), block 32 * NW. */
template <typename T, int D, int RC>
__global__ void __launch_bounds__(32 * NW, RC == 4 ? 8 : 4) decode_kernel(const dec_params p)
{
    constexpr int E = D / 32; /* elements per lane */
    __shared__ float qs[RC * D];
    __shared__ float ws_m[NW][RC], ws_l[NW][RC];
    __shared__ float ws_o[NW][RC][D];

    const int kvbh = blockIdx.x, split = blockIdx.y;
    const int b = kvbh / p.Hkv, hk = kvbh % p.Hkv;
    const int G = p.H / p.Hkv, R = G * p.S, shift = p.Skv - p.S;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int per = (p.Skv + p.nsplit - 1) / p.nsplit;
    const int k0 = split * per, k1 = min(p.Skv, k0 + per);
    const T *K = (const T *)p.k + (size_t)kvbh * p.Skv * D;
    const T *V = (const T *)p.v + (size_t)kvbh * p.Skv * D;
    const size_t rows_all = (size_t)p.B * p.H * p.S;

    for (int c0 = 0; c0 < R; c0 += RC) {
        const int nr = min(RC, R - c0);
        /* row r of the chunk: group member g, query row i -> head hk*G + g */
        __syncthreads(); /* the previous chunk's merge has read qs and ws */
        for (int e = threadIdx.x; e < RC * D; e += 32 * NW) {
            const int r = e / D, d = e % D, rr = c0 + r;
            float x = 0.0f;
            if (r < nr) {
                const int g = rr / p.S, i = rr % p.S;
                const T *Q = (const T *)p.q + (((size_t)b * p.H + hk * G + g) * p.S + i) * D;
                x = ab_to_f(Q[d]) * p.scale_log2;
            }
            qs[e] = x;
        }
        __syncthreads();
        int lastkey[RC]; /* last visible key of each row */
#pragma unroll
        for (int r = 0; r < RC; r++) {
            const int i = (c0 + r) % p.S;
            lastkey[r] = r < nr ? (p.causal ? min(p.Skv - 1, i + shift) : p.Skv - 1) : -1;
        }
        float m[RC], l[RC], acc[RC][E];
#pragma unroll
        for (int r = 0; r < RC; r++) {
            m[r] = -INFINITY;
            l[r] = 0.0f;
#pragma unroll
            for (int e = 0; e < E; e++)
                acc[r][e] = 0.0f;
        }
        constexpr int U = 2; /* keys per warp per step: their loads issued together */
        for (int j0 = k0 + warp; j0 < k1; j0 += U * NW) {
            float kx[U][E], vx[U][E];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int j = j0 + u * NW;
                if (j < k1) {
                    load_e<E>(K + (size_t)j * D + lane * E, kx[u]);
                    load_e<E>(V + (size_t)j * D + lane * E, vx[u]);
                }
            }
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int j = j0 + u * NW;
                if (j >= k1)
                    break;
#pragma unroll
                for (int r = 0; r < RC; r++) {
                    if (j > lastkey[r])
                        continue; /* masked (or no such row): warp-uniform */
                    float s = 0.0f;
#pragma unroll
                    for (int e = 0; e < E; e++)
                        s = fmaf(qs[r * D + lane * E + e], kx[u][e], s);
                    s = ab_warp_sum(s);
                    const float mn = fmaxf(m[r], s);
                    const float alpha = exp2f(m[r] - mn), pe = exp2f(s - mn);
                    l[r] = fmaf(l[r], alpha, pe);
                    m[r] = mn;
#pragma unroll
                    for (int e = 0; e < E; e++)
                        acc[r][e] = fmaf(acc[r][e], alpha, pe * vx[u][e]);
                }
            }
        }
        /* merge the warps of the block */
#pragma unroll
        for (int r = 0; r < RC; r++) {
            if (lane == 0) {
                ws_m[warp][r] = m[r];
                ws_l[warp][r] = l[r];
            }
#pragma unroll
            for (int e = 0; e < E; e++)
                ws_o[warp][r][lane * E + e] = acc[r][e];
        }
        __syncthreads();
        /* every thread merges (row, column) elements of the chunk */
        for (int e = threadIdx.x; e < nr * D; e += 32 * NW) {
            const int r = e / D, d = e % D, rr = c0 + r;
            float mx = -INFINITY;
#pragma unroll
            for (int w = 0; w < NW; w++)
                mx = fmaxf(mx, ws_m[w][r]);
            const float mu = mx == -INFINITY ? 0.0f : mx;
            float ls = 0.0f, os = 0.0f;
#pragma unroll
            for (int w = 0; w < NW; w++) {
                const float f = ws_m[w][r] == -INFINITY ? 0.0f : exp2f(ws_m[w][r] - mu);
                ls = fmaf(ws_l[w][r], f, ls);
                os = fmaf(ws_o[w][r][d], f, os);
            }
            const int g = rr / p.S, i = rr % p.S;
            const size_t row = ((size_t)b * p.H + hk * G + g) * p.S + i;
            const float inv = ls > 0.0f ? 1.0f / ls : 0.0f;
            if (p.nsplit == 1) {
                ((T *)p.o)[row * D + d] = ab_from_f<T>(os * inv);
            } else {
                const size_t pr = (size_t)split * rows_all + row;
                p.opart[pr * D + d] = os * inv;
                if (d == 0) {
                    p.mpart[pr] = ls > 0.0f ? mx : -INFINITY;
                    p.lpart[pr] = ls;
                }
            }
        }
    }
}

template <typename T, int D> void launch(const dec_params &p, cudaStream_t st)
{
    const dim3 grid((unsigned)(p.B * p.Hkv), (unsigned)p.nsplit);
    if ((p.H / p.Hkv) * p.S <= 4)
        decode_kernel<T, D, 4><<<grid, 32 * NW, 0, st>>>(p);
    else
        decode_kernel<T, D, 8><<<grid, 32 * NW, 0, st>>>(p);
    if (p.nsplit > 1)
        ab_split_combine_launch<T, D>({p.opart, p.mpart, p.lpart}, p.o,
                                      (size_t)p.B * p.H * p.S, p.nsplit, st);
}

struct dec_ctx {
    int nsplit;
    float *opart, *mpart, *lpart;
};

} // namespace

/* setup: D in {64, 128}; picks the splits (about 8 blocks per
 * multiprocessor over B * H_kv, each split >= 64 keys, at most 4096) and,
 * when more than one, allocates the partials: nsplit * B*H*S * (D + 2)
 * floats, reported through *ws after checking free memory. */
extern "C" int cuda_decode_split_kv_setup(const ab_shape *s, void **ctx, size_t *ws, char *err,
                                          size_t errlen)
{
    *ctx = NULL;
    *ws = 0;
    if (s->D != 64 && s->D != 128) {
        snprintf(err, errlen, "cuda_decode_split_kv: D=%d not supported (64, 128)", s->D);
        return -1;
    }
    if ((long long)s->B * ab_shape_hkv(s) > 0x7fffffffLL) {
        snprintf(err, errlen, "cuda_decode_split_kv: B*H_kv too large for one grid");
        return -1;
    }
    int dev = 0, sms = 0;
    AB_CK_SETUP(cudaGetDevice(&dev));
    AB_CK_SETUP(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const long heads = (long)s->B * ab_shape_hkv(s), skv = ab_shape_skv(s);
    long ns = (8L * sms + heads - 1) / heads;
    const long most = (skv + 63) / 64;
    ns = ns > most ? most : ns;
    ns = ns > 4096 ? 4096 : ns < 1 ? 1 : ns;
    dec_ctx *c = (dec_ctx *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    c->nsplit = (int)ns;
    if (ns > 1) {
        ab_split_parts parts;
        if (ab_split_parts_alloc(&parts, (int)ns, (size_t)s->B * s->H * (size_t)s->S, s->D,
                                 "cuda_decode_split_kv", ws, err, errlen)) {
            free(c);
            return -1;
        }
        c->opart = parts.opart;
        c->mpart = parts.mpart;
        c->lpart = parts.lpart;
    }
    *ctx = c;
    return 0;
}

/* run: the decode kernel and, with splits, the combine, on `stream`. */
extern "C" int cuda_decode_split_kv_run(void *ctx, const ab_shape *s, const void *q,
                                        const void *k, const void *v, void *o, void *stream)
{
    const dec_ctx *c = (const dec_ctx *)ctx;
    dec_params p = {};
    p.q = q, p.k = k, p.v = v, p.o = o;
    p.opart = c->opart, p.mpart = c->mpart, p.lpart = c->lpart;
    p.B = s->B, p.H = s->H, p.Hkv = ab_shape_hkv(s), p.S = s->S, p.Skv = ab_shape_skv(s);
    p.nsplit = c->nsplit, p.causal = s->causal;
    p.scale_log2 = AB_LOG2E / sqrtf((float)s->D);
    cudaStream_t st = (cudaStream_t)stream;
    if (s->D == 64)
        AB_DISPATCH_DTYPE(s->dtype, T, (launch<T, 64>(p, st)));
    else if (s->D == 128)
        AB_DISPATCH_DTYPE(s->dtype, T, (launch<T, 128>(p, st)));
    else
        return -1;
    return 0;
}

extern "C" void cuda_decode_split_kv_teardown(void *ctx)
{
    dec_ctx *c = (dec_ctx *)ctx;
    if (!c)
        return;
    cudaFree(c->opart);
    free(c);
}
