/*
 * attnbench/plugin.h: the versioned C ABI of an attnbench plugin, a shared
 * library built out of tree that adds attention variants to an experiment
 * without editing attnbench. An experiment names one of its variants with
 *     variants = ( { name = "mine"; library = "path/libmine.so"; } );
 * attnbench dlopen()s the library, calls attnbench_plugin_variants() and
 * compares the table's abi_version with ATTNBENCH_PLUGIN_ABI_VERSION; the
 * variant is then set up, warmed up, checked against the float64 reference,
 * timed in the interleaved rounds and stored exactly like a built-in one
 * (the contract is the built-in one of src/core/variant.h):
 *
 *   O = softmax(Q K^T * scale [+ causal mask]) V,  scale = 1/sqrt(D),
 *   Q, K, V, O laid out [B, H, S, D] contiguous (row-major, D fastest);
 *   causal masks key j > query i.
 *   device == ATTNBENCH_DEV_CPU: host float arrays (values already rounded
 *     to the configuration's dtype); O a host float array; stream NULL.
 *   device == ATTNBENCH_DEV_CUDA: device pointers in the dtype's own
 *     representation (__half, __nv_bfloat16, float); `stream` is a
 *     cudaStream_t; run only enqueues work on it.
 *
 * Build: `pkg-config --cflags attnbench-plugin` (installed by meson install).
 * Several variants per library; names must not clash with built-in ones.
 */
#ifndef ATTNBENCH_PLUGIN_H
#define ATTNBENCH_PLUGIN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any change of the structures or signatures below. */
#define ATTNBENCH_PLUGIN_ABI_VERSION 1

/* Element types (same values as attnbench's ab_dtype). */
enum { ATTNBENCH_FP16 = 0, ATTNBENCH_BF16 = 1, ATTNBENCH_FP32 = 2 };
#define ATTNBENCH_DT(t) (1u << (t))
enum { ATTNBENCH_DEV_CPU = 0, ATTNBENCH_DEV_CUDA = 1 };

/* One configuration: batch B, heads H, sequence length S, head dim D,
 * causal flag, dtype (ATTNBENCH_FP16...). Layout-identical to ab_shape. */
typedef struct attnbench_shape {
    int B, H, S, D;
    int causal;
    int dtype;
} attnbench_shape;

/* setup: before timing; private state in *ctx; bytes of device memory it
 * allocated in *workspace_bytes. 0, or non-zero with one line in err. */
typedef int (*attnbench_setup_fn)(const attnbench_shape *s, void **ctx,
                                  size_t *workspace_bytes, char *err, size_t errlen);
/* run: one forward pass. 0, or non-zero (the measurement is stored as an error). */
typedef int (*attnbench_run_fn)(void *ctx, const attnbench_shape *s, const void *q,
                                const void *k, const void *v, void *o, void *stream);
/* teardown: frees what setup allocated; ctx may be NULL. */
typedef void (*attnbench_teardown_fn)(void *ctx);

/* One variant. head_dims: supported D, 0-terminated; {0} means any D. */
typedef struct attnbench_plugin_variant {
    const char *name;
    int device;            /* ATTNBENCH_DEV_CPU or ATTNBENCH_DEV_CUDA */
    unsigned dtypes;       /* mask of ATTNBENCH_DT(t) */
    int head_dims[8];
    const char *idea;      /* one line */
    attnbench_setup_fn setup;
    attnbench_run_fn run;
    attnbench_teardown_fn teardown;
    void *backward;        /* reserved for the backward pass; must be NULL in ABI 1 */
    void *reserved[4];     /* must be NULL */
} attnbench_plugin_variant;

/* The table a plugin exports. */
typedef struct attnbench_plugin {
    int abi_version;       /* ATTNBENCH_PLUGIN_ABI_VERSION */
    const char *library_name;
    size_t nvariants;
    const attnbench_plugin_variant *variants;
} attnbench_plugin;

/* The one symbol attnbench looks up (dlsym): returns the plugin's table,
 * valid until the library is unloaded. */
#define ATTNBENCH_PLUGIN_SYMBOL "attnbench_plugin_variants"
const attnbench_plugin *attnbench_plugin_variants(void);

#ifdef __cplusplus
}
#endif

#endif /* ATTNBENCH_PLUGIN_H */
