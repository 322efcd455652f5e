/*
 * example_cuda.cu: an attnbench plugin with one CUDA variant, example_cuda:
 * one thread per query row, online softmax (Milakov and Gimelshein 2018)
 * with the row's accumulator in registers, fp16 or fp32 inputs in device
 * memory [B, H, S, D], D = 64 or 128. Deliberately simple: it shows the
 * CUDA route of include/attnbench/plugin.h (run enqueues on the stream
 * attnbench hands over; attnbench times it with CUDA events).
 */
#include <attnbench/plugin.h>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

__device__ inline float ld(const float *p) { return *p; }
__device__ inline float ld(const __half *p) { return __half2float(*p); }
__device__ inline void st(float *p, float x) { *p = x; }
__device__ inline void st(__half *p, float x) { *p = __float2half(x); }

template <typename T, int D>
__global__ void row_kernel(const T *q, const T *k, const T *v, T *o, int S, int causal,
                           float scale)
{
    long bh = blockIdx.y;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= S)
        return;
    const T *Q = q + (bh * S + i) * D, *K = k + bh * S * D, *V = v + bh * S * D;
    float qr[D], acc[D], m = -INFINITY, l = 0.0f;
    for (int d = 0; d < D; d++) {
        qr[d] = ld(Q + d) * scale;
        acc[d] = 0.0f;
    }
    int last = causal ? i : S - 1;
    for (int j = 0; j <= last; j++) {
        float x = 0.0f;
        for (int d = 0; d < D; d++)
            x += qr[d] * ld(K + (long)j * D + d);
        float m2 = fmaxf(m, x), c = __expf(m - m2), p = __expf(x - m2);
        l = l * c + p;
        for (int d = 0; d < D; d++)
            acc[d] = acc[d] * c + p * ld(V + (long)j * D + d);
        m = m2;
    }
    for (int d = 0; d < D; d++)
        st(o + (bh * S + i) * D + d, acc[d] / l);
}

static int ex_setup(const attnbench_shape *s, void **ctx, size_t *ws, char *err, size_t n)
{
    *ctx = NULL;
    *ws = 0;
    return 0;
}

template <typename T>
static void launch(const attnbench_shape *s, const void *q, const void *k, const void *v,
                   void *o, cudaStream_t st)
{
    dim3 grid((s->S + 127) / 128, s->B * s->H);
    float scale = 1.0f / sqrtf((float)s->D);
    if (s->D == 64)
        row_kernel<T, 64><<<grid, 128, 0, st>>>((const T *)q, (const T *)k, (const T *)v,
                                                 (T *)o, s->S, s->causal, scale);
    else
        row_kernel<T, 128><<<grid, 128, 0, st>>>((const T *)q, (const T *)k, (const T *)v,
                                                  (T *)o, s->S, s->causal, scale);
}

static int ex_run(void *ctx, const attnbench_shape *s, const void *q, const void *k,
                  const void *v, void *o, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (s->dtype == ATTNBENCH_FP16)
        launch<__half>(s, q, k, v, o, st);
    else
        launch<float>(s, q, k, v, o, st);
    return cudaPeekAtLastError() != cudaSuccess;
}

static void ex_teardown(void *ctx) {}

static const attnbench_plugin_variant variants[] = {
    {"example_cuda", ATTNBENCH_DEV_CUDA,
     ATTNBENCH_DT(ATTNBENCH_FP16) | ATTNBENCH_DT(ATTNBENCH_FP32), {64, 128, 0},
     "example plugin: one thread per query row, online softmax, on CUDA cores",
     ex_setup, ex_run, ex_teardown, NULL, {NULL}},
};

static const attnbench_plugin plugin = {ATTNBENCH_PLUGIN_ABI_VERSION, "example_cuda", 1, variants};

extern "C" const attnbench_plugin *attnbench_plugin_variants(void) { return &plugin; }
