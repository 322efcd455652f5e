/*
 * gpu_reference_bwd.cu: the device side of the gradient check
 * (gpu_check.h): the forward state a backward pass is handed (O and the
 * logsumexp, from float64 attention of every row), a float64 backward of
 * every element, the plain same-precision backward whose error sets each
 * gradient's tolerance, and the comparison of a variant's dQ, dK, dV with
 * the float64 gradients, reduced on the device.
 *
 * Idea: nothing of size S x S_kv is stored, every score is recomputed.
 *   stats_tiles (a block per 32 query rows, 16 above D = 128, key tiles
 *          in shared memory, three passes as gpu_reference.cu): float64
 *          softmax and O; the logsumexp lse64 and Delta64 = rowsum(dO * O);
 *          O rounded to the dtype and lse as float for the variants; the
 *          plain computation's row max, sum and Delta (fp32, scores and P
 *          rounded to the dtype).
 *   dq_tiles (a block per 32 query rows, 16 above D = 128, key tiles in
 *          shared memory): dQ_i = scale sum_j dS_ij k_j, float64 and plain,
 *          the plain's error against float64 reduced at once.
 *   dkdv_tiles (a block per 32 key rows of a K/V head, query tiles of the
 *          group's heads in shared memory): dK_j = scale sum dS_ij q_i and
 *          dV_j = sum P_ij dO_i over the group's query heads and the rows
 *          that see key j; float64 and plain.
 *   The tiled kernels replaced a warp per row (stats, dq_rows, dkdv_rows,
 *   kept behind AB_GPU_REFERENCE_BWD_ROWS=1 for comparison) whose five butterfly
 *   reductions per (row, key) pair dominated a backward check; each dot
 *   product is now summed sequentially over d by one thread (the float64
 *   results agree to rounding, the plain fp32 sums in reference.c's order).
 * The plain backward is reference_bwd.c's ab_plain_bwd (PyTorch's autograd
 * through attention in the dtype: scores, P, dP, dS rounded, fp32 sums), its
 * operations unfused (__fmul_rn, __fadd_rn); its shadow (the same without
 * rounding) is the float64 backward itself, so the disagreement rule of
 * check.h is not applied on the device: instead the GPU suite holds the
 * float64 gradients against the CPU oracle ab_reference_bwd (itself checked
 * against finite differences, tests/check/test_bwd_reference.c).
 * Source: FlashAttention-2 (Dao 2023), Algorithm 2's equations in exact
 * arithmetic; the tolerance rule of FlashAttention's tests.
 * Measured: NVIDIA H100, 2026-11-26 (reports/cost-per-answer-adapters,
 * experiments/bwd-kv.cfg, call2-after.db and call2-after-rows.db, run 1 of
 * each): the run's gradient checks took 1.13 s against 2.36 s with the warp
 * per row, the forward state 0.61 s against 1.48 s.
 *
 * ptxas (nvcc 13.0, sm_90a): stats_tiles 128, dq_tiles 128, dkdv_tiles 212 registers at
 * D <= 128 (173 above), no spills; shared memory 90.6 KiB (70.3 above),
 * under sm_86/89's 99 KiB.
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

constexpr int NT = AB_GPU_CHECK_MAX_D / 32;

/* per gradient: maxima as ordered bit patterns of non-negative doubles */
struct gsums {
    unsigned long long max_err, plain_max, ref_absmax, ref_atol, nonfinite;
    double sum_err, sq_err, sq_ref, plain_sq;
};

struct bwd_ref {
    double *lse64, *delta64;   /* [rows] */
    float *mp, *lp, *dp;       /* the plain's row max, sum, Delta [rows] */
    double *g;                 /* float64 dQ [nq], dK, dV [nkv] */
    gsums *sums;               /* device, 3 */
    gsums ref[3];              /* host copy of the reference parts */
    int have_grads;
};

__device__ __forceinline__ void amax(unsigned long long *a, double x)
{
    if (isnan(x))
        x = INFINITY;
    atomicMax(a, (unsigned long long)__double_as_longlong(x));
}

__device__ __forceinline__ double wsum(double x)
{
#pragma unroll
    for (int m = 16; m > 0; m >>= 1)
        x += __shfl_xor_sync(0xffffffffu, x, m);
    return x;
}

__device__ __forceinline__ float wsumf(float x)
{
#pragma unroll
    for (int m = 16; m > 0; m >>= 1)
        x = __fadd_rn(x, __shfl_xor_sync(0xffffffffu, x, m));
    return x;
}

__device__ __forceinline__ double wmax(double x)
{
#pragma unroll
    for (int m = 16; m > 0; m >>= 1)
        x = fmax(x, __shfl_xor_sync(0xffffffffu, x, m));
    return x;
}

template <typename T> __device__ __forceinline__ float tof(T x);
template <> __device__ __forceinline__ float tof<float>(float x) { return x; }
template <> __device__ __forceinline__ float tof<__half>(__half x) { return __half2float(x); }
template <> __device__ __forceinline__ float tof<__nv_bfloat16>(__nv_bfloat16 x)
{
    return __bfloat162float(x);
}
template <typename T> __device__ __forceinline__ T fromf(float x);
template <> __device__ __forceinline__ float fromf<float>(float x) { return x; }
template <> __device__ __forceinline__ __half fromf<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 fromf<__nv_bfloat16>(float x)
{
    return __float2bfloat16_rn(x);
}
template <typename T> __device__ __forceinline__ float rd(float x) { return tof<T>(fromf<T>(x)); }

/* keys row i sees (variant.h ab_row_keys) */
__device__ __forceinline__ int row_keys(int i, int S, int SK, int causal)
{
    if (!causal)
        return SK;
    long long n = (long long)i + SK - S + 1;
    return n < 0 ? 0 : n > SK ? SK : (int)n;
}

