/*
 * variant.h: the contract between the attnbench harness and one attention
 * variant (a kernel, a library call or a CPU implementation).
 *
 * Every variant computes the forward pass of scaled dot-product attention
 *     O = softmax(Q K^T * scale [+ causal mask]) V,   scale = 1/sqrt(D)
 * for Q, O laid out [B, H, S, D] and K, V laid out [B, H_kv, S_kv, D]
 * contiguous (row-major, D fastest); query head h attends with K/V head
 * h / (H / H_kv) (grouped-query attention; H_kv = 1 is multi-query). Causal
 * masks key j > query i + (S_kv - S): the mask is aligned to the
 * bottom-right corner of the S x S_kv score matrix (FlashAttention 2.1 and
 * later, PyTorch's causal_lower_right); for S = S_kv it is the usual j > i.
 * A query row that sees no key (causal with S > S_kv) has O = 0, as in
 * FlashAttention.
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
 * line in kernels/variants.def; nothing else changes.
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
/* Longest variant name, in bytes: what the readers of a run keep of it
 * (db/rundata.h, db/read.h: char variant[64]); a longer name would be cut
 * there and two names sharing their first 63 bytes would merge. */
#define AB_VARIANT_NAME_MAX 63
/* Longest latency a sample may hold, in ms (a day): what run accepts from
 * an adapter, import from a file and every reader from a database; 1e300 ms
 * is finite but no latency. */
#define AB_SAMPLE_MAX_MS 86400e3
#define AB_DT(t) (1u << (t))
#define AB_DT_HALF (AB_DT(AB_FP16) | AB_DT(AB_BF16))
#define AB_DT_ALL (AB_DT(AB_FP16) | AB_DT(AB_BF16) | AB_DT(AB_FP32))

/* Which pass a measurement times (the experiment's `pass` axis):
 * the forward alone, the backward alone (the forward's O and logsumexp
 * prepared outside the timed region), or forward then backward. */
typedef enum ab_pass { AB_FWD = 0, AB_BWD = 1, AB_FWDBWD = 2 } ab_pass;
#define AB_NPASSES 3
/* "fwd", "bwd", "fwd+bwd"; NULL for an invalid value. */
const char *ab_pass_name(ab_pass p);
/* Parses a pass name; returns 0 and sets *p, or -1 when unknown. */
int ab_pass_parse(const char *name, ab_pass *p);

/* One configuration of the sweep: batch B, query heads H, query length S,
 * head dimension D, causal flag, dtype; K/V heads H_kv and key/value length
 * S_kv (0: equal to H resp. S; read them through ab_shape_hkv and
 * ab_shape_skv); the pass timed (0: forward). The first six fields are
 * include/attnbench/plugin.h's attnbench_shape. */
typedef struct ab_shape {
    int B, H, S, D;
    int causal;
    ab_dtype dtype;
    int H_kv, S_kv;
    ab_pass pass;
} ab_shape;

/* K/V heads and key/value length of s (H resp. S when the field is 0). */
static inline int ab_shape_hkv(const ab_shape *s) { return s->H_kv > 0 ? s->H_kv : s->H; }
static inline int ab_shape_skv(const ab_shape *s) { return s->S_kv > 0 ? s->S_kv : s->S; }
/* 1 when s has fewer K/V heads than query heads or S_kv != S: only variants
 * declaring AB_CAP_KV run it. */
static inline int ab_shape_kv_differs(const ab_shape *s)
{
    return ab_shape_hkv(s) != s->H || ab_shape_skv(s) != s->S;
}

/* Offset (in elements) of the K/V slice that query slice bh = b*H + h reads:
 * K/V head h / (H / H_kv) of batch b, [B, H_kv, S_kv, D]. */
static inline size_t ab_kv_offset(const ab_shape *s, size_t bh)
{
    const size_t H = (size_t)s->H, hkv = (size_t)ab_shape_hkv(s);
    const size_t b = bh / H, h = bh % H;
    return (b * hkv + h / (H / hkv)) * (size_t)ab_shape_skv(s) * (size_t)s->D;
}
/* Keys query row i (0-based) sees: S_kv, or when causal the bottom-right
 * mask's max(0, i + S_kv - S + 1) (never above S_kv for i < S). */
static inline int ab_row_keys(const ab_shape *s, int i)
{
    const int skv = ab_shape_skv(s);
    if (!s->causal)
        return skv;
    const long long n = (long long)i + skv - s->S + 1;
    return n < 0 ? 0 : n > skv ? skv : (int)n;
}

/* Capabilities a registry row declares beyond its dtypes and head dims. */
#define AB_CAP_KV 1u /* H_kv < H (GQA, MQA) and S_kv != S (decode, chunked prefill) */
#define AB_CAP_DECODE 2u /* a decode rung: only S <= AB_DECODE_MAX_S query rows */
#define AB_DECODE_MAX_S 32
#define AB_CAP_BWD_KV 4u /* its backward (pass bwd, fwd+bwd) runs H_kv < H and S_kv != S too */

typedef enum ab_device { AB_DEV_CPU = 0, AB_DEV_CUDA = 1 } ab_device;

