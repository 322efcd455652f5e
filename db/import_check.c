/*
 * import_check.c: validation of a JSON export before anything of it is
 * written (import_check.h). The same rules a run obeys when it stores its
 * results: shapes as an experiment file allows them (axes in [1, 2^24],
 * sizes that do not overflow, ab_shape_check), known dtypes, statuses and
 * timing modes, latencies finite and > 0, counts non-negative integers,
 * figures finite. One message names the field by its JSON path
 * (runs[0].measurements[3].samples[5].ms) and what it must be.
 */
#include "import_check.h"
#include "util.h"
#include "variant.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum kind {
    K_TEXT,    /* string */
    K_UUID,    /* 8-4-4-4-12 hex digits */
    K_INT,     /* integer in [lo, hi] */
    K_BOOL,    /* 0 or 1 (true/false accepted) */
    K_REAL,    /* finite number in [lo, hi] */
    K_POS,     /* finite number > 0 */
    K_DTYPE,   /* fp16, bf16, fp32 */
    K_ONEOF,   /* one of the words in `words` */
    K_TIME,    /* UTC time as runs store it: YYYY-MM-DDTHH:MM:SSZ */
} kind;

typedef struct field {
    const char *name;
    kind k;
    int required;  /* must be present and not null */
    double lo, hi; /* K_INT, K_REAL */
    const char *words; /* K_ONEOF: space-separated */
} field;

#define BIG 9.0e15 /* exactly representable integers */
#define AXIS 16777216.0

static const field run_fields[] = {
    {"uuid", K_UUID, 1, 0, 0, NULL},
    {"started_at", K_TIME, 1, 0, 0, NULL},
    {"finished_at", K_TIME, 0, 0, 0, NULL},
    {"status", K_ONEOF, 1, 0, 0, "running complete failed interrupted"},
    {"command", K_TEXT, 1, 0, 0, NULL},
    {"timing_mode", K_TEXT, 1, 0, 0, NULL},
    {"clocks_monitored", K_BOOL, 0, 0, 0, NULL},
    {"peak_gemm_tflops", K_POS, 0, 0, 0, NULL},
    {"peak_copy_gbs", K_POS, 0, 0, 0, NULL},
    {"host", K_TEXT, 0, 0, 0, NULL},
    {"pid", K_INT, 0, 0, 4194304, NULL},
    {"proc_start", K_TEXT, 0, 0, 0, NULL},
    {"boot_id", K_TEXT, 0, 0, 0, NULL},
    {NULL, 0, 0, 0, 0, NULL}};

static const field meas_fields[] = {
    {"variant", K_TEXT, 1, 0, 0, NULL},
    {"backend", K_TEXT, 1, 0, 0, NULL},
    {"B", K_INT, 1, 1, AXIS, NULL},
    {"H", K_INT, 1, 1, AXIS, NULL},
    {"S", K_INT, 1, 1, AXIS, NULL},
    {"D", K_INT, 1, 1, AXIS, NULL},
    {"causal", K_BOOL, 1, 0, 0, NULL},
    {"dtype", K_DTYPE, 1, 0, 0, NULL},
    {"warmup", K_INT, 1, 0, 1e9, NULL},
    {"timing_mode", K_TEXT, 1, 0, 0, NULL},
    {"graph_k", K_INT, 0, 1, 1e9, NULL},
    {"status", K_ONEOF, 1, 0, 0, "ok failed error"},
    {"message", K_TEXT, 0, 0, 0, NULL},
    {"checked", K_BOOL, 0, 0, 0, NULL},
    {"max_abs_err", K_REAL, 0, 0, INFINITY, NULL},
    {"mean_abs_err", K_REAL, 0, 0, INFINITY, NULL},
    {"rel_l2_err", K_REAL, 0, 0, INFINITY, NULL},
    {"tolerance", K_REAL, 0, 0, INFINITY, NULL},
    {"nonfinite", K_INT, 0, 0, BIG, NULL},
    {"rows_checked", K_INT, 0, 0, BIG, NULL},
    {"flops", K_REAL, 1, 0, INFINITY, NULL},
    {"bytes", K_REAL, 1, 0, INFINITY, NULL},
    {"peak_bytes", K_REAL, 0, 0, INFINITY, NULL},
    {"stop_reason", K_TEXT, 0, 0, 0, NULL},
    {"external", K_BOOL, 0, 0, 0, NULL},
    {"adapter_env", K_TEXT, 0, 0, 0, NULL},
    {"stderr_text", K_TEXT, 0, 0, 0, NULL},
    {"input_sets", K_INT, 0, 1, 1e6, NULL},
    {"H_kv", K_INT, 0, 1, AXIS, NULL},
    {"S_kv", K_INT, 0, 1, AXIS, NULL},
    {"pass", K_ONEOF, 0, 0, 0, "fwd bwd fwd+bwd"},
    {NULL, 0, 0, 0, 0, NULL}};