/* stats: one warp per query row r = bh * S + i */
template <typename T>
__global__ void stats(const T *__restrict__ Q, const T *__restrict__ K, const T *__restrict__ V,
                      const T *__restrict__ G, T *__restrict__ O, float *__restrict__ lse,
                      bwd_ref r, int H, int HK, int S, int SK, int D, int causal, long long rows,
                      double scale, float scale_p)
{
    const long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (row >= rows)
        return;
    const long long bh = row / S;
    const int i = (int)(row % S), L = row_keys(i, S, SK, causal);
    const long long b = bh / H, h = bh % H;
    const size_t kb = ((size_t)(b * HK + h / (H / HK))) * SK * D;
    const T *q = Q + row * D, *g = G + row * D;
    double qd[NT], acc[NT];
    float qs[NT], gd[NT];
#pragma unroll
    for (int t = 0; t < NT; t++) {
        const int d = lane + 32 * t;
        qd[t] = d < D ? tof<T>(q[d]) : 0.0;
        qs[t] = d < D ? rd<T>(__fmul_rn(tof<T>(q[d]), scale_p)) : 0.f;
        gd[t] = d < D ? tof<T>(g[d]) : 0.f;
        acc[t] = 0.0;
    }
    double m = -INFINITY, l = 0.0;
    float mp = -INFINITY;
    for (int j = 0; j < L; j++) {
        const T *kj = K + kb + (size_t)j * D, *vj = V + kb + (size_t)j * D;
        double a = 0.0;
        float c = 0.f;
#pragma unroll
        for (int t = 0; t < NT; t++) {
            const int d = lane + 32 * t;
            if (d < D) {
                const float kv = tof<T>(kj[d]);
                a += qd[t] * kv;
                c = __fadd_rn(c, __fmul_rn(qs[t], kv));
            }
        }
        const double s = wsum(a) * scale;
        const float sp = rd<T>(wsumf(c));
        mp = fmaxf(mp, sp);
        const double mn = fmax(m, s), f = exp(m - mn), e = exp(s - mn);
        l = l * f + e;
#pragma unroll
        for (int t = 0; t < NT; t++) {
            const int d = lane + 32 * t;
            acc[t] = acc[t] * f + (d < D ? e * tof<T>(vj[d]) : 0.0);
        }
        m = mn;
    }
    float lp = 0.f;
    for (int j = 0; j < L; j++) {
        const T *kj = K + kb + (size_t)j * D;
        float c = 0.f;
#pragma unroll
        for (int t = 0; t < NT; t++) {
            const int d = lane + 32 * t;
            if (d < D)
                c = __fadd_rn(c, __fmul_rn(qs[t], tof<T>(kj[d])));
        }
        lp = __fadd_rn(lp, expf(__fsub_rn(rd<T>(wsumf(c)), mp)));
    }
    float dpl = 0.f;
    for (int j = 0; j < L; j++) {
        const T *kj = K + kb + (size_t)j * D, *vj = V + kb + (size_t)j * D;
        float c = 0.f, e = 0.f;
#pragma unroll
        for (int t = 0; t < NT; t++) {
            const int d = lane + 32 * t;
            if (d < D) {
                c = __fadd_rn(c, __fmul_rn(qs[t], tof<T>(kj[d])));
                e = __fadd_rn(e, __fmul_rn(gd[t], tof<T>(vj[d])));
            }
        }
        const float P = rd<T>(__fdiv_rn(expf(__fsub_rn(rd<T>(wsumf(c)), mp)), lp));
        dpl = __fadd_rn(dpl, __fmul_rn(P, rd<T>(wsumf(e))));
    }
    double delta = 0.0;
#pragma unroll
    for (int t = 0; t < NT; t++) {
        const int d = lane + 32 * t;
        if (d < D) {
            const double o = L ? acc[t] / l : 0.0;
            O[row * D + d] = fromf<T>((float)o);
            delta += (double)gd[t] * o;
        }
    }
    delta = wsum(delta);
    if (lane == 0) {
        r.lse64[row] = L ? m + log(l) : -INFINITY;
        r.delta64[row] = delta;
        lse[row] = L ? (float)(m + log(l)) : -INFINITY;
        r.mp[row] = mp;
        r.lp[row] = lp;
        r.dp[row] = dpl;
    }
}

/* the float64 and plain dS of (row, key): returns dS64 and sets P64, Pp, dSp */
template <typename T>
__device__ __forceinline__ double ds_pair(const double qd[NT], const float qs[NT],
                                          const float gd[NT], const T *kj, const T *vj, int D,
                                          int lane, double scale, double lse64, double delta64,
                                          float mp, float lp, float dpl, double &P64, float &Pp,
                                          float &dSp)
{
    double a = 0.0, e = 0.0;
    float c = 0.f, f = 0.f;
#pragma unroll
    for (int t = 0; t < NT; t++) {
        const int d = lane + 32 * t;
        if (d < D) {
            const float kv = tof<T>(kj[d]), vv = tof<T>(vj[d]);
            a += qd[t] * kv;
            e += (double)gd[t] * vv;
            c = __fadd_rn(c, __fmul_rn(qs[t], kv));
            f = __fadd_rn(f, __fmul_rn(gd[t], vv));
        }
    }
    P64 = exp(wsum(a) * scale - lse64);
    const double ds = P64 * (wsum(e) - delta64);
    Pp = rd<T>(__fdiv_rn(expf(__fsub_rn(rd<T>(wsumf(c)), mp)), lp));
    dSp = rd<T>(__fmul_rn(Pp, __fsub_rn(rd<T>(wsumf(f)), dpl)));
    return ds;
}

template <typename T>
__global__ void dq_rows(const T *__restrict__ Q, const T *__restrict__ K,
                        const T *__restrict__ V, const T *__restrict__ G, bwd_ref r, int H,
                        int HK, int S, int SK, int D, int causal, long long rows, double scale,
                        float scale_p)
{
    const long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (row >= rows)
        return;
    const long long bh = row / S;
    const int i = (int)(row % S), L = row_keys(i, S, SK, causal);
    const long long b = bh / H, h = bh % H;
    const size_t kb = ((size_t)(b * HK + h / (H / HK))) * SK * D;
    double qd[NT], acc[NT];
    float qs[NT], gd[NT], accp[NT];
#pragma unroll
    for (int t = 0; t < NT; t++) {
        const int d = lane + 32 * t;
        qd[t] = d < D ? tof<T>(Q[row * D + d]) : 0.0;
        qs[t] = d < D ? rd<T>(__fmul_rn(tof<T>(Q[row * D + d]), scale_p)) : 0.f;
        gd[t] = d < D ? tof<T>(G[row * D + d]) : 0.f;
        acc[t] = 0.0;
        accp[t] = 0.f;
    }
    const double lse64 = r.lse64[row], delta64 = r.delta64[row];
    const float mp = r.mp[row], lp = r.lp[row], dpl = r.dp[row];
    for (int j = 0; j < L; j++) {
        const T *kj = K + kb + (size_t)j * D, *vj = V + kb + (size_t)j * D;
        double P64;
        float Pp, dSp;
        const double ds = ds_pair<T>(qd, qs, gd, kj, vj, D, lane, scale, lse64, delta64, mp, lp,
                                     dpl, P64, Pp, dSp);
#pragma unroll
        for (int t = 0; t < NT; t++) {
            const int d = lane + 32 * t;
            if (d < D) {
                const float kv = tof<T>(kj[d]);
                acc[t] += ds * kv;
                accp[t] = __fadd_rn(accp[t], __fmul_rn(dSp, kv));
            }
        }
    }
    double pm = 0.0, psq = 0.0;
#pragma unroll
    for (int t = 0; t < NT; t++) {
        const int d = lane + 32 * t;
        if (d < D) {
            const double g64 = acc[t] * scale;
            r.g[row * D + d] = g64;
            const double pe = fabs((double)rd<T>(__fmul_rn(rd<T>(accp[t]), scale_p)) - g64);
            pm = fmax(pm, pe);
            psq += pe * pe;
        }
    }
    amax(&r.sums[0].plain_max, pm);
    atomicAdd(&r.sums[0].plain_sq, psq);
}