/* setup: everything a variant must do before timing (plans, workspace,
 * kernel attributes), outside the timed region. Stores private state in
 * *ctx (may be NULL). Returns 0, or non-zero with a one-line reason in err:
 * AB_SETUP_UNSUPPORTED when this device cannot run the shape (its shared
 * memory per block, its architecture), which the runner and the GPU suite
 * report as skipped with the reason rather than as an error.
 * For CUDA variants it may allocate device memory; it reports the bytes it
 * allocated through *workspace_bytes (peak-memory accounting). */
#define AB_SETUP_UNSUPPORTED 2
typedef int (*ab_setup_fn)(const ab_shape *s, void **ctx, size_t *workspace_bytes,
                           char *err, size_t errlen);
/* run: one forward pass. Returns 0 or non-zero (library status codes). */
typedef int (*ab_run_fn)(void *ctx, const ab_shape *s, const void *q, const void *k,
                         const void *v, void *o, void *stream);
/* run_bwd: one backward pass. Inputs q, k, v, o and dout (dO,
 * [B,H,S,D]) as run's, in the same memory and dtype; lse: float [B,H,S], the
 * forward's logsumexp per query row in natural log, lse_i = log sum_j
 * exp(scale * q_i . k_j) over the keys row i sees (-inf for a row that sees
 * none), on the variant's device. Writes dq [B,H,S,D] and dk, dv
 * [B,H_kv,S_kv,D] in the dtype (CPU variants: host floats); dK and dV sum
 * over the query heads of a K/V head. setup is called with s->pass set, so
 * a variant can size its backward workspace there. Returns 0 or non-zero. */
typedef int (*ab_bwd_fn)(void *ctx, const ab_shape *s, const void *q, const void *k,
                         const void *v, const void *o, const void *dout, const float *lse,
                         void *dq, void *dk, void *dv, void *stream);
/* prepare: optional (an AB_PREPARE line in kernels/variants.def). Builds
 * ahead, once per process, what setup would build for each of the n
 * shapes (cuDNN's execution plans: the kernel compile of a plan's
 * finalize), on up to `threads` host threads at once, so that a later
 * setup of one of those shapes on the calling thread's device finds it
 * made. Called outside any timed region, before the first configuration.
 * Never fails a run: returns the number of shapes now prepared (0..n); a
 * shape it could not prepare is built by setup as before, which reports
 * the error. */
typedef int (*ab_prepare_fn)(const ab_shape *shapes, size_t n, int threads);
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
    unsigned caps;         /* AB_CAP_* */
    ab_bwd_fn run_bwd;     /* the backward pass, or NULL: only "fwd" runs */
} ab_variant;

/* FLOPs of attention forward, FlashAttention's convention (Dao et al. 2022,
 * benchmark scripts): 4*B*H*S*S_kv*D (two GEMMs of 2*S*S_kv*D each per query
 * head). Causal: for S = S_kv halved (FlashAttention's convention, which
 * counts S^2/2 pairs for the S(S+1)/2 visible ones); for S != S_kv the
 * visible (query, key) pairs of the bottom-right mask counted exactly,
 * sum over i of clamp(i + S_kv - S + 1, 0, S_kv), times 4*B*H*D (a decode
 * step S = 1 sees every key: no halving). Softmax FLOPs are not counted.
 * Pass: the backward counts 2.5 forwards (FlashAttention's
 * benchmark scripts: five GEMMs against the forward's two), forward plus
 * backward 3.5. */
double ab_attention_flops(const ab_shape *s);

/* Bytes of the ideal traffic: Q read and O written once (B*H*S*D each) and
 * K, V read once per K/V head (B*H_kv*S_kv*D each), times sizeof(dtype):
 * for decode the K/V cache dominates, so GB/s against the copy ceiling is
 * the figure that bounds it. The backward moves Q, O, dO, dQ and K, V, dK,
 * dV once each (twice the forward's bytes), forward plus backward three
 * times the forward's; the logsumexp and Delta rows are left out. */
double ab_attention_bytes(const ab_shape *s);

/* Elements of one of K, V: B*H_kv*S_kv*D (only for checked shapes). */
size_t ab_shape_kv_numel(const ab_shape *s);

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

/* Number of elements of one of Q, O: B*H*S*D (of K and V too when
 * H_kv = H and S_kv = S). Only for shapes that ab_shape_check accepted (the
 * product is not checked here). */
size_t ab_shape_numel(const ab_shape *s);

/* Every size attnbench derives from a shape, computed with checked
 * arithmetic (no wrap-around): elements of one tensor, bytes of one tensor
 * in its dtype and as the host's float copy, the four host tensors Q, K, V,
 * O together, and FLOPs (finite). */
typedef struct ab_shape_sizes {
    size_t numel;        /* B*H*S*D: Q or O */
    size_t tensor_bytes; /* numel * sizeof(dtype) */
    size_t host_bytes;   /* Q, K, V, O as host floats */
    size_t device_bytes; /* Q, K, V, O on the device in the dtype */
    double flops;
    size_t kv_numel;     /* B*H_kv*S_kv*D: K or V */
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
