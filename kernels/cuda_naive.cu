/*
 * cuda_naive.cu: the `cuda_naive` variant, standard attention in three plain
 * CUDA kernels with the score matrix materialised in global memory.
 *
 * Idea: the textbook computation, obviously correct, no fusion:
 *   1. scores  Sc = Q K^T * scale, fp32, [B, H, S, S] in a workspace buffer
 *      (16x16 shared-memory tiles over (query, key), D streamed in chunks
 *      of 16; loads coalesced along D, stores along the key index; causal
 *      tiles entirely above the diagonal are skipped);
 *   2. softmax  P = softmax(Sc) row by row, in place (one block per row,
 *      three coalesced passes: max, sum of exp, write; causal keys j > i
 *      get P = 0) -- shared with cublas_standard (cuda_attn_util.cuh);
 *   3. output  O = P V (16x16 tiles over (query, d), keys streamed in chunks
 *      of 16, the key loop cut at the diagonal when causal), rounded to the
 *      dtype once at the end.
 * All arithmetic in fp32 (exp via exp2f with log2(e) folded in). The
 * workspace is 4*B*H*S^2 bytes: setup checks cudaMemGetInfo first and fails
 * with "needs X GiB for the score matrix, Y GiB free" rather than letting
 * cudaMalloc fail.
 * Source: "standard attention" (Algorithm 0 of Dao et al., FlashAttention,
 * NeurIPS 2022), the baseline every FlashAttention paper starts from.
 * Rung: the first CUDA rung, the correctness anchor for the others.
 * Measured (reports/seeds-and-ladders/attnbench.db, NVIDIA H200, 2026-11-21,
 * hot timing, medians; run 10 ladder-d128, report
 * reports/seeds-and-ladders/ladder-d128-run10.md: D = 128, B*S = 16384, H =
 * 16, S = 512..8192, causal or not, fp16/bf16; run 9 ladder-d64, report
 * reports/seeds-and-ladders/ladder-d64-run9.md: B = 32, H = 8, D = 64, S =
 * 128..2048, fp16): 5.4-5.9 TFLOP/s over run 10's 20 configurations (5.9 at
 * B=4 S=4096 fp16 non-causal), 4.6-5.6 over run 9's 5 shapes.
 *
 * Checked: gpu_check: 96 cases, 0 failed (H200, 2026-11-21). ptxas (sm_90a): 31-32
 *   registers, 2.1 KiB static shared memory per GEMM kernel, 20 registers
 *   for the softmax; no spills.
 *   Other head dims (gpu_check rebuilt with D in {3, 40, 80, 96, 256}, S in
 *   {1, 17, 97, 200, 1025}, all dtypes, causal and not): 150 cases, 0 failed
 *   (H200, 2026-11-21).
 */
#include "cuda_attn_util.cuh"
#include "entry_points.h"

#include <stdlib.h>

