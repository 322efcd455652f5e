/*
 * gpu_ipc.h: attnbench's device buffers shared with an external variant's
 * process (adapters/PROTOCOL.md, "Device buffers"). For a configuration's
 * buffer set (gpu.h ab_gpu_bufs) it exports Q, K, V and O of every input
 * set through CUDA IPC (cudaIpcGetMemHandle: a handle per allocation plus
 * the tensor's byte offset in it), optionally in the layout the adapter
 * takes ([B,S,H,D], FlashAttention's, in extra device buffers filled by a
 * transpose outside any timed region), and brings the adapter's O back
 * into the harness's [B,H,S,D] O for the device check (gpu_check.h), as if
 * a native GPU variant had written it.
 *
 * Implemented in gpu_ipc.cu when CUDA is built; gpu_stub.c fails every call
 * with "built without CUDA" otherwise. The layout helpers below are plain C.
 */
#ifndef ATTNBENCH_GPU_IPC_H
#define ATTNBENCH_GPU_IPC_H

#include "gpu.h"

#include <stddef.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The order of a tensor's axes in memory (contiguous, last axis D):
 * BHSD is [B, H, S, D] (attnbench's, PyTorch SDPA's), BSHD is [B, S, H, D]
 * (FlashAttention's). K and V follow with H_kv and S_kv. */
typedef enum ab_layout { AB_LAYOUT_BHSD = 0, AB_LAYOUT_BSHD = 1 } ab_layout;

/* "bhsd" or "bshd". */
static inline const char *ab_layout_name(ab_layout l) { return l == AB_LAYOUT_BSHD ? "bshd" : "bhsd"; }

/* Parses "bhsd" or "bshd" into *l; 0, or -1 for anything else. */
static inline int ab_layout_parse(const char *name, ab_layout *l)
{
    if (name && strcmp(name, "bhsd") == 0)
        *l = AB_LAYOUT_BHSD;
    else if (name && strcmp(name, "bshd") == 0)
        *l = AB_LAYOUT_BSHD;
    else
        return -1;
    return 0;
}

/* The memory-order shape of a contiguous tensor of `heads` heads and
 * `len` positions in layout l: [B, heads, len, D] for BHSD, [B, len, heads,
 * D] for BSHD (Q and O: heads H, len S; K and V: H_kv, S_kv). */
static inline void ab_layout_shape(ab_layout l, int B, int heads, int len, int D,
                                   long long shape[4])
{
    shape[0] = B, shape[3] = D;
    shape[1] = l == AB_LAYOUT_BSHD ? len : heads;
    shape[2] = l == AB_LAYOUT_BSHD ? heads : len;
}

/* Bytes of a CUDA IPC memory handle (cudaIpcMemHandle_t). */
#define AB_IPC_HANDLE_BYTES 64

/* One exported tensor: the handle of the allocation holding it and the
 * tensor's byte offset from that allocation's base. */
typedef struct ab_ipc_ref {
    unsigned char handle[AB_IPC_HANDLE_BYTES];
    size_t offset;
} ab_ipc_ref;

/* What an adapter needs to map a configuration's buffers. */
typedef struct ab_gpu_export {
    int device;       /* CUDA device ordinal in attnbench (same CUDA_VISIBLE_DEVICES) */
    char uuid[64];    /* "GPU-..." of that device */
    ab_layout layout; /* of every exported tensor */
    int nsets;        /* input sets (ab_gpu_input_sets) */
    ab_ipc_ref *t;    /* nsets * 4, malloc'd: set i's Q, K, V, O at t[4 * i + 0..3] */
    int bwd;          /* a backward pass (one set, BHSD): grad[] filled */
    ab_ipc_ref grad[5]; /* dO, dQ [B,H,S,D], dK, dV [B,H_kv,S_kv,D] in the dtype, and the
                           forward's logsumexp, float32 [B,H,S] (gpu_check.h ab_gpu_parts) */
} ab_gpu_export;

/* Makes b's tensors available in layout l: for BSHD, allocates (once per b)
 * and fills copies of Q, K, V of every input set in [B,S,H,D] / [B,S_kv,
 * H_kv,D] with O beside them, synchronising before it returns; for BHSD
 * nothing (b's own buffers are exported). Forward shapes only. 0 or -1
 * with err (n bytes). */
int ab_gpu_layout_prepare(ab_gpu_bufs *b, ab_layout l, char *err, size_t n);

/* Fills x for b's tensors in layout l (ab_gpu_layout_prepare done first):
 * cudaIpcGetMemHandle of each allocation base, the offsets of set i's Q, K,
 * V, O in it; for a backward shape (BHSD only; ab_gpu_bwd_prepare done)
 * also dO, dQ, dK, dV and the logsumexp. 0 or -1 with err; x->t is then
 * NULL. */
int ab_gpu_ipc_export(ab_gpu_bufs *b, ab_layout l, ab_gpu_export *x, char *err, size_t n);

/* Frees x->t. NULL-safe. */
void ab_gpu_export_free(ab_gpu_export *x);

/* Fills set 0's O in layout l with NaN (as ab_gpu_poison), so that an
 * adapter that writes nothing fails the check; for a backward shape dQ,
 * dK, dV instead (O and the logsumexp are the harness's forward state and
 * stay). 0 or -1 with err. */
int ab_gpu_layout_poison(ab_gpu_bufs *b, ab_layout l, char *err, size_t n);

/* After the adapter wrote set 0's O in layout l (and synchronised): copies
 * it into b's [B,H,S,D] O (a transpose for BSHD, nothing for BHSD), for
 * ab_gpu_check / ab_gpu_output. 0 or -1 with err. */
int ab_gpu_layout_collect(ab_gpu_bufs *b, ab_layout l, char *err, size_t n);

#ifdef __cplusplus
}
#endif

#endif
