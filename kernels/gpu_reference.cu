/*
 * gpu_reference.cu: the device side of the correctness check (gpu_check.h):
 * a float64 attention reference of every row, the plain same-precision
 * computation with its float64 shadow (reference.h gives both), and the
 * comparison of a variant's O with the reference, all reduced on the device.
 *
 * Idea: a block of 256 threads owns 32 query rows of one (b, h) slice (16
 * above D = 128) and walks the keys in tiles of 32 staged in shared memory,
 * so each K and V element is read from memory once per 32 rows instead of
 * once per row; the query rows sit in shared memory too. Each thread forms
 * the full dot products of its row with 4 keys (2 at 16 rows), sequentially
 * over d, in float64 for the reference and the shadow and in fp32 for the
 * plain computation, in reference.c's order. Three passes over the keys:
 * (1) the row maxima of reference, plain and shadow (exact in any order);
 * (2) the sums of exponentials, added in key order by one thread per row;
 * (3) the probabilities, then every output element accumulated in key order
 * by the thread that owns it. Scores are recomputed in every pass instead
 * of stored, so memory stays O(rows x D) at any S. It replaced a warp per
 * row (three butterfly reductions per key) whose results it reproduces up
 * to float64 rounding (the reference's sum of exponentials is now taken
 * after the maximum is known rather than online).
 * Source: the definition (Vaswani et al. 2017, eq. 1) for the reference;
 * the plain computation is reference.c's ab_plain_row (FlashAttention's
 * `out_pt`), with fp32 operations kept unfused (__fmul_rn, __fadd_rn) so
 * nvcc cannot contract them into FMAs the plain computation does not have.
 * Measured: NVIDIA H200, 2026-11-26 (reports/device-inputs, one-*.db): the
 * check of one variant at B=1 H=16 S=16384 D=128 causal bf16, reference
 * included, 0.88 s against 4.03 s with the warp-per-row kernel (the runs'
 * check time).
 *
 * At D = 64 and 128 on sm_90 (where a block may hold 216 KiB of shared
 * memory) reference_micro replaces it with the same results, bit for bit:
 * the same operations in the same order for every dot product, sum and
 * output, the work reorganised. reference_tiles converted every K and V
 * element to float64 once per product (F2F.F64.F32, 16 a clock per SM on
 * sm_90, against 64 DFMA: 1.25 conversions per row-key-d in the score loops,
 * 2.5 clocks per warp's row-key-d against 1 clock of DFMA) and its P V loop
 * made 4 shared loads (4 wavefronts) and a conversion per 2 DFMA.
 * reference_micro stages Q once per block as float64 x, float64 x * scale
 * and the plain x, and K and V per chunk of 4096 elements as float64 and
 * float (one conversion per element per block); each of 256 threads holds
 * a 4 x 4 micro-tile of scores (then of outputs), reading 2 d (2 keys) per
 * 16-byte load, so a row-key-d costs 2 DFMA + FMUL + FADD + 0.63 loads of
 * issue (1.16 clocks a warp on 4 schedulers, 0.63 wavefronts) and an
 * output-key 2 DFMA + FMUL + FADD + 0.56 loads; the next chunk's global
 * loads are in flight during the current chunk's products; 1 block of 256
 * threads per SM (252-255 registers). The source of the method: register
 * blocking of a matrix product (Volkov and Demmel 2008, "Benchmarking GPUs
 * to tune dense linear algebra"), applied to the three passes unchanged.
 * Predicted (before any GPU run): 3.3-3.8x at 16K tokens (B=1 H=16
 * S=16384 D=128 causal bf16, 0.88 s to about 0.25 s): per causal row-key
 * pair the old kernel's bound is 3 x 128 x 2.5 (scores) + 128 x 4 (P V) =
 * 1472 warp-clocks, about half of what it took; the new bound is
 * 3 x 128 x 1.16 + 128 x 1.14 + ~40 (float64 exp and division of passes
 * 2, 3) = 630 warp-clocks, and at three quarters of it (one block per SM, a
 * barrier per chunk, pass 2's sums by one warp) 3.5x; D = 64 and the
 * non-causal shapes alike.
 * Measured (NVIDIA H100s, 2026-11-26, reports/cost-per-answer/):
 * cost-prefill-hopper's correctness checks, nearly all of them its ten
 * configurations' references, took 5.16 s with reference_tiles and 2.36 s
 * with reference_micro, 2.19x: short of the prediction above.
 *
 * Checks (the study's logs): the digests of oref and of the maxima at 350
 * shapes equal reference_tiles' (the float64 atomic sums of squares differ
 * in their last bits between two runs of either kernel); the CPU oracle's
 * 288 cases pass; gpu_check --reference-time gives 2.20-2.35x at four
 * 16K-token shapes; compute-sanitizer memcheck and synccheck clean over
 * gpu_check --reference, racecheck no hazard in the 56 cases it finished
 * within its 150 s limit (fp16 at D = 1, 64, 128, 200, bf16 at D = 1, 64,
 * 128; no fp32 case reached).
 *
 * ptxas (nvcc 13.0, sm_90a): reference_tiles 158-170 registers, no spills;
 * reference_micro fp16/bf16 252-254 registers, no spills; fp32 255
 * registers, 160-204 bytes of spill stores (outside the inner loops: the
 * row limits and the probabilities' setup).
 * Checked against the CPU oracle over every row by the GPU suite
 * (`gpu_check --reference`: fp16, bf16, fp32; D = 1, 64, 128, 200; causal
 * and not; S = 1..200; H_kv < H and S_kv != S).
 */
#include "gpu_check.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

/* Device reductions. Maxima of non-negative doubles as their bit patterns
 * (ordered like the values); NaN is turned into +infinity first. */
struct dev_sums {
    unsigned long long max_err, plain_max, ref_absmax, ref_atol, disagree;
    double sum_err, sq_err, sq_ref, plain_sq;
    unsigned long long nonfinite;
};

__device__ __forceinline__ void atomic_max_pos(unsigned long long *a, double x)
{
    if (isnan(x))
        x = INFINITY;
    atomicMax(a, (unsigned long long)__double_as_longlong(x));
}

__device__ __forceinline__ double warp_sum(double x)
{
#pragma unroll
    for (int m = 16; m > 0; m >>= 1)
        x += __shfl_xor_sync(0xffffffffu, x, m);
    return x;
}

