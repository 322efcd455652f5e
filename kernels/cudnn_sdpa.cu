/*
 * cudnn_sdpa.cu: the `cudnn_sdpa` variant, cuDNN 9's fused flash-attention
 * forward ("SDPA" fprop) for fp16 and bf16, causal and non-causal, driven
 * through cuDNN's C backend API (cudnn_graph.h) without the C++ frontend.
 *
 * Idea: describe attention to cuDNN as an operation graph and let its
 * heuristics pick the fused flash engine that the frontend's `sdpa` node maps
 * to. The graph is the documented SDPA fprop pattern, built node by node the
 * way cudnn-frontend's CompositeSDPANode expands it for cuDNN < 9.21:
 *     S1 = MATMUL(Q, K^T)                 (K^T: K's dims and strides swapped)
 *     S2 = POINTWISE MUL(S1, scale)       (scale = 1/sqrt(D), a by-value float)
 *     causal only: r = GEN_INDEX(S2, axis 2), c = GEN_INDEX(S2, axis 3),
 *                  m = CMP_GE(r, c), S2 = BINARY_SELECT(S2, -inf, m)
 *     M = REDUCTION MAX(S2) over keys, E = EXP(S2 - M), L = REDUCTION ADD(E),
 *     stats = M + LOG(L), P = DIV(E, L)   (P in the I/O dtype)
 *     O = MATMUL(P, V)
 * Intermediates are virtual float tensors (the indices int32, the mask
 * boolean); Q, K, V, O are [B, H, S, D] contiguous. `stats` is virtual
 * (inference mode), yet it must be in the graph: without LOG/ADD cuDNN 9.14
 * finds no engine ("tag_mha_graph" NOT_SUPPORTED). If no engine takes the
 * graph, setup retries once with stats as a real output in its workspace.
 * Plan: heuristics mode A (then FALLBACK) rank engine configs; the first
 * whose execution plan finalizes is kept. Handle, plan and workspace are
 * made in setup; run rebuilds the variant pack only when the device pointers
 * change, then cudnnSetStream + cudnnBackendExecute (works under CUDA graph
 * capture too).
 *
 * Source: NVIDIA cuDNN docs ("Graph API: Fused Flash Attention fprop",
 * backend descriptor reference) and cudnn-frontend's
 * node/scaled_dot_product_flash_attention.h, softmax.h and
 * diagonal_band_mask.h, read as a spec of the backend attributes (not
 * copied). PyTorch 2.11 reaches this engine as SDPBackend.CUDNN_ATTENTION,
 * and its default SDPA on Hopper mostly lands on it (H200: "default" equals
 * "cudnn" at S=512 and is within about 10% at S=4096 in
 * shared/reference/h200-pytorch-sdpa.json and in the runs below).
 * Step: the vendor ceiling the hand-written ladder is measured against.
 *
 * Support (NVIDIA H200, cuDNN 9.14.0, 2026-11-21): fp16/bf16 pass FlashAttention's
 * tolerance at every gpu_check case (D 64/128, causal or not, S 1..2049) and
 * at D = 8, 16, 32, 40, 80, 96, 160, 192, 256, 512, 520. Engine 2 (the flash
 * kernel) serves 2 <= S and D <= 256; engine 1 serves S = 1 and D > 256. D not
 * a multiple of 8 (e.g. 100) is refused: setup fails with cuDNN's status.
 * Measured (NVIDIA H200, 2026-11-21, reports/seeds-and-ladders/attnbench.db,
 * hot mode, cuDNN 9.14): run 10 (ladder-d128, report
 * reports/seeds-and-ladders/ladder-d128-run10.md) 666 TFLOP/s at B=4 H=16
 * S=4096 D=128 fp16, 581 causal, 689 bf16; run 6 (seed-004-sdpa) 0.0485 ms at
 * B=32 H=8 S=512 D=64 fp16, PyTorch 2.11's default SDPA 0.0494 ms in the same
 * run.
 *
 * Under PyTorch 2.11's own cuDNN 9.19.0 (LD_LIBRARY_PATH) the same graph
 * ran at the speed of torch's SDPBackend.CUDNN_ATTENTION on that library,
 * and faster than under cuDNN 9.14 at the small causal shape: the gap there
 * is the cuDNN version, not the graph (gpu_check --time on 2026-11-21; not
 * in a committed database).
 *
 * Backward (run_bwd): the flash-attention bprop graph (see
 * build_graph_bwd; grouped-query heads summed by a reduction, S_kv != S by
 * the shifted mask); cuDNN 9.14's engine 2 takes it at every
 * gpu_check_bwd case (fp16/bf16, D 64/128, causal or not, S = 1..1025,
 * H_kv = 2 and 1, S_kv = 300 > S; 104 cases, reports/bwd-ladder/
 * gpu-bwd-suite-cudnn.log). Measured (NVIDIA H200, 2026-11-24, H_kv = H,
 * reports/bwd-ladder/bwd-ladder.db, report bwd-ladder-run1.md, 40
 * configurations, ratios of medians): 157-598
 * TFLOP/s, 1.82x PyTorch's flash backward and 1.11x PyTorch's own cuDNN
 * backend (geometric means; the same engine, reached without autograd's
 * dispatch: 1.03-1.06x at S = 8192, 1.01-1.45x at S = 512).
 * S != S_kv (NVIDIA H100, 2026-11-25, reports/bwd-ladder/bwd-kv.db, its
 * report bwd-kv-run1.md, H = 32, H_kv = 8, D = 128, bf16; the report's
 * round estimates): causal with S < S_kv 1.57-1.61x PyTorch's default
 * backward; causal with S > S_kv (rows that see no key, handled by a
 * logsumexp copy with -inf as +inf, checked by gpu_check_bwd:
 * reports/bwd-ladder/gpu-bwd-suite-kv.log) the fused engine does not skip
 * the empty rows' tiles: 0.42 ms against 0.40 ms unmasked, 0.80x PyTorch's.
 *
 * Set AB_CUDNN_SDPA_VERBOSE=1 to have setup print the chosen engine, the
 * graph used, the number of configs tried, the workspace and the setup time
 * split into handle, graphs, heuristics and plan finalize (where cuDNN
 * builds its kernel: the first plan of a kernel flavour in a process
 * compiles it, and a later shape of the same flavour still spends most of
 * its setup there; reports/cost-per-answer-adapters/README.md) on stderr.
 * The cuDNN handle is made once per device per process and shared by every
 * setup. Plans are kept by exact shape for the process (the plan cache):
 * a second setup of a shape (another instance) takes the first's plans,
 * and cudnn_sdpa_prepare builds the plans of a run's configurations ahead
 * on several threads (the runner calls it before the first
 * configuration), so cuDNN's kernel compiles overlap instead of adding up
 * inside each measurement's setup.
 * Measured (NVIDIA H100, 2026-11-26, cost-cudnn-plans: 16 configurations
 * of eight kernel flavours, reports/cost-per-answer/round2/plans.db): with
 * the driver's JIT cache off (CUDA_CACHE_DISABLE set: every process
 * compiles) the run's setup took 11.13 s with each plan built in its
 * measurement's setup, 11.69 s built ahead on one thread, 3.71 s on four
 * and 2.18 s on sixteen; with the cache warm 0.75 s on one thread and
 * 1.10 s on sixteen (the warm run without building ahead came first and
 * still compiled flavours: not comparable).
 *
 * AB_CUDNN_SDPA_KERNEL_CACHE=1 tries dynamic-shape graphs with a
 * kernel cache first (see the kernel-cache comment below; refused by cuDNN
 * 9.14).
 */
#include "entry_points.h"

#include <cuda_runtime.h>
#include <cudnn.h>

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Seconds of the monotonic clock (the verbose line's setup timings). */
static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#if CUDNN_MAJOR >= 9

/* Unique ids of the graph's tensors (virtual ones need ids too). */
enum {
    UID_Q = 1, UID_KT, UID_V, UID_O, UID_SCALE, UID_NEG_INF, UID_STATS,
    UID_S1 = 100, UID_S2, UID_ROW, UID_COL, UID_MASK, UID_S3, UID_MAX, UID_SUB,
    UID_EXP, UID_SUM, UID_P, UID_LOG, UID_ROW_SHIFTED,
    UID_SHIFT = 20, /* S_kv - S, by value: the bottom-right causal mask's diagonal */
    /* the backward graph */
    UID_DO = 30, UID_DQ, UID_DK, UID_DV, UID_VT, UID_ONE, UID_SOFTMAX_SUM, UID_DQ_ACCUM,
    UID_B_T1 = 200, UID_B_T2, UID_B_S1, UID_B_S2, UID_B_ROW, UID_B_COL, UID_B_MASK, UID_B_S3,
    UID_B_SUB, UID_B_P, UID_B_PT, UID_B_DP, UID_B_T3, UID_B_T4, UID_B_DS, UID_B_DST, UID_B_KR,
    UID_B_ROW_SHIFTED, UID_B_DV_FULL, UID_B_DK_FULL
};

/* Whether the graph has a causal mask: not for S = 1 against a longer K/V
 * (a decode step: the bottom-right mask hides nothing); shifted when
 * S_kv != S (row + S_kv - S >= column). */
static bool has_mask(const ab_shape *s)
{
    return s->causal && !(s->S == 1 && ab_shape_skv(s) > 1);
}
static bool shifted(const ab_shape *s) { return has_mask(s) && ab_shape_skv(s) != s->S; }
/* Causal with S > S_kv: the first S - S_kv query rows see no key. */
static bool has_empty_rows(const ab_shape *s) { return s->causal && s->S > ab_shape_skv(s); }

/* The backward's stats input for shapes with rows that see no key: lse
 * (float [B,H,S], natural log, -inf for such a row) copied with -inf
 * turned into +inf, so that cuDNN's P = exp(S - stats) is exp(-inf) = 0
 * there instead of exp(-inf + inf) = NaN. One thread per row; n rows. */
__global__ void stats_for_empty_rows(const float *__restrict__ lse, float *__restrict__ out,
                                     size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float x = lse[i];
        out[i] = isinf(x) && x < 0.f ? INFINITY : x;
    }
}

