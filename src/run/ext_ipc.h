/*
 * ext_ipc.h: a protocol-2 adapter working on attnbench's own device buffers
 * (adapters/PROTOCOL.md, "Device buffers"). The handshake: attnbench offers
 * ATTNBENCH_IPC=1 in the adapter's environment; an adapter that speaks it
 * prints `hello ipc=1 [layout=bhsd|bshd]` as its first line. For each
 * configuration attnbench then exports Q, K, V, O of every input set
 * (kernels/gpu_ipc.h), writes their description (CUDA IPC handles, byte
 * offsets, shapes, dtype, layout, sets) as a JSON file in the run's private
 * folder and names it in the `config` request (` ipc=PATH`); the adapter
 * runs on those inputs, writes O of its checked call into set 0's O and
 * answers `check device`, and attnbench checks that O on the device like a
 * native GPU variant's. This module parses the two new lines and writes the
 * description; the runner decides when to offer.
 */
#ifndef ATTNBENCH_EXT_IPC_H
#define ATTNBENCH_EXT_IPC_H

#include "check.h"
#include "external.h"
#include "gpu.h"
#include "gpu_ipc.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds attnbench waits, after starting an adapter it offered
 * ATTNBENCH_IPC=1, for its first line (the hello); an adapter that prints
 * nothing before its first request (every adapter older than the
 * handshake) costs this once per process. */
#define AB_EXT_HELLO_WAIT_S 3.0

/* The version of the description file's format ("version" key). */
#define AB_EXT_IPC_VERSION 1

/* At most this many head dimensions in a hello's head_dims= list. */
#define AB_EXT_MAX_HEAD_DIMS 16

/* What an adapter's hello said: device buffers and capabilities
 * (adapters/PROTOCOL.md, "Capabilities"). Each capability is "any" until
 * the hello declares it. */
typedef struct ab_ext_hello {
    int seen;          /* a hello line was read */
    int ipc;           /* ipc=1: it maps attnbench's buffers when offered a description */
    int has_layout;    /* layout= was given */
    ab_layout layout;  /* the layout its function takes (when has_layout) */
    unsigned dtypes;   /* dtypes=fp16,bf16: bit (1 << ab_dtype) per dtype; 0: any */
    unsigned passes;   /* passes=fwd,bwd,fwd+bwd: bit (1 << ab_pass) per pass; 0: any */
    int head_dims[AB_EXT_MAX_HEAD_DIMS]; /* head_dims=64,128: the D it runs */
    int n_head_dims;                     /* 0: any D */
    int kv_heads_equal; /* h_kv=h: only H_kv = H (no grouped-query); h_kv=any (default): any */
    int kv_len_equal;   /* s_kv=s: only S_kv = S; s_kv=any (default): any */
    int causal_only;    /* causal=1: 2, only causal; causal=0: 1, only not; 0 (any): both */
    int ahead;          /* ahead=1: it takes `ahead` lines, the run's shapes, before its
                           first configuration (adapters/PROTOCOL.md "Shapes ahead") */
} ab_ext_hello;

/* Parses the text after "hello" (space-separated key=value tokens; ipc=0|1,
 * layout=bhsd|bshd, ahead=0|1, and the capabilities dtypes=, passes=, head_dims=
 * (comma-separated lists), h_kv=any|h, s_kv=any|s, causal=0|1|any;
 * unknown keys are ignored, for later capabilities) into *h (seen set).
 * Returns 0, or -1 with the reason in why (wn bytes) for a token without
 * '=' or a bad value of a known key. */
int ab_ext_parse_hello(const char *rest, ab_ext_hello *h, char *why, size_t wn);

/* 0 when the capabilities in *h admit configuration s; else 1 with the
 * reason in why (wn bytes), naming the declaration ("the adapter declares
 * dtypes=fp16,bf16; this configuration is fp32"), so the runner skips the
 * pair as it skips a built-in variant's unsupported shape. */
int ab_ext_hello_admits(const ab_ext_hello *h, const ab_shape *s, char *why, size_t wn);

/* 1 when line is a hello line ("hello" alone or followed by a space). */
int ab_ext_is_hello(const char *line);

/* 1 when line is a `check device` line ("check device", alone or followed
 * by a space). */
int ab_ext_is_check_device(const char *line);

/* Parses the text after "check device" (`peak_bytes=N` optional, a finite
 * number >= 0; any other token fails, as unknown keys of `check` do): sets
 * out->device_check and out->peak_bytes. Returns 0, or -1 with why. */
int ab_ext_parse_check_device(const char *rest, ab_ext_result *out, char *why, size_t wn);

/* Writes the description of x's tensors for shape s to path (mode 0600; a
 * previous file or link at path is removed first, never written through)
 * as one JSON object:
 * {"version", "device", "uuid", "dtype", "layout", "pass", "sets", "B", "H", "S",
 * "D", "H_kv", "S_kv", "tensors": {"q"|"k"|"v"|"o": {"shape": [4 ints,
 * memory order of the layout], "strides": [elements], "bytes"}}, "buffers":
 * [per set {"q"|"k"|"v"|"o": {"handle": 128 hex digits, "offset": bytes}}]};
 * for a backward pass (x->bwd) "tensors" and set 0 also hold "do", "dq",
 * "dk", "dv" (the dtype) and "lse" (float32 [B,H,S], "dtype": "fp32").
 * Returns 0, or -1 with err (n bytes). */
int ab_ext_ipc_write(const char *path, const ab_shape *s, const ab_gpu_export *x, char *err,
                     size_t n);

/* Everything attnbench does before a `config` request carrying ` ipc=path`:
 * prepares bufs' tensors in layout l (kernels/gpu_ipc.h), exports them,
 * poisons set 0's O in that layout (a backward pass: dQ, dK, dV) and
 * writes the description to path. A backward pass (bufs prepared by
 * ab_gpu_bwd_prepare) is shared in BHSD only. Returns 0 with *nsets (input
 * sets shared), or -1 with err. */
int ab_ext_ipc_offer(ab_gpu_bufs *bufs, const ab_shape *s, ab_layout l, const char *path,
                     int *nsets, char *err, size_t n);

/* attnbench's check of an adapter's `check device` answer: set 0's O in
 * layout l, left in bufs by the adapter (and synchronised by it before it
 * answered), brought back to [B,H,S,D] (ab_gpu_layout_collect) and checked
 * exactly as a native GPU variant's output: on the device over every row
 * (gpu_check.h), or where the device cannot (D above AB_GPU_CHECK_MAX_D,
 * no room for the reference), downloaded and checked on the host with the
 * inputs regenerated from input_seed and check_seed's row sample. Returns
 * 0 with *out filled (out->pass the verdict), or -1 with err. */
int ab_ext_ipc_check(const ab_shape *s, ab_gpu_bufs *bufs, ab_layout l, unsigned long input_seed,
                     unsigned long check_seed, ab_check *out, char *err, size_t n);

#ifdef __cplusplus
}
#endif

#endif
