/*
 * ext_ipc_test.c: the device-buffer handshake of protocol 2
 * (src/run/ext_ipc.h, adapters/PROTOCOL.md "Device buffers") without a GPU:
 *   - the hello and `check device` lines, table-driven, against the
 *     grammar of PROTOCOL.md;
 *   - the JSON description of a made-up export (3 sets, both layouts):
 *     every field read back with jansson against values computed here from
 *     the layout's definition ([B,S,H,D]: heads inside a position);
 *   - the conversation (src/run/external2.c) with fake_adapter_ipc.sh and
 *     the older fake_adapter2.sh: IPC offered only when asked, an adapter
 *     that does not answer the offer (silent, or printing something else
 *     first, or too late) still measured without it, `ipc=PATH` sent only
 *     after a hello with ipc=1, `check device` refused when not offered, a
 *     malformed hello refused.
 * Usage: ext_ipc_test FAKE_IPC_SH FAKE2_SH [describe|describe-bwd OUT.json]:
 * with `describe`, only writes the 3-set [B,S,H,D] description to OUT.json
 * (`describe-bwd`: a backward pass's, one set, [B,H,S,D]) for
 * tests/external/kit_ipc_test.py, which maps it with a stand-in cudart.
 */
#include "ext_ipc.h"
#include "external2.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int failures;

#define EXPECT(cond, ...)                                                                   \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            failures++;                                                                     \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                 \
            fprintf(stderr, __VA_ARGS__);                                                   \
            fputc('\n', stderr);                                                            \
        }                                                                                   \
    } while (0)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the two lines --------------------------------------------------------------- */

