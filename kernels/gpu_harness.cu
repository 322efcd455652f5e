/*
 * gpu_harness.cu: the GPU side of the harness (gpu.h): device query, input
 * generation on the device (gpu_inputs.h) or upload in the dtype, output
 * poisoning, timing with CUDA events in the cold,
 * hot and graph modes, and output download. Variants never time themselves.
 */
#include "gpu.h"
#include "gpu_check.h"
#include "gpu_inputs.h"
#include "registry.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#ifdef AB_HAVE_CUDNN
#include <cudnn.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

struct ab_gpu_bufs {
    ab_shape s;
    void *q, *k, *v, *o;
    int seeded;         /* inputs generated on the device from `seed` (data.h) */
    unsigned long seed;
    /* hot and graph modes: sets 1..nsets-1 of Q, K, V, O copies, so that
     * back-to-back launches do not find their inputs in L2 */
    int nsets;
    char *rot;            /* (nsets - 1) sets of 4 tensors, each `stride` bytes */
    size_t stride;
    void *flush;          /* L2 flush buffer, 2x L2 size */
    size_t flush_bytes;
    cudaStream_t stream;
    cudaEvent_t e0, e1;
    void *ref; /* the device reference of these inputs (gpu_reference.cu), made on first check */
    /* backward pass (ab_gpu_bwd_prepare; NULL otherwise) */
    void *dout, *dq, *dk, *dv;
    float *lse;
    void *bref; /* the float64 backward reference (gpu_reference_bwd.cu) */
    /* the hold (hold_stream below): [0] the release flag, [1] set by the
     * kernel when it gave up waiting; host memory mapped into the device */
    volatile int *hold;
    int *hold_dev;
    int hold_warned;
    long blocks; /* ab_gpu_time calls on these buffers */
    /* the input set the next hot or graph launch takes: it carries on from
     * block to block, so that blocks of round_size launches cycle through
     * every set; each block used to start again at set 0, so with rounds of
     * 2 only sets 0 and 1 were ever read, and where two sets fit in L2
     * (a decode step's K/V cache up to S_kv = 4096 at H_kv = 8, D = 128)
     * every block found them there (reports/rotation/) */
    long next_set;
    /* an external variant's layout (gpu_ipc.cu): nsets sets of Q, K, V, O
     * in [B,S,H,D], each tensor `stride` bytes; NULL until asked for */
    void *lay;
    int lay_ready;
};

extern "C" void ab_gpu_bufs_parts(ab_gpu_bufs *b, ab_gpu_parts *p)
{
    p->s = b->s;
    p->q = b->q;
    p->k = b->k;
    p->v = b->v;
    p->o = b->o;
    p->stream = (void *)b->stream;
    p->ref = &b->ref;
    p->dout = b->dout;
    p->dq = b->dq;
    p->dk = b->dk;
    p->dv = b->dv;
    p->lse = b->lse;
    p->bref = &b->bref;
    p->nsets = b->nsets;
    p->rot = b->rot;
    p->stride = b->stride;
    p->lay = &b->lay;
    p->lay_ready = &b->lay_ready;
}

#define CK(call)                                                                        \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            snprintf(err, n, "%s: %s (%s:%d)", #call, cudaGetErrorString(e_), __FILE__, \
                     __LINE__);                                                         \
            return -1;                                                                  \
        }                                                                               \
    } while (0)

/* Never launched: cudaFuncGetAttributes on it tells which image of this
 * build (SASS for which sm, or PTX) the device loads. */
__global__ void image_probe_kernel(void) {}

extern "C" int ab_gpu_query(ab_gpu_info *g, char *err, size_t n)
{
    memset(g, 0, sizeof *g);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        snprintf(err, n, "no CUDA device: %s",
                 e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount returned 0");
        return -1;
    }
    CK(cudaGetDevice(&g->device));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, g->device));
    snprintf(g->name, sizeof g->name, "%s", p.name);
    const unsigned char *u = (const unsigned char *)p.uuid.bytes;
    snprintf(g->uuid, sizeof g->uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
             u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
             u[14], u[15]);
    g->cc_major = p.major;
    g->cc_minor = p.minor;
    g->sm_count = p.multiProcessorCount;
    g->ecc = p.ECCEnabled;
    CK(cudaDeviceGetAttribute(&g->l2_bytes, cudaDevAttrL2CacheSize, g->device));
    CK(cudaDeviceGetAttribute(&g->sm_clock_khz, cudaDevAttrClockRate, g->device));
    CK(cudaDeviceGetAttribute(&g->mem_clock_khz, cudaDevAttrMemoryClockRate, g->device));
    CK(cudaMemGetInfo(&g->mem_free, &g->mem_total));
    CK(cudaDriverGetVersion(&g->driver_version));
    CK(cudaRuntimeGetVersion(&g->runtime_version));
    g->cublas_version = (int)cublasGetCudartVersion(); /* runtime cuBLAS was built for */
    {
        cublasHandle_t h;
        if (cublasCreate(&h) == CUBLAS_STATUS_SUCCESS) {
            int v = 0;
            if (cublasGetVersion(h, &v) == CUBLAS_STATUS_SUCCESS)
                g->cublas_version = v;
            cublasDestroy(h);
        }
    }
