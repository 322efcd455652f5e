/*
 * hostile_plugins.c: attnbench plugins that attack the process loading them,
 * for tests/plugin/hostile.sh; built once per -DHOSTILE_* flag:
 *   HOSTILE_COUNT    a table of one row that claims 1,000,000 (reading the
 *                    claimed rows runs off the library's memory);
 *   HOSTILE_CRASH2   correct on its first call, SIGSEGV on its second (the
 *                    probe makes one call);
 *   HOSTILE_OVERRUN  writes 256 floats past the end of O in every call;
 *   HOSTILE_EXIT     calls exit(0) in setup;
 *   HOSTILE_HANG     run never returns (and ignores SIGTERM).
 * Except where it misbehaves, each computes attention correctly (a float64
 * softmax per query row), so any other outcome is attnbench's doing.
 */
#include <attnbench/plugin.h>

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int h_setup(const attnbench_shape *s, void **ctx, size_t *ws, char *err, size_t n)
{
    (void)s; (void)err; (void)n;
    *ctx = NULL;
    *ws = 0;
#ifdef HOSTILE_EXIT
    exit(0);
#endif
#ifdef HOSTILE_HANG
    signal(SIGTERM, SIG_IGN);
#endif
    return 0;
}

static int h_run(void *ctx, const attnbench_shape *s, const void *q_, const void *k_,
                 const void *v_, void *o_, void *stream)
{
    (void)ctx; (void)stream;
#ifdef HOSTILE_CRASH2
    static int calls;
    if (++calls == 2)
        raise(SIGSEGV);
#endif
#ifdef HOSTILE_HANG
    for (;;)
        pause();
#endif
    const float *q = q_, *k = k_, *v = v_;
    float *o = o_;
    const int S = s->S, D = s->D;
    const double scale = 1.0 / sqrt((double)D);
    double *p = malloc(sizeof *p * (size_t)S);
    if (!p)
        return 1;
    for (long bh = 0; bh < (long)s->B * s->H; bh++) {
        const float *qb = q + bh * S * D, *kb = k + bh * S * D, *vb = v + bh * S * D;
        float *ob = o + bh * S * D;
        for (int i = 0; i < S; i++) {
            const int nk = s->causal ? i + 1 : S;
            double mx = -INFINITY, sum = 0;
            for (int j = 0; j < nk; j++) {
                double d = 0;
                for (int x = 0; x < D; x++)
                    d += (double)qb[i * D + x] * kb[j * D + x];
                p[j] = d * scale;
                mx = p[j] > mx ? p[j] : mx;
            }
            for (int j = 0; j < nk; j++)
                sum += (p[j] = exp(p[j] - mx));
            for (int x = 0; x < D; x++) {
                double acc = 0;
                for (int j = 0; j < nk; j++)
                    acc += p[j] * vb[j * D + x];
                ob[i * D + x] = (float)(acc / sum);
            }
        }
    }
    free(p);
#ifdef HOSTILE_OVERRUN
    {
        const size_t numel = (size_t)s->B * s->H * S * D;
        volatile float *past = o + numel;
        for (int i = 0; i < 256; i++)
            past[i] = 1e30f;
    }
#endif
    return 0;
}

static void h_teardown(void *ctx) { (void)ctx; }

static const attnbench_plugin_variant variants[] = {
    {"hostile", ATTNBENCH_DEV_CPU, ATTNBENCH_DT(ATTNBENCH_FP32), {0}, "hostile on purpose",
     h_setup, h_run, h_teardown, NULL, {NULL}},
};

#ifdef HOSTILE_COUNT
static const attnbench_plugin plugin = {ATTNBENCH_PLUGIN_ABI_VERSION, "hostile", 1000000, variants};
#else
static const attnbench_plugin plugin = {ATTNBENCH_PLUGIN_ABI_VERSION, "hostile", 1, variants};
#endif

const attnbench_plugin *attnbench_plugin_variants(void) { return &plugin; }
