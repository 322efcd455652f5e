/*
 * plugin.c: loads out-of-tree plugins (include/attnbench/plugin.h) with
 * dlopen/dlsym and adapts their variants into ab_variant rows, so the
 * runner needs no second path: a plugin variant is set up, warmed up,
 * checked, timed and stored like a built-in one. The library's path, size
 * and SHA-256 go into a JSON record stored with each of its measurements.
 */
#include "plugin.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/uio.h>
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

/* Copies n bytes at addr (memory of the plugin) into buf without touching
 * it directly: process_vm_readv on this process fails with EFAULT where a
 * plain read would be SIGSEGV, so a table that claims more rows than it has
 * is refused instead of crashing attnbench. 0, or -1 when some of the bytes
 * are not readable. */
static int copy_plugin_mem(void *buf, const void *addr, size_t n)
{
    if (n == 0)
        return 0;
    if (!addr)
        return -1;
    struct iovec local = {buf, n}, remote = {(void *)addr, n};
    ssize_t r = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    if (r == (ssize_t)n)
        return 0;
    if (r >= 0 || errno == EFAULT)
        return -1;
    /* process_vm_readv refused (a seccomp filter: EPERM, ENOSYS): write()
     * the bytes through a pipe, which fails with EFAULT where reading them
     * would fault */
    int fd[2];
    if (pipe2(fd, O_CLOEXEC))
        return -1;
    int rc = 0;
    for (size_t off = 0; off < n && rc == 0;) {
        size_t chunk = n - off < 4096 ? n - off : 4096;
        ssize_t w = write(fd[1], (const char *)addr + off, chunk);
        if (w <= 0 || read(fd[0], (char *)buf + off, (size_t)w) != w)
            rc = -1;
        else
            off += (size_t)w;
    }
    close(fd[0]);
    close(fd[1]);
    return rc;
}

/* A NUL-terminated string of the plugin, shorter than n bytes, copied into
 * buf (n bytes) whatever memory follows it. 0, or -1 when it is not
 * readable or not terminated within n bytes. */
static int copy_plugin_string(char *buf, size_t n, const char *s)
{
    size_t got = 0;
    while (got + 1 < n) {
        /* byte by byte up to the next page boundary, then a whole chunk */
        size_t chunk = 4096 - ((uintptr_t)(s + got) & 4095);
        if (chunk > n - 1 - got)
            chunk = n - 1 - got;
        if (copy_plugin_mem(buf + got, s + got, chunk))
            return -1;
        char *nul = memchr(buf + got, '\0', chunk);
        if (nul)
            return 0;
        got += chunk;
    }
    return -1;
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
    /* a bare file name is taken from the working directory when the file is
     * there, as docs/own-kernel.md says of relative paths (dlopen alone would search
     * only the loader's paths, ld.so(8)); else the loader's search, for a
     * plugin installed as a system library */
    char local[4096];
    const int bare = strchr(library, '/') == NULL;
    const int here = bare && access(library, F_OK) == 0 &&
                     (size_t)snprintf(local, sizeof local, "./%s", library) < sizeof local;
    dlerror();
    void *h = dlopen(here ? local : library, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        if (bare && !here)
            snprintf(err, n, "%s: not in the working directory, and the dynamic loader did not "
                             "find it either (%s)", library, why ? why : "unknown reason");
        else
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
    const attnbench_plugin *pp = get();
    if (!pp) {
        snprintf(err, n, "%s: %s() returned NULL", library, ATTNBENCH_PLUGIN_SYMBOL);
        return -1;
    }
    /* the table is read through copies (copy_plugin_mem): its header, then
     * nvariants rows, each checked; nothing of the plugin's memory is read
     * directly before it is known to be there */
    attnbench_plugin hdr;
    if (copy_plugin_mem(&hdr, pp, sizeof hdr)) {
        snprintf(err, n, "%s: %s() returned %p, which is not readable memory", library,
                 ATTNBENCH_PLUGIN_SYMBOL, (const void *)pp);
        return -1;
    }
    const attnbench_plugin *p = &hdr;
    if (p->abi_version != ATTNBENCH_PLUGIN_ABI_VERSION) {
        snprintf(err, n, "%s: ABI version %d, attnbench expects %d (rebuild the plugin against "
                 "this attnbench's attnbench/plugin.h)", library, p->abi_version,
                 ATTNBENCH_PLUGIN_ABI_VERSION);
        return -1;
    }
    if (p->nvariants > AB_PLUGIN_MAX_VARIANTS) {
        snprintf(err, n, "%s: its table claims %zu variants, more than the %d a plugin may "
                 "have (is nvariants the number of rows of `variants`?)", library, p->nvariants,
                 AB_PLUGIN_MAX_VARIANTS);
        return -1;
    }
    if (p->nvariants == 0 || !p->variants) {
        snprintf(err, n, "%s: its table has no variants (nvariants %zu, variants %p)", library,
                 p->nvariants, (const void *)p->variants);
        return -1;
    }
    attnbench_plugin_variant *rows = calloc(p->nvariants, sizeof *rows);
    char (*names)[AB_PLUGIN_NAME_MAX] = calloc(p->nvariants, sizeof *names);
    if (!rows || !names) {
        free(rows);
        free(names);
        snprintf(err, n, "%s: out of memory", library);
        return -1;
    }
    if (copy_plugin_mem(rows, p->variants, p->nvariants * sizeof *rows)) {
        snprintf(err, n, "%s: its table claims %zu variants, but the memory of %zu rows at %p "
                 "is not readable (is nvariants the number of rows of `variants`?)", library,
                 p->nvariants, p->nvariants, (const void *)p->variants);
        free(rows);
        free(names);
        return -1;
    }
    /* every row, not only the one asked for: a count larger than the table
     * shows as rows of whatever memory follows it */
    const attnbench_plugin_variant *pv = NULL;
    for (size_t i = 0; i < p->nvariants; i++) {
        const attnbench_plugin_variant *r = &rows[i];
        int reserved_set = r->backward != NULL;
        for (size_t j = 0; j < sizeof r->reserved / sizeof r->reserved[0]; j++)
            reserved_set |= r->reserved[j] != NULL;
        const char *bad = !r->name ? "no name"
                          : copy_plugin_string(names[i], sizeof names[i], r->name)
                              ? "its name is not a readable string"
                          : reserved_set ? "backward or reserved fields not NULL"
                          : r->device != ATTNBENCH_DEV_CPU && r->device != ATTNBENCH_DEV_CUDA
                              ? "unknown device"
                              : NULL;
        if (bad) {
            snprintf(err, n, "%s: row %zu of its table of %zu variants is not a variant (%s); "
                     "is nvariants the number of rows of `variants`?", library, i, p->nvariants,
                     bad);
            free(rows);
            free(names);
            return -1;
        }
        if (!pv && strcmp(names[i], name) == 0)
            pv = r;
    }
    if (!pv) {
        size_t off = (size_t)snprintf(err, n, "%s: no variant '%s'; it has:", library, name);
        for (size_t i = 0; i < p->nvariants && off < n; i++)
            off += (size_t)snprintf(err + off, n - off, " %s", names[i]);
        free(rows);
        free(names);
        return -1;
    }
    char idea_buf[512] = "plugin";
    if (pv->idea && copy_plugin_string(idea_buf, sizeof idea_buf, pv->idea))
        snprintf(idea_buf, sizeof idea_buf, "plugin (its idea is not a readable string)");
    attnbench_plugin_variant row = *pv;
    free(rows);
    free(names);
    pv = &row;
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
    char *nm = strdup(name), *idea = strdup(idea_buf);
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