static const field sample_fields[] = {
    {"idx", K_INT, 1, 0, BIG, NULL},
    {"ms", K_POS, 1, 0, 0, NULL},
    {"round", K_INT, 0, 0, BIG, NULL},
    {"t_s", K_REAL, 0, 0, INFINITY, NULL},
    {"throttled", K_BOOL, 0, 0, 0, NULL},
    {NULL, 0, 0, 0, 0, NULL}};

static const field floor_fields[] = {
    {"timing_mode", K_TEXT, 1, 0, 0, NULL},
    {"n", K_INT, 1, 1, BIG, NULL},
    {"median_ms", K_POS, 1, 0, 0, NULL},
    {NULL, 0, 0, 0, 0, NULL}};

/* run_walltime (db/walltime.h): seconds, each finite and >= 0 */
static const field walltime_fields[] = {
    {"total_s", K_REAL, 1, 0, INFINITY, NULL},
    {"timed_s", K_REAL, 1, 0, INFINITY, NULL},
    {"sampling_s", K_REAL, 1, 0, INFINITY, NULL},
    {"warmup_s", K_REAL, 1, 0, INFINITY, NULL},
    {"check_s", K_REAL, 1, 0, INFINITY, NULL},
    {"setup_s", K_REAL, 1, 0, INFINITY, NULL},
    {"inputs_s", K_REAL, 1, 0, INFINITY, NULL},
    {"ceilings_s", K_REAL, 1, 0, INFINITY, NULL},
    {"adapter_s", K_REAL, 1, 0, INFINITY, NULL},
    {"store_s", K_REAL, 1, 0, INFINITY, NULL},
    {NULL, 0, 0, 0, 0, NULL}};

/* grad_checks: one gradient's check of a backward pass (an infinite
 * error is stored as 1e308, so every figure is finite) */
static const field grad_fields[] = {
    {"grad", K_ONEOF, 1, 0, 0, "dQ dK dV"},
    {"max_abs_err", K_REAL, 1, 0, INFINITY, NULL},
    {"rel_l2_err", K_REAL, 1, 0, INFINITY, NULL},
    {"plain_max_abs_err", K_REAL, 1, 0, INFINITY, NULL},
    {"atol", K_REAL, 1, 0, INFINITY, NULL},
    {"tolerance", K_REAL, 1, 0, INFINITY, NULL},
    {"ref_absmax", K_REAL, 1, 0, INFINITY, NULL},
    {"nonfinite", K_INT, 1, 0, BIG, NULL},
    {"elems", K_INT, 1, 0, BIG, NULL},
    {"pass", K_BOOL, 1, 0, 0, NULL},
    {NULL, 0, 0, 0, 0, NULL}};