static void test_lines(void)
{
    static const struct {
        const char *line;
        int ok, ipc, has_layout;
        ab_layout layout;
        const char *why; /* prefix of the error */
    } hello[] = {
        {"hello", 1, 0, 0, AB_LAYOUT_BHSD, NULL},
        {"hello ipc=1", 1, 1, 0, AB_LAYOUT_BHSD, NULL},
        {"hello ipc=1 layout=bshd", 1, 1, 1, AB_LAYOUT_BSHD, NULL},
        {"hello layout=bhsd ipc=0", 1, 0, 1, AB_LAYOUT_BHSD, NULL},
        {"hello ipc=1 zero_copy=2", 1, 1, 0, AB_LAYOUT_BHSD, NULL}, /* later keys ignored */
        {"hello ipc=2", 0, 0, 0, AB_LAYOUT_BHSD, "ipc='2' is not 0 or 1"},
        {"hello layout=nhwc", 0, 0, 0, AB_LAYOUT_BHSD, "layout='nhwc' is not bhsd or bshd"},
        {"hello ipc", 0, 0, 0, AB_LAYOUT_BHSD, "'ipc' is not key=value"},
    };
    for (size_t i = 0; i < sizeof hello / sizeof hello[0]; i++) {
        ab_ext_hello h;
        char why[200] = "";
        EXPECT(ab_ext_is_hello(hello[i].line), "'%s' not seen as a hello", hello[i].line);
        int rc = ab_ext_parse_hello(hello[i].line + 5, &h, why, sizeof why);
        EXPECT((rc == 0) == hello[i].ok, "'%s': rc %d", hello[i].line, rc);
        if (hello[i].ok)
            EXPECT(h.seen && h.ipc == hello[i].ipc && h.has_layout == hello[i].has_layout &&
                       (!h.has_layout || h.layout == hello[i].layout),
                   "'%s': seen %d ipc %d has_layout %d layout %d", hello[i].line, h.seen, h.ipc,
                   h.has_layout, (int)h.layout);
        else
            EXPECT(strncmp(why, hello[i].why, strlen(hello[i].why)) == 0 && !h.seen,
                   "'%s': why '%s'", hello[i].line, why);
    }
    /* capabilities (PROTOCOL.md "Capabilities"): the declared sets admit
     * or refuse a configuration, each refusal naming the declaration;
     * expected outcomes written by hand from the hello text */
    const struct {
        const char *line;
        ab_shape s; /* B H S D causal dtype H_kv S_kv pass */
        const char *why; /* NULL: admitted */
    } caps[] = {
        {"hello ipc=0 dtypes=fp16,bf16", {1, 4, 8, 64, 0, AB_BF16, 4, 8, AB_FWD}, NULL},
        {"hello ipc=0 dtypes=fp16,bf16", {1, 4, 8, 64, 0, AB_FP32, 4, 8, AB_FWD},
         "the adapter declares dtypes=fp16,bf16; this configuration is fp32"},
        {"hello head_dims=64,128", {1, 4, 8, 128, 0, AB_FP16, 4, 8, AB_FWD}, NULL},
        {"hello head_dims=64,128", {1, 4, 8, 96, 0, AB_FP16, 4, 8, AB_FWD},
         "the adapter declares head_dims without D=96"},
        {"hello passes=fwd", {1, 4, 8, 64, 0, AB_FP16, 4, 8, AB_BWD},
         "the adapter does not declare the bwd pass"},
        {"hello passes=fwd,fwd+bwd", {1, 4, 8, 64, 0, AB_FP16, 4, 8, AB_FWDBWD}, NULL},
        {"hello h_kv=h", {1, 4, 8, 64, 0, AB_FP16, 2, 8, AB_FWD},
         "the adapter declares h_kv=h; this configuration has H_kv=2 < H=4"},
        {"hello h_kv=any s_kv=s", {1, 4, 8, 64, 0, AB_FP16, 2, 8, AB_FWD}, NULL},
        {"hello s_kv=s", {1, 4, 1, 64, 0, AB_FP16, 4, 9, AB_FWD},
         "the adapter declares s_kv=s; this configuration has S_kv=9 != S=1"},
        {"hello causal=0", {1, 4, 8, 64, 1, AB_FP16, 4, 8, AB_FWD},
         "the adapter declares causal=0 only"},
        {"hello causal=any", {1, 4, 8, 64, 1, AB_FP16, 4, 8, AB_FWD}, NULL},
        {"hello", {1, 4, 8, 64, 1, AB_FP32, 1, 3, AB_BWD}, NULL}, /* nothing declared: any */
    };
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        ab_ext_hello h;
        char why[200] = "";
        EXPECT(ab_ext_parse_hello(caps[i].line + 5, &h, why, sizeof why) == 0, "'%s': %s",
               caps[i].line, why);
        int rc = ab_ext_hello_admits(&h, &caps[i].s, why, sizeof why);
        EXPECT(rc == (caps[i].why != NULL), "'%s' case %zu: admits rc %d", caps[i].line, i, rc);
        if (caps[i].why)
            EXPECT(strncmp(why, caps[i].why, strlen(caps[i].why)) == 0, "'%s': why '%s'",
                   caps[i].line, why);
    }
    const char *bad_caps[][2] = {
        {"hello dtypes=fp8", "dtypes: 'fp8' is not fp16, bf16 or fp32"},
        {"hello passes=bwd,fwd2", "passes: 'fwd2' is not fwd, bwd or fwd+bwd"},
        {"hello head_dims=64,x", "head_dims='64,x' is not a list"},
        {"hello h_kv=2", "h_kv='2' is not any or h"},
        {"hello causal=yes", "causal='yes' is not 0, 1 or any"},
    };
    for (size_t i = 0; i < sizeof bad_caps / sizeof bad_caps[0]; i++) {
        ab_ext_hello h;
        char why[200] = "";
        EXPECT(ab_ext_parse_hello(bad_caps[i][0] + 5, &h, why, sizeof why) == -1 &&
                   strncmp(why, bad_caps[i][1], strlen(bad_caps[i][1])) == 0,
               "'%s': why '%s'", bad_caps[i][0], why);
    }
    EXPECT(!ab_ext_is_hello("hellothere"), "hellothere taken for a hello");
    EXPECT(!ab_ext_is_hello("# hello"), "a comment taken for a hello");

    static const struct {
        const char *line;
        int is, ok;
        double peak;
        const char *why;
    } dev[] = {
        {"check device", 1, 1, 0, NULL},
        {"check device peak_bytes=1048576", 1, 1, 1048576, NULL},
        {"check device peak_bytes=-1", 1, 0, 0, "peak_bytes='-1' is not"},
        {"check device rows_checked=4", 1, 0, 0, "unknown key 'rows_checked'"},
        {"check device now", 1, 0, 0, "'now' is not key=value"},
        {"check devices", 0, 0, 0, NULL},
        {"check output=/tmp/x", 0, 0, 0, NULL},
    };
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) {
        EXPECT(ab_ext_is_check_device(dev[i].line) == dev[i].is, "'%s'", dev[i].line);
        if (!dev[i].is)
            continue;
        ab_ext_result r;
        char why[200] = "";
        memset(&r, 0, sizeof r);
        int rc = ab_ext_parse_check_device(dev[i].line + 12, &r, why, sizeof why);
        EXPECT((rc == 0) == dev[i].ok, "'%s': rc %d (%s)", dev[i].line, rc, why);
        if (dev[i].ok)
            EXPECT(r.device_check == 1 && r.peak_bytes == dev[i].peak, "'%s': %d %g",
                   dev[i].line, r.device_check, r.peak_bytes);
        else
            EXPECT(strncmp(why, dev[i].why, strlen(dev[i].why)) == 0 && !r.device_check,
                   "'%s': why '%s'", dev[i].line, why);
    }
}