/* one warp per key row kr = (b * HK + hk) * SK + j */
template <typename T>
__global__ void dkdv_rows(const T *__restrict__ Q, const T *__restrict__ K,
                          const T *__restrict__ V, const T *__restrict__ G, bwd_ref r, int H,
                          int HK, int S, int SK, int D, int causal, long long krows, size_t nq,
                          double scale, float scale_p)
{
    const long long kr = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (kr >= krows)
        return;
    const long long bk = kr / SK;
    const int j = (int)(kr % SK), Gq = H / HK;
    const long long b = bk / HK, hk = bk % HK;
    const T *kj = K + kr * D, *vj = V + kr * D;
    double ak[NT], av[NT];
    float akp[NT], avp[NT];
#pragma unroll
    for (int t = 0; t < NT; t++)
        ak[t] = av[t] = 0.0, akp[t] = avp[t] = 0.f;
    int i0 = 0;
    if (causal) {
        const long long x = (long long)j - (SK - S);
        i0 = x < 0 ? 0 : (int)x;
    }
    for (int gq = 0; gq < Gq; gq++) {
        const long long bh = b * H + hk * Gq + gq;
        for (int i = i0; i < S; i++) {
            const long long row = bh * S + i;
            double qd[NT];
            float qs[NT], gd[NT];
#pragma unroll
            for (int t = 0; t < NT; t++) {
                const int d = lane + 32 * t;
                qd[t] = d < D ? tof<T>(Q[row * D + d]) : 0.0;
                qs[t] = d < D ? rd<T>(__fmul_rn(tof<T>(Q[row * D + d]), scale_p)) : 0.f;
                gd[t] = d < D ? tof<T>(G[row * D + d]) : 0.f;
            }
            double P64;
            float Pp, dSp;
            const double ds = ds_pair<T>(qd, qs, gd, kj, vj, D, lane, scale, r.lse64[row],
                                         r.delta64[row], r.mp[row], r.lp[row], r.dp[row], P64,
                                         Pp, dSp);
#pragma unroll
            for (int t = 0; t < NT; t++) {
                ak[t] += ds * qd[t];
                av[t] += P64 * gd[t];
                akp[t] = __fadd_rn(akp[t], __fmul_rn(dSp, qs[t]));
                avp[t] = __fadd_rn(avp[t], __fmul_rn(Pp, gd[t]));
            }
        }
    }
    const size_t nkv = (size_t)krows * D;
    double pmk = 0.0, psk = 0.0, pmv = 0.0, psv = 0.0;
#pragma unroll
    for (int t = 0; t < NT; t++) {
        const int d = lane + 32 * t;
        if (d < D) {
            const double gk = ak[t] * scale, gv = av[t];
            r.g[nq + kr * D + d] = gk;
            r.g[nq + nkv + kr * D + d] = gv;
            const double ek = fabs((double)rd<T>(akp[t]) - gk), ev = fabs((double)rd<T>(avp[t]) - gv);
            pmk = fmax(pmk, ek);
            psk += ek * ek;
            pmv = fmax(pmv, ev);
            psv += ev * ev;
        }
    }
    amax(&r.sums[1].plain_max, pmk);
    atomicAdd(&r.sums[1].plain_sq, psk);
    amax(&r.sums[2].plain_max, pmv);
    atomicAdd(&r.sums[2].plain_sq, psv);
}

/* The tiled gradients (replacing a warp per row, whose butterfly
 * reductions per key made the gradient reference the slowest part of a
 * backward check): RT threads of a block own BM rows of one slice (query
 * rows for dQ, key rows for dK and dV) and walk the other side in tiles of
 * BN rows staged in shared memory as floats; each thread forms the dot
 * products of its row with BN / (RT / BM) rows of the tile, sequentially
 * over d (float64 and the plain fp32, as reference.c orders them), writes
 * dS (and P) of the tile to shared memory, and the thread that owns an
 * output element accumulates it over the tile in row order, as the warp
 * per row did. Rows a pair does not see contribute exact zeros. */
constexpr int RT = 256, NO = 16;

/* the float64 and plain dS (and P) of one (query row, key) pair from their
 * dot products */
template <typename T>
__device__ __forceinline__ void ds_of(double qk, double gv, float qkp, float gvp, double scale,
                                      double lse64, double delta64, float mp, float lp, float dpl,
                                      double &P64, double &dS64, float &Pp, float &dSp)
{
    P64 = exp(qk * scale - lse64);
    dS64 = P64 * (gv - delta64);
    Pp = rd<T>(__fdiv_rn(expf(__fsub_rn(rd<T>(qkp), mp)), lp));
    dSp = rd<T>(__fmul_rn(Pp, __fsub_rn(rd<T>(gvp), dpl)));
}

/* Rows n0 .. n0 + BN - 1 of a [rows, D] slice into dst (row stride ld),
 * zeros past nrows. */
template <typename T, int BN>
__device__ __forceinline__ void tile_in(float *dst, const T *__restrict__ src, int n0, int nrows,
                                        int D, int ld)
{
    for (int e = threadIdx.x; e < BN * D; e += RT) {
        const int c = e / D, d = e - c * D;
        dst[c * ld + d] = n0 + c < nrows ? tof<T>(src[(size_t)(n0 + c) * D + d]) : 0.f;
    }
}

/* Shared memory of a tiled gradient block: four [BM or BN, ld] float
 * tiles and the pair tiles (two double and two float [BM, BN]). */
__host__ __device__ constexpr size_t grad_smem(int BM, int BN, int ld)
{
    return (size_t)BM * BN * (2 * sizeof(double) + 2 * sizeof(float)) +
           (size_t)2 * (BM + BN) * ld * sizeof(float);
}

/* Maxima over the TPR consecutive lanes that share a row. */
template <int TPR> __device__ __forceinline__ double gmax(double x)
{
#pragma unroll
    for (int m = TPR / 2; m > 0; m >>= 1)
        x = fmax(x, __shfl_xor_sync(0xffffffffu, x, m));
    return x;
}
template <int TPR> __device__ __forceinline__ float gmaxf(float x)
{
#pragma unroll
    for (int m = TPR / 2; m > 0; m >>= 1)
        x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, m));
    return x;
}

/* The forward state: one block per BM query rows of a (b, h) slice, key
 * tiles of BN, three passes over the keys with the scores recomputed in
 * each (gpu_reference.cu's scheme): (1) the row maxima, float64 and plain;
 * (2) the sums of exponentials, added in key order by one thread per row;
 * (3) P (float64, normalised) and O accumulated by the thread that owns
 * the element, and the plain Delta (P times the rounded dO . v, in key
 * order). Then lse64, Delta64 = dO . O (summed over d by one thread per
 * row, O staged in shared memory), O rounded to the dtype and lse as float
 * for the variants. */
