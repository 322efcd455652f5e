/*
 * check_run.c: the check of one measurement wherever its output lives
 * (gpu_check.h's ab_check_measurement): GPU outputs on the device over every
 * row, falling back to the host check when the device cannot; CPU outputs on
 * the host, every row when ab_check_rows_for allows, else a fresh sample.
 * A GPU output checked on the host whose inputs were made on the device
 * (q NULL) is checked against those inputs, copied back.
 */
#include "gpu_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

unsigned long ab_check_fresh_seed(void)
{
    unsigned long x = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(&x, sizeof x, 1, f) != 1)
        x = (unsigned long)time(NULL) * 2654435761UL ^ (unsigned long)getpid() << 20;
    if (f)
        fclose(f);
    return x ? x : 1;
}

int ab_check_measurement(const ab_shape *s, ab_gpu_bufs *bufs, const float *q, const float *k,
                         const float *v, float *o, unsigned long seed, ab_check *out,
                         char *err, size_t n)
{
    if (bufs) {
        char why[256] = "";
        int rc = ab_gpu_check(bufs, out, why, sizeof why);
        if (rc == 0)
            return 0;
        if (rc < 0) {
            snprintf(err, n, "%s", why);
            return -1;
        }
        /* the device cannot hold or handle the reference: host check */
        if (ab_gpu_output(bufs, o, err, n))
            return -1;
    }
    float *h = NULL; /* inputs made on the device only: copied back for the host check */
    if (!q && bufs) {
        const size_t nq = ab_shape_numel(s), nkv = ab_shape_kv_numel(s);
        h = malloc((nq + 2 * nkv) * sizeof *h);
        if (!h) {
            snprintf(err, n, "out of host memory in the correctness check");
            return -1;
        }
        if (ab_gpu_inputs(bufs, h, h + nq, h + nq + nkv, NULL, err, n)) {
            free(h);
            return -1;
        }
        q = h;
        k = h + nq;
        v = h + nq + nkv;
    }
    int rc = ab_check_output(s, q, k, v, o, seed, ab_check_rows_for(s), out);
    free(h);
    if (rc) {
        snprintf(err, n, "out of host memory in the correctness check");
        return -1;
    }
    return 0;
}