__device__ __forceinline__ double warp_max(double x)
{
#pragma unroll
    for (int m = 16; m > 0; m >>= 1)
        x = fmax(x, __shfl_xor_sync(0xffffffffu, x, m));
    return x;
}

template <typename T> __device__ __forceinline__ float to_f(T x);
template <> __device__ __forceinline__ float to_f<float>(float x) { return x; }
template <> __device__ __forceinline__ float to_f<__half>(__half x) { return __half2float(x); }
template <> __device__ __forceinline__ float to_f<__nv_bfloat16>(__nv_bfloat16 x)
{
    return __bfloat162float(x);
}

/* x rounded to T's precision, back in float (data.h's ab_round_to). */
template <typename T> __device__ __forceinline__ float rd(float x);
template <> __device__ __forceinline__ float rd<float>(float x) { return x; }
template <> __device__ __forceinline__ float rd<__half>(float x)
{
    return __half2float(__float2half_rn(x));
}
template <> __device__ __forceinline__ float rd<__nv_bfloat16>(float x)
{
    return __bfloat162float(__float2bfloat16_rn(x));
}

/* Blocks of the reference: RT threads own BM query rows of one (b, h)
 * slice and walk the keys in tiles of BN, staged in shared memory as
 * floats (K, then V over the same space). */
constexpr int RT = 256, BN = 32;
/* outputs a thread accumulates at most: BM * D <= RT * NO (BM = 32 up to
 * D = 128, 16 above) */
constexpr int NO = 16;

/* Keys query row i sees (variant.h's bottom-right causal mask). */
__device__ __forceinline__ int row_keys(int i, int S, int Skv, int causal)
{
    if (!causal)
        return Skv;
    const long long vis = (long long)i + Skv - S + 1;
    return (int)(vis < 0 ? 0 : vis > Skv ? Skv : vis);
}

/* Maxima over the TPR consecutive lanes that share a row. */
template <int TPR> __device__ __forceinline__ double group_max(double x)
{
#pragma unroll
    for (int m = TPR / 2; m > 0; m >>= 1)
        x = fmax(x, __shfl_xor_sync(0xffffffffu, x, m));
    return x;
}
template <int TPR> __device__ __forceinline__ float group_max(float x)
{
#pragma unroll
    for (int m = TPR / 2; m > 0; m >>= 1)
        x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, m));
    return x;
}

/* The three scores of this thread's KPT keys (c = g + TPR u of the tile in
 * kv) for its row q: reference (float64 dot, scale applied after), plain
 * (fp32 sum of products of the rounded scaled query, in order of d,
 * rounded to T: reference.c's plain_impl) and shadow (the plain's
 * operations in float64). */
template <typename T, int TPR, int KPT>
__device__ __forceinline__ void tile_scores(const float *q, const float *kv, int ld, int D, int g,
                                            double scale, float scale_plain, double (&sr)[KPT],
                                            float (&sp)[KPT], double (&ss)[KPT])
{
    double a[KPT], c[KPT];
    float b[KPT];
#pragma unroll
    for (int u = 0; u < KPT; u++)
        a[u] = c[u] = 0.0, b[u] = 0.f;
    for (int d = 0; d < D; d++) {
        const float x = q[d];
        const double xd = x, xs = xd * scale;
        const float xp = rd<T>(__fmul_rn(x, scale_plain));
#pragma unroll
        for (int u = 0; u < KPT; u++) {
            const float k = kv[(g + TPR * u) * ld + d];
            a[u] += xd * (double)k;
            b[u] = __fadd_rn(b[u], __fmul_rn(xp, k));
            c[u] += xs * (double)k;
        }
    }
#pragma unroll
    for (int u = 0; u < KPT; u++) {
        sr[u] = a[u] * scale;
        sp[u] = rd<T>(b[u]);
        ss[u] = c[u];
    }
}

/* Rows tile of BN keys from j0 of the slice at src ([Skv, D]) into dst
 * (row stride ld), zeros past Skv. */
template <typename T>
__device__ __forceinline__ void load_tile(float *dst, const T *__restrict__ src, int j0, int Skv,
                                          int D, int ld)
{
    for (int e = threadIdx.x; e < BN * D; e += RT) {
        const int c = e / D, d = e - c * D;
        dst[c * ld + d] = j0 + c < Skv ? to_f<T>(src[(size_t)(j0 + c) * D + d]) : 0.f;
    }
}

/* Shared memory of a reference block, bytes. */
__host__ __device__ constexpr size_t tile_smem(int BM, int ld)
{
    return (size_t)BM * BN * (2 * sizeof(double) + sizeof(float)) +
           (size_t)(BM + BN) * ld * sizeof(float);
}

/* The reference's sums over one warp's output elements: each element's
 * plain error (its plain output rounded to T against the shadow), the
 * reference's largest magnitude and sum of squares, and the shadow's
 * distance from the reference; flush() reduces them over the warp and adds
 * them to the device sums (lane 0). Both reference kernels add their
 * elements through it, so their sums are formed alike. */
struct out_sums {
    double pmax = 0.0, psq = 0.0, amax = 0.0, dis = 0.0, sq = 0.0;
    template <typename T>
    __device__ __forceinline__ void add(double o_ref, float o_plain, double o_shadow)
    {
        const double pe = fabs((double)rd<T>(o_plain) - o_shadow);
        pmax = fmax(pmax, pe);
        psq += pe * pe;
        amax = fmax(amax, fabs(o_ref));
        const double gap = fabs(o_shadow - o_ref);
        dis = isnan(gap) ? INFINITY : fmax(dis, gap);
        sq += o_ref * o_ref;
    }
    __device__ __forceinline__ void flush(int lane, dev_sums *sums)
    {
        pmax = warp_max(pmax);
        amax = warp_max(amax);
        dis = warp_max(dis);
        psq = warp_sum(psq);
        sq = warp_sum(sq);
        if (lane == 0) {
            atomic_max_pos(&sums->plain_max, pmax);
            atomic_max_pos(&sums->ref_absmax, amax);
            atomic_max_pos(&sums->disagree, dis);
            atomicAdd(&sums->plain_sq, psq);
            atomicAdd(&sums->sq_ref, sq);
        }
    }
};

