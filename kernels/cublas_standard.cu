/*
 * cublas_standard.cu: the `cublas_standard` variant, "standard attention"
 * with both matrix products in cuBLAS: the library baseline that a fused
 * kernel has to beat.
 *
 * Idea: three launches, score and probability matrices materialised:
 *   1. Sc = scale * Q K^T by cublasGemmStridedBatchedEx, one GEMM per (b, h)
 *      slice (batch B*H), inputs in the dtype, CUBLAS_COMPUTE_32F, output
 *      scores in fp32 ([B,H,S,S], more accurate than PyTorch's scores in the
 *      dtype; the choice is deliberate and keeps the softmax input exact to
 *      fp32);
 *   2. the row softmax kernel shared with cuda_naive (cuda_attn_util.cuh):
 *      P = softmax(Sc) with keys j > i zeroed when causal, written in the
 *      dtype (fp16/bf16: a second [B,H,S,S] buffer; fp32: in place);
 *   3. O = P V by cublasGemmStridedBatchedEx, P and V in the dtype,
 *      CUBLAS_COMPUTE_32F, O written in the dtype.
 * Layouts: cuBLAS is column-major and Q, K, V, O are row-major [S, D] per
 * slice (batch stride S*D), i.e. column-major [D, S] with ld = D. So step 1
 * computes Sc^T (column-major, = Sc row-major) = K Q^T as
 * gemm(T, N, m=S, n=S, k=D, A=K lda=D, B=Q ldb=D, C ldc=S), and step 3
 * computes O^T = V^T P^T as gemm(N, N, m=D, n=S, k=S, A=V lda=D, B=P ldb=S,
 * C=O ldc=D).
 * fp16/bf16 run on the tensor cores. fp32: TF32 is disabled explicitly
 * (math mode CUBLAS_DEFAULT_MATH, compute type CUBLAS_COMPUTE_32F, never
 * CUBLAS_COMPUTE_32F_FAST_TF32 or CUBLAS_TF32_TENSOR_OP_MATH), so fp32 is
 * full-precision SIMT SGEMM. The causal mask is applied by the softmax
 * only: both GEMMs compute the full S x S (as standard attention does).
 * The handle and a 32 MiB cuBLAS workspace are created in setup
 * (cublasSetWorkspace, so the calls never allocate and can be captured in a
 * CUDA graph); `run` binds the handle to the harness's stream each call
 * (cublasSetStream resets the workspace, so it is set again after).
 * Workspace reported: scores 4*B*H*S^2 (+ 2*B*H*S^2 for P in fp16/bf16)
 * + 32 MiB; setup checks cudaMemGetInfo first.
 * Source: Algorithm 0 ("standard attention") of Dao et al., FlashAttention,
 * NeurIPS 2022; the cuBLAS documentation of cublasGemmStridedBatchedEx.
 * Rung: the library form of cuda_naive; the reference point for the fused
 * SIMT variants and for the tensor-core rungs.
 * Measured (reports/seeds-and-ladders/attnbench.db, NVIDIA H200, 2026-11-21,
 * hot timing, medians; run 10 ladder-d128, report
 * reports/seeds-and-ladders/ladder-d128-run10.md: D = 128, B*S = 16384, H =
 * 16, S = 512..8192, causal or not, fp16/bf16; run 9 ladder-d64, report
 * reports/seeds-and-ladders/ladder-d64-run9.md: B = 32, H = 8, D = 64, S =
 * 128..2048, fp16): 42.4-104.6 TFLOP/s over run 10's 20 configurations (104.5
 * at B=4 S=4096 fp16 non-causal), 17.1-53.7 over run 9's 5 shapes; 12.93x
 * cuda_naive (geometric mean of the ratios of medians over run 10,
 * 7.87-17.71x).
 *
 * Checked: gpu_check: 96 cases, 0 failed (H200, 2026-11-21); fp32 max error ~1e-7
 *   (no TF32). The softmax kernel: 20 registers, no spills.
 *   Other head dims (gpu_check rebuilt with D in {3, 40, 80, 96, 256}, S in
 *   {1, 17, 97, 200, 1025}, all dtypes, causal and not): 150 cases, 0 failed
 *   (H200, 2026-11-21).
 */
#include "cuda_attn_util.cuh"
#include "entry_points.h"

#include <cublas_v2.h>
#include <stdlib.h>

