/*
 * gpu_ipc.cu: the device side of sharing attnbench's buffers with an
 * external variant (gpu_ipc.h): the [B,H,S,D] <-> [B,S,H,D] transposes that
 * give an adapter its inputs in its own layout, and the CUDA IPC export of
 * every input set. Everything here runs once per configuration, outside
 * any timed region.
 */
#include "gpu_ipc.h"
#include "gpu_check.h"

#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(call)                                                                        \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            snprintf(err, n, "%s: %s (%s:%d)", #call, cudaGetErrorString(e_), __FILE__, \
                     __LINE__);                                                         \
            return -1;                                                                  \
        }                                                                               \
    } while (0)

/* dst[b, y, x, d] = src[b, x, y, d] for src [B, X, Y, D]: swaps the two
 * middle axes (heads and positions) of a contiguous tensor; T is the
 * element's bit pattern (2 or 4 bytes), copied unchanged. One thread per
 * element, grid-stride. */
template <typename T>
__global__ void swap_middle_axes(const T *__restrict__ src, T *__restrict__ dst, long long B,
                                 long long X, long long Y, long long D)
{
    const long long total = B * X * Y * D;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        const long long d = i % D, r = i / D;
        const long long y = r % Y, r2 = r / Y;
        const long long x = r2 % X, b = r2 / X;
        dst[((b * Y + y) * X + x) * D + d] = src[i];
    }
}

/* Enqueues the swap on stream for elements of es bytes. 0 or -1 with err. */
static int swap_axes(const void *src, void *dst, size_t es, long long B, long long X, long long Y,
                     long long D, cudaStream_t stream, char *err, size_t n)
{
    const long long total = B * X * Y * D;
    long long blocks = (total + 255) / 256;
    if (blocks > 65535LL * 16)
        blocks = 65535LL * 16;
    if (blocks < 1)
        blocks = 1;
    if (es == 2)
        swap_middle_axes<unsigned short><<<(unsigned)blocks, 256, 0, stream>>>(
            (const unsigned short *)src, (unsigned short *)dst, B, X, Y, D);
    else
        swap_middle_axes<unsigned int><<<(unsigned)blocks, 256, 0, stream>>>(
            (const unsigned int *)src, (unsigned int *)dst, B, X, Y, D);
    CK(cudaGetLastError());
    return 0;
}

/* Set i's tensor j (0 Q, 1 K, 2 V, 3 O) among b's own buffers. */
static char *own_tensor(const ab_gpu_parts *p, int i, int j)
{
    if (i == 0) {
        void *t[4] = {p->q, p->k, p->v, p->o};
        return (char *)t[j];
    }
    return p->rot + ((size_t)(i - 1) * 4 + (size_t)j) * p->stride;
}

extern "C" int ab_gpu_layout_prepare(ab_gpu_bufs *b, ab_layout l, char *err, size_t n)
{
    ab_gpu_parts p;
    ab_gpu_bufs_parts(b, &p);
    if (l == AB_LAYOUT_BHSD || *p.lay_ready)
        return 0;
    if (p.s.pass != AB_FWD) {
        snprintf(err, n, "layout %s: only the forward pass's buffers can be shared",
                 ab_layout_name(l));
        return -1;
    }
    if (!*p.lay)
        CK(cudaMalloc(p.lay, (size_t)p.nsets * 4 * p.stride));
    const ab_shape *s = &p.s;
    const size_t es = ab_dtype_size(s->dtype);
    cudaStream_t st = (cudaStream_t)p.stream;
    for (int i = 0; i < p.nsets; i++) {
        char *dst = (char *)*p.lay + (size_t)i * 4 * p.stride;
        if (swap_axes(own_tensor(&p, i, 0), dst, es, s->B, s->H, s->S, s->D, st, err, n))
            return -1;
        for (int j = 1; j <= 2; j++)
            if (swap_axes(own_tensor(&p, i, j), dst + (size_t)j * p.stride, es, s->B,
                          ab_shape_hkv(s), ab_shape_skv(s), s->D, st, err, n))
                return -1;
    }
    CK(cudaStreamSynchronize(st));
    *p.lay_ready = 1;
    return 0;
}

/* cudaIpcGetMemHandle of an allocation base, into h. 0 or -1 with err. */
static int handle_of(void *base, unsigned char h[AB_IPC_HANDLE_BYTES], char *err, size_t n)
{
    cudaIpcMemHandle_t m;
    CK(cudaIpcGetMemHandle(&m, base));
    static_assert(sizeof m == AB_IPC_HANDLE_BYTES, "cudaIpcMemHandle_t is 64 bytes");
    memcpy(h, &m, AB_IPC_HANDLE_BYTES);
    return 0;
}