#ifdef AB_HAVE_CUDNN
    g->cudnn_version = (int)cudnnGetVersion();
#endif
    CK(cudaDeviceGetAttribute(&g->smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                              g->device));
    /* which image of this build the device loads (no image: not compiled
     * for this GPU, and every kernel launch would fail) */
    cudaFuncAttributes fa;
    if (cudaFuncGetAttributes(&fa, image_probe_kernel) == cudaSuccess) {
        g->image_binary_cc = fa.binaryVersion;
        g->image_ptx_cc = fa.ptxVersion;
    } else {
        (void)cudaGetLastError(); /* clear the sticky-free "no kernel image" error */
    }
    return 0;
}

static int smem_limit(int *bytes)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
        return -1;
    const char *cap = getenv("ATTNBENCH_SMEM_LIMIT");
    if (cap && *cap) {
        char *end = NULL;
        long x = strtol(cap, &end, 10);
        if (*end == '\0' && x > 0 && x < *bytes)
            *bytes = (int)x;
    }
    return 0;
}

extern "C" int ab_gpu_smem_fits(size_t bytes, const char *who, int D, char *err, size_t n)
{
    int limit = 0;
    if (smem_limit(&limit)) {
        snprintf(err, n, "%s: cannot query the device's shared memory per block", who);
        return -1;
    }
    if (bytes <= (size_t)limit)
        return 0;
    snprintf(err, n, "%s: D=%d needs %.1f KiB of shared memory per block; this GPU allows %.1f KiB",
             who, D, bytes / 1024.0, limit / 1024.0);
    return AB_SETUP_UNSUPPORTED;
}

static size_t flush_bytes_for_device(void)
{
    int dev = 0, l2 = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) != cudaSuccess || l2 <= 0)
        return 64u << 20;
    return 2 * (size_t)l2;
}

extern "C" size_t ab_gpu_bytes_needed(const ab_shape *s)
{
    /* Q, K, V, O, the flush buffer, and the L2 rotation copies (< 2 L2 + one set) */
    const size_t nq = ab_shape_numel(s), nkv = ab_shape_kv_numel(s);
    const size_t set = 4 * (nq > nkv ? nq : nkv) * ab_dtype_size(s->dtype); /* see bufs_create */
    const size_t flush = flush_bytes_for_device();
    return set + flush + (ab_l2_rotation_sets(s, (long long)flush / 2) > 1 ? flush + set : 0);
}

/* float -> the 16-bit pattern of an fp16 (round to nearest even) or bf16
 * value, and back, on the host. Through the raw structs (__half_raw,
 * __nv_bfloat16_raw), whose conversions are host-callable in every CUDA 12;
 * __half_as_ushort and its kin are host-callable only from CUDA 12.2 on. */
static unsigned short to_bits16(float x, ab_dtype t)
{
    if (t == AB_FP16) {
        const __half_raw r = __float2half_rn(x);
        return r.x;
    }
    const __nv_bfloat16_raw r = __float2bfloat16_rn(x);
    return r.x;
}

static float from_bits16(unsigned short bits, ab_dtype t)
{
    if (t == AB_FP16) {
        __half_raw r;
        r.x = bits;
        return __half2float(__half(r));
    }
    __nv_bfloat16_raw r;
    r.x = bits;
    return __bfloat162float(__nv_bfloat16(r));
}

static int upload(void *dst, const float *src, size_t numel, ab_dtype t, char *err, size_t n)
{
    if (t == AB_FP32) {
        CK(cudaMemcpy(dst, src, numel * 4, cudaMemcpyHostToDevice));
        return 0;
    }
    std::vector<unsigned short> bits(numel);
    for (size_t i = 0; i < numel; i++) {
        bits[i] = to_bits16(src[i], t);
    }
    CK(cudaMemcpy(dst, bits.data(), numel * 2, cudaMemcpyHostToDevice));
    return 0;
}