/* One block per BM rows of a (b, h) slice; writes oref (float64) and
 * accumulates the plain-vs-shadow and shadow-vs-reference sums. Three
 * passes over the key tiles, scores recomputed in each: (1) the row maxima
 * of reference, plain and shadow; (2) their sums of exponentials, added in
 * key order by one thread per row; (3) the probabilities, then the outputs,
 * each accumulated in key order. */
template <typename T, int BM>
__global__ void __launch_bounds__(RT)
    reference_tiles(const T *__restrict__ Q, const T *__restrict__ K, const T *__restrict__ V,
                    int S, int D, int causal, double scale, float scale_plain,
                    double *__restrict__ oref, dev_sums *sums, int H, int Hkv, int Skv)
{
    constexpr int TPR = RT / BM, KPT = BN / TPR;
    extern __shared__ double smem[];
    const int ld = D | 1; /* odd row stride: a column read touches 32 banks */
    double *Er = smem, *Es = Er + BM * BN;
    float *Ep = (float *)(Es + BM * BN), *Qx = Ep + BM * BN, *KV = Qx + BM * ld;

    const int per_slice = (S + BM - 1) / BM;
    const long long bh = blockIdx.x / per_slice;
    const int i0 = (int)(blockIdx.x % per_slice) * BM;
    const int tid = threadIdx.x, r = tid / TPR, g = tid % TPR, lane = tid & 31;
    const long long b = bh / H, h = bh % H;
    const size_t base = (size_t)bh * S * D;
    const size_t kvb = (size_t)(b * Hkv + h / (H / Hkv)) * Skv * D;
    const int Lr = i0 + r < S ? row_keys(i0 + r, S, Skv, causal) : 0; /* this thread's row */
    const int last = (i0 + BM < S ? i0 + BM : S) - 1;
    const int Lmax = row_keys(last, S, Skv, causal); /* keys the block's rows see at most */

    for (int e = tid; e < BM * D; e += RT) {
        const int rr = e / D, d = e - rr * D;
        Qx[rr * ld + d] = i0 + rr < S ? to_f<T>(Q[base + (size_t)(i0 + rr) * D + d]) : 0.f;
    }
    const float *q = Qx + r * ld;
    double sr[KPT], ss[KPT];
    float sp[KPT];

    /* pass 1: maxima (exact in any order) */
    double m = -INFINITY, ms = -INFINITY;
    float mp = -INFINITY;
    for (int j0 = 0; j0 < Lmax; j0 += BN) {
        __syncthreads();
        load_tile<T>(KV, K + kvb, j0, Skv, D, ld);
        __syncthreads();
        tile_scores<T, TPR, KPT>(q, KV, ld, D, g, scale, scale_plain, sr, sp, ss);
#pragma unroll
        for (int u = 0; u < KPT; u++)
            if (j0 + g + TPR * u < Lr) {
                m = fmax(m, sr[u]);
                mp = fmaxf(mp, sp[u]);
                ms = fmax(ms, ss[u]);
            }
    }
    m = group_max<TPR>(m);
    mp = group_max<TPR>(mp);
    ms = group_max<TPR>(ms);

    /* pass 2: sums of exponentials, in key order */
    double l = 0.0, ls = 0.0;
    float lp = 0.f;
    for (int j0 = 0; j0 < Lmax; j0 += BN) {
        __syncthreads();
        load_tile<T>(KV, K + kvb, j0, Skv, D, ld);
        __syncthreads();
        tile_scores<T, TPR, KPT>(q, KV, ld, D, g, scale, scale_plain, sr, sp, ss);
#pragma unroll
        for (int u = 0; u < KPT; u++) {
            const int c = g + TPR * u;
            if (j0 + c < Lr) {
                Er[r * BN + c] = exp(sr[u] - m);
                Ep[r * BN + c] = expf(__fsub_rn(sp[u], mp));
                Es[r * BN + c] = exp(ss[u] - ms);
            }
        }
        __syncthreads();
        if (g == 0)
            for (int c = 0; c < BN && j0 + c < Lr; c++) {
                l += Er[r * BN + c];
                lp = __fadd_rn(lp, Ep[r * BN + c]);
                ls += Es[r * BN + c];
            }
    }
    const int lead = lane & ~(TPR - 1); /* the row's first lane (g == 0) */
    l = __shfl_sync(0xffffffffu, l, lead);
    lp = __shfl_sync(0xffffffffu, lp, lead);
    ls = __shfl_sync(0xffffffffu, ls, lead);

    /* pass 3: probabilities, then outputs (e = tid + RT u: row e / D, column
     * e % D), each accumulated in key order; a key the row does not see has
     * probability 0, which adds nothing (0 * v = +-0) */
    double o_r[NO], o_s[NO];
    float o_p[NO];
#pragma unroll
    for (int u = 0; u < NO; u++)
        o_r[u] = o_s[u] = 0.0, o_p[u] = 0.f;
    for (int j0 = 0; j0 < Lmax; j0 += BN) {
        __syncthreads();
        load_tile<T>(KV, K + kvb, j0, Skv, D, ld);
        __syncthreads();
        tile_scores<T, TPR, KPT>(q, KV, ld, D, g, scale, scale_plain, sr, sp, ss);
#pragma unroll
        for (int u = 0; u < KPT; u++) {
            const int c = g + TPR * u;
            const int seen = j0 + c < Lr;
            Er[r * BN + c] = seen ? exp(sr[u] - m) / l : 0.0;
            Ep[r * BN + c] = seen ? rd<T>(__fdiv_rn(expf(__fsub_rn(sp[u], mp)), lp)) : 0.f;
            Es[r * BN + c] = seen ? exp(ss[u] - ms) / ls : 0.0;
        }
        __syncthreads();
        load_tile<T>(KV, V + kvb, j0, Skv, D, ld);
        __syncthreads();
        const int cend = Lmax - j0 < BN ? Lmax - j0 : BN;
#pragma unroll
        for (int u = 0; u < NO; u++) {
            const int e = tid + RT * u;
            if (e < BM * D) {
                const int ro = e / D, dd = e - ro * D;
                for (int c = 0; c < cend; c++) {
                    const float vv = KV[c * ld + dd];
                    o_r[u] += Er[ro * BN + c] * (double)vv;
                    o_p[u] = __fadd_rn(o_p[u], __fmul_rn(Ep[ro * BN + c], vv));
                    o_s[u] += Es[ro * BN + c] * (double)vv;
                }
            }
        }
    }

    out_sums acc;
#pragma unroll
    for (int u = 0; u < NO; u++) {
        const int e = tid + RT * u;
        const int ro = e / D, dd = e - ro * D;
        if (e < BM * D && i0 + ro < S) {
            oref[base + (size_t)(i0 + ro) * D + dd] = o_r[u];
            acc.add<T>(o_r[u], o_p[u], o_s[u]);
        }
    }
    acc.flush(lane, sums);
}