template <typename T, int BM, int BN>
__global__ void __launch_bounds__(RT)
    stats_tiles(const T *__restrict__ Q, const T *__restrict__ K, const T *__restrict__ V,
                const T *__restrict__ G, T *__restrict__ O, float *__restrict__ lse, bwd_ref r,
                int H, int HK, int S, int SK, int D, int causal, double scale, float scale_p)
{
    constexpr int TPR = RT / BM, KPT = BN / TPR;
    extern __shared__ double sm[];
    const int ld = D | 1;
    double *E = sm;                          /* [BM, BN] exp(s - m), then P */
    float *Ef = (float *)(E + BM * BN);      /* [BM, BN] plain exp, then P dO.v */
    float *Qx = Ef + BM * BN, *Gx = Qx + BM * ld, *Kt = Gx + BM * ld, *Vt = Kt + BN * ld;
    const int per_slice = (S + BM - 1) / BM;
    const long long bh = blockIdx.x / per_slice;
    const int i0 = (int)(blockIdx.x % per_slice) * BM;
    const int tid = threadIdx.x, rr = tid / TPR, g = tid % TPR, lane = tid & 31;
    const long long b = bh / H, h = bh % H;
    const size_t qb = (size_t)bh * S * D, kb = (size_t)(b * HK + h / (H / HK)) * SK * D;
    tile_in<T, BM>(Qx, Q + qb, i0, S, D, ld);
    tile_in<T, BM>(Gx, G + qb, i0, S, D, ld);
    const int Lr = i0 + rr < S ? row_keys(i0 + rr, S, SK, causal) : 0;
    const int last = (i0 + BM < S ? i0 + BM : S) - 1;
    const int Lmax = row_keys(last, S, SK, causal);
    const int lead = lane & ~(TPR - 1);

    /* the dot products of this thread's keys in the tile */
    auto dots = [&](double (&a)[KPT], float (&c)[KPT], float (&f)[KPT], bool with_v) {
#pragma unroll
        for (int u = 0; u < KPT; u++)
            a[u] = 0.0, c[u] = f[u] = 0.f;
        for (int d = 0; d < D; d++) {
            const float x = Qx[rr * ld + d], y = Gx[rr * ld + d];
            const float xp = rd<T>(__fmul_rn(x, scale_p));
#pragma unroll
            for (int u = 0; u < KPT; u++) {
                const int cc = g + TPR * u;
                const float kv = Kt[cc * ld + d];
                a[u] += (double)x * kv;
                c[u] = __fadd_rn(c[u], __fmul_rn(xp, kv));
                if (with_v)
                    f[u] = __fadd_rn(f[u], __fmul_rn(y, Vt[cc * ld + d]));
            }
        }
    };
    double a[KPT];
    float c[KPT], f[KPT];

    /* pass 1: maxima */
    double m = -INFINITY;
    float mp = -INFINITY;
    for (int j0 = 0; j0 < Lmax; j0 += BN) {
        __syncthreads();
        tile_in<T, BN>(Kt, K + kb, j0, SK, D, ld);
        __syncthreads();
        dots(a, c, f, false);
#pragma unroll
        for (int u = 0; u < KPT; u++)
            if (j0 + g + TPR * u < Lr) {
                m = fmax(m, a[u] * scale);
                mp = fmaxf(mp, rd<T>(c[u]));
            }
    }
    m = gmax<TPR>(m);
    mp = gmaxf<TPR>(mp);

    /* pass 2: sums of exponentials in key order */
    double l = 0.0;
    float lp = 0.f;
    for (int j0 = 0; j0 < Lmax; j0 += BN) {
        __syncthreads();
        tile_in<T, BN>(Kt, K + kb, j0, SK, D, ld);
        __syncthreads();
        dots(a, c, f, false);
#pragma unroll
        for (int u = 0; u < KPT; u++) {
            const int cc = g + TPR * u;
            const bool seen = j0 + cc < Lr;
            E[rr * BN + cc] = seen ? exp(a[u] * scale - m) : 0.0;
            Ef[rr * BN + cc] = seen ? expf(__fsub_rn(rd<T>(c[u]), mp)) : 0.f;
        }
        __syncthreads();
        if (g == 0)
            for (int cc = 0; cc < BN && j0 + cc < Lr; cc++) {
                l += E[rr * BN + cc];
                lp = __fadd_rn(lp, Ef[rr * BN + cc]);
            }
    }
    l = __shfl_sync(0xffffffffu, l, lead);
    lp = __shfl_sync(0xffffffffu, lp, lead);

    /* pass 3: P, O and the plain Delta */
    double acc[NO];
#pragma unroll
    for (int u = 0; u < NO; u++)
        acc[u] = 0.0;
    float dpl = 0.f;
    for (int j0 = 0; j0 < Lmax; j0 += BN) {
        __syncthreads();
        tile_in<T, BN>(Kt, K + kb, j0, SK, D, ld);
        tile_in<T, BN>(Vt, V + kb, j0, SK, D, ld);
        __syncthreads();
        dots(a, c, f, true);
#pragma unroll
        for (int u = 0; u < KPT; u++) {
            const int cc = g + TPR * u;
            const bool seen = j0 + cc < Lr;
            E[rr * BN + cc] = seen ? exp(a[u] * scale - m) / l : 0.0;
            const float P = seen ? rd<T>(__fdiv_rn(expf(__fsub_rn(rd<T>(c[u]), mp)), lp)) : 0.f;
            Ef[rr * BN + cc] = __fmul_rn(P, rd<T>(f[u]));
        }
        __syncthreads();
        if (g == 0)
            for (int cc = 0; cc < BN && j0 + cc < Lr; cc++)
                dpl = __fadd_rn(dpl, Ef[rr * BN + cc]);
        const int cend = Lmax - j0 < BN ? Lmax - j0 : BN;
#pragma unroll
        for (int u = 0; u < NO; u++) {
            const int el = tid + RT * u;
            if (el < BM * D) {
                const int ro = el / D, dd = el - ro * D;
                for (int cc = 0; cc < cend; cc++)
                    acc[u] += E[ro * BN + cc] * (double)Vt[cc * ld + dd];
            }
        }
    }
    /* O (float64) staged over the key tiles' space, then Delta64 per row */
    __syncthreads();
    double *Ox = (double *)Kt; /* BM * D doubles fit in 2 * BN * ld floats */
#pragma unroll
    for (int u = 0; u < NO; u++) {
        const int el = tid + RT * u;
        if (el < BM * D) {
            const int ro = el / D, dd = el - ro * D;
            Ox[el] = acc[u];
            if (i0 + ro < S)
                O[qb + (size_t)(i0 + ro) * D + dd] = fromf<T>((float)acc[u]);
        }
    }
    __syncthreads();
    if (g == 0 && i0 + rr < S) {
        double delta = 0.0;
        for (int d = 0; d < D; d++)
            delta += (double)Gx[rr * ld + d] * Ox[rr * D + d];
        const long long row = bh * S + i0 + rr;
        r.lse64[row] = Lr ? m + log(l) : -INFINITY;
        r.delta64[row] = delta;
        lse[row] = Lr ? (float)(m + log(l)) : -INFINITY;
        r.mp[row] = mp;
        r.lp[row] = lp;
        r.dp[row] = dpl;
    }
}

