/*
 * rung_plugin.c: the built-in rung cuda_fa2_warps built a second time as a
 * plugin, to isolate what the plugin route costs per call: the
 * shared module compiles kernels/cuda_fa2_warps.cu itself, so the plugin
 * variant "plugin_fa2_warps" runs the very kernel code of the built-in
 * "cuda_fa2_warps", reached through dlopen/dlsym and these wrappers instead
 * of the registry. An experiment with both (experiments/plugin-overhead.cfg)
 * measures the difference; adapters/examples/plugin_via_kit.py calls the
 * same library from the Python kit, which isolates the kit's cost the same
 * way. Built only with CUDA (tests/plugin/meson.build), linked -Bsymbolic so
 * its calls stay inside the library.
 */
#include <attnbench/plugin.h>

#include "src/core/variant.h"

int cuda_fa2_warps_setup(const ab_shape *s, void **ctx, size_t *ws, char *err, size_t errlen);
int cuda_fa2_warps_run(void *ctx, const ab_shape *s, const void *q, const void *k, const void *v,
                       void *o, void *stream);
void cuda_fa2_warps_teardown(void *ctx);

#include <stddef.h>
_Static_assert(sizeof(attnbench_shape) == offsetof(ab_shape, H_kv),
               "attnbench_shape is ab_shape's first six fields");

/* The plugin ABI's shape is ab_shape's first six fields (checked above);
 * ab_shape has more (H_kv, S_kv), which a caller of ABI 1 does not pass
 * (adapters/examples/plugin_via_kit.py hands over exactly six ints), so the
 * wrappers copy the six into a whole ab_shape (H_kv, S_kv 0: equal to H, S)
 * instead of reading past the caller's struct. */
static ab_shape as_ab(const attnbench_shape *s)
{
    ab_shape x = {s->B, s->H, s->S, s->D, s->causal, (ab_dtype)s->dtype, 0, 0};
    return x;
}

static int setup(const attnbench_shape *s, void **ctx, size_t *ws, char *err, size_t errlen)
{
    const ab_shape x = as_ab(s);
    return cuda_fa2_warps_setup(&x, ctx, ws, err, errlen);
}

static int run(void *ctx, const attnbench_shape *s, const void *q, const void *k, const void *v,
               void *o, void *stream)
{
    const ab_shape x = as_ab(s);
    return cuda_fa2_warps_run(ctx, &x, q, k, v, o, stream);
}

static void teardown(void *ctx) { cuda_fa2_warps_teardown(ctx); }

static const attnbench_plugin_variant variants[] = {
    {"plugin_fa2_warps", ATTNBENCH_DEV_CUDA,
     ATTNBENCH_DT(ATTNBENCH_FP16) | ATTNBENCH_DT(ATTNBENCH_BF16) | ATTNBENCH_DT(ATTNBENCH_FP32),
     {64, 128, 0}, "cuda_fa2_warps' own code reached through the plugin ABI", setup, run,
     teardown, NULL, {NULL, NULL, NULL, NULL}},
};

static const attnbench_plugin table = {ATTNBENCH_PLUGIN_ABI_VERSION, "rung_fa2_warps", 1, variants};

/* The plugin's table (include/attnbench/plugin.h). */
const attnbench_plugin *attnbench_plugin_variants(void) { return &table; }