enum { MAX_DESCS = 96 };

typedef struct cudnn_sdpa_ctx {
    cudnnHandle_t handle;
    cudnnBackendDescriptor_t plan;
    cudnnBackendDescriptor_t vpack; /* cached for the pointers below */
    const void *vp_q, *vp_k, *vp_v;
    void *vp_o;
    void *workspace;       /* plan workspace, then stats when with_stats */
    size_t plan_ws_bytes;
    float *stats;          /* inside workspace; NULL in inference mode */
    int with_stats;
    float scale, neg_inf;  /* by-value scalars: the variant pack points here */
    int32_t shift;         /* S_kv - S (by value) for the bottom-right mask */
    int64_t engine_index;
    int keep_descs;        /* 1: a kernel cache was made from this graph; keep it */
    int borrowed;          /* 1: handle, plan and descriptors are the plan cache's */
    int kcache;            /* 0 off or refused, 1 compiled into a new cache, 2 reused one */
    /* the backward (NULL for pass = fwd): its own plan and
     * descriptors, and in its workspace softmax_sum and dQ_accum */
    struct cudnn_sdpa_ctx *bwd;
    float one;
    float *softmax_sum, *dq_accum;
    float *stats_in;       /* causal S > S_kv: the logsumexp with -inf rows as +inf */
    const void *vp_do, *vp_dq, *vp_dk, *vp_dv;
    const float *vp_lse;
    /* every descriptor setup created, destroyed at teardown */
    cudnnBackendDescriptor_t descs[MAX_DESCS];
    int ndescs;
} cudnn_sdpa_ctx;

/* Builder state: the shape (for messages) and where errors go. */
/* Seconds spent in setup's steps, for the verbose line (where a setup's
 * time goes: graph, heuristics, plan finalize = cuDNN's kernel build). */
static thread_local double t_graph_s, t_heur_s, t_plan_s;

typedef struct build {
    cudnn_sdpa_ctx *c;
    const ab_shape *s;
    cudnnDataType_t io;
    char *err;
    size_t errlen;
    bool dynamic;                    /* graph built with dynamic shapes enabled */
    cudnnBackendDescriptor_t kcache; /* kernel cache for the plan, or NULL */
} build;

static const char *io_name(const ab_shape *s) { return ab_dtype_name(s->dtype); }

/* Writes "cudnn_sdpa: <step> (shape): <status string>[: last error]". */
static int fail(build *b, const char *step, cudnnStatus_t st)
{
    char last[256];
    last[0] = '\0';
    cudnnGetLastErrorString(last, sizeof last);
    for (char *p = last; *p; p++) /* keep it one line */
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    snprintf(b->err, b->errlen, "cudnn_sdpa: %s (B=%d H=%d S=%d D=%d, %s%s): %s%s%s", step,
             b->s->B, b->s->H, b->s->S, b->s->D, io_name(b->s), b->s->causal ? ", causal" : "",
             cudnnGetErrorString(st), last[0] ? ": " : "", last);
    return -1;
}

#define CK(step, call)                                                                       \
    do {                                                                                     \
        cudnnStatus_t st_ = (call);                                                          \
        if (st_ != CUDNN_STATUS_SUCCESS)                                                     \
            return fail(b, step, st_);                                                       \
    } while (0)

/* Creates a descriptor owned by the context (destroyed at teardown). */
static int create(build *b, cudnnBackendDescriptorType_t t, cudnnBackendDescriptor_t *d,
                  const char *step)
{
    if (b->c->ndescs == MAX_DESCS) {
        snprintf(b->err, b->errlen, "cudnn_sdpa: %s: too many descriptors", step);
        return -1;
    }
    *d = NULL;
    CK(step, cudnnBackendCreateDescriptor(t, d));
    b->c->descs[b->c->ndescs++] = *d;
    return 0;
}

static cudnnStatus_t set1(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t a,
                          cudnnBackendAttributeType_t t, const void *v)
{
    return cudnnBackendSetAttribute(d, a, t, 1, v);
}

static cudnnStatus_t set_desc(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t a,
                              cudnnBackendDescriptor_t v)
{
    return cudnnBackendSetAttribute(d, a, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &v);
}

/* A 4-d tensor descriptor. */
static int tensor(build *b, int64_t uid, cudnnDataType_t dt, const int64_t dims[4],
                  const int64_t strides[4], bool is_virtual, bool by_value,
                  cudnnBackendDescriptor_t *out, const char *step)
{
    cudnnBackendDescriptor_t t;
    int64_t align = 16;
    if (create(b, CUDNN_BACKEND_TENSOR_DESCRIPTOR, &t, step))
        return -1;
    CK(step, set1(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &dt));
    CK(step, cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims));
    CK(step, cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides));
    CK(step, set1(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &uid));
    CK(step, set1(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &align));
    CK(step, set1(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, &is_virtual));
    if (by_value)
        CK(step, set1(t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, &by_value));
    CK(step, cudnnBackendFinalize(t));
    *out = t;
    return 0;
}

/* A pointwise operation y = mode(x[, bb[, tt]]); axis >= 0 for GEN_INDEX. */
static int pointwise(build *b, cudnnPointwiseMode_t mode, cudnnDataType_t prec, int64_t axis,
                     cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t bb,
                     cudnnBackendDescriptor_t tt, cudnnBackendDescriptor_t y,
                     cudnnBackendDescriptor_t *op, const char *step)
{
    cudnnBackendDescriptor_t pw;
    float alpha = 1.0f;
    if (create(b, CUDNN_BACKEND_POINTWISE_DESCRIPTOR, &pw, step))
        return -1;
    CK(step, set1(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, &mode));
    CK(step, set1(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, &prec));
    if (axis >= 0)
        CK(step, set1(pw, CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, &axis));
    CK(step, cudnnBackendFinalize(pw));
    if (create(b, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, op, step))
        return -1;
    CK(step, set_desc(*op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, pw));
    CK(step, set_desc(*op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x));
    if (bb)
        CK(step, set_desc(*op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, bb));
    if (tt)
        CK(step, set_desc(*op, CUDNN_ATTR_OPERATION_POINTWISE_TDESC, tt));
    CK(step, set_desc(*op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y));
    CK(step, set1(*op, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_FLOAT, &alpha));
    CK(step, set1(*op, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_FLOAT, &alpha));
    CK(step, cudnnBackendFinalize(*op));
    return 0;
}

/* A reduction y = reduce(x) over the dimensions where y has extent 1. */
static int reduction(build *b, cudnnReduceTensorOp_t rop, cudnnBackendDescriptor_t x,
                     cudnnBackendDescriptor_t y, cudnnBackendDescriptor_t *op, const char *step)
{
    cudnnBackendDescriptor_t r;
    cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
    if (create(b, CUDNN_BACKEND_REDUCTION_DESCRIPTOR, &r, step))
        return -1;
    CK(step, set1(r, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, &rop));
    CK(step, set1(r, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &f32));
    CK(step, cudnnBackendFinalize(r));
    if (create(b, CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, op, step))
        return -1;
    CK(step, set_desc(*op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, r));
    CK(step, set_desc(*op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, x));
    CK(step, set_desc(*op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, y));
    CK(step, cudnnBackendFinalize(*op));
    return 0;
}

/* A batched matmul c = a @ bm, float accumulation. */
static int matmul(build *b, cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t bm,
                  cudnnBackendDescriptor_t cc, cudnnBackendDescriptor_t *op, const char *step)
{
    cudnnBackendDescriptor_t mm;
    cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
    if (create(b, CUDNN_BACKEND_MATMUL_DESCRIPTOR, &mm, step))
        return -1;
    CK(step, set1(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &f32));
    CK(step, cudnnBackendFinalize(mm));
    if (create(b, CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, op, step))
        return -1;
    CK(step, set_desc(*op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, a));
    CK(step, set_desc(*op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, bm));
    CK(step, set_desc(*op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, cc));
    CK(step, set_desc(*op, CUDNN_ATTR_OPERATION_MATMUL_DESC, mm));
    CK(step, cudnnBackendFinalize(*op));
    return 0;
}