/* dQ: one block per BM query rows of a (b, h) slice, key tiles of BN. */
template <typename T, int BM, int BN>
__global__ void __launch_bounds__(RT)
    dq_tiles(const T *__restrict__ Q, const T *__restrict__ K, const T *__restrict__ V,
             const T *__restrict__ G, bwd_ref r, int H, int HK, int S, int SK, int D, int causal,
             double scale, float scale_p)
{
    constexpr int TPR = RT / BM, KPT = BN / TPR;
    extern __shared__ double sm[];
    const int ld = D | 1;
    double *dS = sm, *Pd = dS + BM * BN;
    float *dSf = (float *)(Pd + BM * BN), *Pf = dSf + BM * BN;
    float *Qx = Pf + BM * BN, *Gx = Qx + BM * ld, *Kt = Gx + BM * ld, *Vt = Kt + BN * ld;
    const int per_slice = (S + BM - 1) / BM;
    const long long bh = blockIdx.x / per_slice;
    const int i0 = (int)(blockIdx.x % per_slice) * BM;
    const int tid = threadIdx.x, rr = tid / TPR, g = tid % TPR, lane = tid & 31;
    const long long b = bh / H, h = bh % H;
    const size_t qb = (size_t)bh * S * D, kb = (size_t)(b * HK + h / (H / HK)) * SK * D;
    tile_in<T, BM>(Qx, Q + qb, i0, S, D, ld);
    tile_in<T, BM>(Gx, G + qb, i0, S, D, ld);
    const bool live = i0 + rr < S;
    const long long row = bh * S + i0 + rr;
    const int Lr = live ? row_keys(i0 + rr, S, SK, causal) : 0;
    const int last = (i0 + BM < S ? i0 + BM : S) - 1;
    const int Lmax = row_keys(last, S, SK, causal);
    const double lse64 = live ? r.lse64[row] : 0.0, delta64 = live ? r.delta64[row] : 0.0;
    const float mp = live ? r.mp[row] : 0.f, lp = live ? r.lp[row] : 1.f,
                dpl = live ? r.dp[row] : 0.f;
    double acc[NO];
    float accp[NO];
#pragma unroll
    for (int u = 0; u < NO; u++)
        acc[u] = 0.0, accp[u] = 0.f;
    for (int j0 = 0; j0 < Lmax; j0 += BN) {
        __syncthreads();
        tile_in<T, BN>(Kt, K + kb, j0, SK, D, ld);
        tile_in<T, BN>(Vt, V + kb, j0, SK, D, ld);
        __syncthreads();
        double a[KPT], e[KPT];
        float c[KPT], f[KPT];
#pragma unroll
        for (int u = 0; u < KPT; u++)
            a[u] = e[u] = 0.0, c[u] = f[u] = 0.f;
        for (int d = 0; d < D; d++) {
            const float x = Qx[rr * ld + d], y = Gx[rr * ld + d];
            const float xp = rd<T>(__fmul_rn(x, scale_p));
#pragma unroll
            for (int u = 0; u < KPT; u++) {
                const int cc = g + TPR * u;
                const float kv = Kt[cc * ld + d], vv = Vt[cc * ld + d];
                a[u] += (double)x * kv;
                e[u] += (double)y * vv;
                c[u] = __fadd_rn(c[u], __fmul_rn(xp, kv));
                f[u] = __fadd_rn(f[u], __fmul_rn(y, vv));
            }
        }
#pragma unroll
        for (int u = 0; u < KPT; u++) {
            const int cc = g + TPR * u;
            double P64 = 0.0, d64 = 0.0;
            float Pp = 0.f, dSp = 0.f;
            if (j0 + cc < Lr)
                ds_of<T>(a[u], e[u], c[u], f[u], scale, lse64, delta64, mp, lp, dpl, P64, d64, Pp,
                         dSp);
            dS[rr * BN + cc] = d64;
            dSf[rr * BN + cc] = dSp;
        }
        __syncthreads();
        const int cend = Lmax - j0 < BN ? Lmax - j0 : BN;
#pragma unroll
        for (int u = 0; u < NO; u++) {
            const int el = tid + RT * u;
            if (el < BM * D) {
                const int ro = el / D, dd = el - ro * D;
                for (int cc = 0; cc < cend; cc++) {
                    const float kv = Kt[cc * ld + dd];
                    acc[u] += dS[ro * BN + cc] * (double)kv;
                    accp[u] = __fadd_rn(accp[u], __fmul_rn(dSf[ro * BN + cc], kv));
                }
            }
        }
    }
    double pm = 0.0, psq = 0.0;
#pragma unroll
    for (int u = 0; u < NO; u++) {
        const int el = tid + RT * u;
        const int ro = el / D, dd = el - ro * D;
        if (el < BM * D && i0 + ro < S) {
            const double g64 = acc[u] * scale;
            r.g[(size_t)(bh * S + i0 + ro) * D + dd] = g64;
            const double pe = fabs((double)rd<T>(__fmul_rn(rd<T>(accp[u]), scale_p)) - g64);
            pm = fmax(pm, pe);
            psq += pe * pe;
        }
    }
    pm = wmax(pm);
    psq = wsum(psq);
    if (lane == 0) {
        amax(&r.sums[0].plain_max, pm);
        atomicAdd(&r.sums[0].plain_sq, psq);
    }
}

/* dK, dV: one block per BM key rows of a (b, h_kv) slice, walking the
 * query rows of the group's heads (head by head, rows in order) in tiles
 * of BN, with their row statistics. */
