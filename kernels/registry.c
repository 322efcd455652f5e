/*
 * registry.c: the table of attention variants. Adding a variant means adding
 * its file to kernels/ (and kernels/meson.build) and one row here; the CLI,
 * the experiment validator and the runner learn about it from this table.
 *
 * Rows for CUDA, cuBLAS and cuDNN variants stay in the table when those are
 * not built, with `unavailable` saying why, so `attnbench variants` and the
 * experiment validator can explain the absence instead of "unknown variant".
 */
#include "registry.h"
#include "entry_points.h"

#include <stdio.h>
#include <string.h>

#ifdef AB_HAVE_CUDA
#define CUDA_FN(f) f
#define NO_CUDA NULL
#else
#define CUDA_FN(f) NULL
#define NO_CUDA "not built: CUDA disabled or nvcc not found at configure time"
#endif

#ifdef AB_HAVE_CUDNN
#define CUDNN_FN(f) f
#define NO_CUDNN NULL
#else
#define CUDNN_FN(f) NULL
#define NO_CUDNN                                                                         \
    "not built: no cuDNN at configure time (cudnn.h in the CUDA or system include path and " \
    "libcudnn in /usr/local/cuda/lib64 or the system library dir), -Dcudnn=disabled, or "  \
    "CUDA off; install cuDNN 9 and reconfigure"
#endif

/* The Hopper rungs: built only when gpu_targets includes 90a (wgmma and
 * setmaxnreg are sm_90a instructions). */
#if defined(AB_HAVE_CUDA) && defined(AB_HAVE_SM90A)
#define SM90A_FN(f) f
#define NO_SM90A NULL
#else
#define SM90A_FN(f) NULL
#define NO_SM90A                                                                          \
    "not built: needs CUDA and the sm_90a target (wgmma, TMA, setmaxnreg; Hopper only); "  \
    "reconfigure with -Dgpu_targets=...,90a"
#endif

#define ROW_CPU(x) x##_setup, x##_run, x##_teardown, ab_attention_flops, NULL
#define ROW_CUDA(x) CUDA_FN(x##_setup), CUDA_FN(x##_run), CUDA_FN(x##_teardown), ab_attention_flops, NO_CUDA
#define ROW_SM90A(x) SM90A_FN(x##_setup), SM90A_FN(x##_run), SM90A_FN(x##_teardown), ab_attention_flops, NO_SM90A
#define ROW_CUDNN(x) CUDNN_FN(x##_setup), CUDNN_FN(x##_run), CUDNN_FN(x##_teardown), ab_attention_flops, NO_CUDNN