/* Builds the SDPA operation graph into *graph. */
static int build_graph(build *b, cudnnBackendDescriptor_t *graph)
{
    const ab_shape *s = b->s;
    const int64_t B = s->B, H = s->H, S = s->S, D = s->D;
    const int64_t HK = ab_shape_hkv(s), SK = ab_shape_skv(s);
    const cudnnDataType_t f32 = CUDNN_DATA_FLOAT, i32 = CUDNN_DATA_INT32;
    const cudnnDataType_t boolean = CUDNN_DATA_BOOLEAN;
    /* Q, O [B, H, S, D]; K, V [B, H_kv, S_kv, D] (grouped-query attention:
     * the fused engine maps query head h to K/V head h / (H / H_kv), as
     * cudnn-frontend's sdpa node with h_k < h_q does) */
    const int64_t qd[4] = {B, H, S, D}, qs[4] = {H * S * D, S * D, D, 1};
    const int64_t kd[4] = {B, HK, D, SK}, ks[4] = {HK * SK * D, SK * D, 1, D}; /* K^T */
    const int64_t vd[4] = {B, HK, SK, D}, vs[4] = {HK * SK * D, SK * D, D, 1};
    const int64_t sd[4] = {B, H, S, SK}, ss[4] = {H * S * SK, S * SK, SK, 1};
    const int64_t rd[4] = {B, H, S, 1}, rs[4] = {H * S, S, 1, 1};
    const int64_t one[4] = {1, 1, 1, 1};
    cudnnBackendDescriptor_t q, kt, v, o, scale, ninf, stats = NULL;
    cudnnBackendDescriptor_t s1, s2, row, col, mask, s3, mx, sub, ex, sum, p, lg;
    cudnnBackendDescriptor_t ops[16];
    int nops = 0;

    if (tensor(b, UID_Q, b->io, qd, qs, false, false, &q, "tensor Q") ||
        tensor(b, UID_KT, b->io, kd, ks, false, false, &kt, "tensor K^T") ||
        tensor(b, UID_V, b->io, vd, vs, false, false, &v, "tensor V") ||
        tensor(b, UID_O, b->io, qd, qs, false, false, &o, "tensor O") ||
        tensor(b, UID_SCALE, f32, one, one, false, true, &scale, "tensor scale") ||
        tensor(b, UID_S1, f32, sd, ss, true, false, &s1, "tensor S1") ||
        tensor(b, UID_S2, f32, sd, ss, true, false, &s2, "tensor S2") ||
        tensor(b, UID_MAX, f32, rd, rs, true, false, &mx, "tensor max") ||
        tensor(b, UID_SUB, f32, sd, ss, true, false, &sub, "tensor S-max") ||
        tensor(b, UID_EXP, f32, sd, ss, true, false, &ex, "tensor exp") ||
        tensor(b, UID_SUM, f32, rd, rs, true, false, &sum, "tensor sum") ||
        tensor(b, UID_P, b->io, sd, ss, true, false, &p, "tensor P"))
        return -1;

    if (matmul(b, q, kt, s1, &ops[nops++], "operation Q K^T") ||
        pointwise(b, CUDNN_POINTWISE_MUL, f32, -1, s1, scale, NULL, s2, &ops[nops++],
                  "operation scale"))
        return -1;
    cudnnBackendDescriptor_t scores = s2;
    if (has_mask(s)) {
        if (tensor(b, UID_NEG_INF, f32, one, one, false, true, &ninf, "tensor -inf") ||
            tensor(b, UID_ROW, i32, sd, ss, true, false, &row, "tensor row index") ||
            tensor(b, UID_COL, i32, sd, ss, true, false, &col, "tensor column index") ||
            tensor(b, UID_MASK, boolean, sd, ss, true, false, &mask, "tensor mask") ||
            tensor(b, UID_S3, f32, sd, ss, true, false, &s3, "tensor masked S") ||
            pointwise(b, CUDNN_POINTWISE_GEN_INDEX, f32, 2, s2, NULL, NULL, row, &ops[nops++],
                      "operation row index") ||
            pointwise(b, CUDNN_POINTWISE_GEN_INDEX, f32, 3, s2, NULL, NULL, col, &ops[nops++],
                      "operation column index"))
            return -1;
        if (shifted(s)) { /* bottom-right: row + (S_kv - S) >= column */
            cudnnBackendDescriptor_t shift, rows2;
            if (tensor(b, UID_SHIFT, i32, one, one, false, true, &shift, "tensor S_kv - S") ||
                tensor(b, UID_ROW_SHIFTED, i32, sd, ss, true, false, &rows2,
                       "tensor shifted row index") ||
                pointwise(b, CUDNN_POINTWISE_ADD, i32, -1, row, shift, NULL, rows2,
                          &ops[nops++], "operation row + S_kv - S"))
                return -1;
            row = rows2;
        }
        if (pointwise(b, CUDNN_POINTWISE_CMP_GE, boolean, -1, row, col, NULL, mask, &ops[nops++],
                      "operation row >= column") ||
            pointwise(b, CUDNN_POINTWISE_BINARY_SELECT, f32, -1, s2, ninf, mask, s3,
                      &ops[nops++], "operation causal select"))
            return -1;
        scores = s3;
    }
    if (reduction(b, CUDNN_REDUCE_TENSOR_MAX, scores, mx, &ops[nops++], "operation row max") ||
        pointwise(b, CUDNN_POINTWISE_SUB, f32, -1, scores, mx, NULL, sub, &ops[nops++],
                  "operation S - max") ||
        pointwise(b, CUDNN_POINTWISE_EXP, f32, -1, sub, NULL, NULL, ex, &ops[nops++],
                  "operation exp") ||
        reduction(b, CUDNN_REDUCE_TENSOR_ADD, ex, sum, &ops[nops++], "operation row sum"))
        return -1;
    /* The statistics M + log L close the softmax in both graphs: cuDNN's
     * SDPA pattern matcher refuses the softmax without them (cuDNN 9.14 on
     * an H200: "tag_mha_graph ... NOT_SUPPORTED"), as cudnn-frontend's
     * composite softmax also emits them, as a virtual tensor, in inference
     * mode. Virtual here unless the training graph is asked for. */
    {
        const bool stats_virtual = !b->c->with_stats;
        if (tensor(b, UID_STATS, f32, rd, rs, stats_virtual, false, &stats, "tensor stats") ||
            tensor(b, UID_LOG, f32, rd, rs, true, false, &lg, "tensor log sum") ||
            pointwise(b, CUDNN_POINTWISE_LOG, f32, -1, sum, NULL, NULL, lg, &ops[nops++],
                      "operation log sum") ||
            pointwise(b, CUDNN_POINTWISE_ADD, f32, -1, mx, lg, NULL, stats, &ops[nops++],
                      "operation stats"))
            return -1;
    }
    if (pointwise(b, CUDNN_POINTWISE_DIV, f32, -1, ex, sum, NULL, p, &ops[nops++],
                  "operation softmax divide") ||
        matmul(b, p, v, o, &ops[nops++], "operation P V"))
        return -1;

    if (create(b, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, graph, "operation graph"))
        return -1;
    CK("operation graph", cudnnBackendSetAttribute(*graph, CUDNN_ATTR_OPERATIONGRAPH_OPS,
                                                   CUDNN_TYPE_BACKEND_DESCRIPTOR, nops, ops));
    CK("operation graph",
       set1(*graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, &b->c->handle));
#if CUDNN_VERSION >= 90500
    if (b->dynamic) {
        const bool on = true;
        CK("operation graph dynamic shapes",
           set1(*graph, CUDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED, CUDNN_TYPE_BOOLEAN,
                &on));
    }
#endif
    CK("operation graph finalize", cudnnBackendFinalize(*graph));
    return 0;
}

/* A reshape y = x (y's dims and strides reinterpret x's elements: the
 * transposes of P, dS and K^T in the backward graph). */
static int reshape(build *b, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y,
                   cudnnBackendDescriptor_t *op, const char *step)
{
    if (create(b, CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR, op, step))
        return -1;
    CK(step, set_desc(*op, CUDNN_ATTR_OPERATION_RESHAPE_XDESC, x));
    CK(step, set_desc(*op, CUDNN_ATTR_OPERATION_RESHAPE_YDESC, y));
    CK(step, cudnnBackendFinalize(*op));
    return 0;
}

/* Builds the SDPA backward graph into *graph: the documented
 * flash-attention bprop pattern, node by node in the order cudnn-frontend's
 * CompositeSDPABackwardNode expands it (multi-head, no dropout, no bias):
 *     softmax_sum = rowsum(dO * O) * 1        (a real float tensor [B,H,S,1])
 *     S = Q K^T * scale  [causal: select -inf where row + S_kv - S < column]
 *     P = exp(S - stats)                      (stats: the forward's logsumexp)
 *     dV = P^T dO                             (P^T: a reshape of P, in the dtype)
 *     dS = (dO V^T - softmax_sum) * P * scale
 *     dK = dS^T Q,  dQ_accum = dS K (float, real),  dQ = identity(dQ_accum)
 * Source: cudnn-frontend include/cudnn_frontend/node/
 * scaled_dot_product_flash_attention.h (CompositeSDPABackwardNode::
 * expand_node), read as a specification of the graph the fused engine
 * matches; cuDNN's "Fused Flash Attention bprop" documentation.
 * Grouped-query (H_kv < H): K^T, V^T have H_kv heads (the matmuls
 * broadcast), dV and dK are computed per query head into virtual tensors
 * and reduced (ADD) to H_kv heads. A causal row that sees no key (S > S_kv)
 * has lse = -inf, and exp(-inf - (-inf)) would make its P NaN: for such
 * shapes run_bwd first copies the logsumexp with -inf turned into +inf
 * (stats_for_empty_rows), so the row's P is exp(-inf) = 0 and its dQ, and
 * its share of dK and dV, are 0 as the float64 reference has them. */