template <typename T, int BM, int BN>
__global__ void __launch_bounds__(RT)
    dkdv_tiles(const T *__restrict__ Q, const T *__restrict__ K, const T *__restrict__ V,
               const T *__restrict__ G, bwd_ref r, int H, int HK, int S, int SK, int D,
               int causal, size_t nq, size_t nkv, double scale, float scale_p)
{
    constexpr int TPR = RT / BM, QPT = BN / TPR;
    extern __shared__ double sm[];
    __shared__ double s_lse[BN], s_delta[BN];
    __shared__ float s_mp[BN], s_lp[BN], s_dp[BN];
    const int ld = D | 1;
    double *dS = sm, *Pd = dS + BM * BN;
    float *dSf = (float *)(Pd + BM * BN), *Pf = dSf + BM * BN;
    float *Kx = Pf + BM * BN, *Vx = Kx + BM * ld, *Qt = Vx + BM * ld, *Gt = Qt + BN * ld;
    const int per_slice = (SK + BM - 1) / BM;
    const long long bk = blockIdx.x / per_slice;
    const int j0 = (int)(blockIdx.x % per_slice) * BM;
    const int tid = threadIdx.x, kk = tid / TPR, g = tid % TPR, lane = tid & 31;
    const long long b = bk / HK, hk = bk % HK;
    const int Gq = H / HK;
    tile_in<T, BM>(Kx, K + (size_t)bk * SK * D, j0, SK, D, ld);
    tile_in<T, BM>(Vx, V + (size_t)bk * SK * D, j0, SK, D, ld);
    const int j = j0 + kk;
    /* the first query row any key of the block sees */
    int istart = 0;
    if (causal) {
        const long long x = (long long)j0 - (SK - S);
        istart = x < 0 ? 0 : x > S ? S : (int)x;
    }
    double ak[NO], av[NO];
    float akp[NO], avp[NO];
#pragma unroll
    for (int u = 0; u < NO; u++)
        ak[u] = av[u] = 0.0, akp[u] = avp[u] = 0.f;
    for (int gq = 0; gq < Gq; gq++) {
        const long long bh = b * H + hk * Gq + gq;
        const size_t qb = (size_t)bh * S * D;
        for (int q0 = istart; q0 < S; q0 += BN) {
            __syncthreads();
            tile_in<T, BN>(Qt, Q + qb, q0, S, D, ld);
            tile_in<T, BN>(Gt, G + qb, q0, S, D, ld);
            if (tid < BN) {
                const bool in = q0 + tid < S;
                const long long row = bh * S + q0 + tid;
                s_lse[tid] = in ? r.lse64[row] : 0.0;
                s_delta[tid] = in ? r.delta64[row] : 0.0;
                s_mp[tid] = in ? r.mp[row] : 0.f;
                s_lp[tid] = in ? r.lp[row] : 1.f;
                s_dp[tid] = in ? r.dp[row] : 0.f;
            }
            __syncthreads();
            double a[QPT], e[QPT];
            float c[QPT], f[QPT];
#pragma unroll
            for (int u = 0; u < QPT; u++)
                a[u] = e[u] = 0.0, c[u] = f[u] = 0.f;
            for (int d = 0; d < D; d++) {
                const float kv = Kx[kk * ld + d], vv = Vx[kk * ld + d];
#pragma unroll
                for (int u = 0; u < QPT; u++) {
                    const int cc = g + TPR * u;
                    const float x = Qt[cc * ld + d], y = Gt[cc * ld + d];
                    a[u] += (double)x * kv;
                    e[u] += (double)y * vv;
                    c[u] = __fadd_rn(c[u], __fmul_rn(rd<T>(__fmul_rn(x, scale_p)), kv));
                    f[u] = __fadd_rn(f[u], __fmul_rn(y, vv));
                }
            }
#pragma unroll
            for (int u = 0; u < QPT; u++) {
                const int cc = g + TPR * u, i = q0 + cc;
                double P64 = 0.0, d64 = 0.0;
                float Pp = 0.f, dSp = 0.f;
                if (j < SK && i < S && j < row_keys(i, S, SK, causal))
                    ds_of<T>(a[u], e[u], c[u], f[u], scale, s_lse[cc], s_delta[cc], s_mp[cc],
                             s_lp[cc], s_dp[cc], P64, d64, Pp, dSp);
                dS[kk * BN + cc] = d64;
                Pd[kk * BN + cc] = P64;
                dSf[kk * BN + cc] = dSp;
                Pf[kk * BN + cc] = Pp;
            }
            __syncthreads();
            const int cend = S - q0 < BN ? S - q0 : BN;
#pragma unroll
            for (int u = 0; u < NO; u++) {
                const int el = tid + RT * u;
                if (el < BM * D) {
                    const int ko = el / D, dd = el - ko * D;
                    for (int cc = 0; cc < cend; cc++) {
                        const float x = Qt[cc * ld + dd], y = Gt[cc * ld + dd];
                        ak[u] += dS[ko * BN + cc] * (double)x;
                        av[u] += Pd[ko * BN + cc] * (double)y;
                        akp[u] = __fadd_rn(akp[u],
                                           __fmul_rn(dSf[ko * BN + cc], rd<T>(__fmul_rn(x, scale_p))));
                        avp[u] = __fadd_rn(avp[u], __fmul_rn(Pf[ko * BN + cc], y));
                    }
                }
            }
        }
    }
    double pmk = 0.0, psk = 0.0, pmv = 0.0, psv = 0.0;
#pragma unroll
    for (int u = 0; u < NO; u++) {
        const int el = tid + RT * u;
        const int ko = el / D, dd = el - ko * D;
        if (el < BM * D && j0 + ko < SK) {
            const size_t at = (size_t)(bk * SK + j0 + ko) * D + dd;
            const double gk = ak[u] * scale, gv = av[u];
            r.g[nq + at] = gk;
            r.g[nq + nkv + at] = gv;
            const double ek = fabs((double)rd<T>(akp[u]) - gk), ev = fabs((double)rd<T>(avp[u]) - gv);
            pmk = fmax(pmk, ek);
            psk += ek * ek;
            pmv = fmax(pmv, ev);
            psv += ev * ev;
        }
    }
    pmk = wmax(pmk);
    psk = wsum(psk);
    pmv = wmax(pmv);
    psv = wsum(psv);
    if (lane == 0) {
        amax(&r.sums[1].plain_max, pmk);
        atomicAdd(&r.sums[1].plain_sq, psk);
        amax(&r.sums[2].plain_max, pmv);
        atomicAdd(&r.sums[2].plain_sq, psv);
    }
}

/* |g_ref| max and sum of squares of gradient k */
__global__ void ref_norms(const double *__restrict__ g, long long n, gsums *s)
{
    double m = 0.0, q = 0.0;
    for (long long x = (long long)blockIdx.x * blockDim.x + threadIdx.x; x < n;
         x += (long long)gridDim.x * blockDim.x) {
        m = fmax(m, fabs(g[x]));
        q += g[x] * g[x];
    }
    amax(&s->ref_absmax, m);
    atomicAdd(&s->sq_ref, q);
}

/* FlashAttention's atol term at the gradient's size m (gpu_reference.cu's) */
template <typename T>
__global__ void atol_rows(const double *__restrict__ g, long long n, gsums *s)
{
    /* at max(max|g_ref|, 0.3): check.h's AB_GRAD_ATOL_FLOOR */
    const float m = fmaxf((float)__longlong_as_double((long long)s->ref_absmax),
                          (float)AB_GRAD_ATOL_FLOOR);
    double a = 0.0;
    for (long long x = (long long)blockIdx.x * blockDim.x + threadIdx.x; x < n;
         x += (long long)gridDim.x * blockDim.x) {
        const float xr = rd<T>((float)g[x]);
        const float u = rd<T>(__fadd_rn(xr, m)), w = rd<T>(__fsub_rn(u, m));
        a = fmax(a, fabs((double)rd<T>(__fsub_rn(w, xr))));
    }
    amax(&s->ref_atol, a);
}

template <typename T>
__global__ void compare(const T *__restrict__ x, const double *__restrict__ g, long long n,
                        gsums *s)
{
    double me = 0.0, se = 0.0, qe = 0.0;
    unsigned long long nf = 0;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const float v = tof<T>(x[i]);
        if (!isfinite(v)) {
            nf++;
            me = INFINITY;
            continue;
        }
        const double e = fabs((double)v - g[i]);
        me = fmax(me, e);
        se += e;
        qe += e * e;
    }
    amax(&s->max_err, me);
    atomicAdd(&s->sum_err, se);
    atomicAdd(&s->sq_err, qe);
    if (nf)
        atomicAdd(&s->nonfinite, nf);
}

