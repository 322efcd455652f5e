/*
 * registry.c: the table of attention variants, one row per entry of
 * kernels/variants.def (adding a variant: its file plus one entry there);
 * the CLI, the experiment validator and the runner learn about it from this
 * table.
 *
 * Rows for CUDA, cuBLAS and cuDNN variants stay in the table when those are
 * not built, with `unavailable` saying why, so `attnbench variants` and the
 * experiment validator can explain the absence instead of "unknown variant".
 */
#include "registry.h"
#include "entry_points.h"

#include <stdio.h>
#include <string.h>

#ifdef AB_HAVE_CUDA
#define CUDA_FN(f) f
#define NO_CUDA NULL
#else
#define CUDA_FN(f) NULL
#define NO_CUDA "not built: CUDA disabled or nvcc not found at configure time"
#endif

#ifdef AB_HAVE_CUDNN
#define CUDNN_FN(f) f
#define NO_CUDNN NULL
#else
#define CUDNN_FN(f) NULL
#define NO_CUDNN                                                                         \
    "not built: no cuDNN at configure time (cudnn.h in the CUDA or system include path and " \
    "libcudnn in /usr/local/cuda/lib64 or the system library dir), -Dcudnn=disabled, or "  \
    "CUDA off; install cuDNN 9 and reconfigure"
#endif

/* The Hopper rungs: built only when gpu_targets includes 90a (wgmma and
 * setmaxnreg are sm_90a instructions). */
#if defined(AB_HAVE_CUDA) && defined(AB_HAVE_SM90A)
#define SM90A_FN(f) f
#define NO_SM90A NULL
#else
#define SM90A_FN(f) NULL
#define NO_SM90A                                                                          \
    "not built: needs CUDA and the sm_90a target (wgmma, TMA, setmaxnreg; Hopper only); "  \
    "reconfigure with -Dgpu_targets=...,90a"
#endif

#define ROW_CPU(x) x##_setup, x##_run, x##_teardown, ab_attention_flops, NULL
#define ROW_CUDA(x) CUDA_FN(x##_setup), CUDA_FN(x##_run), CUDA_FN(x##_teardown), ab_attention_flops, NO_CUDA
#define ROW_SM90A(x) SM90A_FN(x##_setup), SM90A_FN(x##_run), SM90A_FN(x##_teardown), ab_attention_flops, NO_SM90A
#define ROW_CUDNN(x) CUDNN_FN(x##_setup), CUDNN_FN(x##_run), CUDNN_FN(x##_teardown), ab_attention_flops, NO_CUDNN

#define ROW_CUDA_TOOL ROW_CUDA

/* one row per entry of variants.def, in its order */
static const ab_variant registry[] = {
#define AB_VARIANT(name, kind, backend, device, dtypes, idea, ...) \
    {#name, backend, device, dtypes, {__VA_ARGS__}, idea, ROW_##kind(name), 0, NULL},
#include "variants.def"
#undef AB_VARIANT
};

size_t ab_variant_count(void) { return sizeof registry / sizeof registry[0]; }

const ab_variant *ab_variant_at(size_t i)
{
    return i < ab_variant_count() ? &registry[i] : NULL;
}

const ab_variant *ab_variant_find(const char *name)
{
    for (size_t i = 0; i < ab_variant_count(); i++)
        if (strcmp(registry[i].name, name) == 0)
            return &registry[i];
    /* deliberately wrong variants of a test program (registry.h) */
    size_t nt = 0;
    const ab_variant *t = ab_test_variants ? ab_test_variants(&nt) : NULL;
    for (size_t i = 0; t && i < nt; i++)
        if (strcmp(t[i].name, name) == 0)
            return &t[i];
    return NULL;
}

const char *ab_variant_dtypes_str(const ab_variant *v, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int t = 0; t < AB_NDTYPES; t++)
        if (v->dtypes & AB_DT(t))
            len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s",
                                    len ? "," : "", ab_dtype_name((ab_dtype)t));
    return buf;
}

const char *ab_variant_dims_str(const ab_variant *v, char *buf, size_t n)
{
    size_t len = 0;
    if (v->head_dims[0] == 0) {
        snprintf(buf, n, "any");
        return buf;
    }
    buf[0] = '\0';
    for (int i = 0; i < 8 && v->head_dims[i]; i++)
        len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%d", len ? "," : "",
                                v->head_dims[i]);
    return buf;
}

