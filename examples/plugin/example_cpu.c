/*
 * example_cpu.c: an attnbench plugin with one CPU variant, example_cpu:
 * exact attention with one pass of online softmax per query row (Milakov
 * and Gimelshein 2018) in float, on host float arrays [B, H, S, D]. It is
 * the example of the CPU route of include/attnbench/plugin.h: setup, run
 * and teardown plus the table attnbench_plugin_variants() returns.
 */
#include <attnbench/plugin.h>

#include <math.h>
#include <stdlib.h>

/* No state: setup only reports that it allocated nothing. */
static int ex_setup(const attnbench_shape *s, void **ctx, size_t *ws, char *err, size_t n)
{
    (void)s; (void)err; (void)n;
    *ctx = NULL;
    *ws = 0;
    return 0;
}

/* O = softmax(Q K^T / sqrt(D) [causal]) V, one query row at a time. */
static int ex_run(void *ctx, const attnbench_shape *s, const void *qv, const void *kv,
                  const void *vv, void *ov, void *stream)
{
    (void)ctx; (void)stream;
    const float *q = qv, *k = kv, *v = vv;
    float *o = ov;
    const int S = s->S, D = s->D;
    const float scale = 1.0f / sqrtf((float)D);
    float *acc = malloc((size_t)D * sizeof *acc);
    if (!acc)
        return -1;
    for (long bh = 0; bh < (long)s->B * s->H; bh++) {
        const float *Q = q + bh * S * D, *K = k + bh * S * D, *V = v + bh * S * D;
        float *O = o + bh * S * D;
        for (int i = 0; i < S; i++) {
            float m = -INFINITY, l = 0.0f;
            for (int d = 0; d < D; d++)
                acc[d] = 0.0f;
            int last = s->causal ? i : S - 1;
            for (int j = 0; j <= last; j++) {
                float x = 0.0f;
                for (int d = 0; d < D; d++)
                    x += Q[(long)i * D + d] * K[(long)j * D + d];
                x *= scale;
                float m2 = x > m ? x : m, c = expf(m - m2), p = expf(x - m2);
                l = l * c + p;
                for (int d = 0; d < D; d++)
                    acc[d] = acc[d] * c + p * V[(long)j * D + d];
                m = m2;
            }
            for (int d = 0; d < D; d++)
                O[(long)i * D + d] = acc[d] / l;
        }
    }
    free(acc);
    return 0;
}

static void ex_teardown(void *ctx) { (void)ctx; }

static const attnbench_plugin_variant variants[] = {
    {"example_cpu", ATTNBENCH_DEV_CPU,
     ATTNBENCH_DT(ATTNBENCH_FP16) | ATTNBENCH_DT(ATTNBENCH_BF16) | ATTNBENCH_DT(ATTNBENCH_FP32),
     {0}, "example plugin: online softmax per query row in float on the CPU",
     ex_setup, ex_run, ex_teardown, NULL, {NULL}},
};

static const attnbench_plugin plugin = {ATTNBENCH_PLUGIN_ABI_VERSION, "example_cpu", 1, variants};

const attnbench_plugin *attnbench_plugin_variants(void) { return &plugin; }
