/*
 * rung_plugin.c: the built-in rung cuda_fa2_warps built a second time as a
 * plugin (issue 22), to isolate what the plugin route costs per call: the
 * shared module compiles kernels/cuda_fa2_warps.cu itself, so the plugin
 * variant "plugin_fa2_warps" runs the very kernel code of the built-in
 * "cuda_fa2_warps", reached through dlopen/dlsym and these wrappers instead
 * of the registry. An experiment with both (experiments/issue22-overhead.cfg)
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

/* The plugin ABI's shape is ab_shape's first six fields (checked above and
 * by plugin.c; plugins never see H_kv != H or S_kv != S); the wrappers only
 * change the pointer type. */
static const ab_shape *as_ab(const attnbench_shape *s) { return (const ab_shape *)(const void *)s; }

static int setup(const attnbench_shape *s, void **ctx, size_t *ws, char *err, size_t errlen)
{
    return cuda_fa2_warps_setup(as_ab(s), ctx, ws, err, errlen);
}

static int run(void *ctx, const attnbench_shape *s, const void *q, const void *k, const void *v,
               void *o, void *stream)
{
    return cuda_fa2_warps_run(ctx, as_ab(s), q, k, v, o, stream);
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