static const field block_fields[] = {
    {"round", K_INT, 1, 0, BIG, NULL},
    {"first_idx", K_INT, 1, 0, BIG, NULL},
    {"n", K_INT, 1, 0, BIG, NULL},
    {"power_w", K_REAL, 0, -INFINITY, INFINITY, NULL},
    {"throttled", K_BOOL, 1, 0, 0, NULL},
    {"power_capped", K_BOOL, 1, 0, 0, NULL},
    {NULL, 0, 0, 0, 0, NULL}};

static int bad(char *err, size_t n, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bad(char *err, size_t n, const char *where, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(err, n, "%s: %s", where, msg);
    return -1;
}

/* what x is, for messages: its JSON text, shortened */
static const char *shown(const json_t *x, char *buf, size_t n)
{
    char *t = json_dumps(x, JSON_ENCODE_ANY | JSON_COMPACT);
    snprintf(buf, n, "%.40s%s", t ? t : "?", t && strlen(t) > 40 ? "..." : "");
    free(t);
    return buf;
}

static int is_uuid(const char *s)
{
    if (strlen(s) != 36)
        return 0;
    for (int i = 0; i < 36; i++) {
        int dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !strchr("0123456789abcdefABCDEF", s[i]))
            return 0;
    }
    return 1;
}

/* 1 when s is a UTC time as runs store it, 2026-11-26T03:01:36Z (the
 * order `runs --since` and every listing sort by) */
static int is_time(const char *s)
{
    static const char pat[] = "dddd-dd-ddTdd:dd:ddZ";
    if (strlen(s) != sizeof pat - 1)
        return 0;
    for (size_t i = 0; pat[i]; i++)
        if (pat[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != pat[i])
            return 0;
    const int mo = (s[5] - '0') * 10 + s[6] - '0', d = (s[8] - '0') * 10 + s[9] - '0',
              h = (s[11] - '0') * 10 + s[12] - '0', mi = (s[14] - '0') * 10 + s[15] - '0',
              se = (s[17] - '0') * 10 + s[18] - '0';
    return mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h < 24 && mi < 60 && se <= 60;
}

static int one_of(const char *s, const char *words)
{
    size_t len = strlen(s);
    for (const char *w = words; *w;) {
        size_t wl = strcspn(w, " ");
        if (wl == len && strncmp(w, s, len) == 0)
            return 1;
        w += wl;
        w += *w == ' ';
    }
    return 0;
}

static int check_field(const json_t *x, const field *f, const char *where, char *err, size_t n)
{
    char b[64];
    if (!x || json_is_null(x))
        return f->required ? bad(err, n, where, "missing (required)") : 0;
    switch (f->k) {
    case K_TEXT:
        return json_is_string(x) ? 0 : bad(err, n, where, "must be a string, not %s", shown(x, b, sizeof b));
    case K_UUID:
        return json_is_string(x) && is_uuid(json_string_value(x))
                   ? 0
                   : bad(err, n, where, "must be a uuid (8-4-4-4-12 hex digits), not %s",
                         shown(x, b, sizeof b));
    case K_TIME:
        return json_is_string(x) && is_time(json_string_value(x))
                   ? 0
                   : bad(err, n, where, "must be a UTC time YYYY-MM-DDTHH:MM:SSZ, not %s",
                         shown(x, b, sizeof b));
    case K_ONEOF:
        return json_is_string(x) && one_of(json_string_value(x), f->words)
                   ? 0
                   : bad(err, n, where, "must be one of %s, not %s", f->words, shown(x, b, sizeof b));
    case K_DTYPE: {
        ab_dtype t;
        return json_is_string(x) && ab_dtype_parse(json_string_value(x), &t) == 0
                   ? 0
                   : bad(err, n, where, "must be fp16, bf16 or fp32, not %s", shown(x, b, sizeof b));
    }
    case K_BOOL:
        if (json_is_boolean(x) ||
            (json_is_integer(x) && (json_integer_value(x) == 0 || json_integer_value(x) == 1)))
            return 0;
        return bad(err, n, where, "must be 0 or 1, not %s", shown(x, b, sizeof b));
    case K_INT:
        if (json_is_integer(x) && (double)json_integer_value(x) >= f->lo &&
            (double)json_integer_value(x) <= f->hi)
            return 0;
        return bad(err, n, where, "must be an integer in [%.0f, %.0f], not %s", f->lo, f->hi,
                   shown(x, b, sizeof b));
    case K_REAL:
    case K_POS: {
        if (!json_is_number(x))
            return bad(err, n, where, "must be a number, not %s", shown(x, b, sizeof b));
        double v = json_number_value(x);
        if (!isfinite(v))
            return bad(err, n, where, "must be finite, not %s", shown(x, b, sizeof b));
        if (f->k == K_POS ? !(v > 0) : !(v >= f->lo && v <= f->hi))
            return bad(err, n, where, "must be %s, not %s", f->k == K_POS ? "> 0" : ">= 0",
                       shown(x, b, sizeof b));
        /* 1e308 ms is finite but not a latency: at most a day */
        if (f->k == K_POS && v > AB_SAMPLE_MAX_MS)
            return bad(err, n, where, "%s is not a plausible time in ms (more than a day)",
                       shown(x, b, sizeof b));
        return 0;
    }
    }
    return 0;
}

/* Checks the fields of object o in table t, and that every member is a
 * scalar unless listed in `nested`. */
static int check_object(const json_t *o, const field *t, const char *const *nested,
                        const char *where, char *err, size_t n)
{
    char w[256];
    if (!json_is_object(o))
        return bad(err, n, where, "must be an object");
    for (const field *f = t; f->name; f++) {
        snprintf(w, sizeof w, "%s.%s", where, f->name);
        if (check_field(json_object_get(o, f->name), f, w, err, n))
            return -1;
    }
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)o, key, v) {
        int is_nested = 0;
        for (const char *const *k = nested; k && *k; k++)
            is_nested |= strcmp(*k, key) == 0;
        if (!is_nested && (json_is_object(v) || json_is_array(v))) {
            snprintf(w, sizeof w, "%s.%.64s", where, key);
            return bad(err, n, w, "must be a single value, not an object or array");
        }
    }
    return 0;
}

