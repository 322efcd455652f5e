/*
 * gpu_inputs.c: the inputs generated on the device (gpu.h
 * ab_gpu_bufs_create_seeded, kernels/gpu_inputs.cu: cuRAND's device Philox
 * generator and the conversion to the dtype) against those of the host
 * (kernels/data.c ab_inputs_fill, ab_dout_fill: cuRAND's host generator),
 * bit for bit, for every dtype, grouped-query and S_kv != S shapes, a
 * backward's dO, and a tensor above the device's 2^22-output chunk. The
 * host side is itself held against cuRAND's host generator and the Philox
 * known-answer vectors by tests/check/test_philox.c, so the two sides are
 * two implementations of one library's stream, not one compared with
 * itself. Exit 0 when every tensor is identical, 1 when one differs, 77
 * ("skipped: no CUDA device: ...") without a GPU.
 */
#include "data.h"
#include "gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Compares n floats bit for bit; prints the first difference. */
static int same_bits(const char *what, const ab_shape *s, const float *host, const float *dev,
                     size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&host[i], &dev[i], sizeof(float)) != 0) {
            printf("FAIL %s %s B=%d H=%d H_kv=%d S=%d S_kv=%d D=%d: element %zu host %a device %a\n",
                   what, ab_dtype_name(s->dtype), s->B, s->H, ab_shape_hkv(s), s->S,
                   ab_shape_skv(s), s->D, i, host[i], dev[i]);
            return 1;
        }
    return 0;
}

static int one_case(const ab_shape *s, unsigned long seed)
{
    const size_t nq = ab_shape_numel(s), nkv = ab_shape_kv_numel(s);
    float *h = malloc((2 * nq + 2 * nkv) * sizeof *h), *d = malloc((2 * nq + 2 * nkv) * sizeof *d);
    ab_gpu_bufs *b = NULL;
    char err[512];
    int bad = 1;
    if (!h || !d) {
        printf("FAIL: out of host memory\n");
        goto done;
    }
    if (ab_inputs_fill(s, seed, h, h + nq, h + nq + nkv) ||
        (s->pass != AB_FWD && ab_dout_fill(s, seed, h + nq + 2 * nkv))) {
        printf("FAIL: host generator\n");
        goto done;
    }
    if (ab_gpu_bufs_create_seeded(s, seed, &b, err, sizeof err) ||
        (s->pass != AB_FWD && ab_gpu_bwd_prepare(b, NULL, err, sizeof err)) ||
        ab_gpu_inputs(b, d, d + nq, d + nq + nkv, s->pass != AB_FWD ? d + nq + 2 * nkv : NULL, err,
                      sizeof err)) {
        printf("FAIL: %s\n", err);
        goto done;
    }
    bad = same_bits("Q", s, h, d, nq) || same_bits("K", s, h + nq, d + nq, nkv) ||
          same_bits("V", s, h + nq + nkv, d + nq + nkv, nkv) ||
          (s->pass != AB_FWD && same_bits("dO", s, h + nq + 2 * nkv, d + nq + 2 * nkv, nq));
    if (!bad)
        printf("ok %s B=%d H=%d H_kv=%d S=%d S_kv=%d D=%d %s seed=%lu: %zu values identical\n",
               ab_dtype_name(s->dtype), s->B, s->H, ab_shape_hkv(s), s->S, ab_shape_skv(s), s->D,
               ab_pass_name(s->pass), seed, s->pass != AB_FWD ? 2 * nq + 2 * nkv : nq + 2 * nkv);
done:
    ab_gpu_bufs_destroy(b);
    free(h);
    free(d);
    return bad;
}

int main(void)
{
    ab_gpu_info g;
    char err[512];
    if (ab_gpu_query(&g, err, sizeof err)) {
        printf("skipped: %s\n", err);
        return 77;
    }
    const unsigned long seeds[] = {0, 1, 42, 4294967301UL, (unsigned long)-1};
    int bad = 0, cases = 0;
    for (int t = 0; t < AB_NDTYPES; t++) {
        for (int i = 0; i < 5; i++) {
            /* odd sizes (outputs not a multiple of 4), MQA with S_kv != S */
            ab_shape a = {2, 3, 17, 8, 0, (ab_dtype)t, 0, 0};
            ab_shape m = {1, 4, 33, 24, 1, (ab_dtype)t, 1, 71};
            bad += one_case(&a, seeds[i]) + one_case(&m, seeds[i]);
            cases += 2;
        }
        /* above the 2^22-output chunk of the fp16/bf16 path, GQA */
        ab_shape big = {1, 4, 8300, 128, 1, (ab_dtype)t, 2, 0};
        /* a backward pass: dO from the stream of seed + 1 */
        ab_shape bwd = {1, 2, 130, 64, 1, (ab_dtype)t, 0, 0};
        bwd.pass = AB_BWD;
        bad += one_case(&big, 7) + one_case(&bwd, 11);
        cases += 2;
    }
    printf("device inputs: %d cases, %d differ\n", cases, bad);
    return bad ? 1 : 0;
}