/* ab_gpu_bufs_create (q non-NULL: uploaded) and ab_gpu_bufs_create_seeded
 * (q NULL: generated on the device from seed). */
static int bufs_create(const ab_shape *s, const float *q, const float *k, const float *v,
                       unsigned long seed, ab_gpu_bufs **out, char *err, size_t n)
{
    *out = NULL;
    size_t free_b = 0, total_b = 0;
    CK(cudaMemGetInfo(&free_b, &total_b));
    const size_t need = ab_gpu_bytes_needed(s);
    if (need > free_b) {
        snprintf(err, n,
                 "B=%d H=%d S=%d D=%d %s needs %.2f GiB of device memory for Q, K, V, O and the "
                 "L2 flush buffer; %.2f GiB free",
                 s->B, s->H, s->S, s->D, ab_dtype_name(s->dtype), need / 1073741824.0,
                 free_b / 1073741824.0);
        return -1;
    }
    ab_gpu_bufs *b = (ab_gpu_bufs *)calloc(1, sizeof *b);
    if (!b) {
        snprintf(err, n, "out of host memory");
        return -1;
    }
    b->s = *s;
    /* Q and O [B,H,S,D]; K and V [B,H_kv,S_kv,D], in buffers of the larger
     * size so the rotation sets keep one stride */
    const size_t bytes_q = ab_shape_numel(s) * ab_dtype_size(s->dtype),
                 bytes_kv = ab_shape_kv_numel(s) * ab_dtype_size(s->dtype),
                 bytes = bytes_q > bytes_kv ? bytes_q : bytes_kv;
    b->flush_bytes = flush_bytes_for_device();
    int rc = -1;
#define CKB(call)                                                                      \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            snprintf(err, n, "%s: %s", #call, cudaGetErrorString(e_));                 \
            goto cleanup;                                                              \
        }                                                                              \
    } while (0)
    CKB(cudaMalloc(&b->q, bytes));
    CKB(cudaMalloc(&b->k, bytes));
    CKB(cudaMalloc(&b->v, bytes));
    CKB(cudaMalloc(&b->o, bytes));
    CKB(cudaMalloc(&b->flush, b->flush_bytes));
    {
        int dev = 0, l2 = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
        /* a backward pass reads 5 and writes 3 tensors: no rotation copies
         * (one set; the pass's own traffic is 4x the forward's O) */
        b->nsets = s->pass != AB_FWD ? 1 : ab_l2_rotation_sets(s, (long long)l2);
        b->stride = (bytes + 255) & ~(size_t)255;
        if (b->nsets > 1)
            CKB(cudaMalloc((void **)&b->rot, (size_t)(b->nsets - 1) * 4 * b->stride));
    }
    CKB(cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking));
    CKB(cudaEventCreate(&b->e0));
    CKB(cudaEventCreate(&b->e1));
    if (!q) {
        const size_t nq = ab_shape_numel(s), nkv = ab_shape_kv_numel(s);
        b->seeded = 1;
        b->seed = seed;
        if (ab_gpu_fill_stream(seed, 0, nq, s->dtype, b->q, b->stream, err, n) ||
            ab_gpu_fill_stream(seed, nq, nkv, s->dtype, b->k, b->stream, err, n) ||
            ab_gpu_fill_stream(seed, (uint64_t)nq + nkv, nkv, s->dtype, b->v, b->stream, err, n))
            goto cleanup;
    } else if (upload(b->q, q, ab_shape_numel(s), s->dtype, err, n) ||
               upload(b->k, k, ab_shape_kv_numel(s), s->dtype, err, n) ||
               upload(b->v, v, ab_shape_kv_numel(s), s->dtype, err, n)) {
        goto cleanup;
    }
    for (int set = 1; set < b->nsets; set++) {
        char *base = b->rot + (size_t)(set - 1) * 4 * b->stride;
        CKB(cudaMemcpy(base, b->q, bytes, cudaMemcpyDeviceToDevice));
        CKB(cudaMemcpy(base + b->stride, b->k, bytes, cudaMemcpyDeviceToDevice));
        CKB(cudaMemcpy(base + 2 * b->stride, b->v, bytes, cudaMemcpyDeviceToDevice));
    }
    /* The copies above run on the legacy default stream, and b->stream is
     * non-blocking, so nothing orders them before the next launch on it: a
     * pageable host-to-device cudaMemcpy may return before its DMA lands,
     * and a device-to-device one returns at once (CUDA Runtime API, "API
     * synchronization behavior"). Without this barrier the device reference
     * and the variants could read the previous case's inputs: seen on an
     * H200 on 2026-11-23 as 1 wrong case in 8-12 gpu_check runs sharing the
     * GPU (cuda_mma and cuda_mma_pipeline, S = 1023, relative L2 error 1.0),
     * gone with CUDA_LAUNCH_BLOCKING=1 (8 of 8 clean). */
    CKB(cudaDeviceSynchronize());
    rc = 0;