static int build_graph_bwd(build *b, cudnnBackendDescriptor_t *graph)
{
    const ab_shape *s = b->s;
    const int64_t B = s->B, H = s->H, S = s->S, D = s->D, SK = ab_shape_skv(s);
    const int64_t HK = ab_shape_hkv(s);
    const cudnnDataType_t f32 = CUDNN_DATA_FLOAT, i32 = CUDNN_DATA_INT32;
    const cudnnDataType_t boolean = CUDNN_DATA_BOOLEAN;
    const int64_t qd[4] = {B, H, S, D}, qs[4] = {H * S * D, S * D, D, 1};
    const int64_t t1s[4] = {H * S * D, S * D, H * D, 1}; /* as the frontend's mul_dO_O */
    /* K^T, V^T, K, dK, dV: H_kv heads (grouped-query: the matmuls broadcast
     * K/V head h / (H / H_kv), as in the forward) */
    const int64_t ktd[4] = {B, HK, D, SK}, kts[4] = {HK * SK * D, SK * D, 1, D};
    const int64_t kd[4] = {B, HK, SK, D}, ks[4] = {HK * SK * D, SK * D, D, 1};
    /* per query head, before the group's sum (grouped-query only) */
    const int64_t fd[4] = {B, H, SK, D}, fs[4] = {H * SK * D, SK * D, D, 1};
    const int64_t sd[4] = {B, H, S, SK}, ss[4] = {H * S * SK, S * SK, SK, 1};
    const int64_t std_[4] = {B, H, SK, S}, sts[4] = {H * S * SK, S * SK, 1, SK}; /* P^T, dS^T */
    const int64_t rd[4] = {B, H, S, 1}, rs[4] = {H * S, S, 1, 1};
    const int64_t one[4] = {1, 1, 1, 1};
    cudnnBackendDescriptor_t q, kt, vt, o, dO, stats, dq, dk, dv, scale, onev, ninf;
    cudnnBackendDescriptor_t t1, t2, ssum, s1, s2, sub, p, pt, dp, t3, t4, ds, dst, kr, dqa;
    cudnnBackendDescriptor_t ops[32];
    int nops = 0;
    if (tensor(b, UID_Q, b->io, qd, qs, false, false, &q, "tensor Q") ||
        tensor(b, UID_KT, b->io, ktd, kts, false, false, &kt, "tensor K^T") ||
        tensor(b, UID_VT, b->io, ktd, kts, false, false, &vt, "tensor V^T") ||
        tensor(b, UID_O, b->io, qd, qs, false, false, &o, "tensor O") ||
        tensor(b, UID_DO, b->io, qd, qs, false, false, &dO, "tensor dO") ||
        tensor(b, UID_STATS, f32, rd, rs, false, false, &stats, "tensor stats") ||
        tensor(b, UID_DQ, b->io, qd, qs, false, false, &dq, "tensor dQ") ||
        tensor(b, UID_DK, b->io, kd, ks, false, false, &dk, "tensor dK") ||
        tensor(b, UID_DV, b->io, kd, ks, false, false, &dv, "tensor dV") ||
        tensor(b, UID_SCALE, f32, one, one, false, true, &scale, "tensor scale") ||
        tensor(b, UID_ONE, f32, one, one, false, true, &onev, "tensor one") ||
        tensor(b, UID_B_T1, f32, qd, t1s, true, false, &t1, "tensor dO*O") ||
        tensor(b, UID_B_T2, f32, rd, rs, true, false, &t2, "tensor rowsum(dO*O)") ||
        tensor(b, UID_SOFTMAX_SUM, f32, rd, rs, false, false, &ssum, "tensor softmax_sum") ||
        tensor(b, UID_B_S1, f32, sd, ss, true, false, &s1, "tensor S") ||
        tensor(b, UID_B_S2, f32, sd, ss, true, false, &s2, "tensor S*scale") ||
        tensor(b, UID_B_SUB, f32, sd, ss, true, false, &sub, "tensor S-stats") ||
        tensor(b, UID_B_P, f32, sd, ss, true, false, &p, "tensor P") ||
        tensor(b, UID_B_PT, b->io, std_, sts, true, false, &pt, "tensor P^T") ||
        tensor(b, UID_B_DP, f32, sd, ss, true, false, &dp, "tensor dP") ||
        tensor(b, UID_B_T3, f32, sd, ss, true, false, &t3, "tensor dP-sum") ||
        tensor(b, UID_B_T4, f32, sd, ss, true, false, &t4, "tensor (dP-sum)*P") ||
        tensor(b, UID_B_DS, f32, sd, ss, true, false, &ds, "tensor dS") ||
        tensor(b, UID_B_DST, b->io, std_, sts, true, false, &dst, "tensor dS^T") ||
        tensor(b, UID_B_KR, b->io, kd, ks, true, false, &kr, "tensor K") ||
        tensor(b, UID_DQ_ACCUM, f32, qd, qs, false, false, &dqa, "tensor dQ_accum"))
        return -1;
    if (pointwise(b, CUDNN_POINTWISE_MUL, f32, -1, dO, o, NULL, t1, &ops[nops++], "op dO*O") ||
        reduction(b, CUDNN_REDUCE_TENSOR_ADD, t1, t2, &ops[nops++], "op rowsum(dO*O)") ||
        pointwise(b, CUDNN_POINTWISE_MUL, f32, -1, t2, onev, NULL, ssum, &ops[nops++],
                  "op softmax_sum") ||
        matmul(b, q, kt, s1, &ops[nops++], "op Q K^T") ||
        pointwise(b, CUDNN_POINTWISE_MUL, f32, -1, s1, scale, NULL, s2, &ops[nops++],
                  "op scale"))
        return -1;
    cudnnBackendDescriptor_t scores = s2;
    if (has_mask(s)) {
        cudnnBackendDescriptor_t row, col, mask, s3;
        if (tensor(b, UID_NEG_INF, f32, one, one, false, true, &ninf, "tensor -inf") ||
            tensor(b, UID_B_ROW, i32, sd, ss, true, false, &row, "tensor row index") ||
            tensor(b, UID_B_COL, i32, sd, ss, true, false, &col, "tensor column index") ||
            tensor(b, UID_B_MASK, boolean, sd, ss, true, false, &mask, "tensor mask") ||
            tensor(b, UID_B_S3, f32, sd, ss, true, false, &s3, "tensor masked S") ||
            pointwise(b, CUDNN_POINTWISE_GEN_INDEX, f32, 2, s2, NULL, NULL, row, &ops[nops++],
                      "op row index") ||
            pointwise(b, CUDNN_POINTWISE_GEN_INDEX, f32, 3, s2, NULL, NULL, col, &ops[nops++],
                      "op column index"))
            return -1;
        if (shifted(s)) {
            cudnnBackendDescriptor_t shift, rows2;
            if (tensor(b, UID_SHIFT, i32, one, one, false, true, &shift, "tensor S_kv - S") ||
                tensor(b, UID_B_ROW_SHIFTED, i32, sd, ss, true, false, &rows2,
                       "tensor shifted row index") ||
                pointwise(b, CUDNN_POINTWISE_ADD, i32, -1, row, shift, NULL, rows2, &ops[nops++],
                          "op row + S_kv - S"))
                return -1;
            row = rows2;
        }
        if (pointwise(b, CUDNN_POINTWISE_CMP_GE, boolean, -1, row, col, NULL, mask, &ops[nops++],
                      "op row >= column") ||
            pointwise(b, CUDNN_POINTWISE_BINARY_SELECT, f32, -1, s2, ninf, mask, s3, &ops[nops++],
                      "op causal select"))
            return -1;
        scores = s3;
    }
    if (pointwise(b, CUDNN_POINTWISE_SUB, f32, -1, scores, stats, NULL, sub, &ops[nops++],
                  "op S - stats") ||
        pointwise(b, CUDNN_POINTWISE_EXP, f32, -1, sub, NULL, NULL, p, &ops[nops++], "op exp") ||
        reshape(b, p, pt, &ops[nops++], "op P^T"))
        return -1;
    /* grouped-query: dV and dK per query head, then summed over the group
     * (a reduction to H_kv heads, cudnn-frontend's dV_fullhead/dK_fullhead) */
    cudnnBackendDescriptor_t dv_to = dv, dk_to = dk, dvf = NULL, dkf = NULL;
    if (HK != H) {
        if (tensor(b, UID_B_DV_FULL, b->io, fd, fs, true, false, &dvf, "tensor dV per head") ||
            tensor(b, UID_B_DK_FULL, b->io, fd, fs, true, false, &dkf, "tensor dK per head"))
            return -1;
        dv_to = dvf;
        dk_to = dkf;
    }
    if (matmul(b, pt, dO, dv_to, &ops[nops++], "op dV = P^T dO") ||
        (dvf && reduction(b, CUDNN_REDUCE_TENSOR_ADD, dvf, dv, &ops[nops++],
                          "op dV: sum over the group")) ||
        matmul(b, dO, vt, dp, &ops[nops++], "op dP = dO V^T") ||
        pointwise(b, CUDNN_POINTWISE_SUB, f32, -1, dp, ssum, NULL, t3, &ops[nops++],
                  "op dP - softmax_sum") ||
        pointwise(b, CUDNN_POINTWISE_MUL, f32, -1, t3, p, NULL, t4, &ops[nops++], "op * P") ||
        pointwise(b, CUDNN_POINTWISE_MUL, f32, -1, t4, scale, NULL, ds, &ops[nops++],
                  "op dS scale") ||
        reshape(b, ds, dst, &ops[nops++], "op dS^T") ||
        matmul(b, dst, q, dk_to, &ops[nops++], "op dK = dS^T Q") ||
        (dkf && reduction(b, CUDNN_REDUCE_TENSOR_ADD, dkf, dk, &ops[nops++],
                          "op dK: sum over the group")) ||
        reshape(b, kt, kr, &ops[nops++], "op K") ||
        matmul(b, ds, kr, dqa, &ops[nops++], "op dQ_accum = dS K") ||
        pointwise(b, CUDNN_POINTWISE_IDENTITY, f32, -1, dqa, NULL, NULL, dq, &ops[nops++],
                  "op dQ"))
        return -1;
    if (create(b, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, graph, "operation graph"))
        return -1;
    CK("operation graph", cudnnBackendSetAttribute(*graph, CUDNN_ATTR_OPERATIONGRAPH_OPS,
                                                   CUDNN_TYPE_BACKEND_DESCRIPTOR, nops, ops));
    CK("operation graph",
       set1(*graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, &b->c->handle));
#if CUDNN_VERSION >= 90500
    if (b->dynamic) {
        const bool on = true;
        CK("operation graph dynamic shapes",
           set1(*graph, CUDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED, CUDNN_TYPE_BOOLEAN,
                &on));
    }
#endif
    CK("operation graph finalize", cudnnBackendFinalize(*graph));
    return 0;
}