static int check_array(const json_t *a, const field *t, const char *where, char *err, size_t n)
{
    char w[256];
    size_t i;
    json_t *o;
    if (!a)
        return 0;
    if (!json_is_array(a))
        return bad(err, n, where, "must be an array");
    json_array_foreach((json_t *)a, i, o) {
        snprintf(w, sizeof w, "%s[%zu]", where, i);
        if (check_object(o, t, NULL, w, err, n))
            return -1;
    }
    return 0;
}

static int check_measurement(const json_t *m, const char *where, char *err, size_t n)
{
    static const char *const nested[] = {"samples", "clock_blocks", "grad_checks", NULL};
    char w[256];
    if (check_object(m, meas_fields, nested, where, err, n))
        return -1;
    ab_shape s = {(int)json_integer_value(json_object_get(m, "B")),
                  (int)json_integer_value(json_object_get(m, "H")),
                  (int)json_integer_value(json_object_get(m, "S")),
                  (int)json_integer_value(json_object_get(m, "D")), 0, AB_FP32,
                  (int)json_integer_value(json_object_get(m, "H_kv")),
                  (int)json_integer_value(json_object_get(m, "S_kv")), AB_FWD};
    char why[200];
    if (ab_shape_check(&s, NULL, why, sizeof why))
        return bad(err, n, where, "%s", why);
    if (json_string_length(json_object_get(m, "variant")) == 0) {
        snprintf(w, sizeof w, "%s.variant", where);
        return bad(err, n, w, "must not be empty");
    }
    if (json_string_length(json_object_get(m, "variant")) > AB_VARIANT_NAME_MAX) {
        snprintf(w, sizeof w, "%s.variant", where);
        return bad(err, n, w, "is %zu bytes long; at most %d, as a run allows",
                   json_string_length(json_object_get(m, "variant")), AB_VARIANT_NAME_MAX);
    }
    const json_t *samples = json_object_get(m, "samples");
    snprintf(w, sizeof w, "%s.samples", where);
    if (!samples)
        return bad(err, n, w, "missing (required)");
    if (check_array(samples, sample_fields, w, err, n))
        return -1;
    /* idx: 0, 1, ... in order, as runs store them */
    size_t i;
    json_t *x;
    json_array_foreach((json_t *)samples, i, x)
        if ((size_t)json_integer_value(json_object_get(x, "idx")) != i) {
            snprintf(w, sizeof w, "%s.samples[%zu].idx", where, i);
            return bad(err, n, w, "must be %zu (samples are numbered 0, 1, ... in order)", i);
        }
    snprintf(w, sizeof w, "%s.clock_blocks", where);
    if (check_array(json_object_get(m, "clock_blocks"), block_fields, w, err, n))
        return -1;
    /* at most one check per gradient (the table's key) */
    const json_t *grads = json_object_get(m, "grad_checks");
    snprintf(w, sizeof w, "%s.grad_checks", where);
    if (check_array(grads, grad_fields, w, err, n))
        return -1;
    json_array_foreach((json_t *)grads, i, x)
        for (size_t j = 0; j < i; j++)
            if (strcmp(json_string_value(json_object_get(x, "grad")),
                       json_string_value(json_object_get(json_array_get(grads, j), "grad"))) == 0) {
                snprintf(w, sizeof w, "%s.grad_checks[%zu].grad", where, i);
                return bad(err, n, w, "%s is checked twice (also grad_checks[%zu])",
                           json_string_value(json_object_get(x, "grad")), j);
            }
    return 0;
}