#define CK(call)                                                                        \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            snprintf(err, n, "device gradient check: %s: %s", #call,                   \
                     cudaGetErrorString(e_));                                           \
            return -1;                                                                  \
        }                                                                               \
    } while (0)

float plain_scale(const ab_shape *s)
{
    float sp = (float)(1.0 / sqrt((double)s->D));
    if (s->dtype == AB_FP16)
        sp = __half2float(__float2half_rn(sp));
    else if (s->dtype == AB_BF16)
        sp = __bfloat162float(__float2bfloat16_rn(sp));
    return sp;
}

unsigned grid_of(long long warps)
{
    return (unsigned)((warps * 32 + 255) / 256);
}

/* The forward state by stats_tiles (BM rows a block, key tiles of BN). */
template <typename T, int BM, int BN> int launch_stats(const ab_gpu_parts *p, bwd_ref *r,
                                                       char *err, size_t n)
{
    const ab_shape *s = &p->s;
    const long long blocks = (long long)s->B * s->H * ((s->S + BM - 1) / BM);
    if (blocks > 0x7fffffffLL) {
        snprintf(err, n, "device gradient check: too many blocks for one grid");
        return -1;
    }
    const int ld = s->D | 1;
    const size_t smem = (size_t)BM * BN * (sizeof(double) + sizeof(float)) +
                        (size_t)2 * (BM + BN) * ld * sizeof(float);
    CK(cudaFuncSetAttribute(stats_tiles<T, BM, BN>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)smem));
    if (blocks > 0)
        stats_tiles<T, BM, BN><<<(unsigned)blocks, RT, smem, (cudaStream_t)p->stream>>>(
            (const T *)p->q, (const T *)p->k, (const T *)p->v, (const T *)p->dout, (T *)p->o,
            p->lse, *r, s->H, ab_shape_hkv(s), s->S, ab_shape_skv(s), s->D, s->causal,
            1.0 / sqrt((double)s->D), plain_scale(s));
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize((cudaStream_t)p->stream));
    return 0;
}

template <typename T> int run_stats(const ab_gpu_parts *p, bwd_ref *r, char *err, size_t n)
{
    const ab_shape *s = &p->s;
    const long long rows = (long long)s->B * s->H * s->S;
    const char *rows_env = getenv("AB_GPU_REFERENCE_BWD_ROWS");
    if (!(rows_env && strcmp(rows_env, "1") == 0))
        return s->D <= 128 ? launch_stats<T, 32, 32>(p, r, err, n)
                           : launch_stats<T, 16, 16>(p, r, err, n);
    stats<T><<<grid_of(rows), 256, 0, (cudaStream_t)p->stream>>>(
        (const T *)p->q, (const T *)p->k, (const T *)p->v, (const T *)p->dout, (T *)p->o, p->lse,
        *r, s->H, ab_shape_hkv(s), s->S, ab_shape_skv(s), s->D, s->causal, rows,
        1.0 / sqrt((double)s->D), plain_scale(s));
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize((cudaStream_t)p->stream));
    return 0;
}

/* dQ, dK, dV by the tiled kernels: BM rows a block, tiles of BN. */
template <typename T, int BM, int BN>
int launch_tiles(const ab_gpu_parts *p, bwd_ref *r, size_t nq, size_t nkv, char *err, size_t n)
{
    const ab_shape *s = &p->s;
    cudaStream_t st = (cudaStream_t)p->stream;
    const int HK = ab_shape_hkv(s), SK = ab_shape_skv(s), ld = s->D | 1;
    const long long qblocks = (long long)s->B * s->H * ((s->S + BM - 1) / BM);
    const long long kblocks = (long long)s->B * HK * ((SK + BM - 1) / BM);
    if (qblocks > 0x7fffffffLL || kblocks > 0x7fffffffLL) {
        snprintf(err, n, "device gradient check: too many blocks for one grid");
        return -1;
    }
    const size_t smem = grad_smem(BM, BN, ld);
    const double scale = 1.0 / sqrt((double)s->D);
    CK(cudaFuncSetAttribute(dq_tiles<T, BM, BN>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)smem));
    CK(cudaFuncSetAttribute(dkdv_tiles<T, BM, BN>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)smem));
    if (qblocks > 0)
        dq_tiles<T, BM, BN><<<(unsigned)qblocks, RT, smem, st>>>(
            (const T *)p->q, (const T *)p->k, (const T *)p->v, (const T *)p->dout, *r, s->H, HK,
            s->S, SK, s->D, s->causal, scale, plain_scale(s));
    CK(cudaGetLastError());
    if (kblocks > 0)
        dkdv_tiles<T, BM, BN><<<(unsigned)kblocks, RT, smem, st>>>(
            (const T *)p->q, (const T *)p->k, (const T *)p->v, (const T *)p->dout, *r, s->H, HK,
            s->S, SK, s->D, s->causal, nq, nkv, scale, plain_scale(s));
    CK(cudaGetLastError());
    return 0;
}

template <typename T> int run_grads(const ab_gpu_parts *p, bwd_ref *r, char *err, size_t n)
{
    const ab_shape *s = &p->s;
    cudaStream_t st = (cudaStream_t)p->stream;
    const long long rows = (long long)s->B * s->H * s->S;
    const long long krows = (long long)s->B * ab_shape_hkv(s) * ab_shape_skv(s);
    const size_t nq = ab_shape_numel(s), nkv = ab_shape_kv_numel(s);
    const double scale = 1.0 / sqrt((double)s->D);
    CK(cudaMemsetAsync(r->sums, 0, 3 * sizeof(gsums), st));
    const char *rows_env = getenv("AB_GPU_REFERENCE_BWD_ROWS");
    if (rows_env && strcmp(rows_env, "1") == 0) { /* the warp per row, for comparison */
        dq_rows<T><<<grid_of(rows), 256, 0, st>>>(
            (const T *)p->q, (const T *)p->k, (const T *)p->v, (const T *)p->dout, *r, s->H,
            ab_shape_hkv(s), s->S, ab_shape_skv(s), s->D, s->causal, rows, scale, plain_scale(s));
        CK(cudaGetLastError());
        dkdv_rows<T><<<grid_of(krows), 256, 0, st>>>(
            (const T *)p->q, (const T *)p->k, (const T *)p->v, (const T *)p->dout, *r, s->H,
            ab_shape_hkv(s), s->S, ab_shape_skv(s), s->D, s->causal, krows, nq, scale,
            plain_scale(s));
        CK(cudaGetLastError());
    } else if (s->D <= 128) {
        if (launch_tiles<T, 32, 32>(p, r, nq, nkv, err, n))
            return -1;
    } else if (launch_tiles<T, 16, 16>(p, r, nq, nkv, err, n)) {
        return -1;
    }
    const size_t len[3] = {nq, nkv, nkv}, off[3] = {0, nq, nq + nkv};
    for (int g = 0; g < 3; g++) {
        ref_norms<<<1024, 256, 0, st>>>(r->g + off[g], (long long)len[g], r->sums + g);
        atol_rows<T><<<1024, 256, 0, st>>>(r->g + off[g], (long long)len[g], r->sums + g);
    }
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(r->ref, r->sums, 3 * sizeof(gsums), cudaMemcpyDeviceToHost, st));
    CK(cudaStreamSynchronize(st));
    r->have_grads = 1;
    return 0;
}