namespace {

enum { TS = 16 }; /* tile edge of the two matrix products */

struct naive_ctx {
    float *scores; /* [B*H, S, S] fp32: scores, then P in place */
    size_t bytes;
};

/* Sc[bh][i][j] = scale * sum_d Q[bh][i][d] K[bh][j][d]. grid (bh, j tiles,
 * i tiles), block 16x16: thread (tx, ty) computes (i0+ty, j0+tx). */
template <typename T>
__global__ void naive_scores_kernel(const T *Q, const T *K, float *Sc, int S, int D,
                                    float scale, int causal)
{
    __shared__ float qs[TS][TS + 1];
    __shared__ float ks[TS][TS + 1];
    const size_t bh = blockIdx.x;
    const int j0 = blockIdx.y * TS, i0 = blockIdx.z * TS;
    if (causal && j0 > i0 + TS - 1)
        return; /* every key of the tile is masked for every query */
    const int tx = threadIdx.x, ty = threadIdx.y;
    const T *q = Q + bh * (size_t)S * D, *k = K + bh * (size_t)S * D;
    float acc = 0.0f;
    for (int d0 = 0; d0 < D; d0 += TS) {
        const int d = d0 + tx;
        qs[ty][tx] = (i0 + ty < S && d < D) ? ab_to_f(q[(size_t)(i0 + ty) * D + d]) : 0.0f;
        ks[ty][tx] = (j0 + ty < S && d < D) ? ab_to_f(k[(size_t)(j0 + ty) * D + d]) : 0.0f;
        __syncthreads();
#pragma unroll
        for (int dd = 0; dd < TS; dd++)
            acc = fmaf(qs[ty][dd], ks[tx][dd], acc);
        __syncthreads();
    }
    const int i = i0 + ty, j = j0 + tx;
    if (i < S && j < S)
        Sc[(bh * S + i) * (size_t)S + j] = acc * scale;
}

/* O[bh][i][d] = sum_j P[bh][i][j] V[bh][j][d]. grid (bh, d tiles, i tiles),
 * block 16x16: thread (tx, ty) computes (i0+ty, d0+tx). */
template <typename T>
__global__ void naive_pv_kernel(const float *P, const T *V, T *O, int S, int D, int causal)
{
    __shared__ float ps[TS][TS + 1];
    __shared__ float vs[TS][TS + 1];
    const size_t bh = blockIdx.x;
    const int d0 = blockIdx.y * TS, i0 = blockIdx.z * TS;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const float *p = P + bh * (size_t)S * S;
    const T *v = V + bh * (size_t)S * D;
    const int jend = causal ? min(S, i0 + TS) : S; /* P is 0 beyond the diagonal */
    float acc = 0.0f;
    for (int j0 = 0; j0 < jend; j0 += TS) {
        ps[ty][tx] = (i0 + ty < S && j0 + tx < S) ? p[(size_t)(i0 + ty) * S + j0 + tx] : 0.0f;
        vs[ty][tx] = (j0 + ty < S && d0 + tx < D) ? ab_to_f(v[(size_t)(j0 + ty) * D + d0 + tx])
                                                   : 0.0f;
        __syncthreads();
#pragma unroll
        for (int jj = 0; jj < TS; jj++)
            acc = fmaf(ps[ty][jj], vs[jj][tx], acc);
        __syncthreads();
    }
    const int i = i0 + ty, d = d0 + tx;
    if (i < S && d < D)
        O[(bh * S + i) * (size_t)D + d] = ab_from_f<T>(acc);
}

template <typename T>
void naive_launch(naive_ctx *c, const ab_shape *s, const void *q, const void *k, const void *v,
                  void *o, cudaStream_t st)
{
    const int S = s->S, D = s->D;
    const unsigned bh = (unsigned)(s->B * s->H);
    const unsigned ts = (unsigned)((S + TS - 1) / TS);
    const float scale = 1.0f / sqrtf((float)D);
    naive_scores_kernel<T><<<dim3(bh, ts, ts), dim3(TS, TS), 0, st>>>(
        (const T *)q, (const T *)k, c->scores, S, D, scale, s->causal);
    ab_softmax_rows_kernel<float><<<(unsigned)(bh * (size_t)S), 256, 0, st>>>(
        c->scores, c->scores, S, s->causal);
    naive_pv_kernel<T><<<dim3(bh, (unsigned)((D + TS - 1) / TS), ts), dim3(TS, TS), 0, st>>>(
        c->scores, (const T *)v, (T *)o, S, D, s->causal);
}

} // namespace

/* setup: allocates the [B,H,S,S] fp32 score matrix (4*B*H*S^2 bytes, reported
 * through *ws) after checking that it fits in free device memory. */
extern "C" int cuda_naive_setup(const ab_shape *s, void **ctx, size_t *ws, char *err,
                                size_t errlen)
{
    *ctx = NULL;
    *ws = 0;
    const size_t ts = ((size_t)s->S + TS - 1) / TS;
    if (ts > 65535) {
        snprintf(err, errlen, "cuda_naive: S=%d too long for the grid (at most %d)", s->S,
                 65535 * TS);
        return -1;
    }
    const size_t bytes = (size_t)s->B * s->H * (size_t)s->S * s->S * sizeof(float);
    if (ab_cuda_check_free(bytes, "the score matrix", err, errlen))
        return -1;
    naive_ctx *c = (naive_ctx *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    cudaError_t e = cudaMalloc((void **)&c->scores, bytes);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "cudaMalloc of the %.2f GiB score matrix: %s",
                 bytes / 1073741824.0, cudaGetErrorString(e));
        free(c);
        return -1;
    }
    c->bytes = bytes;
    *ctx = c;
    *ws = bytes;
    return 0;
}

extern "C" int cuda_naive_run(void *ctx, const ab_shape *s, const void *q, const void *k,
                              const void *v, void *o, void *stream)
{
    naive_ctx *c = (naive_ctx *)ctx;
    AB_DISPATCH_DTYPE(s->dtype, T, naive_launch<T>(c, s, q, k, v, o, (cudaStream_t)stream));
    return 0;
}

extern "C" void cuda_naive_teardown(void *ctx)
{
    naive_ctx *c = (naive_ctx *)ctx;
    if (!c)
        return;
    cudaFree(c->scores);
    free(c);
}