/* The checks of one run, runs[i] of the document. */
static int check_run(const json_t *r, size_t i, char *err, size_t n)
{
    static const char *const run_nested[] = {"experiment", "environment", "timer_floor",
                                             "run_walltime", "measurements", NULL};
    char w[256];
    snprintf(w, sizeof w, "runs[%zu]", i);
    if (check_object(r, run_fields, run_nested, w, err, n))
        return -1;
    const json_t *x = json_object_get(r, "experiment"), *e = json_object_get(r, "environment");
    static const char *const xs[] = {"name", "path", "definition", "hash", NULL};
    for (const char *const *k = xs; *k; k++)
        if (!json_is_string(json_object_get(x, *k))) {
            snprintf(w, sizeof w, "runs[%zu].experiment.%s", i, *k);
            return bad(err, n, w, "must be a string");
        }
    if (!json_is_string(json_object_get(e, "hash")) ||
        !json_is_object(json_object_get(e, "fingerprint"))) {
        snprintf(w, sizeof w, "runs[%zu].environment", i);
        return bad(err, n, w, "must hold a hash (string) and a fingerprint (object)");
    }
    snprintf(w, sizeof w, "runs[%zu].timer_floor", i);
    if (check_array(json_object_get(r, "timer_floor"), floor_fields, w, err, n))
        return -1;
    const json_t *wt = json_object_get(r, "run_walltime");
    snprintf(w, sizeof w, "runs[%zu].run_walltime", i);
    if (wt && check_object(wt, walltime_fields, NULL, w, err, n))
        return -1;
    const json_t *ms = json_object_get(r, "measurements");
    if (!json_is_array(ms)) {
        snprintf(w, sizeof w, "runs[%zu].measurements", i);
        return bad(err, n, w, "must be an array");
    }
    size_t k;
    json_t *m;
    /* a configuration's identity -> the first measurement with it: a run
     * measures each (variant, shape, dtype, pass) once (the store's UNIQUE
     * constraint), so a second one is refused here, by name */
    json_t *seen = json_object();
    if (!seen)
        return bad(err, n, w, "out of memory");
    int rc = 0;
    json_array_foreach((json_t *)ms, k, m) {
        snprintf(w, sizeof w, "runs[%zu].measurements[%zu]", i, k);
        if (check_measurement(m, w, err, n)) {
            rc = -1;
            break;
        }
        const json_t *hk = json_object_get(m, "H_kv"), *sk = json_object_get(m, "S_kv"),
                     *ps = json_object_get(m, "pass"), *c = json_object_get(m, "causal");
        char *key = NULL;
        if (asprintf(&key, "%s|%lld|%lld|%lld|%lld|%d|%s|%lld|%lld|%s",
                     json_string_value(json_object_get(m, "variant")),
                     (long long)json_integer_value(json_object_get(m, "B")),
                     (long long)json_integer_value(json_object_get(m, "H")),
                     (long long)json_integer_value(json_object_get(m, "S")),
                     (long long)json_integer_value(json_object_get(m, "D")),
                     json_is_true(c) || json_integer_value(c) == 1,
                     json_string_value(json_object_get(m, "dtype")),
                     (long long)json_integer_value(hk ? hk : json_object_get(m, "H")),
                     (long long)json_integer_value(sk ? sk : json_object_get(m, "S")),
                     json_is_string(ps) ? json_string_value(ps) : "fwd") < 0) {
            rc = bad(err, n, w, "out of memory");
            break;
        }
        const json_t *first = json_object_get(seen, key);
        if (first) {
            rc = bad(err, n, w,
                     "the same variant and configuration as runs[%zu].measurements[%lld] (a run "
                     "measures each once)",
                     i, (long long)json_integer_value(first));
        } else if (json_object_set_new(seen, key, json_integer((json_int_t)k))) {
            rc = bad(err, n, w, "out of memory");
        }
        free(key);
        if (rc)
            break;
    }
    json_decref(seen);
    return rc;
}

