/*
 * gpu_reference_bwd.cu: the device side of the gradient check
 * (gpu_check.h): the forward state a backward pass is handed (O and the
 * logsumexp, from float64 attention of every row), a float64 backward of
 * every element, the plain same-precision backward whose error sets each
 * gradient's tolerance, and the comparison of a variant's dQ, dK, dV with
 * the float64 gradients, reduced on the device.
 *
 * Idea: as gpu_reference.cu, one warp per row, lanes over the head
 * dimension (lane owns d = lane + 32 t), dot products by a butterfly of
 * shuffles; nothing of size S x S_kv is stored, every score is recomputed.
 *   stats  (one warp per query row): float64 online softmax and O; the
 *          logsumexp lse64 and Delta64 = rowsum(dO * O); O rounded to the
 *          dtype and lse as float for the variants; the plain computation's
 *          row max, sum and Delta (fp32, scores and P rounded to the dtype).
 *   dq     (one warp per query row): dQ_i = scale sum_j dS_ij k_j, float64
 *          and plain, the plain's error against float64 reduced at once.
 *   dkdv   (one warp per key row of a K/V head): dK_j = scale sum dS_ij q_i
 *          and dV_j = sum P_ij dO_i over the group's query heads and the rows
 *          that see key j; float64 and plain.
 * The plain backward is reference_bwd.c's ab_plain_bwd (PyTorch's autograd
 * through attention in the dtype: scores, P, dP, dS rounded, fp32 sums), its
 * operations unfused (__fmul_rn, __fadd_rn); its shadow (the same without
 * rounding) is the float64 backward itself, so the disagreement rule of
 * check.h is not applied on the device: instead the GPU suite holds the
 * float64 gradients against the CPU oracle ab_reference_bwd (itself checked
 * against finite differences, tests/check/test_bwd_reference.c).
 * Source: FlashAttention-2 (Dao 2023), Algorithm 2's equations in exact
 * arithmetic; the tolerance rule of FlashAttention's tests.
 * Written to be plainly right, not fast.
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

template <typename T> int run_stats(const ab_gpu_parts *p, bwd_ref *r, char *err, size_t n)
{
    const ab_shape *s = &p->s;
    const long long rows = (long long)s->B * s->H * s->S;
    stats<T><<<grid_of(rows), 256, 0, (cudaStream_t)p->stream>>>(
        (const T *)p->q, (const T *)p->k, (const T *)p->v, (const T *)p->dout, (T *)p->o, p->lse,
        *r, s->H, ab_shape_hkv(s), s->S, ab_shape_skv(s), s->D, s->causal, rows,
        1.0 / sqrt((double)s->D), plain_scale(s));
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize((cudaStream_t)p->stream));
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
    dq_rows<T><<<grid_of(rows), 256, 0, st>>>((const T *)p->q, (const T *)p->k, (const T *)p->v,
                                              (const T *)p->dout, *r, s->H, ab_shape_hkv(s),
                                              s->S, ab_shape_skv(s), s->D, s->causal, rows, scale,
                                              plain_scale(s));
    CK(cudaGetLastError());
    dkdv_rows<T><<<grid_of(krows), 256, 0, st>>>(
        (const T *)p->q, (const T *)p->k, (const T *)p->v, (const T *)p->dout, *r, s->H,
        ab_shape_hkv(s), s->S, ab_shape_skv(s), s->D, s->causal, krows, nq, scale,
        plain_scale(s));
    CK(cudaGetLastError());
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
