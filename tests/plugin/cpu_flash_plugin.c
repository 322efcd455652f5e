/*
 * cpu_flash_plugin.c: the built-in CPU variant cpu_flash (kernels/cpu_flash.c)
 * compiled again as a plugin (include/attnbench/plugin.h), variant
 * "plugin_cpu_flash": the same code reached through dlopen (and, from
 * Python, through ctypes: adapters/examples/plugin_via_kit.py), so one run
 * isolates each route's per-call cost on the CPU
 * (examples/python/route_overhead.py, docs/own-kernel.md).
 */
#include "attnbench/plugin.h"
#include "variant.h"

#include <stddef.h>

int cpu_flash_setup(const ab_shape *s, void **ctx, size_t *ws, char *err, size_t errlen);
int cpu_flash_run(void *ctx, const ab_shape *s, const void *q, const void *k, const void *v,
                  void *o, void *stream);
void cpu_flash_teardown(void *ctx);

/* The ABI's shape is ab_shape's first six fields; the wrappers copy them
 * into a whole ab_shape (H_kv, S_kv 0: equal to H, S, forward pass), as
 * tests/plugin/rung_plugin.c does. */
static ab_shape as_ab(const attnbench_shape *s)
{
    ab_shape x = {s->B, s->H, s->S, s->D, s->causal, (ab_dtype)s->dtype, 0, 0, AB_FWD};
    return x;
}

static int setup(const attnbench_shape *s, void **ctx, size_t *ws, char *err, size_t errlen)
{
    const ab_shape x = as_ab(s);
    return cpu_flash_setup(&x, ctx, ws, err, errlen);
}

static int run(void *ctx, const attnbench_shape *s, const void *q, const void *k, const void *v,
               void *o, void *stream)
{
    const ab_shape x = as_ab(s);
    return cpu_flash_run(ctx, &x, q, k, v, o, stream);
}

static void teardown(void *ctx) { cpu_flash_teardown(ctx); }

static const attnbench_plugin_variant variants[] = {
    {"plugin_cpu_flash", ATTNBENCH_DEV_CPU, ATTNBENCH_DT(ATTNBENCH_FP32), {0},
     "cpu_flash's own code reached through the plugin ABI", setup, run, teardown, NULL,
     {NULL, NULL, NULL, NULL}},
};

static const attnbench_plugin table = {ATTNBENCH_PLUGIN_ABI_VERSION, "cpu_flash_plugin", 1,
                                       variants};

/* The plugin's table (include/attnbench/plugin.h). */
const attnbench_plugin *attnbench_plugin_variants(void) { return &table; }
