/*
 * gpu.h: the GPU side of the harness, callable from C. Implemented in
 * gpu_harness.cu when CUDA is built, and by gpu_stub.c (every call fails with
 * "built without CUDA") otherwise, so src/ never needs CUDA headers.
 *
 * A measurement on the GPU: ab_gpu_bufs_create_seeded generates the inputs
 * on the device once (ab_gpu_bufs_create uploads given ones); for each variant, setup (outside timing), warm-up launches,
 * ab_gpu_time for the samples, then ab_gpu_poison + one ab_gpu_run_once +
 * ab_gpu_output for the correctness check.
 */
#ifndef ATTNBENCH_GPU_H
#define ATTNBENCH_GPU_H

#include "timing_mode.h"
#include "variant.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ab_gpu_info {
    int device;
    char name[256];
    char uuid[64];            /* "GPU-xxxxxxxx-...", from cudaDeviceProp.uuid */
    int cc_major, cc_minor;
    int sm_count;
    size_t mem_total, mem_free; /* bytes */
    int l2_bytes;             /* cudaDevAttrL2CacheSize */
    int driver_version, runtime_version; /* 12040 = 12.4 */
    int cublas_version;
    int cudnn_version;        /* 0 when cuDNN is not linked */
    int sm_clock_khz, mem_clock_khz; /* device attributes (max clocks) */
    int ecc;
    int smem_optin;           /* bytes of shared memory one block may opt in to
                                 (cudaDevAttrMaxSharedMemoryPerBlockOptin) */
    /* this build's code for the device, from cudaFuncGetAttributes of a
     * harness kernel: binary_cc = the SASS used (86 for sm_86), ptx_cc = the
     * PTX it came from; 0/0 when the build holds no image the device can
     * load (not compiled for it) */
    int image_binary_cc, image_ptx_cc;
} ab_gpu_info;

/* The timing modes (ab_timing_mode) are in core/timing_mode.h. */

typedef struct ab_gpu_bufs ab_gpu_bufs;

/* Whether a CUDA device is usable; fills *g. Returns 0, or -1 with the
 * reason in err ("no CUDA device: ..."). */
int ab_gpu_query(ab_gpu_info *g, char *err, size_t n);

/* Device bytes needed for Q, K, V, O of shape s and the L2 flush buffer. */
size_t ab_gpu_bytes_needed(const ab_shape *s);

/* Allocates Q, K, V, O in s->dtype and uploads q, k, v (host floats, already
 * rounded to the dtype). Checks free memory first. 0 or -1 with err. */
int ab_gpu_bufs_create(const ab_shape *s, const float *q, const float *k, const float *v,
                       ab_gpu_bufs **out, char *err, size_t n);
/* As ab_gpu_bufs_create, with Q, K, V generated on the device from `seed`
 * (data.h's inputs, bit for bit those of ab_inputs_fill) instead of
 * uploaded; a backward's dO then too (ab_gpu_bwd_prepare with dout NULL).
 * 0 or -1 with err. */
int ab_gpu_bufs_create_seeded(const ab_shape *s, unsigned long seed, ab_gpu_bufs **out,
                              char *err, size_t n);
void ab_gpu_bufs_destroy(ab_gpu_bufs *b);

/* Copies b's inputs back as floats: q, dout (numel each) and k, v (kv
 * numel each); any of them may be NULL (not copied). For the host check of
 * a configuration whose inputs were made on the device, and for the test
 * that holds them against ab_inputs_fill. 0 or -1 with err. */
int ab_gpu_inputs(ab_gpu_bufs *b, float *q, float *k, float *v, float *dout, char *err,
                  size_t n);

/* Backward pass: gives b, made for a shape with pass != fwd, the
 * backward's buffers (dO uploaded from dout, numel floats of the dtype's
 * values, or with dout NULL generated on the device from the seed of
 * ab_gpu_bufs_create_seeded; dQ, dK, dV; the logsumexp floats) and computes the forward state
 * on the device in float64 (gpu_reference_bwd.cu): O rounded to the dtype
 * into b's O, the logsumexp into its lse. Input rotation is off for a
 * backward (one set). 0 or -1 with err. */