/* ---- the description ------------------------------------------------------------- */

/* A made-up export: set i's tensor j in allocation (i == 0 ? j : 4) with
 * handle bytes all equal to that allocation's number + 1, offsets as the
 * harness lays them out (gpu_ipc.cu): set 0 at offset 0 of its own four
 * allocations, set i > 0 at ((i - 1) * 4 + j) * stride of the rotation
 * allocation; with bwd, dO, dQ, dK, dV, the logsumexp in allocations 5..9
 * at offset 0. */
static void fake_export(ab_gpu_export *x, ab_layout l, int nsets, size_t stride, int bwd)
{
    memset(x, 0, sizeof *x);
    x->device = 0;
    snprintf(x->uuid, sizeof x->uuid, "GPU-00000000-1111-2222-3333-444444444444");
    x->layout = l;
    x->nsets = nsets;
    x->t = calloc((size_t)nsets * 4, sizeof *x->t);
    for (int i = 0; i < nsets; i++)
        for (int j = 0; j < 4; j++) {
            ab_ipc_ref *r = &x->t[4 * i + j];
            memset(r->handle, (i == 0 ? j : 4) + 1, sizeof r->handle);
            r->offset = i == 0 ? 0 : ((size_t)(i - 1) * 4 + (size_t)j) * stride;
        }
    x->bwd = bwd;
    for (int g = 0; bwd && g < 5; g++)
        memset(x->grad[g].handle, 5 + g + 1, sizeof x->grad[g].handle);
}

static long long ival(json_t *o, const char *key) { return json_integer_value(json_object_get(o, key)); }