/* The micro-tiled reference (D = 64 and 128; the same results as
 * reference_tiles, bit for bit): RT threads own BM = 4096 / D query rows
 * and walk the keys in tiles of BN = D. Each thread holds a 4 x 4 micro-tile
 * of scores (rows rg + RGN i, keys kg + KGN j) and of outputs (rows
 * rg + RGN i, columns 2 kg, 2 kg + 1, D / 2 + 2 kg, D / 2 + 2 kg + 1), so a
 * shared-memory load feeds 4 products. The query rows are staged once as
 * float64 x, float64 x * scale and the plain x, K and V in chunks of 4096
 * elements as float64 and float (converted once per block, not once per
 * product), the next chunk's global loads issued before the current
 * chunk's products. Every dot product, sum and output keeps reference_tiles'
 * operations and order (its fused multiply-adds included: the reference's
 * exponent is fma(dot, scale, -m) there, as nvcc contracted it). */
constexpr int MT = 4096; /* elements of a chunk, of a score tile, of an output tile */

template <int D> struct micro {
    static constexpr int BM = MT / D, BN = D, DC = MT / BN, KC = MT / D;
    static constexpr int NDC = D / DC, NVC = BN / KC;
    static constexpr int RGN = BM / 4, KGN = BN / 4, KGH = KGN / 8;
    static constexpr int LQD = D + 2, LQF = D + 4, LPD = BN + 2, LPF = BN + 4;
    /* K chunk: BN keys x DC; V chunk: KC keys x D (row strides W + 2, W + 4) */
    static constexpr int XD = BN * (DC + 2) > KC * (D + 2) ? BN * (DC + 2) : KC * (D + 2);
    static constexpr int XF = BN * (DC + 4) > KC * (D + 4) ? BN * (DC + 4) : KC * (D + 4);
    static constexpr size_t smem = sizeof(double) * (2 * BM * LQD + 2 * BM * LPD + XD + 4 * BM) +
                                   sizeof(float) * (BM * LQF + BM * LPF + XF + 2 * BM);
};

/* 16 elements of a chunk (thread tid's vectors tid + RT i) in registers. */
template <typename T> struct pref {
    uint4 v[sizeof(T)];
};

/* Chunk [key0, key0 + MT / W) x [d0, d0 + W) of the slice src ([Skv, D]) into
 * registers, zeros past Skv. */
template <typename T, int D>
__device__ __forceinline__ void chunk_load(pref<T> &p, const T *__restrict__ src, int key0,
                                           int Skv, int W, int d0)
{
    constexpr int EPV = 16 / sizeof(T);
#pragma unroll
    for (int i = 0; i < (int)sizeof(T); i++) {
        const int e = (threadIdx.x + RT * i) * EPV, row = e / W, col = e - row * W;
        p.v[i] = key0 + row < Skv
                     ? __ldg((const uint4 *)(src + (size_t)(key0 + row) * D + d0 + col))
                     : make_uint4(0, 0, 0, 0);
    }
}

/* The registers of chunk_load into Xd (float64) and Xf (float), row
 * strides W + 2 and W + 4. */
template <typename T>
__device__ __forceinline__ void chunk_store(const pref<T> &p, double *Xd, float *Xf, int W)
{
    constexpr int EPV = 16 / sizeof(T);
#pragma unroll
    for (int i = 0; i < (int)sizeof(T); i++) {
        const int e = (threadIdx.x + RT * i) * EPV, row = e / W, col = e - row * W;
        const T *x = (const T *)&p.v[i];
        double *xd = Xd + row * (W + 2) + col;
        float *xf = Xf + row * (W + 4) + col;
#pragma unroll
        for (int k = 0; k < EPV; k += 2) {
            const float f0 = to_f<T>(x[k]), f1 = to_f<T>(x[k + 1]);
            *(double2 *)(xd + k) = make_double2(f0, f1);
            *(float2 *)(xf + k) = make_float2(f0, f1);
        }
    }
}

/* Scores of the thread's micro-tile over d in [d0, d0 + DC), in order of d
 * (tile_scores' operations: a reference, b plain, c shadow). */
template <int D>
__device__ __forceinline__ void chunk_scores(double (&a)[4][4], float (&b)[4][4],
                                             double (&c)[4][4], const double *Qd,
                                             const double *Qs, const float *Qp, const double *Kd,
                                             const float *Kf, int rg, int kg, int d0)
{
    using M = micro<D>;
#pragma unroll 2
    for (int dd = 0; dd < M::DC; dd += 2) {
        double2 xd[4], xs[4], kd[4];
        float2 xp[4], kf[4];
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int r = rg + M::RGN * i;
            xd[i] = *(const double2 *)(Qd + r * M::LQD + d0 + dd);
            xs[i] = *(const double2 *)(Qs + r * M::LQD + d0 + dd);
            xp[i] = *(const float2 *)(Qp + r * M::LQF + d0 + dd);
        }
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int k = kg + M::KGN * j;
            kd[j] = *(const double2 *)(Kd + k * (M::DC + 2) + dd);
            kf[j] = *(const float2 *)(Kf + k * (M::DC + 4) + dd);
        }
#pragma unroll
        for (int e = 0; e < 2; e++) /* d0 + dd, then d0 + dd + 1 */
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    const double x = e ? xd[i].y : xd[i].x, s = e ? xs[i].y : xs[i].x;
                    const double k = e ? kd[j].y : kd[j].x;
                    const float p = e ? xp[i].y : xp[i].x, f = e ? kf[j].y : kf[j].x;
                    a[i][j] = fma(x, k, a[i][j]);
                    b[i][j] = __fadd_rn(b[i][j], __fmul_rn(p, f));
                    c[i][j] = fma(s, k, c[i][j]);
                }
    }
}