template <typename T> void run_compare(const ab_gpu_parts *p, bwd_ref *r)
{
    const ab_shape *s = &p->s;
    const size_t nq = ab_shape_numel(s), nkv = ab_shape_kv_numel(s);
    const void *x[3] = {p->dq, p->dk, p->dv};
    const size_t len[3] = {nq, nkv, nkv}, off[3] = {0, nq, nq + nkv};
    for (int g = 0; g < 3; g++)
        compare<T><<<1024, 256, 0, (cudaStream_t)p->stream>>>((const T *)x[g], r->g + off[g],
                                                              (long long)len[g], r->sums + g);
}

double bits(unsigned long long u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

int get_grads(ab_gpu_bufs *b, ab_gpu_parts *p, bwd_ref **out, char *err, size_t n)
{
    ab_gpu_bufs_parts(b, p);
    bwd_ref *r = (bwd_ref *)*p->bref;
    *out = r;
    if (!r || !p->dout) {
        snprintf(err, n, "device gradient check: no backward state (ab_gpu_bwd_prepare)");
        return -1;
    }
    if (r->have_grads)
        return 0;
    const size_t all = ab_shape_numel(&p->s) + 2 * ab_shape_kv_numel(&p->s);
    CK(cudaMalloc((void **)&r->g, all * sizeof(double)));
    CK(cudaMalloc((void **)&r->sums, 3 * sizeof(gsums)));
    switch (p->s.dtype) {
    case AB_FP16:
        return run_grads<__half>(p, r, err, n);
    case AB_BF16:
        return run_grads<__nv_bfloat16>(p, r, err, n);
    default:
        return run_grads<float>(p, r, err, n);
    }
}

} /* namespace */

extern "C" int ab_gpu_reference_bwd_make(ab_gpu_bufs *b, char *err, size_t n)
{
    ab_gpu_parts p;
    bwd_ref *r = NULL;
    return get_grads(b, &p, &r, err, n) ? -1 : 0;
}

extern "C" int ab_gpu_bref_has_grads(const void *bref)
{
    return bref && ((const bwd_ref *)bref)->have_grads;
}

extern "C" void ab_gpu_bref_free(void *bref)
{
    bwd_ref *r = (bwd_ref *)bref;
    if (!r)
        return;
    cudaFree(r->lse64);
    cudaFree(r->delta64);
    cudaFree(r->mp);
    cudaFree(r->lp);
    cudaFree(r->dp);
    cudaFree(r->g);
    cudaFree(r->sums);
    free(r);
}

extern "C" int ab_gpu_bwd_state(const ab_gpu_parts *p, char *err, size_t n)
{
    const ab_shape *s = &p->s;
    if (s->D > AB_GPU_CHECK_MAX_D) {
        snprintf(err, n, "device gradient check: D=%d above %d", s->D, AB_GPU_CHECK_MAX_D);
        return -1;
    }
    bwd_ref *r = (bwd_ref *)calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, n, "out of host memory");
        return -1;
    }
    *p->bref = r; /* freed with the buffers, whatever happens below */
    const size_t rows = (size_t)s->B * s->H * s->S;
    CK(cudaMalloc((void **)&r->lse64, rows * sizeof(double)));
    CK(cudaMalloc((void **)&r->delta64, rows * sizeof(double)));
    CK(cudaMalloc((void **)&r->mp, rows * sizeof(float)));
    CK(cudaMalloc((void **)&r->lp, rows * sizeof(float)));
    CK(cudaMalloc((void **)&r->dp, rows * sizeof(float)));
    switch (s->dtype) {
    case AB_FP16:
        return run_stats<__half>(p, r, err, n);
    case AB_BF16:
        return run_stats<__nv_bfloat16>(p, r, err, n);
    default:
        return run_stats<float>(p, r, err, n);
    }
}

extern "C" int ab_gpu_check_bwd(ab_gpu_bufs *b, ab_grad_check *out, char *err, size_t n)
{
    ab_gpu_parts p;
    bwd_ref *r = NULL;
    memset(out, 0, sizeof *out);
    if (get_grads(b, &p, &r, err, n))
        return -1;
    cudaStream_t st = (cudaStream_t)p.stream;
    gsums d[3];
    memcpy(d, r->ref, sizeof d);
    for (int g = 0; g < 3; g++) { /* keep the reference parts, redo the comparison */
        d[g].max_err = d[g].nonfinite = 0;
        d[g].sum_err = d[g].sq_err = 0;
    }
    CK(cudaMemcpyAsync(r->sums, d, sizeof d, cudaMemcpyHostToDevice, st));
    switch (p.s.dtype) {
    case AB_FP16:
        run_compare<__half>(&p, r);
        break;
    case AB_BF16:
        run_compare<__nv_bfloat16>(&p, r);
        break;
    default:
        run_compare<float>(&p, r);
        break;
    }
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(d, r->sums, sizeof d, cudaMemcpyDeviceToHost, st));
    CK(cudaStreamSynchronize(st));
    ab_check_sums x[3];
    const long len[3] = {(long)ab_shape_numel(&p.s), (long)ab_shape_kv_numel(&p.s),
                         (long)ab_shape_kv_numel(&p.s)};
    for (int g = 0; g < 3; g++) {
        memset(&x[g], 0, sizeof x[g]);
        x[g].max_err = bits(d[g].max_err);
        x[g].sum_err = d[g].sum_err;
        x[g].sq_err = d[g].sq_err;
        x[g].sq_ref = d[g].sq_ref;
        x[g].plain_max = bits(d[g].plain_max);
        x[g].plain_sq = d[g].plain_sq;
        x[g].ref_absmax = bits(d[g].ref_absmax);
        x[g].ref_atol = bits(d[g].ref_atol);
        x[g].disagree = 0; /* see the file's opening paragraph */
        x[g].nonfinite = (long)d[g].nonfinite;
        x[g].elems = x[g].rows_checked = x[g].rows_total = len[g];
    }
    ab_grad_check_decide(x, p.s.dtype, out);
    return 0;
}

extern "C" int ab_gpu_reference_bwd(ab_gpu_bufs *b, double *dq, double *dk, double *dv,
                                    char *err, size_t n)
{
    ab_gpu_parts p;
    bwd_ref *r = NULL;
    if (get_grads(b, &p, &r, err, n))
        return -1;
    const size_t nq = ab_shape_numel(&p.s), nkv = ab_shape_kv_numel(&p.s);
    CK(cudaMemcpy(dq, r->g, nq * sizeof(double), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(dk, r->g + nq, nkv * sizeof(double), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(dv, r->g + nq + nkv, nkv * sizeof(double), cudaMemcpyDeviceToHost));
    return 0;
}
