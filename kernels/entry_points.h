/*
 * entry_points.h: setup/run/teardown of every variant file in kernels/,
 * declared from the one list kernels/variants.def so the registry table can
 * name them. Declared whether or not
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

/* every variant of variants.def */
#define AB_VARIANT(name, ...) AB_DECLARE_VARIANT(name)
#include "variants.def"
#undef AB_VARIANT

/* the backward passes of variants.def's AB_BWD lines */
#define AB_VARIANT(...)
#define AB_BWD(x, kind)                                                                 \
    int x##_run_bwd(void *ctx, const ab_shape *s, const void *q, const void *k,          \
                    const void *v, const void *o, const void *dout, const float *lse,    \
                    void *dq, void *dk, void *dv, void *stream);
#include "variants.def"
#undef AB_BWD
#undef AB_VARIANT

/* the plan builders of variants.def's AB_PREPARE lines */
#define AB_VARIANT(...)
#define AB_PREPARE(x, kind) int x##_prepare(const ab_shape *shapes, size_t n, int threads);
#include "variants.def"
#undef AB_PREPARE
#undef AB_VARIANT

#ifdef __cplusplus
}
#endif

#endif
