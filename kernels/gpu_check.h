/*
 * gpu_check.h: the correctness check of GPU variants on the device, over
 * every row of every (b, h) slice at any S (check.h gives the rule).
 *
 * Per configuration (per ab_gpu_bufs) the device computes once, in
 * gpu_reference.cu: the float64 reference O_ref of all rows, and the plain
 * same-precision computation with its float64 shadow (their error sums: the
 * tolerance); per variant a compare kernel reduces |O - O_ref| over all of
 * O. The device reference is itself checked against the CPU oracle
 * (reference.c) by the GPU suite (tests/gpu, `gpu_check --reference`).
 * Without CUDA (gpu_stub.c) every call fails with "built without CUDA".
 */
#ifndef ATTNBENCH_GPU_CHECK_H
#define ATTNBENCH_GPU_CHECK_H

#include "check.h"
#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest D the device reference handles (16 rows a block of 256 threads,
 * 16 outputs a thread: gpu_reference.cu). */
#define AB_GPU_CHECK_MAX_D 256

/* The pieces of a buffer set the device check needs (gpu_harness.cu). */
typedef struct ab_gpu_parts {
    ab_shape s;
    void *q, *k, *v, *o; /* device tensors in s.dtype, [B,H,S,D] */
    void *stream;        /* cudaStream_t */
    void **ref;          /* the cached device reference (NULL until made) */
    /* backward pass (NULL for a forward shape): dO, dQ [B,H,S,D],
     * dK, dV [B,H_kv,S_kv,D] in s.dtype, the logsumexp floats [B,H,S], and
     * the cached float64 backward reference (gpu_reference_bwd.cu) */
    void *dout, *dq, *dk, *dv;
    float *lse;
    void **bref;
    /* the input sets (gpu.h ab_gpu_input_sets): set 0 is q, k, v, o above,
     * set i > 0 the four tensors at rot + (i - 1) * 4 * stride; and the
     * layout copies of an external variant (gpu_ipc.h; *lay NULL until
     * made, *lay_ready 1 once filled) */
    int nsets;
    char *rot;
    size_t stride;
    void **lay;
    int *lay_ready;
} ab_gpu_parts;
void ab_gpu_bufs_parts(ab_gpu_bufs *b, ab_gpu_parts *p);

/* Checks O of b (left by ab_gpu_run_once) against the device reference of
 * b's inputs over every row; fills *out (rows_checked = rows_total, seed 0).
 * Returns 0; 1 when this shape cannot be checked on the device (D above
 * AB_GPU_CHECK_MAX_D, no device memory for the float64 reference: err says
 * why, and the caller checks on the host instead); -1 on a CUDA error. */
int ab_gpu_check(ab_gpu_bufs *b, ab_check *out, char *err, size_t n);

/* The device's float64 reference of every row, downloaded into oref
 * (numel doubles), and its plain-vs-shadow sums: for the test that holds it
 * against the CPU oracle. 0, 1 or -1 as ab_gpu_check. */
int ab_gpu_reference(ab_gpu_bufs *b, double *oref, ab_check_sums *sums, char *err, size_t n);

/* Makes b's float64 device reference now, before any variant's check
 * needs it (the first check would otherwise make it): the forward's O_ref
 * and error sums, or a backward pass's gradients (ab_gpu_reference_bwd_make).
 * The runner calls it while an adapter prepares the configuration, so that
 * the two overlap. Returns 0 (made, or made before), 1 when the device
 * cannot hold or compute it (err says why; the checks then fall back as
 * they would), -1 on a CUDA error. */
int ab_gpu_reference_make(ab_gpu_bufs *b, char *err, size_t n);
/* The backward half of ab_gpu_reference_make: the float64 gradients of b's
 * backward pass (ab_gpu_bwd_prepare made its state). 0 or -1 with err. */
int ab_gpu_reference_bwd_make(ab_gpu_bufs *b, char *err, size_t n);

/* The gradient check of a backward pass (check.h, ab_grad_check) on the
 * device over every element: dQ, dK, dV of b (left by ab_gpu_run_once)
 * against the float64 backward of gpu_reference_bwd.cu, the tolerance from
 * its plain same-precision instantiation. 0 or -1 with err. */
int ab_gpu_check_bwd(ab_gpu_bufs *b, ab_grad_check *out, char *err, size_t n);

/* The device's float64 gradients dq [numel], dk, dv [kv numel] of b's
 * backward (for the test that holds them against ab_reference_bwd). 0 or
 * -1 with err. */
int ab_gpu_reference_bwd(ab_gpu_bufs *b, double *dq, double *dk, double *dv, char *err,
                         size_t n);

/* The forward state of a backward pass on the device (ab_gpu_bwd_prepare):
 * float64 attention of every row written as O (rounded to the dtype) into
 * p->o and its logsumexp into p->lse, and the row statistics of the
 * backward reference cached in *p->bref. 0 or -1 with err. */
int ab_gpu_bwd_state(const ab_gpu_parts *p, char *err, size_t n);
/* 1 when the cached backward reference bref (NULL: none) holds its float64
 * gradients (made by the first ab_gpu_check_bwd of its buffers, reused by
 * the later ones), else 0. */
int ab_gpu_bref_has_grads(const void *bref);
/* Frees a cached backward reference. */
void ab_gpu_bref_free(void *bref);

/* Frees a cached device reference (ab_gpu_bufs_destroy calls it). */
void ab_gpu_ref_free(void *ref);

/* The check of one measurement, wherever its output is: GPU variants (bufs
 * non-NULL, output left in bufs by ab_gpu_run_once) on the device over
 * every row, or, where the device cannot (return 1 of ab_gpu_check), on the
 * host over ab_check_rows_for(s) rows per slice with `seed`; CPU variants on
 * the host the same way (o holds their output). o: numel floats of scratch
 * for the download. q, k, v may be NULL for a GPU output (bufs made by
 * ab_gpu_bufs_create_seeded): the host check then copies b's inputs back.
 * Returns 0, or -1 with err. */
int ab_check_measurement(const ab_shape *s, ab_gpu_bufs *bufs, const float *q, const float *k,
                         const float *v, float *o, unsigned long seed, ab_check *out,
                         char *err, size_t n);

#ifdef __cplusplus
}
#endif

#endif
