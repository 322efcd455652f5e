/*
 * cuda_mma_pipeline_slowed.cu: a test instrument, not a rung of the ladder.
 * cuda_mma_pipeline, plus a second launch of the same kernel on one (b, h)
 * slice of S' queries and keys (the first S' rows of Q, K, V; output to a
 * scratch buffer, so O stays correct). It exists for the power
 * study: a variant that is slower than cuda_mma_pipeline by a known small
 * amount (about 2.5%), so that the verdict rule's power to call a real
 * slowdown of that size "slower" can be measured in the same run as its A/A false
 * positives.
 *
 * Sizing S'. At a compute-bound shape the kernel runs in waves of one block
 * per SM (candidate 9 at D = 128 takes 224 KiB of shared memory), each
 * block of Br = 128 query rows stepping through ceil(S / 128) K/V tiles of
 * 128 keys, so its time is about waves x tiles tile-steps, waves =
 * ceil(B H ceil(S / 128) / SMs). The extra launch on S' = 128 k rows (k
 * blocks, one wave) costs about k tile-steps, so k = round(0.025 x waves x
 * tiles) adds about 2.5% (plus one launch's overhead) where that model
 * holds; at launch-bound shapes the extra launch is mostly overhead and the
 * slowdown is whatever it is. The power study measures the actual slowdown
 * (the speedup estimate of the run) rather than trusting this arithmetic:
 * reports/aa-calibration/study.md (H200) and reports/paired-analysis/.
 */
#include "entry_points.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

namespace {
struct slowed {
    void *main_ctx, *extra_ctx;
    ab_shape extra;
    void *o2; /* scratch output of the extra launch */
};
constexpr double kTarget = 0.025;
} // namespace

/* setup: cuda_mma_pipeline's setup for s and for the extra slice (1, 1,
 * S', D, non-causal, same dtype), and the scratch output (S' x D
 * elements). Same shapes and dtypes as cuda_mma_pipeline; errors are its
 * errors or a cudaMalloc failure. */
extern "C" int cuda_mma_pipeline_slowed_setup(const ab_shape *s, void **ctx, size_t *ws,
                                              char *err, size_t n)
{
    *ctx = NULL;
    *ws = 0;
    slowed *c = (slowed *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, n, "cuda_mma_pipeline_slowed: out of host memory");
        return -1;
    }
    size_t w1 = 0, w2 = 0;
    if (cuda_mma_pipeline_setup(s, &c->main_ctx, &w1, err, n)) {
        free(c);
        return -1;
    }
    int dev = 0, sms = 132;
    if (cudaGetDevice(&dev) == cudaSuccess)
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    const long tiles = (s->S + 127) / 128;
    const long waves = ((long)s->B * s->H * tiles + sms - 1) / sms;
    long k = lround(kTarget * (double)(waves * tiles));
    if (k < 1)
        k = 1;
    if (k * 128 > s->S)
        k = (s->S + 127) / 128;
    c->extra = (ab_shape){1, 1, (int)(k * 128 < s->S ? k * 128 : s->S), s->D, 0, s->dtype};
    if (cuda_mma_pipeline_setup(&c->extra, &c->extra_ctx, &w2, err, n)) {
        cuda_mma_pipeline_teardown(c->main_ctx);
        free(c);
        return -1;
    }
    size_t bytes = (size_t)c->extra.S * (size_t)s->D * 2; /* fp16 / bf16 */
    if (cudaMalloc(&c->o2, bytes) != cudaSuccess) {
        snprintf(err, n, "cuda_mma_pipeline_slowed: cudaMalloc(%zu): %s", bytes,
                 cudaGetErrorString(cudaGetLastError()));
        cuda_mma_pipeline_teardown(c->main_ctx);
        cuda_mma_pipeline_teardown(c->extra_ctx);
        free(c);
        return -1;
    }
    *ws = w1 + w2 + bytes;
    *ctx = c;
    return 0;
}

/* run: cuda_mma_pipeline on s, then on the extra slice into the scratch
 * buffer, both enqueued on stream. */
extern "C" int cuda_mma_pipeline_slowed_run(void *ctx, const ab_shape *s, const void *q,
                                            const void *k, const void *v, void *o, void *stream)
{
    slowed *c = (slowed *)ctx;
    int rc = cuda_mma_pipeline_run(c->main_ctx, s, q, k, v, o, stream);
    if (rc)
        return rc;
    return cuda_mma_pipeline_run(c->extra_ctx, &c->extra, q, k, v, c->o2, stream);
}

extern "C" void cuda_mma_pipeline_slowed_teardown(void *ctx)
{
    slowed *c = (slowed *)ctx;
    if (!c)
        return;
    cuda_mma_pipeline_teardown(c->main_ctx);
    cuda_mma_pipeline_teardown(c->extra_ctx);
    cudaFree(c->o2);
    free(c);
}