namespace {

const size_t CUBLAS_WS_BYTES = 32u << 20;

struct cublas_ctx {
    cublasHandle_t handle;
    float *scores;  /* [B*H, S, S] fp32 */
    void *probs;    /* [B*H, S, S] in the dtype (== scores for fp32) */
    void *cublas_ws;
};

cudaDataType cuda_type(ab_dtype t)
{
    return t == AB_FP16 ? CUDA_R_16F : t == AB_BF16 ? CUDA_R_16BF : CUDA_R_32F;
}

void cublas_free(cublas_ctx *c)
{
    if (!c)
        return;
    if (c->handle)
        cublasDestroy(c->handle);
    if (c->probs && c->probs != (void *)c->scores)
        cudaFree(c->probs);
    cudaFree(c->scores);
    cudaFree(c->cublas_ws);
    free(c);
}

} // namespace

/* setup: cuBLAS handle (default math mode: no TF32), its workspace, the
 * fp32 score matrix and (fp16/bf16) the probability matrix in the dtype.
 * Fails with "needs X GiB for the score and probability matrices ..." when
 * they do not fit. */
extern "C" int cublas_standard_setup(const ab_shape *s, void **ctx, size_t *ws, char *err,
                                     size_t errlen)
{
    *ctx = NULL;
    *ws = 0;
    const size_t mat = (size_t)s->B * s->H * (size_t)s->S * s->S;
    const size_t sc_bytes = mat * sizeof(float);
    const size_t p_bytes = s->dtype == AB_FP32 ? 0 : mat * ab_dtype_size(s->dtype);
    const size_t need = sc_bytes + p_bytes + CUBLAS_WS_BYTES;
    if (ab_cuda_check_free(need, "the score and probability matrices and the cuBLAS workspace",
                           err, errlen))
        return -1;
    cublas_ctx *c = (cublas_ctx *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    cudaError_t e = cudaMalloc((void **)&c->scores, sc_bytes);
    if (e == cudaSuccess)
        e = p_bytes ? cudaMalloc(&c->probs, p_bytes) : (c->probs = c->scores, cudaSuccess);
    if (e == cudaSuccess)
        e = cudaMalloc(&c->cublas_ws, CUBLAS_WS_BYTES);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "cublas_standard: cudaMalloc (%.2f GiB): %s", need / 1073741824.0,
                 cudaGetErrorString(e));
        cublas_free(c);
        return -1;
    }
    cublasStatus_t st = cublasCreate(&c->handle);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasSetMathMode(c->handle, CUBLAS_DEFAULT_MATH); /* no TF32 */
    if (st != CUBLAS_STATUS_SUCCESS) {
        snprintf(err, errlen, "cublas_standard: cublasCreate/SetMathMode: %s",
                 cublasGetStatusString(st));
        cublas_free(c);
        return -1;
    }
    *ctx = c;
    *ws = need;
    return 0;
}

/* run: GEMM, softmax, GEMM on `stream`. Returns 0 or the cublasStatus_t of
 * the first cuBLAS call that failed. */
extern "C" int cublas_standard_run(void *ctx, const ab_shape *s, const void *q, const void *k,
                                   const void *v, void *o, void *stream)
{
    cublas_ctx *c = (cublas_ctx *)ctx;
    cudaStream_t strm = (cudaStream_t)stream;
    const int S = s->S, D = s->D, batch = s->B * s->H;
    const long long sd = (long long)S * D, ss = (long long)S * S;
    const cudaDataType t = cuda_type(s->dtype);
    const float scale = 1.0f / sqrtf((float)D), one = 1.0f, zero = 0.0f;
    cublasStatus_t st = cublasSetStream(c->handle, strm);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasSetWorkspace(c->handle, c->cublas_ws, CUBLAS_WS_BYTES);
    if (st != CUBLAS_STATUS_SUCCESS)
        return (int)st;

    /* Sc^T (col-major S x S) = K (S x D) * Q^T (D x S), scaled */
    st = cublasGemmStridedBatchedEx(c->handle, CUBLAS_OP_T, CUBLAS_OP_N, S, S, D, &scale, k, t,
                                    D, sd, q, t, D, sd, &zero, c->scores, CUDA_R_32F, S, ss,
                                    batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS)
        return (int)st;

    AB_DISPATCH_DTYPE(s->dtype, T,
                      ab_softmax_rows_kernel<T><<<(unsigned)((size_t)batch * S), 256, 0, strm>>>(
                          c->scores, (T *)c->probs, S, s->causal));

    /* O^T (col-major D x S) = V^T (D x S) * P^T (S x S) */
    st = cublasGemmStridedBatchedEx(c->handle, CUBLAS_OP_N, CUBLAS_OP_N, D, S, S, &one, v, t, D,
                                    sd, c->probs, t, S, ss, &zero, o, t, D, sd, batch,
                                    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    return (int)st;
}

extern "C" void cublas_standard_teardown(void *ctx) { cublas_free((cublas_ctx *)ctx); }
