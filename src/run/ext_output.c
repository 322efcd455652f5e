/*
 * ext_output.c: an external variant's output file checked by attnbench
 * itself (see ext_output.h).
 */
#include "ext_output.h"

#include "data.h"
#include "gpu_check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads exactly numel floats of the regular file at path into o. Returns 0,
 * or -1 with the reason in err. */
static int read_output(const char *path, size_t numel, float *o, char *err, size_t n)
{
    int rc = -1;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, n, "output %s: %s", path,
                 errno == ELOOP ? "a symbolic link (a regular file is required)" : strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, n, "output %s: %s", path, strerror(errno));
        goto cleanup;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, n, "output %s: not a regular file", path);
        goto cleanup;
    }
    const size_t want = numel * sizeof(float);
    if ((size_t)st.st_size != want) {
        snprintf(err, n, "output %s: %lld bytes, expected %zu (B*H*S*D float32 values)", path,
                 (long long)st.st_size, want);
        goto cleanup;
    }
    size_t got = 0;
    while (got < want) {
        ssize_t r = read(fd, (char *)o + got, want - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            snprintf(err, n, "output %s: %s", path, r < 0 ? strerror(errno) : "short read");
            goto cleanup;
        }
        got += (size_t)r;
    }
    rc = 0;
cleanup:
    close(fd);
    return rc;
}

int ab_ext_output_check(const ab_shape *s, const char *path, ab_gpu_bufs *bufs,
                        unsigned long input_seed, unsigned long check_seed, ab_check *out,
                        char *err, size_t n)
{
    int rc = -1;
    const size_t numel = ab_shape_numel(s);
    float *o = malloc(numel * sizeof *o);
    if (!o) {
        snprintf(err, n, "out of host memory for the output check (%zu-element tensors)", numel);
        goto cleanup;
    }
    if (read_output(path, numel, o, err, n))
        goto cleanup;
    if (bufs) { /* on the device, every row */
        char why[256] = "";
        if (ab_gpu_set_output(bufs, o, err, n))
            goto cleanup;
        int g = ab_gpu_check(bufs, out, why, sizeof why);
        if (g < 0) {
            snprintf(err, n, "%s", why);
            goto cleanup;
        }
        if (g == 0) {
            rc = 0;
            goto cleanup;
        }
        /* the device cannot hold or handle the reference: on the host */
    }
    rc = ab_ext_host_check(s, o, input_seed, check_seed, out, err, n);
cleanup:
    unlink(path); /* written for attnbench alone; removed whatever the outcome */
    free(o);
    return rc;
}

int ab_ext_host_check(const ab_shape *s, const float *o, unsigned long input_seed,
                      unsigned long check_seed, ab_check *out, char *err, size_t n)
{
    int rc = -1;
    const size_t numel = ab_shape_numel(s), nkv = ab_shape_kv_numel(s);
    float *q = malloc(numel * sizeof *q);
    float *k = malloc(nkv * sizeof *k), *v = malloc(nkv * sizeof *v); /* [B, H_kv, S_kv, D] */
    if (!q || !k || !v) {
        snprintf(err, n, "out of host memory for the output check (%zu-element tensors)", numel);
        goto cleanup;
    }
    if (ab_inputs_fill(s, input_seed, q, k, v)) {
        snprintf(err, n, "out of memory for the RNG");
        goto cleanup;
    }
    if (ab_check_output(s, q, k, v, o, check_seed, ab_check_rows_for(s), out)) {
        snprintf(err, n, "out of host memory in the correctness check");
        goto cleanup;
    }
    rc = 0;
cleanup:
    free(q);
    free(k);
    free(v);
    return rc;
}

int ab_ext_grads_check(const ab_shape *s, const char *path, ab_gpu_bufs *bufs,
                       unsigned long input_seed, ab_grad_check *out, char *err, size_t n)
{
    int rc = -1;
    const size_t nq = ab_shape_numel(s), nkv = ab_shape_kv_numel(s), all = nq + 2 * nkv;
    float *g = malloc(all * sizeof *g), *q = NULL, *k = NULL, *v = NULL, *dout = NULL;
    if (!g) {
        snprintf(err, n, "out of host memory for the gradient check");
        goto cleanup;
    }
    if (read_output(path, all, g, err, n))
        goto cleanup;
    if (bufs) { /* on the device, every element */
        rc = ab_gpu_set_grads(bufs, g, err, n) || ab_gpu_check_bwd(bufs, out, err, n) ? -1 : 0;
        goto cleanup;
    }
    q = malloc(nq * sizeof *q), k = malloc(nkv * sizeof *k), v = malloc(nkv * sizeof *v);
    dout = malloc(nq * sizeof *dout);
    if (!q || !k || !v || !dout || ab_inputs_fill(s, input_seed, q, k, v) ||
        ab_dout_fill(s, input_seed, dout) ||
        ab_check_grads(s, q, k, v, dout, g, g + nq, g + nq + nkv, out)) {
        snprintf(err, n, "out of host memory for the gradient check");
        goto cleanup;
    }
    rc = 0;
cleanup:
    unlink(path); /* written for attnbench alone; removed whatever the outcome */
    free(g);
    free(q);
    free(k);
    free(v);
    free(dout);
    return rc;
}
