/*
 * gpu_reference.cu: the device side of the correctness check (gpu_check.h):
 * a float64 attention reference of every row, the plain same-precision
 * computation with its float64 shadow (reference.h gives both), and the
 * comparison of a variant's O with the reference, all reduced on the device.
 *
 * Idea: one warp per query row, lanes over the head dimension (lane owns
 * d = lane + 32 t, t < 8, so D <= 256); for each key j the warp forms the
 * dot products with a butterfly of shuffles (every lane ends with the same
 * bits, so the softmax state stays warp-uniform). Three passes over the keys:
 * (1) the reference's row max and sum of exponentials (online, float64) and
 * the plain's and shadow's row maxima; (2) the plain's and shadow's sums;
 * (3) the outputs of all three. Scores are recomputed in every pass instead
 * of stored, so memory is O(D) per row at any S. It is written to be plainly
 * right, not fast: a ladder shape (B=4, H=16, S=4096, D=128) is a few
 * tenths of a second, once per configuration.
 * Source: the definition (Vaswani et al. 2017, eq. 1) for the reference;
 * the plain computation is reference.c's ab_plain_row (FlashAttention's
 * `out_pt`), with fp32 operations kept unfused (__fmul_rn, __fadd_rn) so
 * nvcc cannot contract them into FMAs the plain computation does not have.
 * Measured: NVIDIA H200, 2026-11-23 (`gpu_check --reference`): equal to the
 * CPU oracle within 5e-16 over every row of 96 cases (fp16, bf16, fp32; D =
 * 1, 64, 128, 200; causal and not; S = 1..200). ptxas (nvcc 13.0, sm_90a):
 * reference_rows 132-136 registers, no spills. The whole GPU suite (9
 * variants, 64-96 cases each, every row) checked in 14.7 s, and the 67
 * configurations of the committed runs with every variant in 161 s.
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

__device__ __forceinline__ float warp_sum(float x)
{
#pragma unroll
    for (int m = 16; m > 0; m >>= 1)
        x = __fadd_rn(x, __shfl_xor_sync(0xffffffffu, x, m));
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

/* The three scores of key j for this warp's row: reference (float64, scale
 * applied after the dot), plain (fp32 sum of products of the rounded scaled
 * query, rounded to T) and shadow (the plain's operations in float64). */
template <typename T>
__device__ __forceinline__ void scores(const T *kj, int D, int lane, const double *qd,
                                       const float *qp, const double *qs, double scale,
                                       double &sref, float &sp, double &ss)
{
    double a = 0.0, c = 0.0;
    float b = 0.f;
#pragma unroll
    for (int t = 0; t < NT; t++) {
        const int d = lane + 32 * t;
        if (d < D) {
            const float kv = to_f<T>(kj[d]);
            a += qd[t] * (double)kv;
            b = __fadd_rn(b, __fmul_rn(qp[t], kv));
            c += qs[t] * (double)kv;
        }
    }
    sref = warp_sum(a) * scale;
    sp = rd<T>(warp_sum(b));
    ss = warp_sum(c);
}

/* One warp per row of [B*H*S]; writes oref (float64) and accumulates the
 * plain-vs-shadow and shadow-vs-reference sums. */
