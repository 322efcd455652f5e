/*
 * ext_ipc.c: the hello and `check device` lines of a protocol-2 adapter and
 * the JSON description of the device buffers it is offered (ext_ipc.h).
 */
#include "ext_ipc.h"
#include "ext_output.h"

#include "gpu_check.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ab_ext_is_hello(const char *line)
{
    return strncmp(line, "hello", 5) == 0 && (line[5] == '\0' || line[5] == ' ');
}

int ab_ext_is_check_device(const char *line)
{
    return strncmp(line, "check device", 12) == 0 && (line[12] == '\0' || line[12] == ' ');
}

/* Calls fn(key, value, arg) for each space-separated key=value token of
 * rest; a token without '=' fails with why. Returns 0, fn's non-zero, or -1. */
static int each_pair(const char *rest, int (*fn)(const char *, const char *, void *, char *,
                                                  size_t),
                     void *arg, char *why, size_t wn)
{
    char *copy = strdup(rest ? rest : ""), *save = NULL;
    if (!copy) {
        snprintf(why, wn, "out of memory");
        return -1;
    }
    int rc = 0;
    for (char *tok = strtok_r(copy, " \t", &save); tok && !rc;
         tok = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            snprintf(why, wn, "'%.60s' is not key=value", tok);
            rc = -1;
            break;
        }
        *eq = '\0';
        rc = fn(tok, eq + 1, arg, why, wn);
    }
    free(copy);
    return rc;
}

/* A comma-separated list of names of a hello capability (dtypes=,
 * passes=) into a bit mask; -1 with why on an unknown name. */
static int name_mask(const char *key, const char *val, int is_pass, unsigned *mask, char *why,
                     size_t wn)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", val);
    *mask = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        ab_dtype d;
        ab_pass ps;
        if (is_pass ? ab_pass_parse(t, &ps) : ab_dtype_parse(t, &d)) {
            snprintf(why, wn, "%s: '%.40s' is not %s", key, t,
                     is_pass ? "fwd, bwd or fwd+bwd" : "fp16, bf16 or fp32");
            return -1;
        }
        *mask |= 1u << (is_pass ? (unsigned)ps : (unsigned)d);
    }
    if (!*mask) {
        snprintf(why, wn, "%s= names nothing", key);
        return -1;
    }
    return 0;
}

static int head_dims(const char *val, ab_ext_hello *h, char *why, size_t wn)
{
    const char *p = val;
    h->n_head_dims = 0;
    while (*p) {
        char *end;
        errno = 0;
        long d = strtol(p, &end, 10);
        if (end == p || errno || d < 1 || d > 1 << 24 || (*end && *end != ',') ||
            h->n_head_dims == AB_EXT_MAX_HEAD_DIMS) {
            snprintf(why, wn, "head_dims='%.60s' is not a list of at most %d head dimensions "
                              "(64,128)", val, AB_EXT_MAX_HEAD_DIMS);
            return -1;
        }
        h->head_dims[h->n_head_dims++] = (int)d;
        p = *end ? end + 1 : end;
    }
    if (!h->n_head_dims) {
        snprintf(why, wn, "head_dims= names nothing");
        return -1;
    }
    return 0;
}

/* any | the one value that means "equal" (h, s) */
static int any_or(const char *key, const char *val, const char *equal, int *out, char *why,
                  size_t wn)
{
    if (strcmp(val, "any") == 0 || strcmp(val, equal) == 0) {
        *out = strcmp(val, equal) == 0;
        return 0;
    }
    snprintf(why, wn, "%s='%.40s' is not any or %s", key, val, equal);
    return -1;
}

