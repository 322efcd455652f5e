/*
 * variant.h: the contract between the attnbench harness and one attention
 * variant (a kernel, a library call or a CPU implementation).
 *
 * Every variant computes the forward pass of scaled dot-product attention
 *     O = softmax(Q K^T * scale [+ causal mask]) V,   scale = 1/sqrt(D)
 * for Q, K, V, O laid out [B, H, S, D] contiguous (row-major, D fastest).
 * Causal masks key j > query i (FlashAttention's convention for equal
 * query and key lengths).
 *
 * Data the harness hands to `run`:
 *   - CPU variants (device == AB_DEV_CPU): host `float *` arrays whose values
 *     are exactly representable in the configuration's dtype (the harness
 *     rounds the random inputs to the dtype once, so every variant and the
 *     float64 reference see the same numbers). O is a host `float *`.
 *   - CUDA variants (device == AB_DEV_CUDA): device pointers holding the
 *     dtype's own representation (__half, __nv_bfloat16 or float), O in the
 *     same dtype; `stream` is a cudaStream_t. `run` only enqueues work; the
 *     harness times it with CUDA events on that stream and checks
 *     cudaGetLastError() after each call.
 *
 * A new variant is one file in kernels/ exporting setup/run/teardown and one
 * row in the table of kernels/registry.c; nothing else changes.
 */
#ifndef ATTNBENCH_VARIANT_H
#define ATTNBENCH_VARIANT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types of Q, K, V and O. Accumulation is always at least fp32. */
typedef enum ab_dtype { AB_FP16 = 0, AB_BF16 = 1, AB_FP32 = 2 } ab_dtype;
#define AB_NDTYPES 3
#define AB_DT(t) (1u << (t))
#define AB_DT_HALF (AB_DT(AB_FP16) | AB_DT(AB_BF16))
#define AB_DT_ALL (AB_DT(AB_FP16) | AB_DT(AB_BF16) | AB_DT(AB_FP32))

/* One configuration of the sweep: batch B, heads H, sequence length S (of
 * queries and keys alike), head dimension D, causal flag, dtype. */
typedef struct ab_shape {
    int B, H, S, D;
    int causal;
    ab_dtype dtype;
} ab_shape;

typedef enum ab_device { AB_DEV_CPU = 0, AB_DEV_CUDA = 1 } ab_device;

/* setup: everything a variant must do before timing (plans, workspace,
 * kernel attributes), outside the timed region. Stores private state in
 * *ctx (may be NULL). Returns 0, or non-zero with a one-line reason in err.
 * For CUDA variants it may allocate device memory; it reports the bytes it
 * allocated through *workspace_bytes (peak-memory accounting). */
typedef int (*ab_setup_fn)(const ab_shape *s, void **ctx, size_t *workspace_bytes,
                           char *err, size_t errlen);
/* run: one forward pass. Returns 0 or non-zero (library status codes). */
typedef int (*ab_run_fn)(void *ctx, const ab_shape *s, const void *q, const void *k,
                         const void *v, void *o, void *stream);
/* teardown: frees what setup allocated; ctx may be NULL. */
typedef void (*ab_teardown_fn)(void *ctx);
/* FLOPs of one forward pass of shape s (see ab_attention_flops). */
typedef double (*ab_flops_fn)(const ab_shape *s);

/* One registry row. head_dims: supported D values, 0-terminated; an empty
 * list ({0}) means any D >= 1. `unavailable`, when non-NULL, says why the
 * variant is not in this build (setup/run are then NULL). */
typedef struct ab_variant {
    const char *name;
    const char *backend;   /* "cpu", "cuda", "cublas", "cudnn" */
    ab_device device;
    unsigned dtypes;       /* mask of AB_DT(t) */
    int head_dims[8];
    const char *idea;      /* one line for `attnbench variants` */
    ab_setup_fn setup;
    ab_run_fn run;
    ab_teardown_fn teardown;
    ab_flops_fn flops;
    const char *unavailable;
} ab_variant;

/* FLOPs of attention forward, FlashAttention's convention (Dao et al. 2022,
 * benchmark scripts): 4*B*H*S^2*D (two GEMMs of 2*S*S*D each per head),
 * halved for causal. Softmax FLOPs are not counted. */
double ab_attention_flops(const ab_shape *s);

/* Bytes of the ideal traffic: Q, K, V read once and O written once,
 * 4 * B*H*S*D * sizeof(dtype). */
double ab_attention_bytes(const ab_shape *s);

/* Size in bytes of one element of dtype t. */
size_t ab_dtype_size(ab_dtype t);
/* "fp16", "bf16", "fp32"; NULL for an invalid value. */
const char *ab_dtype_name(ab_dtype t);
/* Parses a dtype name; returns 0 and sets *t, or -1 when unknown. */
int ab_dtype_parse(const char *name, ab_dtype *t);

/* Input sets the GPU harness rotates among in hot and graph modes so that
 * back-to-back launches read Q, K, V from memory rather than L2: enough
 * copies of Q, K, V, O to cover twice the L2 size, at most 256 (1 when one
 * set already exceeds it; tiny shapes stay in L2 whatever is done). */
int ab_l2_rotation_sets(const ab_shape *s, long long l2_bytes);

/* Number of elements of one of Q, K, V, O: B*H*S*D. Only for shapes that
 * ab_shape_check accepted (the product is not checked here). */
size_t ab_shape_numel(const ab_shape *s);

/* Every size attnbench derives from a shape, computed with checked
 * arithmetic (no wrap-around): elements of one tensor, bytes of one tensor
 * in its dtype and as the host's float copy, the four host tensors Q, K, V,
 * O together, and FLOPs (finite). */
typedef struct ab_shape_sizes {
    size_t numel;        /* B*H*S*D */
    size_t tensor_bytes; /* numel * sizeof(dtype) */
    size_t host_bytes;   /* 4 * numel * sizeof(float): Q, K, V, O on the host */
    size_t device_bytes; /* 4 * tensor_bytes: Q, K, V, O on the device */
    double flops;
} ab_shape_sizes;

/* Checks that every axis is in [1, 2^24] and that every size above fits in
 * size_t (and below 2^62, so sums of a few of them do not wrap either).
 * Returns 0 and fills *out (may be NULL), or -1 with a one-line message in
 * err naming the fields, e.g. "B*H*S*D = 16777216*16777216*65536*1
 * overflows 64-bit sizes". */
int ab_shape_check(const ab_shape *s, ab_shape_sizes *out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* ATTNBENCH_VARIANT_H */
