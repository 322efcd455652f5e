/*
 * gpu_inputs.cu: data.h's inputs on the device (gpu_inputs.h). cuRAND's
 * host API with a device generator (curandCreateGenerator,
 * CURAND_RNG_PSEUDO_PHILOX4_32_10) draws the raw 32-bit outputs into device
 * memory; a kernel turns each into its value in the dtype, with the host's
 * arithmetic (data.c ab_input_value: exact u / 2^31 - 1 in double, rounded
 * to float, then to the dtype, to nearest even).
 * Why the host API and not curand_init in our own kernel: it is the same
 * generator object as the host's curandCreateGeneratorHost (cuRAND: "all
 * other calls work identically whether you are generating random numbers
 * on the device or on the host"), so the host and device streams are one
 * library's contract rather than our reading of its layout; the GPU suite
 * (tests/gpu/gpu_inputs.c) compares them bit for bit.
 */
#include "gpu_inputs.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <curand.h>

#include <stdio.h>

namespace {

template <typename T> __device__ __forceinline__ T from_float(float x);
template <> __device__ __forceinline__ float from_float<float>(float x) { return x; }
template <> __device__ __forceinline__ __half from_float<__half>(float x)
{
    return __float2half_rn(x);
}
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x)
{
    return __float2bfloat16_rn(x);
}

/* x[i] = the value of raw output u[i] (data.h). For T = float, u and x may
 * be the same array (elementwise, same size). */
template <typename T> __global__ void to_values(const uint32_t *u, T *x, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const double d = __dmul_rn((double)u[i], 0x1p-31); /* exact */
        x[i] = from_float<T>(__double2float_rn(__dadd_rn(d, -1.0)));
    }
}

template <typename T> void launch(const uint32_t *u, void *x, size_t n, cudaStream_t st)
{
    const size_t blocks = (n + 255) / 256;
    to_values<T><<<(unsigned)(blocks < 8192 ? blocks : 8192), 256, 0, st>>>(u, (T *)x, n);
}

} /* namespace */

extern "C" int ab_gpu_fill_stream(unsigned long seed, uint64_t offset, size_t n, ab_dtype t,
                                  void *x, void *stream, char *err, size_t errn)
{
    if (n == 0)
        return 0;
    cudaStream_t st = (cudaStream_t)stream;
    curandGenerator_t g = NULL;
    uint32_t *tmp = NULL;
    const char *what = NULL;
    /* fp32: drawn into x itself and converted in place; fp16, bf16: through
     * chunks of a scratch array (4 bytes an output against 2 a value) */
    const size_t chunk = t == AB_FP32 ? n : (n < ((size_t)1 << 22) ? n : ((size_t)1 << 22));
    if (curandCreateGenerator(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10) != CURAND_STATUS_SUCCESS) {
        g = NULL;
        what = "curandCreateGenerator";
    } else if (curandSetStream(g, st) != CURAND_STATUS_SUCCESS ||
               curandSetPseudoRandomGeneratorSeed(g, (unsigned long long)seed) !=
                   CURAND_STATUS_SUCCESS) {
        what = "curandSetPseudoRandomGeneratorSeed";
    } else if (t != AB_FP32 && cudaMalloc(&tmp, chunk * sizeof *tmp) != cudaSuccess) {
        what = "cudaMalloc of the scratch array";
        tmp = NULL;
    }
    for (size_t done = 0; !what && done < n; done += chunk) {
        const size_t m = n - done < chunk ? n - done : chunk;
        uint32_t *u = t == AB_FP32 ? (uint32_t *)x + done : tmp;
        if (curandSetGeneratorOffset(g, (unsigned long long)(offset + done)) !=
                CURAND_STATUS_SUCCESS ||
            curandGenerate(g, u, m) != CURAND_STATUS_SUCCESS) {
            what = "curandGenerate";
            break;
        }
        switch (t) {
        case AB_FP16:
            launch<__half>(u, (__half *)x + done, m, st);
            break;
        case AB_BF16:
            launch<__nv_bfloat16>(u, (__nv_bfloat16 *)x + done, m, st);
            break;
        default:
            launch<float>(u, (float *)x + done, m, st);
            break;
        }
        if (cudaGetLastError() != cudaSuccess)
            what = "the conversion kernel";
    }
    /* the scratch chunk is reused: each conversion finishes before the next
     * generation (both on st, in order); wait before freeing it */
    if (!what && cudaStreamSynchronize(st) != cudaSuccess)
        what = "cudaStreamSynchronize";
    cudaFree(tmp);
    if (g)
        curandDestroyGenerator(g);
    if (what) {
        snprintf(err, errn, "device inputs: %s failed (%s)", what,
                 cudaGetErrorString(cudaGetLastError()));
        return -1;
    }
    return 0;
}