static int hello_pair(const char *key, const char *val, void *arg, char *why, size_t wn)
{
    ab_ext_hello *h = arg;
    if (strcmp(key, "dtypes") == 0)
        return name_mask(key, val, 0, &h->dtypes, why, wn);
    if (strcmp(key, "passes") == 0)
        return name_mask(key, val, 1, &h->passes, why, wn);
    if (strcmp(key, "head_dims") == 0)
        return head_dims(val, h, why, wn);
    if (strcmp(key, "h_kv") == 0)
        return any_or(key, val, "h", &h->kv_heads_equal, why, wn);
    if (strcmp(key, "s_kv") == 0)
        return any_or(key, val, "s", &h->kv_len_equal, why, wn);
    if (strcmp(key, "causal") == 0) {
        if (strcmp(val, "0") && strcmp(val, "1") && strcmp(val, "any")) {
            snprintf(why, wn, "causal='%.40s' is not 0, 1 or any", val);
            return -1;
        }
        h->causal_only = val[0] == 'a' ? 0 : val[0] == '1' ? 2 : 1;
        return 0;
    }
    if (strcmp(key, "ipc") == 0 || strcmp(key, "ahead") == 0) {
        if (strcmp(val, "0") != 0 && strcmp(val, "1") != 0) {
            snprintf(why, wn, "%s='%.40s' is not 0 or 1", key, val);
            return -1;
        }
        *(key[0] == 'i' ? &h->ipc : &h->ahead) = val[0] == '1';
    } else if (strcmp(key, "layout") == 0) {
        if (ab_layout_parse(val, &h->layout)) {
            snprintf(why, wn, "layout='%.40s' is not bhsd or bshd", val);
            return -1;
        }
        h->has_layout = 1;
    }
    return 0; /* other keys: capabilities of a later protocol */
}

int ab_ext_parse_hello(const char *rest, ab_ext_hello *h, char *why, size_t wn)
{
    memset(h, 0, sizeof *h);
    if (each_pair(rest, hello_pair, h, why, wn)) {
        memset(h, 0, sizeof *h);
        return -1;
    }
    h->seen = 1;
    return 0;
}

int ab_ext_hello_admits(const ab_ext_hello *h, const ab_shape *s, char *why, size_t wn)
{
    if (!h->seen)
        return 0;
    if (h->dtypes && !(h->dtypes & (1u << (unsigned)s->dtype))) {
        char list[64] = "";
        for (int d = 0; d < 3; d++)
            if (h->dtypes & (1u << d))
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                         list[0] ? "," : "", ab_dtype_name((ab_dtype)d));
        snprintf(why, wn, "the adapter declares dtypes=%s; this configuration is %s", list,
                 ab_dtype_name(s->dtype));
        return 1;
    }
    if (h->passes && !(h->passes & (1u << (unsigned)s->pass))) {
        snprintf(why, wn, "the adapter does not declare the %s pass (passes=)",
                 ab_pass_name(s->pass));
        return 1;
    }
    if (h->n_head_dims) {
        int found = 0;
        for (int i = 0; i < h->n_head_dims; i++)
            found |= h->head_dims[i] == s->D;
        if (!found) {
            snprintf(why, wn, "the adapter declares head_dims without D=%d", s->D);
            return 1;
        }
    }
    if (h->kv_heads_equal && ab_shape_hkv(s) != s->H) {
        snprintf(why, wn, "the adapter declares h_kv=h; this configuration has H_kv=%d < H=%d",
                 ab_shape_hkv(s), s->H);
        return 1;
    }
    if (h->kv_len_equal && ab_shape_skv(s) != s->S) {
        snprintf(why, wn, "the adapter declares s_kv=s; this configuration has S_kv=%d != S=%d",
                 ab_shape_skv(s), s->S);
        return 1;
    }
    if (h->causal_only && !!s->causal != h->causal_only - 1) {
        snprintf(why, wn, "the adapter declares causal=%d only", h->causal_only - 1);
        return 1;
    }
    return 0;
}

