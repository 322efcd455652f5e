/*
 * bad_plugins.c: deliberately broken attnbench plugins for tests/plugin,
 * built three times with a different -DBAD_* flag:
 *   BAD_ABI      exports the table with abi_version 99 (refused at load);
 *   BAD_NOSYM    exports no attnbench_plugin_variants (refused at load);
 *   BAD_OUTPUT   loads and runs, but writes O = V (ignores the softmax), so
 *                the check against the float64 reference must fail it;
 *   BAD_CRASH    loads, then dies of SIGSEGV in run (in its worker process:
 *                attnbench stores the error and goes on).
 */
#include <signal.h>
#include <attnbench/plugin.h>

#include <string.h>

static int b_setup(const attnbench_shape *s, void **ctx, size_t *ws, char *err, size_t n)
{
    (void)s; (void)err; (void)n;
    *ctx = NULL;
    *ws = 0;
    return 0;
}

/* Wrong on purpose: O = V. */
static int b_run(void *ctx, const attnbench_shape *s, const void *q, const void *k,
                 const void *v, void *o, void *stream)
{
    (void)ctx; (void)q; (void)k; (void)stream;
#ifdef BAD_CRASH
    raise(SIGSEGV);
#endif
    memcpy(o, v, (size_t)s->B * s->H * s->S * s->D * sizeof(float));
    return 0;
}

static void b_teardown(void *ctx) { (void)ctx; }

static const attnbench_plugin_variant variants[] = {
#ifdef BAD_CRASH
    {"crash_plugin", ATTNBENCH_DEV_CPU,
#else
    {"bad_plugin", ATTNBENCH_DEV_CPU,
#endif
     ATTNBENCH_DT(ATTNBENCH_FP32), {0}, "broken on purpose",
     b_setup, b_run, b_teardown, NULL, {NULL}},
};

#ifdef BAD_ABI
static const attnbench_plugin plugin = {99, "bad_abi", 1, variants};
#else
static const attnbench_plugin plugin = {ATTNBENCH_PLUGIN_ABI_VERSION, "bad", 1, variants};
#endif

#ifdef BAD_NOSYM
const attnbench_plugin *not_the_symbol(void) { return &plugin; }
#else
const attnbench_plugin *attnbench_plugin_variants(void) { return &plugin; }
#endif
