/*
 * plugin.c: loads out-of-tree plugins (include/attnbench/plugin.h) with
 * dlopen/dlsym and adapts their variants into ab_variant rows, so the
 * runner needs no second path: a plugin variant is set up, warmed up,
 * checked, timed and stored like a built-in one. The library's path, size
 * and SHA-256 go into a JSON record stored with each of its measurements.
 */
#include "plugin.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#ifdef AB_HAVE_LIBCRYPTO
#include <openssl/evp.h>
#endif

#include "attnbench/plugin.h"

/* The plugin's shape is the first six fields of the harness's shape, field
 * for field, so the plugin's entry points are called through ab_variant's
 * function types (a plugin of ABI 1 reads no further; H_kv and S_kv come
 * after, and a plugin variant has no AB_CAP_KV, so it never gets a shape
 * where they matter). */
_Static_assert(sizeof(attnbench_shape) == offsetof(ab_shape, H_kv), "attnbench_shape != ab_shape");
_Static_assert(offsetof(attnbench_shape, D) == offsetof(ab_shape, D), "D");
_Static_assert(offsetof(attnbench_shape, causal) == offsetof(ab_shape, causal), "causal");
_Static_assert(offsetof(attnbench_shape, dtype) == offsetof(ab_shape, dtype), "dtype");
_Static_assert(sizeof(ab_dtype) == sizeof(int), "ab_dtype is not int-sized");
_Static_assert((int)ATTNBENCH_FP16 == (int)AB_FP16 && (int)ATTNBENCH_BF16 == (int)AB_BF16 &&
                   (int)ATTNBENCH_FP32 == (int)AB_FP32, "dtype values");
_Static_assert((int)ATTNBENCH_DEV_CPU == (int)AB_DEV_CPU &&
                   (int)ATTNBENCH_DEV_CUDA == (int)AB_DEV_CUDA, "devices");

/* Hex SHA-256 of the file's bytes into hex[65]; 0, or -1 with why. */
static int file_sha256(const char *path, char *hex, char *why, size_t n)
{
#ifdef AB_HAVE_LIBCRYPTO
    int rc = -1;
    unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
    unsigned mdlen = 0;
    FILE *f = fopen(path, "rb");
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (!f || !c || !EVP_DigestInit_ex(c, EVP_sha256(), NULL)) {
        snprintf(why, n, "cannot read %s for its SHA-256", path);
        goto cleanup;
    }
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        if (!EVP_DigestUpdate(c, buf, got))
            goto cleanup;
    if (ferror(f) || !EVP_DigestFinal_ex(c, md, &mdlen)) {
        snprintf(why, n, "reading %s for its SHA-256 failed", path);
        goto cleanup;
    }
    for (unsigned i = 0; i < mdlen; i++)
        sprintf(hex + 2 * i, "%02x", md[i]);
    rc = 0;
cleanup:
    EVP_MD_CTX_free(c);
    if (f)
        fclose(f);
    return rc;
#else
    (void)path;
    (void)hex;
    snprintf(why, n, "unavailable: attnbench was built without libcrypto (OpenSSL)");
    return -1;
#endif
}

static char *make_record(const char *library)
{
    struct stat st;
    char hex[2 * 64 + 1] = "", why[256] = "";
    char real[4096];
    const char *path = realpath(library, real) ? real : library;
    json_t *p = json_object();
    json_object_set_new(p, "library", json_string(path));
    json_object_set_new(p, "size", stat(path, &st) == 0 ? json_integer((json_int_t)st.st_size)
                                                        : json_null());
    if (file_sha256(path, hex, why, sizeof why) == 0) {
        json_object_set_new(p, "sha256", json_string(hex));
    } else {
        json_object_set_new(p, "sha256", json_null());
        json_object_set_new(p, "hash", json_string(why));
    }
    json_t *r = json_object();
    json_object_set_new(r, "plugin", p);
    char *s = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(r);
    return s; /* jansson allocates with malloc by default */
}