static int device_pair(const char *key, const char *val, void *arg, char *why, size_t wn)
{
    ab_ext_result *out = arg;
    if (strcmp(key, "peak_bytes") != 0) {
        snprintf(why, wn, "unknown key '%.60s' after check device", key);
        return -1;
    }
    char *end;
    errno = 0;
    double d = strtod(val, &end);
    if (end == val || *end || errno || !isfinite(d) || d < 0) {
        snprintf(why, wn, "peak_bytes='%.60s' is not a finite non-negative number", val);
        return -1;
    }
    out->peak_bytes = d;
    return 0;
}

int ab_ext_parse_check_device(const char *rest, ab_ext_result *out, char *why, size_t wn)
{
    if (each_pair(rest, device_pair, out, why, wn))
        return -1;
    out->device_check = 1;
    return 0;
}

/* {"shape": [...], "strides": [...], "bytes": N} of a contiguous tensor. */
static json_t *tensor_json(ab_layout l, int B, int heads, int len, int D, size_t es)
{
    long long shape[4];
    ab_layout_shape(l, B, heads, len, D, shape);
    json_t *sh = json_array(), *st = json_array();
    long long stride = 1;
    json_t *strides[4];
    for (int i = 3; i >= 0; i--) {
        strides[i] = json_integer(stride);
        stride *= shape[i];
    }
    for (int i = 0; i < 4; i++) {
        json_array_append_new(sh, json_integer(shape[i]));
        json_array_append_new(st, strides[i]);
    }
    return json_pack("{s:o, s:o, s:I}", "shape", sh, "strides", st, "bytes",
                     (json_int_t)(stride * (long long)es));
}

static json_t *ref_json(const ab_ipc_ref *r)
{
    char hex[2 * AB_IPC_HANDLE_BYTES + 1];
    for (int i = 0; i < AB_IPC_HANDLE_BYTES; i++)
        snprintf(hex + 2 * i, 3, "%02x", r->handle[i]);
    return json_pack("{s:s, s:I}", "handle", hex, "offset", (json_int_t)r->offset);
}

int ab_ext_ipc_write(const char *path, const ab_shape *s, const ab_gpu_export *x, char *err,
                     size_t n)
{
    static const char *const names[4] = {"q", "k", "v", "o"};
    static const char *const grad_names[5] = {"do", "dq", "dk", "dv", "lse"};
    int rc = -1, fd = -1;
    char *text = NULL;
    const size_t es = ab_dtype_size(s->dtype);
    const int hkv = ab_shape_hkv(s), skv = ab_shape_skv(s);
    json_t *root = NULL, *bufs = json_array();
    json_t *tensors = json_pack(
        "{s:o, s:o, s:o, s:o}", "q", tensor_json(x->layout, s->B, s->H, s->S, s->D, es), "k",
        tensor_json(x->layout, s->B, hkv, skv, s->D, es), "v",
        tensor_json(x->layout, s->B, hkv, skv, s->D, es), "o",
        tensor_json(x->layout, s->B, s->H, s->S, s->D, es));
    for (int i = 0; bufs && i < x->nsets; i++) {
        json_t *set = json_object();
        for (int j = 0; set && j < 4; j++)
            json_object_set_new(set, names[j], ref_json(&x->t[4 * i + j]));
        for (int j = 0; set && x->bwd && i == 0 && j < 5; j++)
            json_object_set_new(set, grad_names[j], ref_json(&x->grad[j]));
        json_array_append_new(bufs, set);
    }
    if (tensors && x->bwd) { /* dO, dQ like Q; dK, dV like K; the logsumexp [B,H,S] */
        json_object_set_new(tensors, "do", tensor_json(x->layout, s->B, s->H, s->S, s->D, es));
        json_object_set_new(tensors, "dq", tensor_json(x->layout, s->B, s->H, s->S, s->D, es));
        json_object_set_new(tensors, "dk", tensor_json(x->layout, s->B, hkv, skv, s->D, es));
        json_object_set_new(tensors, "dv", tensor_json(x->layout, s->B, hkv, skv, s->D, es));
        json_object_set_new(tensors, "lse",
                            json_pack("{s:[I,I,I], s:[I,I,I], s:I, s:s}", "shape",
                                      (json_int_t)s->B, (json_int_t)s->H, (json_int_t)s->S,
                                      "strides", (json_int_t)s->H * s->S, (json_int_t)s->S,
                                      (json_int_t)1, "bytes",
                                      (json_int_t)s->B * s->H * s->S * 4, "dtype", "fp32"));
    }
    if (bufs && tensors)
        root = json_pack(
            "{s:i, s:i, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:o, s:o}",
            "version", AB_EXT_IPC_VERSION, "device", x->device, "uuid", x->uuid, "dtype",
            ab_dtype_name(s->dtype), "layout", ab_layout_name(x->layout), "pass",
            ab_pass_name(s->pass), "sets", x->nsets, "B", s->B, "H", s->H, "S", s->S, "D", s->D,
            "H_kv", hkv, "S_kv", skv, "tensors", tensors, "buffers", bufs);
    else {
        json_decref(bufs);
        json_decref(tensors);
    }
    text = root ? json_dumps(root, JSON_INDENT(1) | JSON_SORT_KEYS) : NULL;
    if (!text) {
        snprintf(err, n, "out of memory describing the device buffers");
        goto cleanup;
    }
    if (unlink(path) != 0 && errno != ENOENT) {
        snprintf(err, n, "%s: %s", path, strerror(errno));
        goto cleanup;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, n, "%s: %s", path, strerror(errno));
        goto cleanup;
    }
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(err, n, "%s: %s", path, w < 0 ? strerror(errno) : "short write");
            goto cleanup;
        }
        off += (size_t)w;
    }
    if (write(fd, "\n", 1) != 1) {
        snprintf(err, n, "%s: short write", path);
        goto cleanup;
    }
    rc = 0;