/* Outputs of the thread's micro-tile over keys [kc0, kc0 + KC) of the tile,
 * in key order (reference_tiles' pass 3 operations). */
template <int D>
__device__ __forceinline__ void chunk_pv(double (&o_r)[4][4], float (&o_p)[4][4],
                                         double (&o_s)[4][4], const double *Pr, const float *Pp,
                                         const double *Ps, const double *Vd, const float *Vf,
                                         int rg, int kg, int kc0)
{
    using M = micro<D>;
#pragma unroll 2
    for (int c = 0; c < M::KC; c += 2) {
        double2 pr[4], ps[4];
        float2 pp[4];
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int r = rg + M::RGN * i;
            pr[i] = *(const double2 *)(Pr + r * M::LPD + kc0 + c);
            ps[i] = *(const double2 *)(Ps + r * M::LPD + kc0 + c);
            pp[i] = *(const float2 *)(Pp + r * M::LPF + kc0 + c);
        }
#pragma unroll
        for (int e = 0; e < 2; e++) {
            const double2 v0 = *(const double2 *)(Vd + (c + e) * (D + 2) + 2 * kg);
            const double2 v1 = *(const double2 *)(Vd + (c + e) * (D + 2) + D / 2 + 2 * kg);
            const float2 f0 = *(const float2 *)(Vf + (c + e) * (D + 4) + 2 * kg);
            const float2 f1 = *(const float2 *)(Vf + (c + e) * (D + 4) + D / 2 + 2 * kg);
            const double vd[4] = {v0.x, v0.y, v1.x, v1.y};
            const float vf[4] = {f0.x, f0.y, f1.x, f1.y};
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const double er = e ? pr[i].y : pr[i].x, es = e ? ps[i].y : ps[i].x;
                const float ep = e ? pp[i].y : pp[i].x;
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    o_r[i][j] = fma(er, vd[j], o_r[i][j]);
                    o_p[i][j] = __fadd_rn(o_p[i][j], __fmul_rn(ep, vf[j]));
                    o_s[i][j] = fma(es, vd[j], o_s[i][j]);
                }
            }
        }
    }
}