/* Heuristics, then the first engine config whose plan finalizes. Returns 0,
 * or -1 with the error set (the status of the last refusal). */
static int build_plan(build *b, cudnnBackendDescriptor_t graph, int *tried)
{
    const cudnnBackendHeurMode_t modes[2] = {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK};
    cudnnStatus_t last = CUDNN_STATUS_NOT_SUPPORTED;
    char last_msg[256] = "";
    *tried = 0;
    for (int mi = 0; mi < 2; mi++) {
        cudnnBackendDescriptor_t heur;
        int64_t count = 0, got = 0;
        if (create(b, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur, "heuristics"))
            return -1;
        CK("heuristics", set_desc(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph));
        CK("heuristics", set1(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, &modes[mi]));
        const double th = mono_s();
        cudnnStatus_t st = cudnnBackendFinalize(heur);
        t_heur_s += mono_s() - th;
        if (st != CUDNN_STATUS_SUCCESS) { /* this mode has nothing for the graph */
            last = st;
            cudnnGetLastErrorString(last_msg, sizeof last_msg);
            continue;
        }
        CK("heuristics results", cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                          CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                                                          &count, NULL));
        if (count <= 0) { /* the support checks dropped every config */
            cudnnGetLastErrorString(last_msg, sizeof last_msg);
            continue;
        }
        if (count > 32)
            count = 32;
        cudnnBackendDescriptor_t cfgs[32];
        for (int64_t i = 0; i < count; i++)
            if (create(b, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i], "engine config"))
                return -1;
        CK("heuristics results", cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                          CUDNN_TYPE_BACKEND_DESCRIPTOR, count,
                                                          &got, cfgs));
        for (int64_t i = 0; i < got; i++) {
            cudnnBackendDescriptor_t plan;
            (*tried)++;
            if (create(b, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan, "execution plan"))
                return -1;
            CK("execution plan", set_desc(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, cfgs[i]));
            if (cudnnGetVersion() < 90800) /* the handle is optional from 9.8 on */
                CK("execution plan", set1(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE,
                                          CUDNN_TYPE_HANDLE, &b->c->handle));
#if CUDNN_VERSION >= 90500
            if (b->kcache)
                CK("execution plan kernel cache",
                   set_desc(plan, CUDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE, b->kcache));
#endif
            const double tp = mono_s();
            st = cudnnBackendFinalize(plan);
            t_plan_s += mono_s() - tp;
            if (st != CUDNN_STATUS_SUCCESS) {
                last = st;
                cudnnGetLastErrorString(last_msg, sizeof last_msg);
                continue;
            }
            int64_t ws = 0;
            CK("workspace size", cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                                          CUDNN_TYPE_INT64, 1, &got, &ws));
            b->c->plan = plan;
            b->c->plan_ws_bytes = (size_t)(ws > 0 ? ws : 0);
            /* the engine's global index, for the verbose line */
            cudnnBackendDescriptor_t eng;
            int64_t n1 = 0;
            b->c->engine_index = -1;
            if (create(b, CUDNN_BACKEND_ENGINE_DESCRIPTOR, &eng, "engine query") == 0 &&
                cudnnBackendGetAttribute(cfgs[i], CUDNN_ATTR_ENGINECFG_ENGINE,
                                         CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n1, &eng) ==
                    CUDNN_STATUS_SUCCESS)
                CK("engine query", cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX,
                                                            CUDNN_TYPE_INT64, 1, &n1,
                                                            &b->c->engine_index));
            return 0;
        }
    }
    /* fail() appends cudnnGetLastErrorString, which may since have been
     * overwritten: put back the message of the last refusal */
    for (char *p = last_msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    snprintf(b->err, b->errlen,
             "cudnn_sdpa: no engine config for this graph (B=%d H=%d S=%d D=%d, %s%s; %d "
             "configs tried): %s%s%s",
             b->s->B, b->s->H, b->s->S, b->s->D, io_name(b->s), b->s->causal ? ", causal" : "",
             *tried, cudnnGetErrorString(last), last_msg[0] ? ": " : "", last_msg);
    return -1;
}

/* One cuDNN handle per device for the whole process: a handle's creation
 * (107 ms with the library's loading, then a few ms each) is paid once, not
 * by every measurement's setup. Setups and runs of one process are serial
 * (the runner's), so sharing it is safe; cudnnSetStream before each call. */
enum { MAX_DEVICES = 64 };
static cudnnHandle_t shared_handle[MAX_DEVICES];

static cudnnStatus_t get_handle(cudnnHandle_t *h)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= MAX_DEVICES)
        return cudnnCreate(h); /* unusual: a handle of its own */
    if (!shared_handle[dev]) {
        cudnnStatus_t st = cudnnCreate(&shared_handle[dev]);
        if (st != CUDNN_STATUS_SUCCESS) {
            shared_handle[dev] = NULL;
            return st;
        }
    }
    *h = shared_handle[dev];
    return CUDNN_STATUS_SUCCESS;
}

static bool is_shared_handle(cudnnHandle_t h)
{
    for (int i = 0; i < MAX_DEVICES; i++)
        if (h && shared_handle[i] == h)
            return true;
    return false;
}

/* Kernel caches (cuDNN >= 9.5, CUDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR), opt-in
 * with AB_CUDNN_SDPA_KERNEL_CACHE=1: one per graph topology and device, the
 * graphs built with dynamic shapes enabled (which the cache requires: cuDNN
 * docs, "Dynamic Shapes and Kernel Cache"), so that the fused kernel cuDNN
 * builds at plan finalize would be built once per topology and bound again
 * for every other B, H, S, S_kv of it. Topology: pass, dtype, D, mask,
 * shifted mask, empty rows, stats output, grouped-query heads. Off by
 * default: on an H100 with cuDNN 9.14 (2026-11-26,
 * reports/cost-per-answer-adapters/, call 2's logs) heuristics offered no
 * engine config for these graphs with dynamic shapes (NOT_SUPPORTED, none
 * tried), forward or backward, so every setup fell back to static shapes
 * after a refused attempt; the verbose line then says "refused". */
typedef struct kcache_entry {
    int dev, bwd, dtype, D, mask, shift, empty, stats, grouped;
    cudnnBackendDescriptor_t cache;
} kcache_entry;
enum { MAX_KCACHE = 64 };
static kcache_entry kcaches[MAX_KCACHE];
static int nkcaches;

static bool kcache_enabled(void)
{
#if CUDNN_VERSION >= 90500
    const char *e = getenv("AB_CUDNN_SDPA_KERNEL_CACHE");
    return cudnnGetVersion() >= 90500 && e && strcmp(e, "1") == 0;
#else
    return false;
#endif
}

static kcache_entry kcache_key(const ab_shape *s, int bwd, int with_stats)
{
    kcache_entry k;
    memset(&k, 0, sizeof k);
    cudaGetDevice(&k.dev);
    k.bwd = bwd;
    k.dtype = (int)s->dtype;
    k.D = s->D;
    k.mask = has_mask(s);
    k.shift = shifted(s);
    k.empty = has_empty_rows(s);
    k.stats = with_stats;
    k.grouped = ab_shape_hkv(s) != s->H;
    return k;
}

/* Whether two keys name the same topology (the cache pointer aside). */
static bool same_topology(const kcache_entry *a, const kcache_entry *b)
{
    return a->dev == b->dev && a->bwd == b->bwd && a->dtype == b->dtype && a->D == b->D &&
           a->mask == b->mask && a->shift == b->shift && a->empty == b->empty &&
           a->stats == b->stats && a->grouped == b->grouped;
}

/* The cache of key's topology, or NULL when none exists yet. */
static cudnnBackendDescriptor_t kcache_find(const kcache_entry *key)
{
    for (int i = 0; i < nkcaches; i++)
        if (same_topology(&kcaches[i], key))
            return kcaches[i].cache;
    return NULL;
}

/* A new, finalized kernel cache for `graph` (the first graph of its
 * topology), remembered under key. NULL when cuDNN refuses one or the table
 * is full (the build then goes on without a cache). */
static cudnnBackendDescriptor_t kcache_new(const kcache_entry *key, cudnnBackendDescriptor_t graph)
{
#if CUDNN_VERSION >= 90500
    if (nkcaches == MAX_KCACHE)
        return NULL;
    cudnnBackendDescriptor_t kc = NULL;
    if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR, &kc) !=
        CUDNN_STATUS_SUCCESS)
        return NULL;
    if (set_desc(kc, CUDNN_ATTR_KERNEL_CACHE_OPERATION_GRAPH, graph) != CUDNN_STATUS_SUCCESS ||
        cudnnBackendFinalize(kc) != CUDNN_STATUS_SUCCESS) {
        cudnnBackendDestroyDescriptor(kc);
        return NULL;
    }
    kcaches[nkcaches] = *key;
    kcaches[nkcaches++].cache = kc;
    return kc;
#else
    (void)key;
    (void)graph;
    return NULL;
#endif
}

/* The verbose line's word for c->kcache. */
static const char *kcache_word(int k)
{
    return k == 2 ? "reused (no compile)" : k == 1 ? "new (compiled)" : "off";
}

