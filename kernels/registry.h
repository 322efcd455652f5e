/*
 * registry.h: lookup into the table of attention variants (kernels/registry.c).
 * The table is the one place a variant is declared: name, backend, dtypes,
 * head dimensions, idea, entry points and FLOP count.
 */
#ifndef ATTNBENCH_REGISTRY_H
#define ATTNBENCH_REGISTRY_H

#include "variant.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of rows in the registry (built and unavailable alike). */
size_t ab_variant_count(void);
/* Row i, 0 <= i < ab_variant_count(). */
const ab_variant *ab_variant_at(size_t i);
/* The row named `name`, or NULL. Also finds the rows of
 * ab_test_variants, when the program defines it. */
const ab_variant *ab_variant_find(const char *name);

/* Deliberately wrong variants (the checker's negative tests): defined only by
 * test programs (tests/check/broken_cpu.c, tests/gpu/broken_cuda.cu), never
 * in attnbench itself, so no user can list or run them; ab_variant_count
 * and ab_variant_at never include them. Returns the rows and their count. */
const ab_variant *ab_test_variants(size_t *n) __attribute__((weak));

/* Whether variant v can run shape s in this build. Returns 0 when it can;
 * otherwise -1 with a one-line reason in why ("cuda_naive: D=96 not
 * supported (supported: 64, 128)"). Checks availability, dtype, D and,
 * for H_kv != H or S_kv != S, the AB_CAP_KV capability. */
int ab_variant_supports(const ab_variant *v, const ab_shape *s, char *why, size_t n);

/* The row's AB_CAP_* flags (its own and its AB_CAPS line in variants.def). */
unsigned ab_variant_caps(const ab_variant *v);

/* The backward entry point of v (its run_bwd, else its AB_BWD line in
 * variants.def), or NULL when v has none or it is not built. */
ab_bwd_fn ab_variant_bwd(const ab_variant *v);

/* The plan builder of v (its AB_PREPARE line in variants.def), or NULL
 * when v has none or it is not built. */
ab_prepare_fn ab_variant_prepare(const ab_variant *v);

/* Writes the supported dtypes ("fp16,bf16") or head dims ("64,128" or
 * "any") of v into buf; returns buf. */
const char *ab_variant_dtypes_str(const ab_variant *v, char *buf, size_t n);
const char *ab_variant_dims_str(const ab_variant *v, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