extern "C" int ab_gpu_ipc_export(ab_gpu_bufs *b, ab_layout l, ab_gpu_export *x, char *err,
                                 size_t n)
{
    ab_gpu_parts p;
    ab_gpu_bufs_parts(b, &p);
    memset(x, 0, sizeof *x);
    x->layout = l;
    x->nsets = p.nsets;
    if (l == AB_LAYOUT_BSHD && !*p.lay_ready) {
        snprintf(err, n, "layout bshd: the copies were not made (ab_gpu_layout_prepare)");
        return -1;
    }
    CK(cudaGetDevice(&x->device));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, x->device));
    const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
    snprintf(x->uuid, sizeof x->uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
             u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
             u[14], u[15]);
    x->t = (ab_ipc_ref *)calloc((size_t)p.nsets * 4, sizeof *x->t);
    if (!x->t) {
        snprintf(err, n, "out of host memory");
        return -1;
    }
    int rc = -1;
    if (p.s.pass != AB_FWD) { /* the backward's buffers, one set, [B,H,S,D] */
        void *g[5] = {p.dout, p.dq, p.dk, p.dv, (void *)p.lse};
        if (l != AB_LAYOUT_BHSD || !p.dout) {
            snprintf(err, n, "%s", l != AB_LAYOUT_BHSD
                                       ? "a backward pass's buffers are shared in bhsd only"
                                       : "no backward buffers (ab_gpu_bwd_prepare)");
            goto out;
        }
        for (int i = 0; i < 5; i++)
            if (handle_of(g[i], x->grad[i].handle, err, n))
                goto out;
        x->bwd = 1;
    }
    if (l == AB_LAYOUT_BSHD) { /* one allocation: set i's tensor j at (4 i + j) strides */
        unsigned char h[AB_IPC_HANDLE_BYTES];
        if (handle_of(*p.lay, h, err, n))
            goto out;
        for (int k = 0; k < 4 * p.nsets; k++) {
            memcpy(x->t[k].handle, h, sizeof h);
            x->t[k].offset = (size_t)k * p.stride;
        }
    } else { /* set 0: four allocations; sets 1..: one (the rotation copies) */
        void *own[4] = {p.q, p.k, p.v, p.o};
        for (int j = 0; j < 4; j++)
            if (handle_of(own[j], x->t[j].handle, err, n))
                goto out;
        if (p.nsets > 1) {
            unsigned char h[AB_IPC_HANDLE_BYTES];
            if (handle_of(p.rot, h, err, n))
                goto out;
            for (int k = 4; k < 4 * p.nsets; k++) {
                memcpy(x->t[k].handle, h, sizeof h);
                x->t[k].offset = (size_t)(k - 4) * p.stride;
            }
        }
    }
    rc = 0;
out:
    if (rc) {
        free(x->t);
        x->t = NULL;
    }
    return rc;
}

extern "C" void ab_gpu_export_free(ab_gpu_export *x)
{
    if (x) {
        free(x->t);
        x->t = NULL;
    }
}

extern "C" int ab_gpu_layout_poison(ab_gpu_bufs *b, ab_layout l, char *err, size_t n)
{
    ab_gpu_parts p;
    ab_gpu_bufs_parts(b, &p);
    if (p.s.pass != AB_FWD)
        return ab_gpu_poison_grads(b, err, n);
    if (l == AB_LAYOUT_BHSD)
        return ab_gpu_poison(b, err, n);
    if (!*p.lay_ready) {
        snprintf(err, n, "layout bshd: the copies were not made (ab_gpu_layout_prepare)");
        return -1;
    }
    const size_t bytes = ab_shape_numel(&p.s) * ab_dtype_size(p.s.dtype);
    CK(cudaMemsetAsync((char *)*p.lay + 3 * p.stride, 0xff, bytes, (cudaStream_t)p.stream));
    CK(cudaStreamSynchronize((cudaStream_t)p.stream));
    return 0;
}

extern "C" int ab_gpu_layout_collect(ab_gpu_bufs *b, ab_layout l, char *err, size_t n)
{
    ab_gpu_parts p;
    ab_gpu_bufs_parts(b, &p);
    if (l == AB_LAYOUT_BHSD)
        return 0;
    if (!*p.lay_ready) {
        snprintf(err, n, "layout bshd: the copies were not made (ab_gpu_layout_prepare)");
        return -1;
    }
    const ab_shape *s = &p.s;
    /* set 0's O, [B,S,H,D] -> [B,H,S,D] */
    if (swap_axes((char *)*p.lay + 3 * p.stride, p.o, ab_dtype_size(s->dtype), s->B, s->S, s->H,
                  s->D, (cudaStream_t)p.stream, err, n))
        return -1;
    CK(cudaStreamSynchronize((cudaStream_t)p.stream));
    return 0;
}