cleanup:
#undef CKB
    if (rc)
        ab_gpu_bufs_destroy(b);
    else
        *out = b;
    return rc;
}

extern "C" int ab_gpu_bufs_create(const ab_shape *s, const float *q, const float *k,
                                  const float *v, ab_gpu_bufs **out, char *err, size_t n)
{
    if (!q || !k || !v) {
        snprintf(err, n, "ab_gpu_bufs_create: no host inputs");
        return -1;
    }
    return bufs_create(s, q, k, v, 0, out, err, n);
}

extern "C" int ab_gpu_bufs_create_seeded(const ab_shape *s, unsigned long seed,
                                         ab_gpu_bufs **out, char *err, size_t n)
{
    return bufs_create(s, NULL, NULL, NULL, seed, out, err, n);
}

/* Copies the device array src (numel values of t) back as floats. */
static int download(float *dst, const void *src, size_t numel, ab_dtype t, char *err, size_t n)
{
    if (t == AB_FP32) {
        CK(cudaMemcpy(dst, src, numel * 4, cudaMemcpyDeviceToHost));
        return 0;
    }
    std::vector<unsigned short> bits(numel);
    CK(cudaMemcpy(bits.data(), src, numel * 2, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < numel; i++)
        dst[i] = from_bits16(bits[i], t);
    return 0;
}

extern "C" int ab_gpu_inputs(ab_gpu_bufs *b, float *q, float *k, float *v, float *dout,
                             char *err, size_t n)
{
    const size_t nq = ab_shape_numel(&b->s), nkv = ab_shape_kv_numel(&b->s);
    CK(cudaStreamSynchronize(b->stream));
    if ((q && download(q, b->q, nq, b->s.dtype, err, n)) ||
        (k && download(k, b->k, nkv, b->s.dtype, err, n)) ||
        (v && download(v, b->v, nkv, b->s.dtype, err, n)))
        return -1;
    if (dout) {
        if (!b->dout) {
            snprintf(err, n, "no dO on the device (not a backward pass)");
            return -1;
        }
        if (download(dout, b->dout, nq, b->s.dtype, err, n))
            return -1;
    }
    return 0;
}

extern "C" void ab_gpu_bufs_destroy(ab_gpu_bufs *b)
{
    if (!b)
        return;
    cudaFree(b->q);
    cudaFree(b->k);
    cudaFree(b->v);
    cudaFree(b->o);
    cudaFree(b->flush);
    cudaFree(b->rot);
    cudaFree(b->lay);
    ab_gpu_ref_free(b->ref);
    ab_gpu_bref_free(b->bref);
    cudaFree(b->dout);
    cudaFree(b->dq);
    cudaFree(b->dk);
    cudaFree(b->dv);
    cudaFree(b->lse);
    if (b->hold)
        cudaFreeHost((void *)b->hold);
    if (b->stream)
        cudaStreamDestroy(b->stream);
    if (b->e0)
        cudaEventDestroy(b->e0);
    if (b->e1)
        cudaEventDestroy(b->e1);
    free(b);
}

extern "C" int ab_gpu_bwd_prepare(ab_gpu_bufs *b, const float *dout, char *err, size_t n)
{
    const ab_shape *s = &b->s;
    const size_t es = ab_dtype_size(s->dtype), nq = ab_shape_numel(s), nkv = ab_shape_kv_numel(s);
    CK(cudaMalloc(&b->dout, nq * es));
    CK(cudaMalloc(&b->dq, nq * es));
    CK(cudaMalloc(&b->dk, nkv * es));
    CK(cudaMalloc(&b->dv, nkv * es));
    CK(cudaMalloc((void **)&b->lse, (size_t)s->B * s->H * s->S * sizeof(float)));
    if (!dout) {
        if (!b->seeded) {
            snprintf(err, n, "ab_gpu_bwd_prepare: no dO and no seed (uploaded inputs)");
            return -1;
        }
        if (ab_gpu_fill_stream(b->seed + 1, 0, nq, s->dtype, b->dout, b->stream, err, n))
            return -1;
    } else if (upload(b->dout, dout, nq, s->dtype, err, n)) {
        return -1;
    }
    CK(cudaDeviceSynchronize()); /* the upload ran on the legacy stream (see bufs_create) */
    ab_gpu_parts p;
    ab_gpu_bufs_parts(b, &p);
    return ab_gpu_bwd_state(&p, err, n);
}

extern "C" int ab_gpu_set_grads(ab_gpu_bufs *b, const float *g, char *err, size_t n)
{
    const size_t nq = ab_shape_numel(&b->s), nkv = ab_shape_kv_numel(&b->s);
    if (!b->dq) {
        snprintf(err, n, "no backward buffers (ab_gpu_bwd_prepare)");
        return -1;
    }
    if (upload(b->dq, g, nq, b->s.dtype, err, n) || upload(b->dk, g + nq, nkv, b->s.dtype, err, n) ||
        upload(b->dv, g + nq + nkv, nkv, b->s.dtype, err, n))
        return -1;
    CK(cudaDeviceSynchronize());
    return 0;
}

extern "C" int ab_gpu_poison_grads(ab_gpu_bufs *b, char *err, size_t n)
{
    const size_t es = ab_dtype_size(b->s.dtype);
    CK(cudaMemsetAsync(b->dq, 0xff, ab_shape_numel(&b->s) * es, b->stream));
    CK(cudaMemsetAsync(b->dk, 0xff, ab_shape_kv_numel(&b->s) * es, b->stream));
    CK(cudaMemsetAsync(b->dv, 0xff, ab_shape_kv_numel(&b->s) * es, b->stream));
    CK(cudaStreamSynchronize(b->stream));
    return 0;
}

extern "C" int ab_gpu_poison(ab_gpu_bufs *b, char *err, size_t n)
{
    /* all-ones bit patterns are NaN in fp16, bf16 and fp32 alike */
    CK(cudaMemsetAsync(b->o, 0xff, ab_shape_numel(&b->s) * ab_dtype_size(b->s.dtype), b->stream));
    CK(cudaStreamSynchronize(b->stream));
    return 0;
}

/* Launches v on input set `set` (0: the uploaded tensors, whose O the
 * correctness check reads; others: the L2 rotation copies). */
static int launch_set(const ab_variant *v, void *ctx, ab_gpu_bufs *b, int set, char *err,
                      size_t n)
{
    void *q = b->q, *k = b->k, *vv = b->v, *o = b->o;
    if (set > 0 && set < b->nsets) {
        char *base = b->rot + (size_t)(set - 1) * 4 * b->stride;
        q = base;
        k = base + b->stride;
        vv = base + 2 * b->stride;
        o = base + 3 * b->stride;
    }
    int r = 0;
    ab_bwd_fn bw = b->s.pass != AB_FWD ? ab_variant_bwd(v) : NULL;
    if (!bw || b->s.pass == AB_FWDBWD)
        r = v->run(ctx, &b->s, q, k, vv, o, (void *)b->stream);
    if (r == 0 && bw) /* the backward from O (the harness's, or the forward's just written) */
        r = bw(ctx, &b->s, q, k, vv, o, b->dout, b->lse, b->dq, b->dk, b->dv, (void *)b->stream);
    if (r != 0) {
        snprintf(err, n, "%s: run returned status %d", v->name, r);
        return -1;
    }
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        snprintf(err, n, "%s: launch failed: %s", v->name, cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

static int launch(const ab_variant *v, void *ctx, ab_gpu_bufs *b, char *err, size_t n)
{
    return launch_set(v, ctx, b, 0, err, n);
}

extern "C" int ab_gpu_run_once(const ab_variant *v, void *ctx, ab_gpu_bufs *b, char *err,
                               size_t n)
{
    if (launch(v, ctx, b, err, n))
        return -1;
    cudaError_t e = cudaStreamSynchronize(b->stream);
    if (e != cudaSuccess) {
        snprintf(err, n, "%s: execution failed: %s", v->name, cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

/* The hold: a one-thread kernel that keeps the stream busy until the host
 * has enqueued a block's events and launches, then lets them run. Without
 * it the first event of a block is recorded on an idle GPU and the first
 * sample includes the host's time to submit the variant's launch (cuDNN's
 * graph execution, cuBLAS's several kernels): on an H200 cudnn_sdpa's first
 * hot sample of a round of 2 was 63% above its second (0.0283 against
 * 0.0174 ms at B=8 H=8 S=512 D=64, 50 rounds, reports/seed-004-protocol2/seed-004-p2.db),
 * cublas_standard's 15%, a single-kernel rung's 1-3%. nvbench holds its
 * launches behind a "blocking kernel" for the same reason (NVIDIA nvbench,
 * docs/benchmarks.md). The kernel polls flag[0] (host memory mapped into
 * the device) and gives up after timeout_ns (then sets flag[1]): a variant
 * whose run waits on the host would otherwise wait for the hold forever.
 * ATTNBENCH_HOLD=0 turns the hold off (for the A/B test of this very
 * effect, tests/gpu/gpu_first_sample.c). */
__global__ void hold_stream(volatile int *flag, unsigned long long timeout_ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    while (flag[0] == 0) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 > timeout_ns) {
            flag[1] = 1;
            break;
        }
#if __CUDA_ARCH__ >= 700
        __nanosleep(500);
#endif
    }
}

static int hold_enabled(void)
{
    static int on = -1;
    if (on < 0) {
        const char *e = getenv("ATTNBENCH_HOLD");
        on = !(e && strcmp(e, "0") == 0);
    }
    return on;
}

/* Enqueues the hold on b's stream (the flag is allocated on first use).
 * Returns 0 (also when the hold is off) or -1 with err. */
static int hold_begin(ab_gpu_bufs *b, char *err, size_t n)
{
    if (!hold_enabled())
        return 0;
    if (!b->hold) {
        int *h = NULL;
        CK(cudaHostAlloc((void **)&h, 2 * sizeof(int), cudaHostAllocMapped));
        b->hold = h;
        CK(cudaHostGetDevicePointer((void **)&b->hold_dev, h, 0));
    }
    b->hold[0] = 0;
    b->hold[1] = 0;
    __sync_synchronize();
    /* 200 ms: far more than enqueuing a block takes (tens of microseconds a
     * launch), far less than a hang */
    hold_stream<<<1, 1, 0, b->stream>>>(b->hold_dev, 200ull * 1000 * 1000);
    CK(cudaGetLastError());
    return 0;
}

/* Releases the hold (after the block is enqueued); call it on every path
 * after hold_begin, before waiting on the stream. */
static void hold_release(ab_gpu_bufs *b)
{
    if (b->hold) {
        __sync_synchronize();
        b->hold[0] = 1;
        __sync_synchronize();
    }
}

/* After the block has finished: warns once per buffer set when the hold
 * gave up (the variant's run waited on the host, so its first sample may
 * include host time as it would without the hold). */
static void hold_check(ab_gpu_bufs *b, const ab_variant *v)
{
    if (b->hold && b->hold[1] && !b->hold_warned) {
        b->hold_warned = 1;
        fprintf(stderr,
                "attnbench: %s: the launch hold timed out in block %ld of this shape (its run "
                "waited on the host); that block's first sample may include host time\n",
                v->name, b->blocks);
    }
}

extern "C" int ab_gpu_time(const ab_variant *v, void *ctx, ab_gpu_bufs *b, ab_timing_mode m,
                           int graph_k, size_t count, double *ms, char *err, size_t n)
{
    b->blocks++;
    if (m == AB_TIME_GRAPH) {
        if (graph_k < 1)
            graph_k = 1;
        cudaGraph_t graph = NULL;
        cudaGraphExec_t exec = NULL;
        int rc = -1;
        CK(cudaStreamBeginCapture(b->stream, cudaStreamCaptureModeThreadLocal));
        for (int i = 0; i < graph_k; i++)
            if (launch_set(v, ctx, b, (int)(b->next_set++ % b->nsets), err, n)) {
                cudaStreamEndCapture(b->stream, &graph);
                if (graph)
                    cudaGraphDestroy(graph);
                return -1;
            }
        CK(cudaStreamEndCapture(b->stream, &graph));
        cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
        if (e != cudaSuccess) {
            snprintf(err, n, "%s: graph instantiation failed: %s", v->name, cudaGetErrorString(e));
            cudaGraphDestroy(graph);
            return -1;
        }
        /* one untimed replay: uploads the graph */
        if (cudaGraphLaunch(exec, b->stream) != cudaSuccess)
            goto graph_out;
        for (size_t i = 0; i < count; i++) {
            float t = 0;
            if (hold_begin(b, err, n))
                goto graph_out;
            const int queued = cudaEventRecord(b->e0, b->stream) == cudaSuccess &&
                               cudaGraphLaunch(exec, b->stream) == cudaSuccess &&
                               cudaEventRecord(b->e1, b->stream) == cudaSuccess;
            hold_release(b);
            if (!queued || cudaEventSynchronize(b->e1) != cudaSuccess ||
                cudaEventElapsedTime(&t, b->e0, b->e1) != cudaSuccess)
                goto graph_out;
            ms[i] = (double)t / graph_k;
        }
        hold_check(b, v);
        rc = 0;
    graph_out:
        if (rc)
            snprintf(err, n, "%s: graph replay failed: %s", v->name,
                     cudaGetErrorString(cudaGetLastError()));
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        return rc;
    }

    if (m == AB_TIME_HOT) {
        /* back to back: count launches enqueued without a host round trip,
         * an event between each pair of launches; sample i = e[i] -> e[i+1]. */
        std::vector<cudaEvent_t> ev(count + 1, (cudaEvent_t)0);
        int rc = -1;
        for (size_t i = 0; i <= count; i++)
            if (cudaEventCreate(&ev[i]) != cudaSuccess)
                goto hot_out;
        /* the whole block is enqueued behind the hold, then released: every
         * sample is the GPU's time from one launch's end to the next's */
        if (hold_begin(b, err, n))
            goto hot_fail;
        if (cudaEventRecord(ev[0], b->stream) != cudaSuccess) {
            hold_release(b);
            goto hot_out;
        }
        for (size_t i = 0; i < count; i++) {
            if (launch_set(v, ctx, b, (int)(b->next_set++ % b->nsets), err, n)) {
                hold_release(b);
                goto hot_fail;
            }
            if (cudaEventRecord(ev[i + 1], b->stream) != cudaSuccess) {
                hold_release(b);
                goto hot_out;
            }
        }
        hold_release(b);
        if (cudaEventSynchronize(ev[count]) != cudaSuccess)
            goto hot_out;
        hold_check(b, v);
        for (size_t i = 0; i < count; i++) {
            float t = 0;
            if (cudaEventElapsedTime(&t, ev[i], ev[i + 1]) != cudaSuccess)
                goto hot_out;
            ms[i] = t;
        }
        rc = 0;
    hot_out:
        if (rc)
            snprintf(err, n, "%s: hot timing failed: %s", v->name,
                     cudaGetErrorString(cudaGetLastError()));
    hot_fail:
        for (size_t i = 0; i <= count; i++)
            if (ev[i])
                cudaEventDestroy(ev[i]);
        return rc;
    }

    /* COLD: the flush, then one event pair around one launch; each sample is
     * read before the next is enqueued. */
    for (size_t i = 0; i < count; i++) {
        if (hold_begin(b, err, n))
            return -1;
        cudaError_t qe = cudaMemsetAsync(b->flush, (int)(i & 0xff), b->flush_bytes, b->stream);
        if (qe == cudaSuccess)
            qe = cudaEventRecord(b->e0, b->stream);
        if (qe == cudaSuccess && launch(v, ctx, b, err, n)) {
            hold_release(b);
            return -1;
        }
        if (qe == cudaSuccess)
            qe = cudaEventRecord(b->e1, b->stream);
        hold_release(b);
        CK(qe);
        CK(cudaEventSynchronize(b->e1));
        float t = 0;
        CK(cudaEventElapsedTime(&t, b->e0, b->e1));
        ms[i] = t;
    }
    hold_check(b, v);
    return 0;
}

extern "C" int ab_gpu_output(ab_gpu_bufs *b, float *o, char *err, size_t n)
{
    const size_t numel = ab_shape_numel(&b->s);
    CK(cudaStreamSynchronize(b->stream));
    if (b->s.dtype == AB_FP32) {
        CK(cudaMemcpy(o, b->o, numel * 4, cudaMemcpyDeviceToHost));
        return 0;
    }
    std::vector<unsigned short> bits(numel);
    CK(cudaMemcpy(bits.data(), b->o, numel * 2, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < numel; i++) {
        o[i] = from_bits16(bits[i], b->s.dtype);
    }
    return 0;
}

extern "C" int ab_gpu_set_output(ab_gpu_bufs *b, const float *o, char *err, size_t n)
{
    CK(cudaStreamSynchronize(b->stream));
    return upload(b->o, o, ab_shape_numel(&b->s), b->s.dtype, err, n);
}

extern "C" size_t ab_gpu_mem_used(void)
{
    size_t f = 0, t = 0;
    if (cudaMemGetInfo(&f, &t) != cudaSuccess)
        return 0;
    return t - f;
}

extern "C" int ab_gpu_compute_mode(void)
{
    int dev = 0, mode = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return mode;
}

/* ---- the timer floor: an empty kernel timed like any variant ---------------- */

__global__ void ab_empty_kernel(void) {}

static int empty_setup(const ab_shape *, void **ctx, size_t *ws, char *, size_t)
{
    *ctx = NULL;
    *ws = 0;
    return 0;
}
static int empty_run(void *, const ab_shape *, const void *, const void *, const void *, void *,
                     void *stream)
{
    ab_empty_kernel<<<1, 1, 0, (cudaStream_t)stream>>>();
    return 0;
}
static void empty_teardown(void *) {}

extern "C" const ab_variant ab_gpu_empty_variant = {
    "empty_kernel", "cuda", AB_DEV_CUDA, AB_DT_ALL, {0},
    "an empty kernel: the floor of what the timer can resolve",
    empty_setup, empty_run, empty_teardown, ab_attention_flops, NULL, 0};

extern "C" int ab_gpu_input_sets(const ab_gpu_bufs *b) { return b ? b->nsets : 1; }

extern "C" int ab_gpu_hold_enabled(void) { return hold_enabled(); }

__global__ void ab_fill_random_bf16(__nv_bfloat16 *x, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed; /* Knuth's multiplicative hash */
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        x[i] = __float2bfloat16((float)(h & 0xffff) / 65536.0f - 0.5f);
    }
}

static int median_of(float *t, int n, double *out)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            float x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    *out = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    return 0;
}

extern "C" int ab_gpu_measure_peaks(double *gemm_tflops, double *copy_gbs, char *err, size_t n)
{
    const int N = 8192, reps = 10;
    const size_t copy_bytes = (size_t)2 << 30;
    __nv_bfloat16 *a = NULL, *b = NULL, *c = NULL;
    char *src = NULL, *dst = NULL;
    cublasHandle_t h = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    float t[reps];
    int rc = -1;
    const float one = 1.0f, zero = 0.0f;
    *gemm_tflops = *copy_gbs = 0;
#define CKP(call)                                                                          \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            snprintf(err, n, "peaks: %s: %s", #call, cudaGetErrorString(e_));              \
            goto out;                                                                      \
        }                                                                                  \
    } while (0)
    CKP(cudaMalloc(&a, (size_t)N * N * 2));
    CKP(cudaMalloc(&b, (size_t)N * N * 2));
    CKP(cudaMalloc(&c, (size_t)N * N * 2));
    CKP(cudaMalloc(&src, copy_bytes));
    CKP(cudaMalloc(&dst, copy_bytes));
    ab_fill_random_bf16<<<1024, 256>>>(a, (size_t)N * N, 1u);
    ab_fill_random_bf16<<<1024, 256>>>(b, (size_t)N * N, 2u);
    ab_fill_random_bf16<<<1024, 256>>>((__nv_bfloat16 *)src, copy_bytes / 2, 3u);
    CKP(cudaGetLastError());
    CKP(cudaEventCreate(&e0));
    CKP(cudaEventCreate(&e1));
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        snprintf(err, n, "peaks: cublasCreate failed");
        goto out;
    }
    for (int r = -3; r < reps; r++) {
        CKP(cudaEventRecord(e0));
        if (cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, a, CUDA_R_16BF, N, b,
                         CUDA_R_16BF, N, &zero, c, CUDA_R_16BF, N, CUBLAS_COMPUTE_32F,
                         CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS) {
            snprintf(err, n, "peaks: cublasGemmEx failed");
            goto out;
        }
        CKP(cudaEventRecord(e1));
        CKP(cudaEventSynchronize(e1));
        if (r >= 0)
            CKP(cudaEventElapsedTime(&t[r], e0, e1));
    }
    double ms;
    median_of(t, reps, &ms);
    *gemm_tflops = 2.0 * N * (double)N * N / (ms * 1e9);
    for (int r = -3; r < reps; r++) {
        CKP(cudaEventRecord(e0));
        CKP(cudaMemcpyAsync(dst, src, copy_bytes, cudaMemcpyDeviceToDevice));
        CKP(cudaEventRecord(e1));
        CKP(cudaEventSynchronize(e1));
        if (r >= 0)
            CKP(cudaEventElapsedTime(&t[r], e0, e1));
    }
    median_of(t, reps, &ms);
    *copy_gbs = 2.0 * (double)copy_bytes / (ms * 1e6);
    rc = 0;
out:
#undef CKP
    if (h)
        cublasDestroy(h);
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    cudaFree(src);
    cudaFree(dst);
    return rc;
}