template <typename T, int D>
__global__ void __launch_bounds__(RT, 1)
    reference_micro(const T *__restrict__ Q, const T *__restrict__ K, const T *__restrict__ V,
                    int S, int causal, double scale, float scale_plain,
                    double *__restrict__ oref, dev_sums *sums, int H, int Hkv, int Skv, int BH)
{
    using M = micro<D>;
    constexpr int BM = M::BM, BN = M::BN, DC = M::DC, KC = M::KC;
    extern __shared__ double smem[];
    double *Qd = smem, *Qs = Qd + BM * M::LQD, *Pr = Qs + BM * M::LQD, *Ps = Pr + BM * M::LPD;
    double *Xd = Ps + BM * M::LPD, *row_m = Xd + M::XD, *row_ms = row_m + BM,
           *row_l = row_ms + BM, *row_ls = row_l + BM;
    float *Qp = (float *)(row_ls + BM), *Pp = Qp + BM * M::LQF, *Xf = Pp + BM * M::LPF;
    float *row_mp = Xf + M::XF, *row_lp = row_mp + BM;

    /* the longest row tiles first (causal), every slice's tile t together */
    const int per_slice = (S + BM - 1) / BM;
    const long long bh = blockIdx.x % BH;
    const int i0 = (per_slice - 1 - (int)(blockIdx.x / BH)) * BM;
    const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
    const int kg = (lane & 7) + 8 * (w % M::KGH), rg = (lane >> 3) + 4 * (w / M::KGH);
    const long long b = bh / H, h = bh % H;
    const size_t base = (size_t)bh * S * D;
    const T *Kb = K + (size_t)(b * Hkv + h / (H / Hkv)) * Skv * D;
    const T *Vb = V + (size_t)(b * Hkv + h / (H / Hkv)) * Skv * D;
    const int last = (i0 + BM < S ? i0 + BM : S) - 1;
    const int Lmax = row_keys(last, S, Skv, causal);
    const int ntiles = (Lmax + BN - 1) / BN;
    int Lr[4];
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int r = i0 + rg + M::RGN * i;
        Lr[i] = r < S ? row_keys(r, S, Skv, causal) : 0;
    }

    for (int e = tid; e < BM * D; e += RT) {
        const int rr = e / D, d = e - rr * D;
        const float x = i0 + rr < S ? to_f<T>(Q[base + (size_t)(i0 + rr) * D + d]) : 0.f;
        const double xd = x;
        Qd[rr * M::LQD + d] = xd;
        Qs[rr * M::LQD + d] = __dmul_rn(xd, scale);
        Qp[rr * M::LQF + d] = rd<T>(__fmul_rn(x, scale_plain));
    }

    /* chunk steps of a pass: per tile NDC K chunks, then (pass 3) the V
     * chunks that hold keys below Lmax; nxt_* names the chunk in flight */
    pref<T> pf;
    int nxt_t = 0, nxt_s = 0;
    auto issue = [&](int t, int s) {
        if (s < M::NDC)
            chunk_load<T, D>(pf, Kb, t * BN, Skv, DC, s * DC);
        else
            chunk_load<T, D>(pf, Vb, t * BN + (s - M::NDC) * KC, Skv, D, 0);
    };
    /* the step after (t, s) in a pass with V chunks (pv) or without; past
     * the last, tile 0's first chunk (the next pass's) */
    auto advance = [&](int pv) {
        int t = nxt_t, s = nxt_s + 1;
        const int ns = pv ? M::NDC + M::NVC : M::NDC;
        if (s >= M::NDC && (s >= ns || t * BN + (s - M::NDC) * KC >= Lmax))
            t++, s = 0;
        if (t >= ntiles)
            t = 0, s = 0;
        nxt_t = t, nxt_s = s;
        issue(t, s);
    };
    if (ntiles > 0)
        issue(0, 0);

    double a[4][4], c[4][4];
    float bp[4][4];
    /* the K chunks of tile t: scores of the micro-tile into a, bp, c */
    auto tile_scores_k = [&](int pv) {
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int j = 0; j < 4; j++)
                a[i][j] = c[i][j] = 0.0, bp[i][j] = 0.f;
        for (int s = 0; s < M::NDC; s++) {
            __syncthreads();
            chunk_store<T>(pf, Xd, Xf, DC);
            advance(pv);
            __syncthreads();
            chunk_scores<D>(a, bp, c, Qd, Qs, Qp, Xd, Xf, rg, kg, s * DC);
        }
    };

    /* pass 1: maxima (exact in any order) */
    {
        double m[4], ms[4];
        float mp[4];
#pragma unroll
        for (int i = 0; i < 4; i++)
            m[i] = ms[i] = -INFINITY, mp[i] = -INFINITY;
        for (int t = 0; t < ntiles; t++) {
            tile_scores_k(0);
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    if (t * BN + kg + M::KGN * j < Lr[i]) {
                        m[i] = fmax(m[i], __dmul_rn(a[i][j], scale));
                        mp[i] = fmaxf(mp[i], rd<T>(bp[i][j]));
                        ms[i] = fmax(ms[i], c[i][j]);
                    }
        }
        /* over the 8 lanes of a warp, then the KGH warps, that share rows */
#pragma unroll
        for (int i = 0; i < 4; i++) {
            m[i] = group_max<8>(m[i]);
            mp[i] = group_max<8>(mp[i]);
            ms[i] = group_max<8>(ms[i]);
        }
        double *red_m = Pr, *red_ms = red_m + BM * M::KGH;
        float *red_mp = Pp;
        __syncthreads(); /* Pr, Pp free */
        if ((lane & 7) == 0)
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const int r = rg + M::RGN * i, at = r * M::KGH + w % M::KGH;
                red_m[at] = m[i], red_ms[at] = ms[i], red_mp[at] = mp[i];
            }
        __syncthreads();
        if (tid < BM) {
            double x = red_m[tid * M::KGH], xs = red_ms[tid * M::KGH];
            float xp = red_mp[tid * M::KGH];
            for (int k = 1; k < M::KGH; k++) {
                x = fmax(x, red_m[tid * M::KGH + k]);
                xs = fmax(xs, red_ms[tid * M::KGH + k]);
                xp = fmaxf(xp, red_mp[tid * M::KGH + k]);
            }
            row_m[tid] = x, row_ms[tid] = xs, row_mp[tid] = xp;
        }
        __syncthreads();
    }

    /* pass 2: sums of exponentials, in key order, one thread a row */
    {
        double l = 0.0, ls = 0.0;
        float lp = 0.f;
        const int Lt = tid < BM && i0 + tid < S ? row_keys(i0 + tid, S, Skv, causal) : 0;
        for (int t = 0; t < ntiles; t++) {
            const int j0 = t * BN;
            tile_scores_k(0);
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const int r = rg + M::RGN * i;
                const double m = row_m[r], ms = row_ms[r];
                const float mp = row_mp[r];
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    const int cc = kg + M::KGN * j;
                    if (j0 + cc < Lr[i]) {
                        Pr[r * M::LPD + cc] = exp(fma(a[i][j], scale, -m));
                        Pp[r * M::LPF + cc] = expf(__fsub_rn(rd<T>(bp[i][j]), mp));
                        Ps[r * M::LPD + cc] = exp(c[i][j] - ms);
                    }
                }
            }
            __syncthreads();
            if (tid < BM)
                for (int cc = 0; cc < BN && j0 + cc < Lt; cc++) {
                    l += Pr[tid * M::LPD + cc];
                    lp = __fadd_rn(lp, Pp[tid * M::LPF + cc]);
                    ls += Ps[tid * M::LPD + cc];
                }
        }
        if (tid < BM)
            row_l[tid] = l, row_ls[tid] = ls, row_lp[tid] = lp;
        __syncthreads();
    }

    /* pass 3: probabilities, then outputs, each accumulated in key order; a
     * key the row does not see has probability 0, which adds nothing */
    double o_r[4][4], o_s[4][4];
    float o_p[4][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
            o_r[i][j] = o_s[i][j] = 0.0, o_p[i][j] = 0.f;
    for (int t = 0; t < ntiles; t++) {
        const int j0 = t * BN;
        tile_scores_k(1);
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int r = rg + M::RGN * i;
            const double m = row_m[r], ms = row_ms[r], l = row_l[r], ls = row_ls[r];
            const float mp = row_mp[r], lp = row_lp[r];
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int cc = kg + M::KGN * j;
                const int seen = j0 + cc < Lr[i];
                Pr[r * M::LPD + cc] = seen ? exp(fma(a[i][j], scale, -m)) / l : 0.0;
                Pp[r * M::LPF + cc] =
                    seen ? rd<T>(__fdiv_rn(expf(__fsub_rn(rd<T>(bp[i][j]), mp)), lp)) : 0.f;
                Ps[r * M::LPD + cc] = seen ? exp(c[i][j] - ms) / ls : 0.0;
            }
        }
        for (int s = 0; s < M::NVC && j0 + s * KC < Lmax; s++) {
            __syncthreads();
            chunk_store<T>(pf, Xd, Xf, D);
            advance(1);
            __syncthreads();
            chunk_pv<D>(o_r, o_p, o_s, Pr, Pp, Ps, Xd, Xf, rg, kg, s * KC);
        }
    }

    /* the outputs, staged in reference_tiles' order so that each warp
     * reduces the elements, in the order, of reference_tiles' warp (blocks
     * of 32 rows, element e = tid + RT u) */
    double *Or = smem, *Os = Or + BM * D;
    float *Op = (float *)(Os + BM * D);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int at = (rg + M::RGN * i) * D + (j & 1) + 2 * kg + (j >> 1) * (D / 2);
            Or[at] = o_r[i][j], Os[at] = o_s[i][j], Op[at] = o_p[i][j];
        }
    __syncthreads();
    for (int half = 0; half < BM / 32 && i0 + 32 * half < S; half++) {
        const int i1 = i0 + 32 * half;
        out_sums acc;
#pragma unroll
        for (int u = 0; u < NO; u++) {
            const int e = tid + RT * u;
            const int ro = e / D, dd = e - ro * D;
            if (e < 32 * D && i1 + ro < S) {
                const int at = (32 * half + ro) * D + dd;
                oref[base + (size_t)(i1 + ro) * D + dd] = Or[at];
                acc.add<T>(Or[at], Op[at], Os[at]);
            }
        }
        acc.flush(lane, sums);
    }
}