static void destroy_descs(cudnn_sdpa_ctx *c)
{
    for (int i = c->ndescs - 1; i >= 0; i--)
        cudnnBackendDestroyDescriptor(c->descs[i]);
    c->ndescs = 0;
    c->plan = NULL;
}

extern "C" void cudnn_sdpa_teardown(void *ctx)
{
    cudnn_sdpa_ctx *c = (cudnn_sdpa_ctx *)ctx;
    if (!c)
        return;
    if (c->bwd) {
        c->bwd->handle = NULL; /* shared with c */
        cudnn_sdpa_teardown(c->bwd);
    }
    if (c->vpack)
        cudnnBackendDestroyDescriptor(c->vpack);
    if (!c->keep_descs && !c->borrowed) /* else kept: a kernel cache or the plan cache */
        destroy_descs(c);
    if (c->workspace)
        cudaFree(c->workspace);
    if (c->stats_in)
        cudaFree(c->stats_in);
    if (c->handle && !c->borrowed && !is_shared_handle(c->handle))
        cudnnDestroy(c->handle);
    free(c);
}

/* The graph (forward, or backward when bwd) and its plan, with the
 * topology's kernel cache when b->dynamic (a new cache when it is the
 * first of its topology: that setup pays cuDNN's compile, recorded in
 * c->kcache). 0, or -1 with the error set. */
static int graph_and_plan(build *b, int bwd, cudnnBackendDescriptor_t *graph, int *tried)
{
    b->kcache = NULL;
    const double tg = mono_s();
    const int rc = bwd ? build_graph_bwd(b, graph) : build_graph(b, graph);
    t_graph_s += mono_s() - tg;
    if (rc)
        return -1;
    bool made = false;
    if (b->dynamic) {
        const kcache_entry key = kcache_key(b->s, bwd, b->c->with_stats);
        b->kcache = kcache_find(&key);
        if (!b->kcache) {
            b->kcache = kcache_new(&key, *graph);
            made = b->kcache != NULL;
            if (!made && getenv("AB_CUDNN_SDPA_VERBOSE"))
                fprintf(stderr, "cudnn_sdpa: no kernel cache for this topology (cuDNN refused "
                                "the descriptor)\n");
        }
    }
    if (build_plan(b, *graph, tried)) {
        if (made) /* no plan with this cache: forget it */
            cudnnBackendDestroyDescriptor(kcaches[--nkcaches].cache);
        return -1;
    }
    b->c->kcache = b->kcache ? (made ? 1 : 2) : 0;
    if (made)
        b->c->keep_descs = 1;
    return 0;
}

/* The scalars a variant pack points at, for shape s. */
static void init_scalars(cudnn_sdpa_ctx *c, const ab_shape *s)
{
    c->scale = 1.0f / sqrtf((float)s->D);
    c->neg_inf = -INFINITY;
    c->shift = (int32_t)(ab_shape_skv(s) - s->S);
    c->one = 1.0f;
}

/* The graphs and plans of shape s on c->handle (set by the caller): the
 * forward (inference graph first, the training graph with a stats output
 * if cuDNN refuses it; dynamic shapes with the kernel cache first when
 * use_cache), and for pass != fwd the backward in a new c->bwd. No
 * workspace. 0, or -1 with the error set (the caller tears c down). */
static int build_plans(cudnn_sdpa_ctx *c, const ab_shape *s, bool use_cache, char *err, size_t n,
                       int *tried, int *tried_b)
{
    build b = {c, s, s->dtype == AB_FP16 ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16, err, n,
               false, NULL};
    cudnnBackendDescriptor_t graph;
    char first_err[512] = "";
    *tried = *tried_b = 0;
    for (int dyn = use_cache ? 1 : 0; dyn >= 0 && !c->plan; dyn--) {
        b.dynamic = dyn != 0;
        for (c->with_stats = 0; c->with_stats <= 1; c->with_stats++) {
            if (c->ndescs) {
                if (c->with_stats)
                    snprintf(first_err, sizeof first_err, "%s", err);
                destroy_descs(c);
            }
            if (graph_and_plan(&b, 0, &graph, tried) == 0)
                break;
            if (b.dynamic && getenv("AB_CUDNN_SDPA_VERBOSE"))
                fprintf(stderr, "cudnn_sdpa: dynamic-shape graph refused (%s): %s\n",
                        c->with_stats ? "training" : "inference", err);
        }
    }
    if (!c->plan) { /* report the inference graph's refusal */
        snprintf(err, n, "%s (with a stats output as well)", first_err);
        return -1;
    }
    if (s->pass == AB_FWD)
        return 0;
    cudnn_sdpa_ctx *w = (cudnn_sdpa_ctx *)calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, n, "cudnn_sdpa: out of host memory");
        return -1;
    }
    c->bwd = w;
    w->handle = c->handle;
    init_scalars(w, s);
    build bb = {w, s, b.io, err, n, use_cache, NULL};
    cudnnBackendDescriptor_t g;
    if (graph_and_plan(&bb, 1, &g, tried_b) == 0)
        return 0;
    if (!use_cache)
        return -1;
    if (getenv("AB_CUDNN_SDPA_VERBOSE"))
        fprintf(stderr, "cudnn_sdpa: dynamic-shape backward graph refused: %s\n", err);
    destroy_descs(w); /* static shapes, as before the cache */
    bb.dynamic = false;
    return graph_and_plan(&bb, 1, &g, tried_b);
}

/* The plan cache: every forward (and backward) plan this process built,
 * by exact shape and device, so that a second setup of a shape (another
 * instance of the variant, a later run of the same process) and a setup
 * after cudnn_sdpa_prepare take the plan instead of building it again.
 * The same shape gets the same engine config (heuristics are
 * deterministic); what a setup still makes afresh is its workspace and
 * variant pack. Entries live for the process (cuDNN keeps a plan's
 * compiled kernel loaded); past MAX_PLANS a setup builds a plan of its own
 * as before. Not used with AB_CUDNN_SDPA_KERNEL_CACHE=1. Guarded by
 * plans_mu: cudnn_sdpa_prepare fills it from several threads. */
typedef struct plan_entry {
    int dev;
    ab_shape s;            /* pass, H_kv and S_kv as given; compared by value */
    cudnn_sdpa_ctx *plans; /* handle, plan, descriptors; no workspace */
} plan_entry;
enum { MAX_PLANS = 512 };
static plan_entry plans[MAX_PLANS];
static int nplans;
static pthread_mutex_t plans_mu = PTHREAD_MUTEX_INITIALIZER;

static bool same_shape(const ab_shape *a, const ab_shape *b)
{
    return a->B == b->B && a->H == b->H && a->S == b->S && a->D == b->D &&
           (a->causal != 0) == (b->causal != 0) && a->dtype == b->dtype &&
           ab_shape_hkv(a) == ab_shape_hkv(b) && ab_shape_skv(a) == ab_shape_skv(b) &&
           a->pass == b->pass;
}

/* The cached plans of (dev, s), or NULL. Caller holds plans_mu. */
static cudnn_sdpa_ctx *plans_find_locked(int dev, const ab_shape *s)
{
    for (int i = 0; i < nplans; i++)
        if (plans[i].dev == dev && same_shape(&plans[i].s, s))
            return plans[i].plans;
    return NULL;
}

static cudnn_sdpa_ctx *plans_find(int dev, const ab_shape *s)
{
    pthread_mutex_lock(&plans_mu);
    cudnn_sdpa_ctx *p = plans_find_locked(dev, s);
    pthread_mutex_unlock(&plans_mu);
    return p;
}

/* Gives c to the cache under (dev, s). true when taken (the cache owns c
 * from then on); false when full or already present (c stays the
 * caller's). */
static bool plans_adopt(int dev, const ab_shape *s, cudnn_sdpa_ctx *c)
{
    bool taken = false;
    pthread_mutex_lock(&plans_mu);
    if (nplans < MAX_PLANS && !plans_find_locked(dev, s)) {
        plans[nplans].dev = dev;
        plans[nplans].s = *s;
        plans[nplans++].plans = c;
        taken = true;
    }
    pthread_mutex_unlock(&plans_mu);
    return taken;
}

/* A new context that uses the cached plans p (and p->bwd's): handle, plan,
 * engine, stats choice; its own scalars, workspace and variant pack. NULL
 * when out of memory. */
static cudnn_sdpa_ctx *borrow(const cudnn_sdpa_ctx *p, const ab_shape *s)
{
    cudnn_sdpa_ctx *c = (cudnn_sdpa_ctx *)calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->handle = p->handle;
    c->plan = p->plan;
    c->plan_ws_bytes = p->plan_ws_bytes;
    c->with_stats = p->with_stats;
    c->engine_index = p->engine_index;
    c->borrowed = 1;
    init_scalars(c, s);
    if (p->bwd) {
        cudnn_sdpa_ctx *w = (cudnn_sdpa_ctx *)calloc(1, sizeof *w);
        if (!w) {
            free(c);
            return NULL;
        }
        w->handle = p->bwd->handle;
        w->plan = p->bwd->plan;
        w->plan_ws_bytes = p->bwd->plan_ws_bytes;
        w->engine_index = p->bwd->engine_index;
        w->borrowed = 1;
        init_scalars(w, s);
        c->bwd = w;
    }
    return c;
}

/* Workspaces of c (and c->bwd) for shape s; *total their bytes. 0 or -1
 * with the error set. */
