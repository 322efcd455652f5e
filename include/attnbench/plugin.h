/*
 * attnbench/plugin.h: the versioned C ABI of an attnbench plugin, a shared
 * library built out of tree that adds attention variants to an experiment
 * without editing attnbench. An experiment names one of its variants with
 *     variants = ( { name = "mine"; library = "./libmine.so"; } );
 * (a path with a '/' is taken from the working directory; a bare file
 * name is looked for there first, then by the dynamic loader's search).
 * attnbench dlopen()s the library, calls attnbench_plugin_variants() and
 * compares the table's abi_version with ATTNBENCH_PLUGIN_ABI_VERSION; the
 * variant is then set up, warmed up, checked against the float64 reference,
 * timed in the interleaved rounds and stored exactly like a built-in one.
 * This header is the whole contract; nothing else of attnbench needs to be
 * installed to build a plugin.
 *
 * The maths: O = softmax(Q K^T * scale [+ causal mask]) V, scale =
 *   1/sqrt(D), accumulated in at least float32. Causal: query row i sees
 *   keys j <= i (a plugin of ABI 1 always gets as many keys as queries, so
 *   top-left and bottom-right alignment agree).
 * Shapes (ABI 1): Q, K, V, O are all [B, H, S, D], contiguous, row-major
 *   (D fastest): element (b, h, s, d) at ((b*H + h)*S + s)*D + d. No
 *   grouped-query attention (K/V heads always H) and no separate key
 *   length (always S): configurations with H_kv < H or S_kv != S are not
 *   offered to a plugin (refused, or skipped under skip_unsupported).
 *   Every axis is in [1, ATTNBENCH_PLUGIN_MAX_AXIS]; B*H*S*D and the
 *   tensors' byte sizes fit in 64 bits (attnbench refuses larger shapes
 *   before any call). D is one of head_dims unless head_dims is {0}.
 * Dtypes: the dtypes mask (ATTNBENCH_DT(ATTNBENCH_FP16) ...); at least one.
 *   device == ATTNBENCH_DEV_CPU: q, k, v are host float arrays whose
 *     values are already rounded to the configuration's dtype; o a host
 *     float array (write all B*H*S*D elements; it is poisoned with NaN
 *     before the checked call, and ATTNBENCH_PLUGIN_GUARD_FLOATS floats
 *     after it hold a canary that must survive); stream is NULL.
 *   device == ATTNBENCH_DEV_CUDA: device pointers in the dtype's own
 *     representation (__half, __nv_bfloat16, float); stream is a
 *     cudaStream_t; run only enqueues work on it (never synchronises the
 *     device), as the timing brackets the stream.
 * Passes: the forward only (ABI 1 has no backward: `backward` must be NULL).
 * Calls: setup once per configuration (outside timing; may allocate;
 *   returns 0, ATTNBENCH_SETUP_UNSUPPORTED with the reason in err when this
 *   machine cannot run the shape: skipped under skip_unsupported, else an
 *   error; any other non-zero is an error), then run many times (warm-up,
 *   the checked call, every timed call; must be repeatable: no state that
 *   changes the output), then teardown. A CPU variant runs in a worker
 *   process of its own, every call under a deadline (the entry's `timeout`,
 *   default ATTNBENCH_PLUGIN_DEFAULT_TIMEOUT_S seconds per call); a crash,
 *   exit() or missed deadline is stored as that measurement's error. A
 *   CUDA variant runs inside attnbench's process.
 * Table: at most ATTNBENCH_PLUGIN_MAX_VARIANTS rows; names are
 *   NUL-terminated, shorter than ATTNBENCH_PLUGIN_NAME_MAX bytes and must
 *   not clash with built-in variants; head_dims holds at most
 *   ATTNBENCH_PLUGIN_MAX_HEAD_DIMS values, 0-terminated; idea is one line,
 *   cut at ATTNBENCH_PLUGIN_IDEA_MAX - 1 bytes.
 * Provenance: the library's real path, size and SHA-256 are stored with
 *   every measurement and shown by `attnbench show` and the reports.
 *
 * Build: `pkg-config --cflags attnbench-plugin` (installed by meson install).
 * Several variants per library.
 */
#ifndef ATTNBENCH_PLUGIN_H
#define ATTNBENCH_PLUGIN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any change of the structures or signatures below. */
#define ATTNBENCH_PLUGIN_ABI_VERSION 1

/* The contract's limits (attnbench checks them; tests/plugin asserts they
 * equal the values its own sources use). */
#define ATTNBENCH_PLUGIN_MAX_AXIS (1 << 24)       /* B, H, S, D each at most this */
#define ATTNBENCH_PLUGIN_MAX_VARIANTS 1024        /* rows of one table */
#define ATTNBENCH_PLUGIN_NAME_MAX 256             /* bytes of a name, NUL included */
#define ATTNBENCH_PLUGIN_MAX_HEAD_DIMS 7          /* values before head_dims' 0 */
#define ATTNBENCH_PLUGIN_IDEA_MAX 512             /* bytes of idea kept, NUL included */
#define ATTNBENCH_PLUGIN_GUARD_FLOATS 1024        /* canary floats after a CPU variant's O */
#define ATTNBENCH_PLUGIN_DEFAULT_TIMEOUT_S 60.0   /* a CPU variant's deadline per call */
/* setup's return value for "this machine cannot run this shape". */
#define ATTNBENCH_SETUP_UNSUPPORTED 2

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