/* check.c's rounding_near on the device: FlashAttention's atol term of x
 * at output size m (float operations rounded to T, unfused). */
template <typename T>
__global__ void atol_term(const double *__restrict__ oref, long long numel, dev_sums *sums)
{
    const double m = __longlong_as_double((long long)sums->ref_absmax);
    double a = 0.0;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < numel;
         e += (long long)gridDim.x * blockDim.x) {
        const float xr = rd<T>((float)oref[e]);
        const float p = rd<T>(__fadd_rn(xr, (float)m));
        const float q = rd<T>(__fsub_rn(p, (float)m));
        a = fmax(a, fabs((double)rd<T>(__fsub_rn(q, xr))));
    }
    a = warp_max(a);
    if ((threadIdx.x & 31) == 0)
        atomic_max_pos(&sums->ref_atol, a);
}

/* |O - O_ref| over all of O, NaN/Inf counted (and NaN as an infinite error). */
template <typename T>
__global__ void compare(const T *__restrict__ O, const double *__restrict__ oref, long long numel,
                        dev_sums *sums)
{
    double mx = 0.0, s1 = 0.0, s2 = 0.0;
    unsigned long long bad = 0;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < numel;
         e += (long long)gridDim.x * blockDim.x) {
        const float o = to_f<T>(O[e]);
        if (!isfinite(o))
            bad++;
        const double d = fabs((double)o - oref[e]);
        if (isnan(d)) {
            mx = INFINITY;
        } else {
            mx = fmax(mx, d);
            if (isfinite(d))
                s1 += d, s2 += d * d;
        }
    }
    mx = warp_max(mx);
    s1 = warp_sum(s1);
    s2 = warp_sum(s2);
#pragma unroll
    for (int m = 16; m > 0; m >>= 1)
        bad += __shfl_xor_sync(0xffffffffu, bad, m);
    if ((threadIdx.x & 31) == 0) {
        atomic_max_pos(&sums->max_err, mx);
        atomicAdd(&sums->sum_err, s1);
        atomicAdd(&sums->sq_err, s2);
        atomicAdd(&sums->nonfinite, bad);
    }
}

/* The cached reference of one buffer set. */
struct dev_ref {
    double *oref;   /* numel doubles */
    dev_sums *sums; /* device */
    dev_sums ref;   /* host copy of the reference part of the sums */
};

#define CK(call)                                                                        \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            snprintf(err, n, "device check: %s: %s", #call, cudaGetErrorString(e_));    \
            return -1;                                                                  \
        }                                                                               \
    } while (0)

template <typename T>
int make_reference(const ab_gpu_parts *p, dev_ref *r, char *err, size_t n)
{
    const ab_shape *s = &p->s;
    cudaStream_t st = (cudaStream_t)p->stream;
    const long long rows = (long long)s->B * s->H * s->S;
    const long long numel = rows * s->D;
    const double scale = 1.0 / sqrt((double)s->D);
    /* the plain computation's scale: 1/sqrt(D) rounded to the dtype, like
     * reference.c's (float, then dtype rounding on the host) */
    float sp = (float)scale;
    if (s->dtype == AB_FP16)
        sp = __half2float(__float2half_rn(sp));
    else if (s->dtype == AB_BF16)
        sp = __bfloat162float(__float2bfloat16_rn(sp));
    CK(cudaMemsetAsync(r->sums, 0, sizeof(dev_sums), st));
    /* D = 64 and 128 where the block's shared memory fits (sm_90): the
     * micro-tiled kernel, same results */
    int dev = 0, optin = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if ((s->D == 64 && micro<64>::smem <= (size_t)optin) ||
        (s->D == 128 && micro<128>::smem <= (size_t)optin)) {
        const int bm = MT / s->D, bh = s->B * s->H;
        const long long mblocks = (long long)bh * ((s->S + bm - 1) / bm);
        if (mblocks > 0x7fffffffLL) {
            snprintf(err, n, "device check: %lld blocks is too many for one grid", mblocks);
            return 1;
        }
        if (s->D == 64) {
            CK(cudaFuncSetAttribute(reference_micro<T, 64>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)micro<64>::smem));
            reference_micro<T, 64><<<(unsigned)mblocks, RT, micro<64>::smem, st>>>(
                (const T *)p->q, (const T *)p->k, (const T *)p->v, s->S, s->causal, scale, sp,
                r->oref, r->sums, s->H, ab_shape_hkv(s), ab_shape_skv(s), bh);
        } else {
            CK(cudaFuncSetAttribute(reference_micro<T, 128>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)micro<128>::smem));
            reference_micro<T, 128><<<(unsigned)mblocks, RT, micro<128>::smem, st>>>(
                (const T *)p->q, (const T *)p->k, (const T *)p->v, s->S, s->causal, scale, sp,
                r->oref, r->sums, s->H, ab_shape_hkv(s), ab_shape_skv(s), bh);
        }
        CK(cudaGetLastError());
        atol_term<T><<<1024, 256, 0, st>>>(r->oref, numel, r->sums);
        CK(cudaGetLastError());
        CK(cudaMemcpyAsync(&r->ref, r->sums, sizeof(dev_sums), cudaMemcpyDeviceToHost, st));
        CK(cudaStreamSynchronize(st));
        return 0;
    }
    /* BM = 32 rows a block up to D = 128, 16 above (NO outputs a thread) */
    const int BM = s->D <= 128 ? 32 : 16, ld = s->D | 1;
    const long long blocks = (long long)s->B * s->H * ((s->S + BM - 1) / BM);
    if (blocks > 0x7fffffffLL) {
        snprintf(err, n, "device check: %lld blocks is too many for one grid", blocks);
        return 1;
    }
    const size_t smem = tile_smem(BM, ld);
    if (BM == 32) {
        CK(cudaFuncSetAttribute(reference_tiles<T, 32>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        reference_tiles<T, 32><<<(unsigned)blocks, RT, smem, st>>>(
            (const T *)p->q, (const T *)p->k, (const T *)p->v, s->S, s->D, s->causal, scale, sp,
            r->oref, r->sums, s->H, ab_shape_hkv(s), ab_shape_skv(s));
    } else {
        CK(cudaFuncSetAttribute(reference_tiles<T, 16>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        reference_tiles<T, 16><<<(unsigned)blocks, RT, smem, st>>>(
            (const T *)p->q, (const T *)p->k, (const T *)p->v, s->S, s->D, s->causal, scale, sp,
            r->oref, r->sums, s->H, ab_shape_hkv(s), ab_shape_skv(s));
    }
    CK(cudaGetLastError());
    atol_term<T><<<1024, 256, 0, st>>>(r->oref, numel, r->sums);
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(&r->ref, r->sums, sizeof(dev_sums), cudaMemcpyDeviceToHost, st));
    CK(cudaStreamSynchronize(st));
    return 0;
}

/* The reference of b's inputs, made on first use. 0, 1 or -1 (gpu_check.h). */
int get_reference(ab_gpu_bufs *b, ab_gpu_parts *p, dev_ref **out, char *err, size_t n)
{
    ab_gpu_bufs_parts(b, p);
    *out = (dev_ref *)*p->ref;
    if (*out)
        return 0;
    const ab_shape *s = &p->s;
    if (s->D > AB_GPU_CHECK_MAX_D) {
        snprintf(err, n, "device check: D=%d above %d", s->D, AB_GPU_CHECK_MAX_D);
        return 1;
    }
    const size_t bytes = ab_shape_numel(s) * sizeof(double);
    size_t free_b = 0, total_b = 0;
    CK(cudaMemGetInfo(&free_b, &total_b));
    if (bytes + (64u << 20) > free_b) {
        snprintf(err, n, "device check: %.2f GiB for the float64 reference, %.2f GiB free",
                 bytes / 1073741824.0, free_b / 1073741824.0);
        return 1;
    }
    dev_ref *r = (dev_ref *)calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, n, "device check: out of host memory");
        return -1;
    }
    int rc = -1;
    if (cudaMalloc(&r->oref, bytes) != cudaSuccess ||
        cudaMalloc(&r->sums, sizeof(dev_sums)) != cudaSuccess) {
        snprintf(err, n, "device check: cudaMalloc failed");
        cudaGetLastError();
        goto done;
    }
    switch (s->dtype) {
    case AB_FP16:
        rc = make_reference<__half>(p, r, err, n);
        break;
    case AB_BF16:
        rc = make_reference<__nv_bfloat16>(p, r, err, n);
        break;
    default:
        rc = make_reference<float>(p, r, err, n);
        break;
    }
done:
    if (rc) {
        ab_gpu_ref_free(r);
        return rc;
    }
    *p->ref = r;
    *out = r;
    return 0;
}