static int alloc_workspaces(cudnn_sdpa_ctx *c, const ab_shape *s, size_t *total, char *err,
                            size_t n)
{
    size_t stats_bytes = c->with_stats ? (size_t)s->B * s->H * s->S * sizeof(float) : 0;
    size_t ws_off = (c->plan_ws_bytes + 255) & ~(size_t)255;
    *total = ws_off + stats_bytes;
    if (*total) {
        cudaError_t e = cudaMalloc(&c->workspace, *total);
        if (e != cudaSuccess) {
            c->workspace = NULL;
            snprintf(err, n, "cudnn_sdpa: workspace of %zu bytes: %s", *total,
                     cudaGetErrorString(e));
            return -1;
        }
        if (c->with_stats)
            c->stats = (float *)((char *)c->workspace + ws_off);
    }
    cudnn_sdpa_ctx *w = c->bwd;
    if (!w)
        return 0;
    const size_t rows = (size_t)s->B * s->H * s->S;
    const size_t off1 = (w->plan_ws_bytes + 255) & ~(size_t)255;
    const size_t off2 = off1 + ((rows * sizeof(float) + 255) & ~(size_t)255);
    const size_t tot = off2 + rows * (size_t)s->D * sizeof(float);
    cudaError_t e = cudaMalloc(&w->workspace, tot);
    if (e != cudaSuccess) {
        w->workspace = NULL;
        snprintf(err, n, "cudnn_sdpa: backward workspace of %zu bytes: %s", tot,
                 cudaGetErrorString(e));
        return -1;
    }
    w->softmax_sum = (float *)((char *)w->workspace + off1);
    w->dq_accum = (float *)((char *)w->workspace + off2);
    *total += tot;
    if (has_empty_rows(s)) {
        e = cudaMalloc(&w->stats_in, rows * sizeof(float));
        if (e != cudaSuccess) {
            w->stats_in = NULL;
            snprintf(err, n, "cudnn_sdpa: backward logsumexp copy of %zu bytes: %s",
                     rows * sizeof(float), cudaGetErrorString(e));
            return -1;
        }
        *total += rows * sizeof(float);
    }
    return 0;
}

/* setup: handle, graph, plan and workspace for shape s (fp16/bf16 only);
 * the plans from the plan cache when this process built them before (an
 * earlier setup, cudnn_sdpa_prepare). Fails with cuDNN's status and the
 * step when cuDNN refuses the shape. */
extern "C" int cudnn_sdpa_setup(const ab_shape *s, void **ctx, size_t *ws, char *err, size_t n)
{
    *ctx = NULL;
    *ws = 0;
    if (s->dtype != AB_FP16 && s->dtype != AB_BF16) {
        snprintf(err, n, "cudnn_sdpa: dtype %s not supported (fp16, bf16)", io_name(s));
        return -1;
    }
    const bool use_cache = kcache_enabled();
    const double t_start = mono_s();
    t_graph_s = t_heur_s = t_plan_s = 0.0;
    int dev = 0, tried = 0, tried_b = 0;
    cudaGetDevice(&dev);
    cudnn_sdpa_ctx *cached = use_cache ? NULL : plans_find(dev, s);
    cudnn_sdpa_ctx *c = cached ? borrow(cached, s) : (cudnn_sdpa_ctx *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, n, "cudnn_sdpa: out of host memory");
        return -1;
    }
    double t_handle = mono_s();
    if (!cached) {
        init_scalars(c, s);
        build b = {c, s, CUDNN_DATA_HALF, err, n, false, NULL};
        cudnnStatus_t st = get_handle(&c->handle);
        t_handle = mono_s();
        if (st != CUDNN_STATUS_SUCCESS) {
            c->handle = NULL;
            fail(&b, "cudnnCreate", st);
            cudnn_sdpa_teardown(c);
            return -1;
        }
        if (build_plans(c, s, use_cache, err, n, &tried, &tried_b)) {
            cudnn_sdpa_teardown(c);
            return -1;
        }
        if (!use_cache && !c->keep_descs && plans_adopt(dev, s, c)) {
            cudnn_sdpa_ctx *own = borrow(c, s); /* c is the cache's now */
            if (!own) {
                snprintf(err, n, "cudnn_sdpa: out of host memory");
                return -1;
            }
            c = own;
        }
    }
    size_t total = 0;
    if (alloc_workspaces(c, s, &total, err, n)) {
        cudnn_sdpa_teardown(c);
        return -1;
    }
    *ws = total;
    if (getenv("AB_CUDNN_SDPA_VERBOSE")) {
        char tried_text[48];
        snprintf(tried_text, sizeof tried_text, "%d config%s tried", tried, tried == 1 ? "" : "s");
        if (c->bwd)
            fprintf(stderr, "cudnn_sdpa: backward: engine %lld, %d configs tried, kernel cache "
                            "%s\n", (long long)c->bwd->engine_index, tried_b,
                    kcache_word(c->bwd->kcache));
        fprintf(stderr,
                "cudnn_sdpa: B=%d H=%d S=%d D=%d %s%s: engine %lld, %s graph, %s, "
                "workspace %zu bytes, cuDNN %zu, kernel cache %s; setup %.1f ms (handle %.1f ms, "
                "graphs %.1f ms, heuristics %.1f ms, plan finalize %.1f ms)\n",
                s->B, s->H, s->S, s->D, io_name(s), s->causal ? " causal" : "",
                (long long)c->engine_index, c->with_stats ? "training (stats)" : "inference",
                cached ? "plans from the plan cache" : tried_text,
                total, cudnnGetVersion(), kcache_word(c->kcache), 1e3 * (mono_s() - t_start),
                1e3 * (t_handle - t_start), 1e3 * t_graph_s, 1e3 * t_heur_s, 1e3 * t_plan_s);
    }
    *ctx = c;
    return 0;
}

/* prepare (variant.h ab_prepare_fn): the plans of every fp16/bf16 shape
 * of `shapes` that the plan cache lacks, built on up to `threads` threads
 * at once, each with a cuDNN handle of its own (kept with its plans: a
 * plan runs on the handle that built it, from the runner's one thread
 * later). One shape of each kernel flavour (pass, dtype, D, mask) comes
 * first, so the flavours' first builds, where cuDNN compiles the kernel
 * (0.7-1.3 s on an H100, reports/cost-per-answer-adapters/README.md),
 * overlap. A shape that fails is left to setup, which reports why. Not
 * with the kernel cache (AB_CUDNN_SDPA_KERNEL_CACHE=1): returns 0. */
typedef struct prep_job {
    int dev;
    const ab_shape *work;
    size_t nwork;
    size_t next;     /* the next work item, taken under mu */
    int built;       /* shapes now in the cache */
    pthread_mutex_t mu;
} prep_job;

static void *prepare_worker(void *arg)
{
    prep_job *j = (prep_job *)arg;
    cudnnHandle_t h = NULL;
    bool used = false;
    if (cudaSetDevice(j->dev) != cudaSuccess || cudnnCreate(&h) != CUDNN_STATUS_SUCCESS)
        return NULL;
    for (;;) {
        pthread_mutex_lock(&j->mu);
        const size_t i = j->next++;
        pthread_mutex_unlock(&j->mu);
        if (i >= j->nwork)
            break;
        const ab_shape *s = &j->work[i];
        cudnn_sdpa_ctx *c = (cudnn_sdpa_ctx *)calloc(1, sizeof *c);
        if (!c)
            break;
        char err[512];
        int tried, tried_b;
        c->handle = h;
        init_scalars(c, s);
        if (build_plans(c, s, false, err, sizeof err, &tried, &tried_b) == 0 &&
            plans_adopt(j->dev, s, c)) {
            used = true;
            pthread_mutex_lock(&j->mu);
            j->built++;
            pthread_mutex_unlock(&j->mu);
            continue;
        }
        c->handle = NULL; /* the worker's, destroyed below if unused */
        cudnn_sdpa_teardown(c);
    }
    if (!used)
        cudnnDestroy(h);
    return NULL;
}

/* Flavour of a shape: the kernel cuDNN compiles for it, the kernel
 * cache's topology (kcache_key) with the pass in place of the graph. */
static bool same_flavour(const ab_shape *a, const ab_shape *b)
{
    const kcache_entry ka = kcache_key(a, (int)a->pass, 0), kb = kcache_key(b, (int)b->pass, 0);
    return same_topology(&ka, &kb);
}

extern "C" int cudnn_sdpa_prepare(const ab_shape *shapes, size_t n, int threads)
{
    int dev = 0;
    if (n == 0 || kcache_enabled() || cudaGetDevice(&dev) != cudaSuccess)
        return 0;
    ab_shape *work = (ab_shape *)calloc(n, sizeof *work);
    bool *first = (bool *)calloc(n, sizeof *first);
    if (!work || !first) {
        free(work);
        free(first);
        return 0;
    }
    /* the distinct shapes the cache lacks, each flavour's first ahead */
    size_t nw = 0, nfirst = 0, had = 0;
    for (size_t i = 0; i < n; i++) {
        const ab_shape *s = &shapes[i];
        if (s->dtype != AB_FP16 && s->dtype != AB_BF16)
            continue;
        bool dup = false, seen = false;
        for (size_t k = 0; k < nw && !dup; k++)
            dup = same_shape(&work[k], s);
        if (dup)
            continue;
        if (plans_find(dev, s)) {
            had++;
            continue;
        }
        for (size_t k = 0; k < nw && !seen; k++)
            seen = same_flavour(&work[k], s);
        first[nw] = !seen;
        nfirst += !seen;
        work[nw++] = *s;
    }
    /* stable partition: flavours' firsts, then the rest */
    ab_shape *ordered = (ab_shape *)calloc(nw ? nw : 1, sizeof *ordered);
    if (!ordered) {
        free(work);
        free(first);
        return (int)had;
    }
    size_t a = 0, b = nfirst;
    for (size_t i = 0; i < nw; i++)
        ordered[first[i] ? a++ : b++] = work[i];
    prep_job j;
    j.dev = dev;
    j.work = ordered;
    j.nwork = nw;
    j.next = 0;
    j.built = 0;
    pthread_mutex_init(&j.mu, NULL);
    int nt = threads < 1 ? 1 : threads;
    if ((size_t)nt > nw)
        nt = (int)nw;
    pthread_t tid[64];
    if (nt > 64)
        nt = 64;
    int started = 0;
    for (int i = 0; i < nt; i++)
        if (pthread_create(&tid[started], NULL, prepare_worker, &j) == 0)
            started++;
    if (started == 0 && nw > 0) /* no thread: build here, one by one */
        prepare_worker(&j);
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&j.mu);
    free(ordered);
    free(work);
    free(first);
    return (int)had + j.built;
}