static void test_description(const char *dir)
{
    /* B=2 H=4 S=5 D=8, K/V heads 2 and length 7, bf16; cases: [B,H,S,D],
     * [B,S,H,D], a backward pass in [B,H,S,D] (one set) */
    for (int li = 0; li < 3; li++) {
        const int bwd = li == 2;
        const ab_shape s = {2, 4, 5, 8, 0, AB_BF16, 2, 7, bwd ? AB_BWD : AB_FWD};
        const ab_layout l = li == 1 ? AB_LAYOUT_BSHD : AB_LAYOUT_BHSD;
        const int nsets = bwd ? 1 : 3;
        ab_gpu_export x;
        char path[512], err[256] = "";
        fake_export(&x, l, nsets, 1024, bwd);
        snprintf(path, sizeof path, "%s/desc-%d.json", dir, li);
        EXPECT(ab_ext_ipc_write(path, &s, &x, err, sizeof err) == 0, "write: %s", err);
        /* written twice: the second replaces the first (each configuration) */
        EXPECT(ab_ext_ipc_write(path, &s, &x, err, sizeof err) == 0, "rewrite: %s", err);
        json_error_t je;
        json_t *d = json_load_file(path, 0, &je);
        EXPECT(d != NULL, "%s: %s", path, je.text);
        if (!d) {
            ab_gpu_export_free(&x);
            continue;
        }
        EXPECT(ival(d, "version") == 1 && ival(d, "sets") == nsets && ival(d, "B") == 2 &&
                   ival(d, "H") == 4 && ival(d, "S") == 5 && ival(d, "D") == 8 &&
                   ival(d, "H_kv") == 2 && ival(d, "S_kv") == 7 && ival(d, "device") == 0,
               "scalar fields");
        EXPECT(strcmp(json_string_value(json_object_get(d, "dtype")), "bf16") == 0, "dtype");
        EXPECT(strcmp(json_string_value(json_object_get(d, "layout")),
                      li == 1 ? "bshd" : "bhsd") == 0,
               "layout");
        EXPECT(strcmp(json_string_value(json_object_get(d, "pass")), bwd ? "bwd" : "fwd") == 0,
               "pass");
        /* shapes in memory order: [B, heads, len, D] or [B, len, heads, D];
         * a backward's dO, dQ like Q, dK, dV like K */
        static const char *const names[8] = {"q", "k", "v", "o", "do", "dq", "dk", "dv"};
        const int lay = li == 1;
        EXPECT(json_object_size(json_object_get(d, "tensors")) == (size_t)(bwd ? 9 : 4),
               "%zu tensors described", json_object_size(json_object_get(d, "tensors")));
        for (int j = 0; j < (bwd ? 8 : 4); j++) {
            json_t *t = json_object_get(json_object_get(d, "tensors"), names[j]);
            const int kv = j == 1 || j == 2 || j == 6 || j == 7;
            const long long heads = kv ? 2 : 4, len = kv ? 7 : 5;
            const long long want[4] = {2, lay ? len : heads, lay ? heads : len, 8};
            const long long wstr[4] = {heads * len * 8, (lay ? heads : len) * 8, 8, 1};
            for (int a = 0; a < 4; a++) {
                EXPECT(json_integer_value(json_array_get(json_object_get(t, "shape"), a)) ==
                           want[a],
                       "%s shape[%d] (layout %d)", names[j], a, li);
                EXPECT(json_integer_value(json_array_get(json_object_get(t, "strides"), a)) ==
                           wstr[a],
                       "%s strides[%d] (layout %d)", names[j], a, li);
            }
            EXPECT(ival(t, "bytes") == 2 * heads * len * 8 * 2, "%s bytes", names[j]);
        }
        if (bwd) { /* the logsumexp: float32 [B, H, S] */
            json_t *t = json_object_get(json_object_get(d, "tensors"), "lse");
            EXPECT(ival(t, "bytes") == 2 * 4 * 5 * 4 &&
                       json_integer_value(json_array_get(json_object_get(t, "shape"), 2)) == 5 &&
                       json_integer_value(json_array_get(json_object_get(t, "strides"), 0)) == 20 &&
                       strcmp(json_string_value(json_object_get(t, "dtype")), "fp32") == 0,
                   "lse tensor");
            static const char *const g[5] = {"do", "dq", "dk", "dv", "lse"};
            for (int j = 0; j < 5; j++) {
                json_t *r = json_object_get(json_array_get(json_object_get(d, "buffers"), 0), g[j]);
                const char *h = json_string_value(json_object_get(r, "handle"));
                char want[129];
                for (int b = 0; b < 64; b++)
                    snprintf(want + 2 * b, 3, "%02x", 5 + j + 1);
                EXPECT(h && strcmp(h, want) == 0 && ival(r, "offset") == 0, "%s ref %s", g[j], h);
            }
        }
        json_t *bufs = json_object_get(d, "buffers");
        EXPECT(json_array_size(bufs) == (size_t)nsets, "buffers: %zu sets", json_array_size(bufs));
        for (size_t i = 0; i < json_array_size(bufs); i++)
            for (int j = 0; j < 4; j++) {
                json_t *r = json_object_get(json_array_get(bufs, i), names[j]);
                const char *h = json_string_value(json_object_get(r, "handle"));
                char want[129];
                for (int b = 0; b < 64; b++)
                    snprintf(want + 2 * b, 3, "%02x", (i == 0 ? j : 4) + 1);
                EXPECT(h && strcmp(h, want) == 0, "set %zu %s handle %s", i, names[j], h);
                EXPECT(ival(r, "offset") == (i == 0 ? 0 : ((long long)i - 1) * 4 * 1024 + j * 1024),
                       "set %zu %s offset %lld", i, names[j], ival(r, "offset"));
            }
        json_decref(d);
        /* a link in the folder is refused, not followed */
        char link[600];
        snprintf(link, sizeof link, "%s/link.json", dir);
        if (symlink(path, link) == 0) {
            /* unlink then O_EXCL|O_NOFOLLOW: the link itself is replaced,
             * its target left alone */
            EXPECT(ab_ext_ipc_write(link, &s, &x, err, sizeof err) == 0, "over a link: %s", err);
            char target[600];
            EXPECT(readlink(link, target, sizeof target) < 0, "the link survived the rewrite");
        }
        ab_gpu_export_free(&x);
    }
}

/* ---- the conversation ------------------------------------------------------------ */

static const char *fake_ipc, *fake2;
static char tmp[256];

