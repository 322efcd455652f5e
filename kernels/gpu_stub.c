/*
 * gpu_stub.c: the GPU harness of a build without CUDA. Every entry point of
 * gpu.h fails with the same clear message, so CUDA variants are refused at
 * validation and `attnbench env` reports no GPU.
 */
#include "gpu.h"

#include <stdio.h>
#include <string.h>

#define NO_CUDA_MSG "attnbench was built without CUDA (no nvcc at configure time, or -Dcuda=disabled)"

static int fail(char *err, size_t n)
{
    snprintf(err, n, "%s", NO_CUDA_MSG);
    return -1;
}

int ab_gpu_query(ab_gpu_info *g, char *err, size_t n)
{
    memset(g, 0, sizeof *g);
    return fail(err, n);
}
size_t ab_gpu_bytes_needed(const ab_shape *s) { return 0; }
int ab_gpu_smem_fits(size_t bytes, const char *who, int D, char *err, size_t n)
{
    return fail(err, n);
}
int ab_gpu_bufs_create(const ab_shape *s, const float *q, const float *k, const float *v,
                       ab_gpu_bufs **out, char *err, size_t n)
{
    *out = NULL;
    return fail(err, n);
}
void ab_gpu_bufs_destroy(ab_gpu_bufs *b) { (void)b; }
int ab_gpu_poison(ab_gpu_bufs *b, char *err, size_t n) { return fail(err, n); }
int ab_gpu_bufs_create_seeded(const ab_shape *s, unsigned long seed, ab_gpu_bufs **out,
                              char *err, size_t n)
{
    *out = NULL;
    return fail(err, n);
}
int ab_gpu_inputs(ab_gpu_bufs *b, float *q, float *k, float *v, float *dout, char *err,
                  size_t n)
{
    return fail(err, n);
}
int ab_gpu_bwd_prepare(ab_gpu_bufs *b, const float *dout, char *err, size_t n)
{
    return fail(err, n);
}
int ab_gpu_poison_grads(ab_gpu_bufs *b, char *err, size_t n) { return fail(err, n); }
int ab_gpu_set_grads(ab_gpu_bufs *b, const float *g, char *err, size_t n) { return fail(err, n); }
int ab_gpu_run_once(const ab_variant *v, void *ctx, ab_gpu_bufs *b, char *err, size_t n)
{
    return fail(err, n);
}
int ab_gpu_time(const ab_variant *v, void *ctx, ab_gpu_bufs *b, ab_timing_mode m, int graph_k,
                size_t count, double *ms, char *err, size_t n)
{
    return fail(err, n);
}
int ab_gpu_output(ab_gpu_bufs *b, float *o, char *err, size_t n) { return fail(err, n); }
int ab_gpu_set_output(ab_gpu_bufs *b, const float *o, char *err, size_t n) { return fail(err, n); }
size_t ab_gpu_mem_used(void) { return 0; }
int ab_gpu_compute_mode(void) { return -1; }
int ab_gpu_input_sets(const ab_gpu_bufs *b) { return 1; }
int ab_gpu_hold_enabled(void) { return 0; }
int ab_gpu_measure_peaks(double *gemm_tflops, double *copy_gbs, char *err, size_t n)
{
    *gemm_tflops = *copy_gbs = 0;
    return fail(err, n);
}

const ab_variant ab_gpu_empty_variant = {
    "empty_kernel", "cuda", AB_DEV_CUDA, AB_DT_ALL, {0}, "an empty kernel (not built)",
    NULL, NULL, NULL, ab_attention_flops, NO_CUDA_MSG, 0};

/* ---- the device check (gpu_check.h) ---- */
#include "gpu_check.h"

void ab_gpu_bufs_parts(ab_gpu_bufs *b, ab_gpu_parts *p) { memset(p, 0, sizeof *p); }
int ab_gpu_bref_has_grads(const void *bref) { return 0; }
int ab_gpu_check(ab_gpu_bufs *b, ab_check *out, char *err, size_t n)
{
    memset(out, 0, sizeof *out);
    return fail(err, n);
}
int ab_gpu_reference(ab_gpu_bufs *b, double *oref, ab_check_sums *sums, char *err, size_t n)
{
    return fail(err, n);
}
void ab_gpu_ref_free(void *ref) { (void)ref; }
int ab_gpu_check_bwd(ab_gpu_bufs *b, ab_grad_check *out, char *err, size_t n)
{
    return fail(err, n);
}
int ab_gpu_reference_bwd(ab_gpu_bufs *b, double *dq, double *dk, double *dv, char *err, size_t n)
{
    return fail(err, n);
}
int ab_gpu_reference_make(ab_gpu_bufs *b, char *err, size_t n) { return fail(err, n); }
int ab_gpu_reference_bwd_make(ab_gpu_bufs *b, char *err, size_t n) { return fail(err, n); }

/* ---- device buffers shared with adapters (gpu_ipc.h) ---- */
#include "gpu_ipc.h"

int ab_gpu_layout_prepare(ab_gpu_bufs *b, ab_layout l, char *err, size_t n) { return fail(err, n); }
int ab_gpu_ipc_export(ab_gpu_bufs *b, ab_layout l, ab_gpu_export *x, char *err, size_t n)
{
    memset(x, 0, sizeof *x);
    return fail(err, n);
}
void ab_gpu_export_free(ab_gpu_export *x) { (void)x; }
int ab_gpu_layout_poison(ab_gpu_bufs *b, ab_layout l, char *err, size_t n) { return fail(err, n); }
int ab_gpu_layout_collect(ab_gpu_bufs *b, ab_layout l, char *err, size_t n) { return fail(err, n); }
