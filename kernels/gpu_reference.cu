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
 * ptxas (nvcc 13.0, sm_90a): reference_tiles 158-170 registers, no spills.
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

    double pmax = 0.0, psq = 0.0, amax = 0.0, dis = 0.0, sq = 0.0;
#pragma unroll
    for (int u = 0; u < NO; u++) {
        const int e = tid + RT * u;
        const int ro = e / D, dd = e - ro * D;
        if (e < BM * D && i0 + ro < S) {
            oref[base + (size_t)(i0 + ro) * D + dd] = o_r[u];
            const double pe = fabs((double)rd<T>(o_p[u]) - o_s[u]);
            pmax = fmax(pmax, pe);
            psq += pe * pe;
            amax = fmax(amax, fabs(o_r[u]));
            const double gap = fabs(o_s[u] - o_r[u]);
            dis = isnan(gap) ? INFINITY : fmax(dis, gap);
            sq += o_r[u] * o_r[u];
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