int ab_plugin_load(const char *library, const char *name, ab_variant **out, char **record,
                   char *err, size_t n)
{
    *out = NULL;
    *record = NULL;
    dlerror();
    void *h = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        snprintf(err, n, "%s: dlopen failed: %s", library, why ? why : "unknown reason");
        return -1;
    }
    dlerror();
    void *sym = dlsym(h, ATTNBENCH_PLUGIN_SYMBOL);
    if (!sym) {
        snprintf(err, n, "%s: missing symbol %s (include attnbench/plugin.h and define it)",
                 library, ATTNBENCH_PLUGIN_SYMBOL);
        return -1;
    }
    const attnbench_plugin *(*get)(void);
    *(void **)&get = sym; /* POSIX: dlsym's object pointer to a function pointer */
    const attnbench_plugin *p = get();
    if (!p) {
        snprintf(err, n, "%s: %s() returned NULL", library, ATTNBENCH_PLUGIN_SYMBOL);
        return -1;
    }
    if (p->abi_version != ATTNBENCH_PLUGIN_ABI_VERSION) {
        snprintf(err, n, "%s: ABI version %d, attnbench expects %d (rebuild the plugin against "
                 "this attnbench's attnbench/plugin.h)", library, p->abi_version,
                 ATTNBENCH_PLUGIN_ABI_VERSION);
        return -1;
    }
    const attnbench_plugin_variant *pv = NULL;
    for (size_t i = 0; p->variants && i < p->nvariants && !pv; i++)
        if (p->variants[i].name && strcmp(p->variants[i].name, name) == 0)
            pv = &p->variants[i];
    if (!pv) {
        size_t off = (size_t)snprintf(err, n, "%s: no variant '%s'; it has:", library, name);
        for (size_t i = 0; p->variants && i < p->nvariants && off < n; i++)
            off += (size_t)snprintf(err + off, n - off, " %s",
                                    p->variants[i].name ? p->variants[i].name : "(null)");
        return -1;
    }
    if (!pv->setup || !pv->run || !pv->teardown ||
        (pv->device != ATTNBENCH_DEV_CPU && pv->device != ATTNBENCH_DEV_CUDA) ||
        !(pv->dtypes & (ATTNBENCH_DT(ATTNBENCH_FP16) | ATTNBENCH_DT(ATTNBENCH_BF16) |
                        ATTNBENCH_DT(ATTNBENCH_FP32)))) {
        snprintf(err, n, "%s: variant '%s' is malformed (needs setup, run, teardown, a device "
                 "and at least one dtype)", library, name);
        return -1;
    }
#ifndef AB_HAVE_CUDA
    if (pv->device == ATTNBENCH_DEV_CUDA) {
        snprintf(err, n, "%s: variant '%s' is a CUDA variant and this attnbench was built "
                 "without CUDA", library, name);
        return -1;
    }
#endif
    ab_variant *v = calloc(1, sizeof *v);
    char *nm = strdup(name), *idea = strdup(pv->idea ? pv->idea : "plugin");
    *record = make_record(library);
    if (!v || !nm || !idea || !*record) {
        free(v);
        free(nm);
        free(idea);
        free(*record);
        *record = NULL;
        snprintf(err, n, "%s: out of memory", library);
        return -1;
    }
    v->name = nm;
    v->backend = "plugin";
    v->device = (ab_device)pv->device;
    v->dtypes = pv->dtypes & AB_DT_ALL;
    memcpy(v->head_dims, pv->head_dims, sizeof v->head_dims);
    v->head_dims[7] = 0;
    v->idea = idea;
    v->setup = (ab_setup_fn)pv->setup;
    v->run = (ab_run_fn)pv->run;
    v->teardown = (ab_teardown_fn)pv->teardown;
    v->flops = ab_attention_flops;
    *out = v;
    return 0;
}

ab_variant *ab_plugin_failed_variant(const char *name, const char *why)
{
    ab_variant *v = calloc(1, sizeof *v);
    char *nm = strdup(name), *w = strdup(why);
    if (!v || !nm || !w) {
        free(v);
        free(nm);
        free(w);
        return NULL;
    }
    v->name = nm;
    v->backend = "plugin";
    v->device = AB_DEV_CPU;
    v->dtypes = AB_DT_ALL;
    v->idea = "";
    v->flops = ab_attention_flops;
    v->unavailable = w;
    return v;
}

void ab_plugin_variant_free(ab_variant *v)
{
    if (!v)
        return;
    free((char *)v->name);
    if (v->idea && *v->idea)
        free((char *)v->idea);
    free((char *)v->unavailable);
    free(v);
}

int ab_plugin_probe(const ab_variant *v, const char *library, const ab_shape *s,
                    const float *q, const float *k, const float *vv, char *err, size_t n)
{
    if (v->device != AB_DEV_CPU || !v->setup)
        return 0;
    float *o = malloc(ab_shape_numel(s) * sizeof *o);
    if (!o)
        return 0; /* no probe; the runner's own call reports what happens */
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        free(o);
        return 0;
    }
    if (pid == 0) { /* child: one call, then leave without atexit handlers */
        void *ctx = NULL;
        size_t ws = 0;
        char e[256];
        if (v->setup(s, &ctx, &ws, e, sizeof e) == 0) {
            v->run(ctx, s, q, k, vv, o, NULL);
            v->teardown(ctx);
        }
        _exit(0);
    }
    free(o);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        ;
    if (WIFSIGNALED(st)) {
        snprintf(err, n, "%s: variant '%s' crashed in a probe call (signal %d, %s); not measured",
                 library, v->name, WTERMSIG(st), strsignal(WTERMSIG(st)));
        return -1;
    }
    return 0;
}
