/*
 * broken_cuda.cu: deliberately wrong CUDA variants, compiled only into the
 * GPU test program (tests/gpu/gpu_check), never into attnbench: the GPU
 * suite's negative tests (`gpu_check --negative`) run each at every dtype, D
 * and S of the suite and require the device check (kernels/gpu_check.h) to
 * fail it, and require cuda_broken_none, the same kernel without a bug, to
 * pass, so each failure is the bug's.
 *
 * The kernel: one thread per query row, keys in order, online softmax in
 * fp32 (Milakov & Gimelshein 2018), O = acc / l rounded to the dtype; D <=
 * 128. The bugs (one per variant):
 *   none           correct
 *   scale_1pct     O multiplied by 1.01
 *   softmax_scale  scores scaled by 1/D instead of 1/sqrt(D)
 *   causal_offset  causal mask off by one: key i+1 is kept for query i
 *                  (causal configurations only; non-causal ones are skipped)
 *   row            one row (S/2 of the last (b, h)) gets the output of
 *                  query S/2 - 1 (negated when S = 1)
 *   column         column 0 of every row gets column 1's value (D >= 2)
 *   nan            the last element of O is never written (the poison stays)
 *   vmean          uniform weights: the mean of V's rows
 *   stale          run enqueues nothing: O is whatever was there before
 */
#include "registry.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

namespace {

enum bug { NONE, SCALE_1PCT, SOFTMAX_SCALE, CAUSAL_OFFSET, ROW, COLUMN, NANOUT, VMEAN, STALE };

template <typename T> __device__ float ld(const T *p);
template <> __device__ float ld<float>(const float *p) { return *p; }
template <> __device__ float ld<__half>(const __half *p) { return __half2float(*p); }
template <> __device__ float ld<__nv_bfloat16>(const __nv_bfloat16 *p) { return __bfloat162float(*p); }
template <typename T> __device__ T st(float x);
template <> __device__ float st<float>(float x) { return x; }
template <> __device__ __half st<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __nv_bfloat16 st<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

template <typename T>
__global__ void broken_fwd(const T *Q, const T *K, const T *V, T *O, int BH, int S, int D,
                           int causal, int bug)
{
    const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= (long long)BH * S)
        return;
    const long long bh = r / S;
    const int i0 = (int)(r % S);
    /* the query this row is computed for (the row bug computes a neighbour's) */
    int i = i0;
    if (bug == ROW && bh == BH - 1 && i0 == S / 2 && S > 1)
        i = i0 - 1;
    const size_t base = (size_t)bh * S * D;
    float scale = bug == SOFTMAX_SCALE ? 1.f / D : bug == VMEAN ? 0.f : rsqrtf((float)D);
    int L = S;
    if (causal)
        L = bug == CAUSAL_OFFSET ? min(i + 2, S) : i + 1;
    float acc[128];
    for (int d = 0; d < D; d++)
        acc[d] = 0.f;
    float m = -INFINITY, l = 0.f;
    for (int j = 0; j < L; j++) {
        float s = 0.f;
        for (int d = 0; d < D; d++)
            s += ld(Q + base + (size_t)i * D + d) * ld(K + base + (size_t)j * D + d);
        s *= scale;
        const float mn = fmaxf(m, s);
        const float c = expf(m - mn), p = expf(s - mn);
        l = l * c + p;
        for (int d = 0; d < D; d++)
            acc[d] = acc[d] * c + p * ld(V + base + (size_t)j * D + d);
        m = mn;
    }
    T *o = O + base + (size_t)i0 * D;
    for (int d = 0; d < D; d++) {
        float x = acc[d] / l;
        if (bug == SCALE_1PCT)
            x *= 1.01f;
        if (bug == ROW && bh == BH - 1 && i0 == S / 2 && S == 1)
            x = -x;
        if (bug == COLUMN && d == 0 && D > 1)
            x = acc[1] / l;
        if (bug == NANOUT && r == (long long)BH * S - 1 && d == D - 1)
            continue;
        o[d] = st<T>(x);
    }
}