int ab_import_check(const json_t *doc, char *err, size_t n)
{
    char w[256];
    if (!json_is_object(doc))
        return bad(err, n, "(top level)", "must be an object");
    const json_t *v = json_object_get(doc, "attnbench_export");
    if (!json_is_integer(v) || json_integer_value(v) != AB_EXPORT_VERSION)
        return bad(err, n, "attnbench_export", "must be %d (an attnbench JSON export)",
                   AB_EXPORT_VERSION);
    const json_t *runs = json_object_get(doc, "runs");
    if (!json_is_array(runs))
        return bad(err, n, "runs", "must be an array");
    size_t i;
    json_t *r;
    /* uuid -> index of the first run with it: one hash lookup per run */
    json_t *seen = json_object();
    if (!seen)
        return bad(err, n, "runs", "out of memory");
    int rc = -1;
    json_array_foreach((json_t *)runs, i, r) {
        snprintf(w, sizeof w, "runs[%zu]", i);
        if (check_run(r, i, err, n))
            goto cleanup;
        /* a uuid twice: the same run twice is harmless, two results under
         * one identity are not */
        const char *uuid = json_string_value(json_object_get(r, "uuid"));
        const json_t *first = json_object_get(seen, uuid);
        if (first) {
            size_t j = (size_t)json_integer_value(first);
            if (!json_equal(r, json_array_get(runs, j))) {
                snprintf(w, sizeof w, "runs[%zu].uuid", i);
                bad(err, n, w,
                    "%s is also the uuid of runs[%zu], with other contents (one run, two sets "
                    "of results)",
                    uuid, j);
                goto cleanup;
            }
        } else if (json_object_set_new(seen, uuid, json_integer((json_int_t)i))) {
            bad(err, n, w, "out of memory");
            goto cleanup;
        }
    }
    rc = 0;
cleanup:
    json_decref(seen);
    return rc;
}