/* run: one forward pass on `stream`. Rebuilds the variant pack only when the
 * device pointers differ from the last call's. Returns a cudnnStatus_t. */
extern "C" int cudnn_sdpa_run(void *ctx, const ab_shape *s, const void *q, const void *k,
                              const void *v, void *o, void *stream)
{
    cudnn_sdpa_ctx *c = (cudnn_sdpa_ctx *)ctx;
    cudnnStatus_t st;
    const char *step = "cudnnSetStream";
    if ((st = cudnnSetStream(c->handle, (cudaStream_t)stream)) != CUDNN_STATUS_SUCCESS)
        goto out;
    if (!c->vpack || c->vp_q != q || c->vp_k != k || c->vp_v != v || c->vp_o != o) {
        int64_t uids[8] = {UID_Q, UID_KT, UID_V, UID_O, UID_SCALE};
        void *ptrs[8] = {(void *)q, (void *)k, (void *)v, o, &c->scale}; /* <= 8 with the extras */
        int64_t np = 5;
        if (has_mask(s)) {
            uids[np] = UID_NEG_INF;
            ptrs[np++] = &c->neg_inf;
        }
        if (shifted(s)) {
            uids[np] = UID_SHIFT;
            ptrs[np++] = &c->shift;
        }
        if (c->with_stats) {
            uids[np] = UID_STATS;
            ptrs[np++] = c->stats;
        }
        if (c->vpack) {
            cudnnBackendDestroyDescriptor(c->vpack);
            c->vpack = NULL;
        }
        step = "variant pack";
        if ((st = cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &c->vpack)) !=
            CUDNN_STATUS_SUCCESS) {
            c->vpack = NULL;
            goto out;
        }
        if ((st = cudnnBackendSetAttribute(c->vpack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
                                           CUDNN_TYPE_INT64, np, uids)) != CUDNN_STATUS_SUCCESS ||
            (st = cudnnBackendSetAttribute(c->vpack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                                           CUDNN_TYPE_VOID_PTR, np, ptrs)) != CUDNN_STATUS_SUCCESS ||
            (st = cudnnBackendSetAttribute(c->vpack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
                                           CUDNN_TYPE_VOID_PTR, 1, &c->workspace)) !=
                CUDNN_STATUS_SUCCESS ||
            (st = cudnnBackendFinalize(c->vpack)) != CUDNN_STATUS_SUCCESS) {
            cudnnBackendDestroyDescriptor(c->vpack);
            c->vpack = NULL;
            goto out;
        }
        c->vp_q = q;
        c->vp_k = k;
        c->vp_v = v;
        c->vp_o = o;
    }
    step = "cudnnBackendExecute";
    st = cudnnBackendExecute(c->handle, c->plan, c->vpack);
out:
    if (st != CUDNN_STATUS_SUCCESS) {
        char last[256] = "";
        cudnnGetLastErrorString(last, sizeof last);
        fprintf(stderr, "cudnn_sdpa: %s: %s %s\n", step, cudnnGetErrorString(st), last);
        return (int)st;
    }
    return 0;
}

/* run_bwd: one backward pass on `stream` from the forward's O and
 * logsumexp (lse is cuDNN's stats tensor: max + log sum, natural
 * log). The variant pack is rebuilt only when a pointer changes; dQ_accum
 * is zeroed first where cuDNN before 9.6 needs it (cudnn-frontend's rule).
 * Returns a cudnnStatus_t (or a cudaError_t of the memset). */
extern "C" int cudnn_sdpa_run_bwd(void *ctx, const ab_shape *s, const void *q, const void *k,
                                  const void *v, const void *o, const void *dout,
                                  const float *lse, void *dq, void *dk, void *dv, void *stream)
{
    cudnn_sdpa_ctx *w = ((cudnn_sdpa_ctx *)ctx)->bwd;
    cudnnStatus_t st;
    const char *step = "cudnnSetStream";
    if (!w)
        return -1;
    if ((st = cudnnSetStream(w->handle, (cudaStream_t)stream)) != CUDNN_STATUS_SUCCESS)
        goto out;
    if (!w->vpack || w->vp_q != q || w->vp_k != k || w->vp_v != v || w->vp_o != o ||
        w->vp_do != dout || w->vp_lse != lse || w->vp_dq != dq || w->vp_dk != dk ||
        w->vp_dv != dv) {
        int64_t uids[16] = {UID_Q,  UID_KT, UID_VT,    UID_O,   UID_DO,
                            UID_STATS, UID_DQ, UID_DK, UID_DV, UID_SCALE,
                            UID_ONE, UID_SOFTMAX_SUM, UID_DQ_ACCUM};
        void *ptrs[16] = {(void *)q, (void *)k, (void *)v, (void *)o, (void *)dout,
                          w->stats_in ? (void *)w->stats_in : (void *)lse, dq, dk, dv, &w->scale,
                          &w->one, w->softmax_sum, w->dq_accum};
        int64_t np = 13;
        if (has_mask(s)) {
            uids[np] = UID_NEG_INF;
            ptrs[np++] = &w->neg_inf;
        }
        if (shifted(s)) {
            uids[np] = UID_SHIFT;
            ptrs[np++] = &w->shift;
        }
        if (w->vpack) {
            cudnnBackendDestroyDescriptor(w->vpack);
            w->vpack = NULL;
        }
        step = "variant pack";
        if ((st = cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &w->vpack)) !=
            CUDNN_STATUS_SUCCESS) {
            w->vpack = NULL;
            goto out;
        }
        if ((st = cudnnBackendSetAttribute(w->vpack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
                                           CUDNN_TYPE_INT64, np, uids)) != CUDNN_STATUS_SUCCESS ||
            (st = cudnnBackendSetAttribute(w->vpack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                                           CUDNN_TYPE_VOID_PTR, np, ptrs)) != CUDNN_STATUS_SUCCESS ||
            (st = cudnnBackendSetAttribute(w->vpack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
                                           CUDNN_TYPE_VOID_PTR, 1, &w->workspace)) !=
                CUDNN_STATUS_SUCCESS ||
            (st = cudnnBackendFinalize(w->vpack)) != CUDNN_STATUS_SUCCESS) {
            cudnnBackendDestroyDescriptor(w->vpack);
            w->vpack = NULL;
            goto out;
        }
        w->vp_q = q, w->vp_k = k, w->vp_v = v, w->vp_o = (void *)o, w->vp_do = dout;
        w->vp_lse = lse, w->vp_dq = dq, w->vp_dk = dk, w->vp_dv = dv;
    }
    if (w->stats_in) { /* causal S > S_kv: rows that see no key get P = 0 */
        const size_t rows = (size_t)s->B * s->H * s->S;
        stats_for_empty_rows<<<(unsigned)((rows + 255) / 256), 256, 0, (cudaStream_t)stream>>>(
            lse, w->stats_in, rows);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return (int)e;
    }
    if (cudnnGetVersion() < 90600) {
        cudaError_t e = cudaMemsetAsync(w->dq_accum, 0,
                                        (size_t)s->B * s->H * s->S * s->D * sizeof(float),
                                        (cudaStream_t)stream);
        if (e != cudaSuccess)
            return (int)e;
    }
    step = "cudnnBackendExecute";
    st = cudnnBackendExecute(w->handle, w->plan, w->vpack);
out:
    if (st != CUDNN_STATUS_SUCCESS) {
        char last[256] = "";
        cudnnGetLastErrorString(last, sizeof last);
        fprintf(stderr, "cudnn_sdpa: backward: %s: %s %s\n", step, cudnnGetErrorString(st), last);
        return (int)st;
    }
    return 0;
}

#else /* cuDNN 8 or older: the backend attributes used above do not exist */

extern "C" int cudnn_sdpa_setup(const ab_shape *s, void **ctx, size_t *ws, char *err, size_t n)
{
    *ctx = NULL;
    *ws = 0;
    snprintf(err, n, "cudnn_sdpa: needs cuDNN 9; this build found cuDNN %d.%d", CUDNN_MAJOR,
             CUDNN_MINOR);
    return -1;
}

extern "C" int cudnn_sdpa_run(void *ctx, const ab_shape *s, const void *q, const void *k,
                              const void *v, void *o, void *stream)
{
    return -1;
}

extern "C" void cudnn_sdpa_teardown(void *ctx) {}

extern "C" int cudnn_sdpa_prepare(const ab_shape *shapes, size_t n, int threads)
{
    return 0;
}

extern "C" int cudnn_sdpa_run_bwd(void *ctx, const ab_shape *s, const void *q, const void *k,
                                  const void *v, const void *o, const void *dout,
                                  const float *lse, void *dq, void *dk, void *dv, void *stream)
{
    return -1;
}

#endif