int ab_gpu_bwd_prepare(ab_gpu_bufs *b, const float *dout, char *err, size_t n);
/* Uploads g (an external variant's dQ [B,H,S,D] then dK, dV
 * [B,H_kv,S_kv,D], floats holding dtype values) into b's gradients, for
 * ab_gpu_check_bwd. 0 or -1 with err. */
int ab_gpu_set_grads(ab_gpu_bufs *b, const float *g, char *err, size_t n);
/* Fills dQ, dK, dV with NaN. */
int ab_gpu_poison_grads(ab_gpu_bufs *b, char *err, size_t n);

/* Fills O with NaN (0xFFFF / 0xFFFFFFFF bit patterns). */
int ab_gpu_poison(ab_gpu_bufs *b, char *err, size_t n);

/* Runs variant v once (the pass of b's shape: forward, backward, or both
 * in that order), synchronises, checks launch and execution errors. */
int ab_gpu_run_once(const ab_variant *v, void *ctx, ab_gpu_bufs *b, char *err, size_t n);

/* Times `count` samples of v in mode m, writing milliseconds to ms[0..count).
 * graph_k: launches per graph replay (GRAPH mode; >= 1). Each block (the
 * hot chain; each cold sample; each graph replay) is enqueued behind the
 * launch hold (gpu_harness.cu hold_stream; off with ATTNBENCH_HOLD=0), so
 * no sample holds the host's submission time; hot and graph launches take
 * b's input sets in turn, carrying on from the previous call on b. */
int ab_gpu_time(const ab_variant *v, void *ctx, ab_gpu_bufs *b, ab_timing_mode m,
                int graph_k, size_t count, double *ms, char *err, size_t n);

/* Copies O back as floats (numel of the shape). */
int ab_gpu_output(ab_gpu_bufs *b, float *o, char *err, size_t n);

/* Uploads o (numel floats [B,H,S,D], values of the dtype: an external
 * variant's output) into b's O, converted to the dtype (exact for dtype
 * values), for the device check (gpu_check.h). 0 or -1 with err. */
int ab_gpu_set_output(ab_gpu_bufs *b, const float *o, char *err, size_t n);

/* An empty kernel as a variant: timed with ab_gpu_time it gives the floor
 * of the timer in each mode (launch overhead plus event resolution). */
extern const ab_variant ab_gpu_empty_variant;

/* Input sets b rotates among in hot and graph modes (ab_l2_rotation_sets). */
int ab_gpu_input_sets(const ab_gpu_bufs *b);

/* 1 when ab_gpu_time enqueues each block behind the launch hold
 * (gpu_harness.cu hold_stream; on unless ATTNBENCH_HOLD=0), 0 when it does
 * not or this build has no CUDA. */
int ab_gpu_hold_enabled(void);

/* The machine's two ceilings (METHOD.md: measure them once): a bf16 GEMM of
 * 8192^3 through cuBLAS (fp32 accumulation) in TFLOP/s, and a 2 GiB
 * device-to-device copy in GB/s counting bytes read plus written; each the
 * median of 10 timed repetitions after warm-up, random (non-zero) data.
 * Returns 0 or -1 with err. */
int ab_gpu_measure_peaks(double *gemm_tflops, double *copy_gbs, char *err, size_t n);

/* Whether one block may use `bytes` of dynamic shared memory on the
 * current device (its opt-in limit, cudaDevAttrMaxSharedMemoryPerBlockOptin:
 * 227 KiB on sm_90, 163 KiB on sm_80, 99 KiB on sm_86 and sm_89). Returns 0
 * when it fits, else AB_SETUP_UNSUPPORTED with "<who>: D=<D> needs N KiB of
 * shared memory per block; this GPU allows M KiB" in err (-1 when the device
 * cannot be queried). ATTNBENCH_SMEM_LIMIT=<bytes>, when set, lowers the
 * limit: the GPU suite uses it to take the small-GPU paths on a large one. */
int ab_gpu_smem_fits(size_t bytes, const char *who, int D, char *err, size_t n);

/* Bytes of device memory in use now (total - free), for peak accounting. */
size_t ab_gpu_mem_used(void);

/* The current device's compute mode (cudaDevAttrComputeMode): 0 default
 * (any number of processes), 2 prohibited, 3 exclusive-process (one
 * process at a time); -1 when there is no usable CUDA device (or a build
 * without CUDA). */
int ab_gpu_compute_mode(void);

#ifdef __cplusplus
}
#endif

#endif