/* AB_CAPS lines of variants.def */
static const struct {
    const char *name;
    unsigned caps;
} caps_of[] = {
#define AB_VARIANT(...)
#define AB_CAPS(name, caps) {#name, caps},
#include "variants.def"
#undef AB_CAPS
#undef AB_VARIANT
    {NULL, 0}};

/* AB_BWD lines of variants.def: the backward entry point, NULL where the
 * variant's file is not built (the KIND's FN macro above) */
#define CPU_FN(f) f
static const struct {
    const char *name;
    ab_bwd_fn run_bwd;
} bwd_of[] = {
#define AB_VARIANT(...)
#define AB_BWD(name, kind) {#name, kind##_FN(name##_run_bwd)},
#include "variants.def"
#undef AB_BWD
#undef AB_VARIANT
    {NULL, NULL}};

ab_bwd_fn ab_variant_bwd(const ab_variant *v)
{
    if (v->run_bwd)
        return v->run_bwd;
    for (size_t i = 0; bwd_of[i].name; i++)
        if (strcmp(bwd_of[i].name, v->name) == 0)
            return bwd_of[i].run_bwd;
    return NULL;
}

/* AB_PREPARE lines of variants.def, as AB_BWD's */
static const struct {
    const char *name;
    ab_prepare_fn prepare;
} prepare_of[] = {
#define AB_VARIANT(...)
#define AB_PREPARE(name, kind) {#name, kind##_FN(name##_prepare)},
#include "variants.def"
#undef AB_PREPARE
#undef AB_VARIANT
    {NULL, NULL}};

ab_prepare_fn ab_variant_prepare(const ab_variant *v)
{
    for (size_t i = 0; prepare_of[i].name; i++)
        if (strcmp(prepare_of[i].name, v->name) == 0)
            return prepare_of[i].prepare;
    return NULL;
}

unsigned ab_variant_caps(const ab_variant *v)
{
    unsigned c = v->caps;
    for (size_t i = 0; caps_of[i].name; i++)
        if (strcmp(caps_of[i].name, v->name) == 0)
            c |= caps_of[i].caps;
    return c;
}

int ab_variant_supports(const ab_variant *v, const ab_shape *s, char *why, size_t n)
{
    char list[64];
    if (v->unavailable) {
        snprintf(why, n, "%s: %s", v->name, v->unavailable);
        return -1;
    }
    if (!(v->dtypes & AB_DT(s->dtype))) {
        snprintf(why, n, "%s: dtype %s not supported (supported: %s)", v->name,
                 ab_dtype_name(s->dtype), ab_variant_dtypes_str(v, list, sizeof list));
        return -1;
    }
    if (v->head_dims[0] != 0) {
        int ok = 0;
        for (int i = 0; i < 8 && v->head_dims[i]; i++)
            ok |= v->head_dims[i] == s->D;
        if (!ok) {
            snprintf(why, n, "%s: D=%d not supported (supported: %s)", v->name, s->D,
                     ab_variant_dims_str(v, list, sizeof list));
            return -1;
        }
    }
    if ((ab_variant_caps(v) & AB_CAP_DECODE) && s->S > AB_DECODE_MAX_S) {
        snprintf(why, n, "%s: S=%d: a decode rung (S <= %d query rows; prefill is the "
                 "tensor-core rungs' job)", v->name, s->S, AB_DECODE_MAX_S);
        return -1;
    }
    if (s->pass != AB_FWD && !ab_variant_bwd(v)) {
        snprintf(why, n, "%s: pass %s: the variant has no backward pass (only fwd)", v->name,
                 ab_pass_name(s->pass));
        return -1;
    }
    if (s->pass != AB_FWD && ab_shape_kv_differs(s) && !(ab_variant_caps(v) & AB_CAP_BWD_KV)) {
        snprintf(why, n, "%s: pass %s with H_kv=%d S_kv=%d: its backward runs H_kv = H, S_kv = S "
                 "only", v->name, ab_pass_name(s->pass), ab_shape_hkv(s), ab_shape_skv(s));
        return -1;
    }
    if (ab_shape_kv_differs(s) && !(ab_variant_caps(v) & AB_CAP_KV)) {
        snprintf(why, n, "%s: H_kv=%d S_kv=%d not supported (only H_kv = H, S_kv = S)", v->name,
                 ab_shape_hkv(s), ab_shape_skv(s));
        return -1;
    }
    return 0;
}
