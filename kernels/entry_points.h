/*
 * entry_points.h: setup/run/teardown of every variant file in kernels/,
 * declared once so the registry table can name them. Declared whether or not
 * the file is built; registry.c only takes the address of those that are.
 */
#ifndef ATTNBENCH_ENTRY_POINTS_H
#define ATTNBENCH_ENTRY_POINTS_H

#include "variant.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AB_DECLARE_VARIANT(x)                                                         \
    int x##_setup(const ab_shape *s, void **ctx, size_t *ws, char *err, size_t n);  \
    int x##_run(void *ctx, const ab_shape *s, const void *q, const void *k,          \
                const void *v, void *o, void *stream);                               \
    void x##_teardown(void *ctx);

AB_DECLARE_VARIANT(cpu_reference)
AB_DECLARE_VARIANT(cpu_flash)
AB_DECLARE_VARIANT(cuda_naive)
AB_DECLARE_VARIANT(cuda_fa1_rowwise)
AB_DECLARE_VARIANT(cublas_standard)
AB_DECLARE_VARIANT(cuda_fa2_warps)
AB_DECLARE_VARIANT(cuda_split_kv)
AB_DECLARE_VARIANT(cuda_mma)
AB_DECLARE_VARIANT(cuda_mma_swizzle)
AB_DECLARE_VARIANT(cuda_mma_pipeline)
AB_DECLARE_VARIANT(cuda_wgmma)
AB_DECLARE_VARIANT(cuda_wgmma_tma)
AB_DECLARE_VARIANT(cuda_wgmma_ws)
AB_DECLARE_VARIANT(cuda_wgmma_pingpong)
AB_DECLARE_VARIANT(cuda_wgmma_persistent)
AB_DECLARE_VARIANT(cudnn_sdpa)
AB_DECLARE_VARIANT(cuda_mma_pipeline_slowed)

#ifdef __cplusplus
}
#endif

#endif