cleanup:
    if (fd >= 0 && close(fd) != 0 && rc == 0) {
        snprintf(err, n, "%s: %s", path, strerror(errno));
        rc = -1;
    }
    free(text);
    json_decref(root);
    return rc;
}

int ab_ext_ipc_offer(ab_gpu_bufs *bufs, const ab_shape *s, ab_layout l, const char *path,
                     int *nsets, char *err, size_t n)
{
    ab_gpu_export x;
    memset(&x, 0, sizeof x);
    *nsets = 0;
    if (ab_gpu_layout_prepare(bufs, l, err, n) || ab_gpu_ipc_export(bufs, l, &x, err, n))
        return -1;
    int rc = ab_gpu_layout_poison(bufs, l, err, n) || ab_ext_ipc_write(path, s, &x, err, n) ? -1
                                                                                             : 0;
    if (rc == 0)
        *nsets = x.nsets;
    ab_gpu_export_free(&x);
    return rc;
}

int ab_ext_ipc_check(const ab_shape *s, ab_gpu_bufs *bufs, ab_layout l, unsigned long input_seed,
                     unsigned long check_seed, ab_check *out, char *err, size_t n)
{
    char why[256] = "";
    if (ab_gpu_layout_collect(bufs, l, err, n))
        return -1;
    int g = ab_gpu_check(bufs, out, why, sizeof why);
    if (g <= 0) {
        if (g < 0)
            snprintf(err, n, "%s", why);
        return g;
    }
    /* the device cannot: on the host, as for an output file */
    const size_t numel = ab_shape_numel(s);
    float *o = malloc(numel * sizeof *o);
    if (!o) {
        snprintf(err, n, "out of host memory for the output check (%zu-element tensors)", numel);
        return -1;
    }
    int rc = ab_gpu_output(bufs, o, err, n) ? -1
             : ab_ext_host_check(s, o, input_seed, check_seed, out, err, n);
    free(o);
    return rc;
}