double host_bits(unsigned long long u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

void to_sums(const dev_sums *d, const ab_shape *s, ab_check_sums *x)
{
    memset(x, 0, sizeof *x);
    x->max_err = host_bits(d->max_err);
    x->sum_err = d->sum_err;
    x->sq_err = d->sq_err;
    x->sq_ref = d->sq_ref;
    x->plain_max = host_bits(d->plain_max);
    x->plain_sq = d->plain_sq;
    x->ref_absmax = host_bits(d->ref_absmax);
    x->ref_atol = host_bits(d->ref_atol);
    x->disagree = host_bits(d->disagree);
    x->nonfinite = (long)d->nonfinite;
    x->rows_total = x->rows_checked = (long)s->B * s->H * s->S;
    x->elems = (long)ab_shape_numel(s);
}

} /* namespace */

extern "C" void ab_gpu_ref_free(void *ref)
{
    dev_ref *r = (dev_ref *)ref;
    if (!r)
        return;
    cudaFree(r->oref);
    cudaFree(r->sums);
    free(r);
}

extern "C" int ab_gpu_check(ab_gpu_bufs *b, ab_check *out, char *err, size_t n)
{
    ab_gpu_parts p;
    dev_ref *r = NULL;
    memset(out, 0, sizeof *out);
    int rc = get_reference(b, &p, &r, err, n);
    if (rc)
        return rc;
    cudaStream_t st = (cudaStream_t)p.stream;
    const long long numel = (long long)ab_shape_numel(&p.s);
    /* the reference part of the sums stays; the comparison part is redone */
    dev_sums d = r->ref;
    d.max_err = 0;
    d.sum_err = d.sq_err = 0;
    d.nonfinite = 0;
    CK(cudaMemcpyAsync(r->sums, &d, sizeof d, cudaMemcpyHostToDevice, st));
    const unsigned blocks = (unsigned)(numel / 256 + 1 < 4096 ? numel / 256 + 1 : 4096);
    switch (p.s.dtype) {
    case AB_FP16:
        compare<__half><<<blocks, 256, 0, st>>>((const __half *)p.o, r->oref, numel, r->sums);
        break;
    case AB_BF16:
        compare<__nv_bfloat16><<<blocks, 256, 0, st>>>((const __nv_bfloat16 *)p.o, r->oref,
                                                        numel, r->sums);
        break;
    default:
        compare<float><<<blocks, 256, 0, st>>>((const float *)p.o, r->oref, numel, r->sums);
        break;
    }
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(&d, r->sums, sizeof d, cudaMemcpyDeviceToHost, st));
    CK(cudaStreamSynchronize(st));
    ab_check_sums x;
    to_sums(&d, &p.s, &x);
    ab_check_decide(&x, p.s.dtype, out);
    return 0;
}

extern "C" int ab_gpu_reference_make(ab_gpu_bufs *b, char *err, size_t n)
{
    ab_gpu_parts p;
    dev_ref *r = NULL;
    ab_gpu_bufs_parts(b, &p);
    if (p.s.pass != AB_FWD)
        return ab_gpu_reference_bwd_make(b, err, n);
    return get_reference(b, &p, &r, err, n);
}

extern "C" int ab_gpu_reference(ab_gpu_bufs *b, double *oref, ab_check_sums *sums, char *err,
                                size_t n)
{
    ab_gpu_parts p;
    dev_ref *r = NULL;
    int rc = get_reference(b, &p, &r, err, n);
    if (rc)
        return rc;
    CK(cudaMemcpy(oref, r->oref, ab_shape_numel(&p.s) * sizeof(double), cudaMemcpyDeviceToHost));
    to_sums(&r->ref, &p.s, sums);
    return 0;
}