template <typename T>
__global__ void reference_rows(const T *__restrict__ Q, const T *__restrict__ K,
                               const T *__restrict__ V, int S, int D, int causal, long long rows,
                               double scale, float scale_plain, double *__restrict__ oref,
                               dev_sums *sums, int H, int Hkv, int Skv)
{
    const long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (row >= rows)
        return; /* whole warps: blockDim is a multiple of 32 */
    const long long bh = row / S;
    const int i = (int)(row % S);
    const size_t base = (size_t)bh * S * D;
    const T *qi = Q + base + (size_t)i * D;
    /* K/V head h / (H / H_kv) of batch b; keys of the bottom-right causal
     * mask (variant.h): a row that sees none stays 0 */
    const long long b = bh / H, h = bh % H;
    const size_t kvb = (size_t)(b * Hkv + h / (H / Hkv)) * Skv * D;
    const long long vis = (long long)i + Skv - S + 1;
    const int L = causal ? (int)(vis < 0 ? 0 : vis > Skv ? Skv : vis) : Skv;

    double qd[NT], qs[NT];
    float qp[NT];
#pragma unroll
    for (int t = 0; t < NT; t++) {
        const int d = lane + 32 * t;
        const float x = d < D ? to_f<T>(qi[d]) : 0.f;
        qd[t] = x;
        qp[t] = rd<T>(__fmul_rn(x, scale_plain));
        qs[t] = (double)x * scale;
    }

    /* pass 1: reference max and sum (online), plain and shadow maxima */
    double m = -INFINITY, l = 0.0, ms = -INFINITY;
    float mp = -INFINITY;
    for (int j = 0; j < L; j++) {
        double sref, ss;
        float sp;
        scores<T>(K + kvb + (size_t)j * D, D, lane, qd, qp, qs, scale, sref, sp, ss);
        if (sref > m) {
            l = l * exp(m - sref) + 1.0;
            m = sref;
        } else {
            l += exp(sref - m);
        }
        mp = fmaxf(mp, sp);
        ms = fmax(ms, ss);
    }
    /* pass 2: plain and shadow sums */
    float lp = 0.f;
    double ls = 0.0;
    for (int j = 0; j < L; j++) {
        double sref, ss;
        float sp;
        scores<T>(K + kvb + (size_t)j * D, D, lane, qd, qp, qs, scale, sref, sp, ss);
        lp = __fadd_rn(lp, expf(__fsub_rn(sp, mp)));
        ls += exp(ss - ms);
    }
    /* pass 3: outputs */
    double o_ref[NT], o_s[NT];
    float o_p[NT];
#pragma unroll
    for (int t = 0; t < NT; t++)
        o_ref[t] = o_s[t] = 0.0, o_p[t] = 0.f;
    for (int j = 0; j < L; j++) {
        double sref, ss;
        float sp;
        const size_t off = kvb + (size_t)j * D;
        scores<T>(K + off, D, lane, qd, qp, qs, scale, sref, sp, ss);
        const double pr = exp(sref - m) / l;
        const float pp = rd<T>(__fdiv_rn(expf(__fsub_rn(sp, mp)), lp));
        const double ps = exp(ss - ms) / ls;
#pragma unroll
        for (int t = 0; t < NT; t++) {
            const int d = lane + 32 * t;
            if (d < D) {
                const float vv = to_f<T>(V[off + d]);
                o_ref[t] += pr * (double)vv;
                o_p[t] = __fadd_rn(o_p[t], __fmul_rn(pp, vv));
                o_s[t] += ps * (double)vv;
            }
        }
    }
    double pmax = 0.0, psq = 0.0, amax = 0.0, dis = 0.0, sq = 0.0;
#pragma unroll
    for (int t = 0; t < NT; t++) {
        const int d = lane + 32 * t;
        if (d < D) {
            oref[base + (size_t)i * D + d] = o_ref[t];
            const double pe = fabs((double)rd<T>(o_p[t]) - o_s[t]);
            pmax = fmax(pmax, pe);
            psq += pe * pe;
            amax = fmax(amax, fabs(o_ref[t]));
            const double g = fabs(o_s[t] - o_ref[t]);
            dis = isnan(g) ? INFINITY : fmax(dis, g);
            sq += o_ref[t] * o_ref[t];
        }
    }
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
    const int threads = 256;
    const long long blocks = (rows * 32 + threads - 1) / threads;
    if (blocks > 0x7fffffffLL) {
        snprintf(err, n, "device check: %lld rows is too many for one grid", rows);
        return 1;
    }
    reference_rows<T><<<(unsigned)blocks, threads, 0, st>>>(
        (const T *)p->q, (const T *)p->k, (const T *)p->v, s->S, s->D, s->causal, rows, scale, sp,
        r->oref, r->sums, s->H, ab_shape_hkv(s), ab_shape_skv(s));
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