static ab_ext_request request(const char *ipc_path)
{
    return (ab_ext_request){.name = "fake", .B = 1, .H = 2, .S = 4, .D = 8, .dtype = "fp16",
                            .warmup = 1, .seed = 42, .timing_mode = "hot", .graph_k = 1,
                            .pass = "fwd", .ipc_path = ipc_path};
}

/* 1 when the log file holds a line containing needle. */
static int logged(const char *logp, const char *needle)
{
    FILE *f = fopen(logp, "r");
    char line[2048];
    int hit = 0;
    while (f && !hit && fgets(line, sizeof line, f))
        hit = strstr(line, needle) != NULL;
    if (f)
        fclose(f);
    return hit;
}

/* Starts an adapter (mode: FAKEI_MODE, or NULL for the older fake2),
 * offering IPC or not, and runs one configuration with ipc_path offered.
 * Returns ab_ext2_config's value; fills *res, *h, the start's duration. */
static int converse(const char *mode, int offer, double timeout_s, const char *ipc_path,
                    const char *logp, ab_ext_result *res, ab_ext_hello *h, double *start_s,
                    char *err, size_t n)
{
    char cmd[1024];
    if (mode)
        snprintf(cmd, sizeof cmd, "FAKEI_MODE=%s FAKEI_LATE_S=2.5 FAKEI_LOG='%s' sh '%s'", mode,
                 logp, fake_ipc);
    else
        snprintf(cmd, sizeof cmd, "FAKE2_LOG='%s' sh '%s'", logp, fake2);
    unlink(logp);
    ab_ext2 *p = NULL;
    memset(res, 0, sizeof *res);
    memset(h, 0, sizeof *h);
    const double t0 = now_s();
    if (ab_ext2_start("fake", cmd, tmp, timeout_s, NULL, offer, 0, 0.0, &p, err, n)) {
        *start_s = now_s() - t0;
        return -2;
    }
    *start_s = now_s() - t0;
    ab_ext_request rq = request(ipc_path);
    int rc = ab_ext2_config(p, &rq, res);
    *h = *ab_ext2_hello(p);
    if (rc < 0)
        snprintf(err, n, "%s", res->error);
    ab_ext2_stop(p);
    return rc;
}