static const ab_variant registry[] = {
    /* name, backend, device, dtypes, head dims, idea, entry points... */
    {"cpu_reference", "cpu", AB_DEV_CPU, AB_DT_ALL, {0},
     "exact attention in float64 on the CPU; the correctness oracle", ROW_CPU(cpu_reference)},
    {"cpu_flash", "cpu", AB_DEV_CPU, AB_DT(AB_FP32), {0},
     "FlashAttention's tiled online softmax in float on the CPU", ROW_CPU(cpu_flash)},
    {"cuda_naive", "cuda", AB_DEV_CUDA, AB_DT_ALL, {0},
     "standard attention in 3 plain kernels; fp32 score matrix in global memory",
     ROW_CUDA(cuda_naive)},
    {"cuda_fa1_rowwise", "cuda", AB_DEV_CUDA, AB_DT_ALL, {64, 128},
     "FlashAttention-1 loop, one thread per query row, K/V tiles in smem (the seeds' kernel)",
     ROW_CUDA(cuda_fa1_rowwise)},
    {"cublas_standard", "cublas", AB_DEV_CUDA, AB_DT_ALL, {0},
     "standard attention: cuBLAS strided-batched GEMMs (fp32 scores, no TF32) + softmax kernel",
     ROW_CUDA(cublas_standard)},
    {"cuda_fa2_warps", "cuda", AB_DEV_CUDA, AB_DT_ALL, {64, 128},
     "FlashAttention-2 partition on CUDA cores: 4 warps x 16 query rows, lanes split keys/D",
     ROW_CUDA(cuda_fa2_warps)},
    {"cuda_split_kv", "cuda", AB_DEV_CUDA, AB_DT_ALL, {64, 128},
     "cuda_fa2_warps + key range split across blocks (flash-decoding) and an exact combine",
     ROW_CUDA(cuda_split_kv)},
    {"cuda_mma", "cuda", AB_DEV_CUDA, AB_DT_HALF, {64, 128},
     "FlashAttention-2 on mma.sync m16n8k16 + ldmatrix, softmax on the accumulators, P in registers; plain smem (bank conflicts)",
     ROW_CUDA(cuda_mma)},
    {"cuda_mma_swizzle", "cuda", AB_DEV_CUDA, AB_DT_HALF, {64, 128},
     "cuda_mma with XOR-swizzled shared memory (Swizzle<3,3,3>): conflict-free ldmatrix",
     ROW_CUDA(cuda_mma_swizzle)},
    {"cuda_mma_pipeline", "cuda", AB_DEV_CUDA, AB_DT_HALF, {64, 128},
     "cuda_mma_swizzle + cp.async multi-stage K/V prefetch, exp2 folding, Q in registers, tuned tiles per (D, causal)",
     ROW_CUDA(cuda_mma_pipeline)},
    {"cuda_wgmma", "cuda", AB_DEV_CUDA, AB_DT_HALF, {64, 128},
     "FlashAttention on Hopper wgmma m64nNk16 (smem descriptors, P from registers), 2 warpgroups, cp.async 2-stage",
     ROW_SM90A(cuda_wgmma)},
    {"cuda_wgmma_tma", "cuda", AB_DEV_CUDA, AB_DT_HALF, {64, 128},
     "cuda_wgmma with Q/K/V by TMA (cp.async.bulk.tensor, 128B swizzle) on mbarriers, multi-stage",
     ROW_SM90A(cuda_wgmma_tma)},
    {"cuda_wgmma_ws", "cuda", AB_DEV_CUDA, AB_DT_HALF, {64, 128},
     "cuda_wgmma_tma + warp specialisation: TMA producer warpgroup, 2 consumers, full/empty mbarriers, setmaxnreg",
     ROW_SM90A(cuda_wgmma_ws)},
    {"cuda_wgmma_pingpong", "cuda", AB_DEV_CUDA, AB_DT_HALF, {64, 128},
     "cuda_wgmma_ws + FlashAttention-3's overlaps: softmax of tile j during P V of tile j-1, two consumers ping-pong",
     ROW_SM90A(cuda_wgmma_pingpong)},
    {"cuda_wgmma_persistent", "cuda", AB_DEV_CUDA, AB_DT_HALF, {64, 128},
     "cuda_wgmma_pingpong on a persistent grid (producer prefetches the next tile); D=64: 3 consumers x 64 rows",
     ROW_SM90A(cuda_wgmma_persistent)},
    {"cudnn_sdpa", "cudnn", AB_DEV_CUDA, AB_DT_HALF, {0},
     "cuDNN 9 fused flash attention (SDPA fprop graph, C backend API); the vendor ceiling",
     ROW_CUDNN(cudnn_sdpa)},
    /* @@CUDA_ROWS@@ (kept sorted by ladder rung; see README "Adding a variant") */
    {"cuda_mma_pipeline_slowed", "cuda", AB_DEV_CUDA, AB_DT_HALF, {64, 128},
     "test instrument, not a rung: cuda_mma_pipeline plus an extra launch sized to add ~2.5% at compute-bound shapes (power study)",
     ROW_CUDA(cuda_mma_pipeline_slowed)},
};

size_t ab_variant_count(void) { return sizeof registry / sizeof registry[0]; }

const ab_variant *ab_variant_at(size_t i)
{
    return i < ab_variant_count() ? &registry[i] : NULL;
}

const ab_variant *ab_variant_find(const char *name)
{
    for (size_t i = 0; i < ab_variant_count(); i++)
        if (strcmp(registry[i].name, name) == 0)
            return &registry[i];
    /* deliberately wrong variants of a test program (registry.h) */
    size_t nt = 0;
    const ab_variant *t = ab_test_variants ? ab_test_variants(&nt) : NULL;
    for (size_t i = 0; t && i < nt; i++)
        if (strcmp(t[i].name, name) == 0)
            return &t[i];
    return NULL;
}

const char *ab_variant_dtypes_str(const ab_variant *v, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int t = 0; t < AB_NDTYPES; t++)
        if (v->dtypes & AB_DT(t))
            len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s",
                                    len ? "," : "", ab_dtype_name((ab_dtype)t));
    return buf;
}

const char *ab_variant_dims_str(const ab_variant *v, char *buf, size_t n)
{
    size_t len = 0;
    if (v->head_dims[0] == 0) {
        snprintf(buf, n, "any");
        return buf;
    }
    buf[0] = '\0';
    for (int i = 0; i < 8 && v->head_dims[i]; i++)
        len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%d", len ? "," : "",
                                v->head_dims[i]);
    return buf;
}

int ab_variant_supports(const ab_variant *v, const ab_shape *s, char *why, size_t n)
{
    char list[64];
    if (v->unavailable) {
        snprintf(why, n, "%s: %s", v->name, v->unavailable);
        return -1;
    }
    if (!(v->dtypes & AB_DT(s->dtype))) {
        snprintf(why, n, "%s: dtype %s not supported (supported: %s)", v->name,
                 ab_dtype_name(s->dtype), ab_variant_dtypes_str(v, list, sizeof list));
        return -1;
    }
    if (v->head_dims[0] != 0) {
        int ok = 0;
        for (int i = 0; i < 8 && v->head_dims[i]; i++)
            ok |= v->head_dims[i] == s->D;
        if (!ok) {
            snprintf(why, n, "%s: D=%d not supported (supported: %s)", v->name, s->D,
                     ab_variant_dims_str(v, list, sizeof list));
            return -1;
        }
    }
    return 0;
}