struct ctx_t {
    int bug;
};

int setup(int bug, const ab_shape *s, void **ctx, size_t *ws, char *err, size_t n)
{
    *ctx = NULL;
    *ws = 0;
    if (s->D > 128) {
        snprintf(err, n, "broken test kernel: D <= 128");
        return -1;
    }
    ctx_t *c = (ctx_t *)malloc(sizeof *c);
    if (!c) {
        snprintf(err, n, "out of host memory");
        return -1;
    }
    c->bug = bug;
    *ctx = c;
    return 0;
}

int run(void *ctx, const ab_shape *s, const void *q, const void *k, const void *v, void *o,
        void *stream)
{
    const int bug = ((ctx_t *)ctx)->bug;
    if (bug == STALE)
        return 0;
    const int BH = s->B * s->H;
    const long long rows = (long long)BH * s->S;
    const unsigned blocks = (unsigned)((rows + 127) / 128);
    cudaStream_t st = (cudaStream_t)stream;
    switch (s->dtype) {
    case AB_FP16:
        broken_fwd<__half><<<blocks, 128, 0, st>>>((const __half *)q, (const __half *)k,
                                                  (const __half *)v, (__half *)o, BH, s->S,
                                                  s->D, s->causal, bug);
        break;
    case AB_BF16:
        broken_fwd<__nv_bfloat16><<<blocks, 128, 0, st>>>(
            (const __nv_bfloat16 *)q, (const __nv_bfloat16 *)k, (const __nv_bfloat16 *)v,
            (__nv_bfloat16 *)o, BH, s->S, s->D, s->causal, bug);
        break;
    default:
        broken_fwd<float><<<blocks, 128, 0, st>>>((const float *)q, (const float *)k,
                                                 (const float *)v, (float *)o, BH, s->S, s->D,
                                                 s->causal, bug);
        break;
    }
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

void teardown(void *ctx) { free(ctx); }

#define BROKEN(NAME, BUG, IDEA)                                                          \
    int NAME##_setup(const ab_shape *s, void **ctx, size_t *ws, char *err, size_t n)     \
    {                                                                                    \
        return setup(BUG, s, ctx, ws, err, n);                                           \
    }
BROKEN(none, NONE, "")
BROKEN(scale_1pct, SCALE_1PCT, "")
BROKEN(softmax_scale, SOFTMAX_SCALE, "")
BROKEN(causal_offset, CAUSAL_OFFSET, "")
BROKEN(row, ROW, "")
BROKEN(column, COLUMN, "")
BROKEN(nan, NANOUT, "")
BROKEN(vmean, VMEAN, "")
BROKEN(stale, STALE, "")
#undef BROKEN

#define ROW_OF(NAME, IDEA)                                                                   \
    {"cuda_broken_" #NAME, "cuda", AB_DEV_CUDA, AB_DT_ALL, {0}, IDEA, NAME##_setup, run,    \
     teardown, ab_attention_flops, NULL, 0}

const ab_variant broken[] = {
    ROW_OF(none, "the test kernel without a bug (must pass)"),
    ROW_OF(scale_1pct, "output multiplied by 1.01"),
    ROW_OF(softmax_scale, "softmax scale 1/D instead of 1/sqrt(D)"),
    ROW_OF(causal_offset, "causal mask off by one (key i+1 kept)"),
    ROW_OF(row, "one wrong row: query S/2 of the last slice gets its neighbour's output"),
    ROW_OF(column, "column 0 gets column 1's value"),
    ROW_OF(nan, "last element never written"),
    ROW_OF(vmean, "uniform weights: mean of V"),
    ROW_OF(stale, "enqueues nothing: O keeps what was there"),
};

} /* namespace */

extern "C" const ab_variant *ab_test_variants(size_t *n)
{
    *n = sizeof broken / sizeof broken[0];
    return broken;
}