static void test_conversation(void)
{
    char logp[512], ipc[512], err[600];
    ab_ext_result res;
    ab_ext_hello h;
    double start_s;
    snprintf(logp, sizeof logp, "%s/fake.log", tmp);
    snprintf(ipc, sizeof ipc, "%s/variant-0.ipc.json", tmp);
    FILE *f = fopen(ipc, "w");
    if (f) {
        fputs("{}\n", f);
        fclose(f);
    }

    /* 1. not offered (no GPU buffers, or ipc = false): the adapter sees no
     * ATTNBENCH_IPC, says no hello, gets no ipc= */
    int rc = converse("hello", 0, 10, ipc, logp, &res, &h, &start_s, err, sizeof err);
    EXPECT(rc == 0, "not offered: rc %d: %s", rc, err);
    EXPECT(logged(logp, "start ATTNBENCH_IPC=unset"), "ATTNBENCH_IPC set without an offer");
    EXPECT(!h.seen && !h.ipc, "a hello without an offer");
    EXPECT(!logged(logp, "ipc="), "ipc= sent without an offer");
    EXPECT(!res.device_check && res.rows_checked == 4, "figures expected");
    ab_ext_result_free(&res);

    /* 2. offered and accepted: hello parsed at start (no wait), ipc= sent,
     * `check device` read */
    rc = converse("hello", 1, 10, ipc, logp, &res, &h, &start_s, err, sizeof err);
    EXPECT(rc == 0, "accepted: rc %d: %s", rc, err);
    EXPECT(logged(logp, "start ATTNBENCH_IPC=1"), "offer not in the environment");
    EXPECT(h.seen && h.ipc && h.has_layout && h.layout == AB_LAYOUT_BSHD, "hello %d %d %d %d",
           h.seen, h.ipc, h.has_layout, (int)h.layout);
    EXPECT(start_s < AB_EXT_HELLO_WAIT_S - 0.5, "start took %.2f s with a prompt hello", start_s);
    {
        char want[600];
        snprintf(want, sizeof want, "graph_k=1 ipc=%s", ipc);
        EXPECT(logged(logp, want), "request lacks ' ipc=PATH' at its end");
    }
    EXPECT(res.device_check == 1 && res.peak_bytes == 4096, "check device not read: %d %g",
           res.device_check, res.peak_bytes);
    ab_ext_result_free(&res);

    /* 3. offered to an adapter older than the handshake: silent until its
     * first request, so attnbench waits AB_EXT_HELLO_WAIT_S once, then
     * measures it as before (no ipc=) */
    rc = converse(NULL, 1, 10, ipc, logp, &res, &h, &start_s, err, sizeof err);
    EXPECT(rc == 0, "older adapter: rc %d: %s", rc, err);
    EXPECT(start_s >= AB_EXT_HELLO_WAIT_S - 0.1 && start_s < AB_EXT_HELLO_WAIT_S + 2,
           "older adapter: start took %.2f s, expected the %.1f s wait", start_s,
           AB_EXT_HELLO_WAIT_S);
    EXPECT(!h.seen && !logged(logp, "ipc="), "older adapter offered ipc=");
    EXPECT(res.rows_checked == 4 && !res.device_check, "older adapter's figures lost");
    ab_ext_result_free(&res);

    /* 4. an older adapter whose first line comes at once and is no hello:
     * no wait, and the line still belongs to its first answer */
    rc = converse("comment", 1, 10, ipc, logp, &res, &h, &start_s, err, sizeof err);
    EXPECT(rc == 0, "comment first: rc %d: %s", rc, err);
    EXPECT(start_s < AB_EXT_HELLO_WAIT_S - 0.5, "comment first: start took %.2f s", start_s);
    EXPECT(!h.seen && !logged(logp, "ipc="), "comment first: ipc= sent");
    ab_ext_result_free(&res);

    /* 5. a hello after the wait (timeout 2 s: the wait is 2 s, the hello at
     * 2.5 s): accepted in the first answer, but the process goes without */
    rc = converse("late", 1, 2.0, ipc, logp, &res, &h, &start_s, err, sizeof err);
    EXPECT(rc == 0, "late hello: rc %d: %s", rc, err);
    EXPECT(h.seen && !h.ipc, "late hello: seen %d ipc %d", h.seen, h.ipc);
    EXPECT(!logged(logp, "ipc="), "late hello: ipc= sent");
    ab_ext_result_free(&res);

    /* 6. `check device` when no ipc= was sent: a protocol violation */
    rc = converse("liar", 1, 10, ipc, logp, &res, &h, &start_s, err, sizeof err);
    EXPECT(rc == -1 && strstr(err, "check device, but this configuration's request offered no "
                                   "ipc= buffers"),
           "liar: rc %d: %s", rc, err);
    ab_ext_result_free(&res);

    /* 7. a malformed hello: the start fails and says why */
    rc = converse("badhello", 1, 10, ipc, logp, &res, &h, &start_s, err, sizeof err);
    EXPECT(rc == -2 && strstr(err, "external variant fake: hello line: layout='nhwc' is not bhsd "
                                   "or bshd"),
           "bad hello: rc %d: %s", rc, err);
    ab_ext_result_free(&res);
}

int main(int argc, char **argv)
{
    if (argc >= 5 && (strcmp(argv[3], "describe") == 0 || strcmp(argv[3], "describe-bwd") == 0)) {
        const int bwd = strcmp(argv[3], "describe-bwd") == 0;
        const ab_shape s = {2, 4, 5, 8, 0, AB_BF16, 2, 7, bwd ? AB_BWD : AB_FWD};
        ab_gpu_export x;
        char err[256];
        fake_export(&x, bwd ? AB_LAYOUT_BHSD : AB_LAYOUT_BSHD, bwd ? 1 : 3, 1024, bwd);
        int rc = ab_ext_ipc_write(argv[4], &s, &x, err, sizeof err);
        if (rc)
            fprintf(stderr, "%s\n", err);
        ab_gpu_export_free(&x);
        return rc ? 1 : 0;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: ext_ipc_test FAKE_IPC_SH FAKE2_SH [describe|describe-bwd OUT.json]\n");
        return 2;
    }
    fake_ipc = argv[1];
    fake2 = argv[2];
    snprintf(tmp, sizeof tmp, "/tmp/ext_ipc_test-XXXXXX");
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        return 2;
    }
    test_lines();
    test_description(tmp);
    test_conversation();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmp);
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("ok: hello and check device lines, the description, the handshake\n");
    return 0;
}
