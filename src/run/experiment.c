/*
 * experiment.c: parsing and validating experiment files with libconfig.
 *
 * An experiment names its variants, a baseline, and a sweep: axes B, H, S, D,
 * causal, dtype, H_kv, S_kv (K/V heads and length; default H and S), pass
 * ("fwd", "bwd", "fwd+bwd"; default "fwd"), each a
 * scalar or a list, whose cross product is the list of configurations. An optional `configs` list of groups gives several sweeps
 * (each group's axes override the top-level sweep's), for studies that are
 * not one cross product (seed 000's five shapes, seed 004's S/B/H sweeps).
 */
#include "experiment.h"
#include "exp_canon.h"
#include "exp_include.h"
#include "exp_schema.h"
#include "exp_syntax.h"
#include "registry.h"
#include "plugin.h"
#include "util.h"
#include "sampling.h"

#include <jansson.h>

#include <errno.h>
#include <fcntl.h>
#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Limits, each refused with a clear message: the file's size, the number of
 * configurations after all sweeps are multiplied out (before duplicates are
 * removed), the number of variants. Axis lists are at most 64 long. */
#define AB_EXP_MAX_BYTES (1u << 20)
#define AB_EXP_MAX_CONFIGS 65536
#define AB_EXP_MAX_VARIANTS 256

enum { AX_B, AX_H, AX_S, AX_D, AX_CAUSAL, AX_DTYPE, AX_HKV, AX_SKV, AX_PASS, NAXES };
static const char *const axis_names[NAXES] = {"B",    "H",    "S",    "D",   "causal",
                                              "dtype", "H_kv", "S_kv", "pass"};

typedef struct axis {
    int v[64];
    int n;
} axis;

static int where(char *err, size_t n, const char *path, const config_setting_t *s,
                 const char *fmt, const char *field)
{
    int line = s ? config_setting_source_line(s) : 0;
    char msg[256];
    snprintf(msg, sizeof msg, fmt, field);
    if (line > 0)
        snprintf(err, n, "%s:%d: %s", path, line, msg);
    else
        snprintf(err, n, "%s: %s", path, msg);
    return -1;
}

/* One axis value from a scalar setting. */
static int axis_value(const config_setting_t *s, int ax, int *out)
{
    int t = config_setting_type(s);
    if (ax == AX_DTYPE) {
        ab_dtype d;
        if (t != CONFIG_TYPE_STRING || ab_dtype_parse(config_setting_get_string(s), &d))
            return -1;
        *out = (int)d;
        return 0;
    }
    if (ax == AX_PASS) {
        ab_pass p;
        if (t != CONFIG_TYPE_STRING || ab_pass_parse(config_setting_get_string(s), &p))
            return -1;
        *out = (int)p;
        return 0;
    }
    if (ax == AX_CAUSAL) {
        if (t == CONFIG_TYPE_BOOL)
            *out = config_setting_get_bool(s);
        else if (t == CONFIG_TYPE_INT && (config_setting_get_int(s) == 0 || config_setting_get_int(s) == 1))
            *out = config_setting_get_int(s);
        else
            return -1;
        return 0;
    }
    if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64)
        return -1;
    long long x = config_setting_get_int64(s);
    if (t == CONFIG_TYPE_INT)
        x = config_setting_get_int(s);
    if (x < 1 || x > (1 << 24))
        return -1;
    *out = (int)x;
    return 0;
}

static const char *axis_rule(int ax)
{
    switch (ax) {
    case AX_DTYPE:
        return "%s must be a dtype or a list of dtypes (\"fp16\", \"bf16\", \"fp32\")";
    case AX_CAUSAL:
        return "%s must be true/false or a list of them";
    case AX_PASS:
        return "%s must be a pass or a list of passes (\"fwd\", \"bwd\", \"fwd+bwd\")";
    default:
        return "%s must be a list of positive integers";
    }
}

/* Reads axis `ax` from group g into a; absent leaves a untouched. */
static int read_axis(const config_setting_t *g, int ax, axis *a, const char *path, char *err,
                     size_t n)
{
    const config_setting_t *s = config_setting_get_member(g, axis_names[ax]);
    if (!s)
        return 0;
    if (config_setting_is_aggregate(s)) {
        int len = config_setting_length(s);
        if (len < 1 || len > 64)
            return where(err, n, path, s, axis_rule(ax), axis_names[ax]);
        for (int i = 0; i < len; i++)
            if (axis_value(config_setting_get_elem(s, (unsigned)i), ax, &a->v[i]))
                return where(err, n, path, s, axis_rule(ax), axis_names[ax]);
        a->n = len;
        return 0;
    }
    if (axis_value(s, ax, &a->v[0]))
        return where(err, n, path, s, axis_rule(ax), axis_names[ax]);
    a->n = 1;
    return 0;
}

/* Appends the cross product of ax to e->configs (duplicates are removed
 * once all groups are in, by dedupe_configs). Checks the sweep's size and
 * every configuration's sizes (ab_shape_check) before anything is kept. */
static int add_cross_product(ab_experiment *e, const axis ax[NAXES], const char *path,
                             const config_setting_t *g, char *err, size_t n)
{
    size_t add = 1;
    for (int i = 0; i < NAXES; i++)
        add *= (size_t)ax[i].n; /* at most 64^9 = 2^54: no overflow */
    if (add > AB_EXP_MAX_CONFIGS || e->nconfigs + add > AB_EXP_MAX_CONFIGS) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "the sweep has %zu configurations (%zu so far); at most %d are allowed",
                 add, e->nconfigs + add, AB_EXP_MAX_CONFIGS);
        return where(err, n, path, g, "%s", msg);
    }
    for (int b = 0; b < ax[AX_B].n; b++)
        for (int h = 0; h < ax[AX_H].n; h++)
            for (int s = 0; s < ax[AX_S].n; s++)
                for (int d = 0; d < ax[AX_D].n; d++)
                    for (int hk = 0; hk < ax[AX_HKV].n; hk++)
                        for (int sk = 0; sk < ax[AX_SKV].n; sk++) {
                            ab_shape x = {ax[AX_B].v[b], ax[AX_H].v[h], ax[AX_S].v[s],
                                          ax[AX_D].v[d], 0, AB_FP32, ax[AX_HKV].v[hk],
                                          ax[AX_SKV].v[sk]};
                            char why[200], msg[300];
                            if (ab_shape_check(&x, NULL, why, sizeof why)) {
                                snprintf(msg, sizeof msg,
                                         "configuration B=%d H=%d S=%d D=%d H_kv=%d S_kv=%d: %s",
                                         x.B, x.H, x.S, x.D, ab_shape_hkv(&x), ab_shape_skv(&x),
                                         why);
                                return where(err, n, path, g, "%s", msg);
                            }
                        }
    ab_shape *c = realloc(e->configs, (e->nconfigs + add) * sizeof *c);
    if (!c)
        return where(err, n, path, g, "out of memory for %s", "the configurations");
    e->configs = c;
    /* pass, then dtype outermost, S innermost: sweeps over S read as
     * contiguous rows */
    for (int ps = 0; ps < ax[AX_PASS].n; ps++)
    for (int t = 0; t < ax[AX_DTYPE].n; t++)
        for (int ca = 0; ca < ax[AX_CAUSAL].n; ca++)
            for (int d = 0; d < ax[AX_D].n; d++)
                for (int b = 0; b < ax[AX_B].n; b++)
                    for (int h = 0; h < ax[AX_H].n; h++)
                        for (int hk = 0; hk < ax[AX_HKV].n; hk++)
                            for (int s = 0; s < ax[AX_S].n; s++)
                                for (int sk = 0; sk < ax[AX_SKV].n; sk++) {
                                    ab_shape x = {ax[AX_B].v[b], ax[AX_H].v[h], ax[AX_S].v[s],
                                                  ax[AX_D].v[d], ax[AX_CAUSAL].v[ca],
                                                  (ab_dtype)ax[AX_DTYPE].v[t], ax[AX_HKV].v[hk],
                                                  ax[AX_SKV].v[sk],
                                                  (ab_pass)ax[AX_PASS].v[ps]};
                                    /* equal to H / S is stored as 0 ("the same") */
                                    if (x.H_kv == x.H)
                                        x.H_kv = 0;
                                    if (x.S_kv == x.S)
                                        x.S_kv = 0;
                                    e->configs[e->nconfigs++] = x;
                                }
    return 0;
}

typedef struct keyed {
    ab_shape s;
    size_t i; /* position in the sweep order */
} keyed;

static int cmp_keyed(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    const int x[9] = {a->s.B, a->s.H, a->s.S, a->s.D, a->s.causal, (int)a->s.dtype,
                      ab_shape_hkv(&a->s), ab_shape_skv(&a->s), (int)a->s.pass};
    const int y[9] = {b->s.B, b->s.H, b->s.S, b->s.D, b->s.causal, (int)b->s.dtype,
                      ab_shape_hkv(&b->s), ab_shape_skv(&b->s), (int)b->s.pass};
    for (int k = 0; k < 9; k++)
        if (x[k] != y[k])
            return (x[k] > y[k]) - (x[k] < y[k]);
    return (a->i > b->i) - (a->i < b->i);
}

static int cmp_index(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    return (a->i > b->i) - (a->i < b->i);
}

/* Groups may overlap (seed 004's sweeps share their centre): each
 * configuration is measured once, at its first position. O(n log n): sort
 * by (shape, position), keep the first of each run of equal shapes, sort the
 * kept ones back into sweep order. */
static int dedupe_configs(ab_experiment *e)
{
    size_t n = e->nconfigs, k = 0;
    if (n < 2)
        return 0;
    keyed *t = malloc(n * sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < n; i++)
        t[i] = (keyed){e->configs[i], i};
    qsort(t, n, sizeof *t, cmp_keyed);
    for (size_t i = 0; i < n; i++)
        if (k == 0 || cmp_keyed(&(keyed){t[i].s, 0}, &(keyed){t[k - 1].s, 0}) != 0)
            t[k++] = t[i];
    qsort(t, k, sizeof *t, cmp_index);
    for (size_t i = 0; i < k; i++)
        e->configs[i] = t[i].s;
    e->nconfigs = k;
    free(t);
    return 0;
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

/* Integer setting with default; -1 with err when present but not an int in
 * [lo, hi]. */
static int get_int(const config_setting_t *root, const char *name, int dflt, int lo, int hi,
                   int *out, const char *path, char *err, size_t n)
{
    const config_setting_t *s = config_setting_get_member(root, name);
    *out = dflt;
    if (!s)
        return 0;
    if (config_setting_type(s) != CONFIG_TYPE_INT || config_setting_get_int(s) < lo ||
        config_setting_get_int(s) > hi) {
        char fmt[128];
        snprintf(fmt, sizeof fmt, "%%s must be an integer in [%d, %d]", lo, hi);
        return where(err, n, path, s, fmt, name);
    }
    *out = config_setting_get_int(s);
    return 0;
}

static int get_float(const config_setting_t *root, const char *name, double dflt, double lo,
                     double hi, double *out, const char *path, char *err, size_t n)
{
    const config_setting_t *s = config_setting_get_member(root, name);
    *out = dflt;
    if (!s)
        return 0;
    int t = config_setting_type(s);
    double x = t == CONFIG_TYPE_FLOAT ? config_setting_get_float(s)
               : t == CONFIG_TYPE_INT ? (double)config_setting_get_int(s)
                                      : -1e300;
    if (!(x >= lo && x <= hi)) {
        char fmt[128];
        snprintf(fmt, sizeof fmt, "%%s must be a number in [%g, %g]", lo, hi);
        return where(err, n, path, s, fmt, name);
    }
    *out = x;
    return 0;
}

static int get_string(const config_setting_t *root, const char *name, int required,
                      const char **out, const char *path, char *err, size_t n)
{
    const config_setting_t *s = config_setting_get_member(root, name);
    *out = NULL;
    if (!s)
        return required ? where(err, n, path, NULL, "missing required field '%s'", name) : 0;
    if (config_setting_type(s) != CONFIG_TYPE_STRING)
        return where(err, n, path, s, "%s must be a string", name);
    *out = config_setting_get_string(s);
    return 0;
}

/* { name; library; }: a plugin variant (src/run/plugin.h). A library that
 * cannot be loaded is no error of the file: the variant stands in with the
 * reason (naming the library and the field's file:line), the runner stores
 * it as an error and the other variants run. */
static int load_plugin(const config_setting_t *s, ab_exp_variant *v, const char *lib,
                       const char *path, int resolve, char *err, size_t n)
{
    char why[1024];
    v->library = strdup(lib);
    if (!v->library)
        return where(err, n, path, s, "out of memory reading %s", "library");
    if (!resolve)
        return 0; /* a stored run's file: nothing to load */
    if (ab_plugin_load(lib, v->name, &v->plugin, &v->plugin_record, why, sizeof why)) {
        const config_setting_t *f = config_setting_get_member(s, "library");
        char msg[1200];
        snprintf(msg, sizeof msg, "%s:%d: field 'library' of variant '%s': %s", path,
                 config_setting_source_line(f), v->name, why);
        fprintf(stderr, "attnbench: %s\n", msg);
        v->plugin = ab_plugin_failed_variant(v->name, msg);
        if (!v->plugin)
            return where(err, n, path, s, "out of memory reading %s", "library");
    }
    v->native = v->plugin;
    return 0;
}

/* `ipc = true|false;` and `layout = "bhsd"|"bshd";` of an external variant
 * (src/run/ext_ipc.h): protocol 2 only. 0, or -1 with err. */
static int load_ipc(const config_setting_t *s, ab_exp_variant *v, const char *path, char *err,
                    size_t n)
{
    const config_setting_t *ip = config_setting_get_member(s, "ipc");
    const char *lay = NULL;
    v->ipc = 1;
    if (ip && config_setting_type(ip) != CONFIG_TYPE_BOOL)
        return where(err, n, path, ip, "%s must be true or false", "ipc");
    if (ip)
        v->ipc = config_setting_get_bool(ip);
    if (get_string(s, "layout", 0, &lay, path, err, n))
        return -1;
    if (lay && ab_layout_parse(lay, &v->layout))
        return where(err, n, path, config_setting_get_member(s, "layout"),
                     "%s must be \"bhsd\" ([B,H,S,D]) or \"bshd\" ([B,S,H,D])", "layout");
    v->layout_set = lay != NULL;
    if ((ip || lay) && v->protocol != 2)
        return where(err, n, path, ip ? ip : config_setting_get_member(s, "layout"),
                     "%s applies to protocol-2 variants (protocol = 2;) only",
                     ip ? "ipc" : "layout");
    return 0;
}

static int load_variants(const config_setting_t *root, ab_experiment *e, const char *path,
                         char *err, size_t n)
{
    const config_setting_t *vs = config_setting_get_member(root, "variants");
    if (!vs)
        return where(err, n, path, NULL, "missing required field '%s'", "variants");
    int len = config_setting_is_aggregate(vs) ? config_setting_length(vs) : 0;
    if (len < 1)
        return where(err, n, path, vs, "%s must be a non-empty list of variant names or "
                     "{ name; command; } groups", "variants");
    if (len > AB_EXP_MAX_VARIANTS) {
        char msg[128];
        snprintf(msg, sizeof msg, "variants lists %d variants; at most %d are allowed", len,
                 AB_EXP_MAX_VARIANTS);
        return where(err, n, path, vs, "%s", msg);
    }
    e->variants = calloc((size_t)len, sizeof *e->variants);
    if (!e->variants)
        return where(err, n, path, vs, "out of memory reading %s", "variants");
    for (int i = 0; i < len; i++) {
        const config_setting_t *s = config_setting_get_elem(vs, (unsigned)i);
        ab_exp_variant *v = &e->variants[e->nvariants++];
        if (config_setting_type(s) == CONFIG_TYPE_STRING) {
            const char *name = config_setting_get_string(s);
            v->name = strdup(name);
            v->timing = (ab_timing_mode)-1;
            v->native = ab_variant_find(name);
            if (!v->native && e->resolve) {
                char msg[256];
                snprintf(msg, sizeof msg, "unknown variant '%s' (attnbench variants lists them)",
                         name);
                return where(err, n, path, s, "%s", msg);
            }
        } else if (config_setting_is_group(s)) {
            /* { name; command; [timeout;] [timing;] }: an external variant;
             * { name; variant; [timing;] }: an instance of a built-in one
             * under its own name, e.g. with its own timing mode */
            const char *name = NULL, *cmd = NULL, *base = NULL, *mode = NULL, *lib = NULL;
            if (e->resolve == 1 &&
                ab_exp_check_keys(s, ab_exp_variant_keys, " in a variant", path, err, n))
                return -1;
            if (get_string(s, "name", 1, &name, path, err, n) ||
                get_string(s, "command", 0, &cmd, path, err, n) ||
                get_string(s, "variant", 0, &base, path, err, n) ||
                get_string(s, "timing", 0, &mode, path, err, n) ||
                get_string(s, "library", 0, &lib, path, err, n))
                return -1;
            if (!!cmd + !!base + !!lib != 1)
                return where(err, n, path, s, "variant '%s' needs exactly one of 'command' "
                             "(an external program), 'variant' (a built-in variant) or "
                             "'library' (a plugin)", name);
            if (mode && ab_timing_mode_parse(mode, &v->timing))
                return where(err, n, path, s, "%s must be \"cold\", \"hot\" or \"graph\"",
                             "timing");
            v->timing = mode ? v->timing : (ab_timing_mode)-1;
            const ab_variant *same = ab_variant_find(name);
            if (same && (!base || strcmp(base, name) != 0))
                return where(err, n, path, s, "variant '%s' has the name of a built-in variant",
                             name);
            v->name = strdup(name);
            if (lib) {
                /* timeout: the deadline of each call of a CPU plugin (plugin_worker.h) */
                if (get_float(s, "timeout", 60.0, 0.1, 86400.0, &v->timeout_s, path, err, n) ||
                    load_plugin(s, v, lib, path, e->resolve, err, n))
                    return -1;
            } else if (cmd) {
                v->command = strdup(cmd);
                if (get_float(s, "timeout", 600.0, 0.1, 86400.0, &v->timeout_s, path, err, n) ||
                    get_int(s, "protocol", 1, 1, 2, &v->protocol, path, err, n) ||
                    load_ipc(s, v, path, err, n))
                    return -1;
            } else {
                v->native = ab_variant_find(base);
                if (!v->native && e->resolve) {
                    char msg[256];
                    snprintf(msg, sizeof msg,
                             "unknown variant '%s' (attnbench variants lists them)", base);
                    return where(err, n, path, s, "%s", msg);
                }
            }
        } else {
            return where(err, n, path, s, "%s entries must be names or { name; command; } groups",
                         "variants");
        }
        for (size_t j = 0; j + 1 < e->nvariants; j++)
            if (strcmp(e->variants[j].name, v->name) == 0)
                return where(err, n, path, s, "variant '%s' is listed twice", v->name);
    }
    return 0;
}

int ab_exp_default_instances(const ab_experiment *e)
{
    if (e->nvariants == 0)
        return 1;
    for (size_t i = 0; i < e->nvariants; i++) {
        const ab_exp_variant *v = &e->variants[i];
        if (!v->native || v->command || v->library || v->plugin ||
            v->native->device != AB_DEV_CUDA)
            return 1;
    }
    return AB_INSTANCES_DEFAULT;
}

int ab_exp_stored_instances(const char *settings_json)
{
    json_t *s = settings_json ? json_loads(settings_json, 0, NULL) : NULL;
    const char *from = json_string_value(json_object_get(s, "instances_from"));
    json_int_t k = json_integer_value(json_object_get(s, "instances"));
    int r = from && strcmp(from, "default") == 0 && k >= 1 && k <= 64 ? (int)k : 1;
    json_decref(s);
    return r;
}

/* `instances = k;`: every variant V becomes V#1..V#k, each its own setup
 * (the runner treats them as separate variants, so each gets fresh
 * allocations, its own cuDNN graph and its own adapter process), interleaved
 * in the rounds. A plugin's loaded library cannot be shared by copies, so
 * instances of plugins are refused. Without `instances`: missing_k
 * (ab_experiment_parse_k; 0: ab_exp_default_instances). */
static int expand_instances(const config_setting_t *root, ab_experiment *e, int missing_k,
                            const char *path, char *err, size_t n)
{
    const config_setting_t *s = config_setting_get_member(root, "instances");
    e->instances_set = s != NULL;
    if (s) {
        if (get_int(root, "instances", 1, 1, 64, &e->instances, path, err, n))
            return -1;
    } else {
        e->instances = missing_k > 0 ? missing_k : ab_exp_default_instances(e);
        e->instances_split = e->instances > 1;
    }
    if (e->instances == 1)
        return 0;
    size_t k = (size_t)e->instances, nv = e->nvariants;
    if (nv * k > AB_EXP_MAX_VARIANTS) {
        char msg[128];
        snprintf(msg, sizeof msg, "instances = %d makes %zu variants; at most %d are allowed",
                 e->instances, nv * k, AB_EXP_MAX_VARIANTS);
        return where(err, n, path, s, "%s", msg);
    }
    ab_exp_variant *v = calloc(nv * k, sizeof *v);
    if (!v)
        return where(err, n, path, s, "out of memory reading %s", "instances");
    for (size_t i = 0; i < nv; i++) {
        const ab_exp_variant *o = &e->variants[i];
        if (o->library) {
            free(v);
            return where(err, n, path, s, "instances > 1 cannot copy plugin variant '%s' "
                         "(its library is loaded once)", o->name);
        }
    }
    int oom = 0;
    for (size_t i = 0; i < nv; i++)
        for (size_t j = 0; j < k; j++) {
            const ab_exp_variant *o = &e->variants[i];
            ab_exp_variant *c = &v[i * k + j];
            *c = *o;
            size_t len = strlen(o->name) + 16;
            c->name = malloc(len);
            if (c->name)
                snprintf(c->name, len, "%s#%zu", o->name, j + 1);
            c->command = o->command ? strdup(o->command) : NULL;
            oom |= !c->name || (o->command && !c->command);
        }
    for (size_t i = 0; i < nv; i++) {
        free(e->variants[i].name);
        free(e->variants[i].command);
    }
    free(e->variants);
    e->variants = v;
    e->nvariants = nv * k;
    return oom ? where(err, n, path, s, "out of memory reading %s", "instances") : 0;
}

static int load_configs(const config_setting_t *root, ab_experiment *e, const char *path,
                        char *err, size_t n)
{
    axis base[NAXES] = {{{1}, 1}, {{1}, 1}, {{0}, 0}, {{64}, 1}, {{0}, 1}, {{AB_FP16}, 1},
                        {{0}, 1}, {{0}, 1}, /* H_kv, S_kv: 0 = equal to H, S */
                        {{AB_FWD}, 1}};
    const config_setting_t *sweep = config_setting_get_member(root, "sweep");
    const config_setting_t *groups = config_setting_get_member(root, "configs");
    if (!sweep && !groups)
        return where(err, n, path, NULL, "missing required field '%s' (or 'configs')", "sweep");
    if (sweep) {
        if (!config_setting_is_group(sweep))
            return where(err, n, path, sweep, "%s must be a group { B = [...]; S = [...]; ... }",
                         "sweep");
        if (e->resolve == 1 && ab_exp_check_keys(sweep, ab_exp_axis_keys, " in sweep", path, err, n))
            return -1;
        for (int a = 0; a < NAXES; a++)
            if (read_axis(sweep, a, &base[a], path, err, n))
                return -1;
    }
    if (!groups) {
        if (base[AX_S].n == 0)
            return where(err, n, path, sweep, "missing required field '%s' in sweep", "S");
        if (add_cross_product(e, base, path, sweep, err, n))
            return -1;
        return dedupe_configs(e) ? where(err, n, path, sweep, "out of memory in %s", "sweep") : 0;
    }
    if (!config_setting_is_list(groups) || config_setting_length(groups) < 1)
        return where(err, n, path, groups, "%s must be a list of groups ( { S = 128; }, ... )",
                     "configs");
    for (int i = 0; i < config_setting_length(groups); i++) {
        const config_setting_t *g = config_setting_get_elem(groups, (unsigned)i);
        if (!config_setting_is_group(g))
            return where(err, n, path, g, "%s entries must be groups { B = ...; S = ...; }",
                         "configs");
        if (e->resolve == 1 &&
            ab_exp_check_keys(g, ab_exp_axis_keys, " in configs", path, err, n))
            return -1;
        axis ax[NAXES];
        memcpy(ax, base, sizeof ax);
        for (int a = 0; a < NAXES; a++)
            if (read_axis(g, a, &ax[a], path, err, n))
                return -1;
        if (ax[AX_S].n == 0)
            return where(err, n, path, g, "missing required field '%s' in this configs entry",
                         "S");
        if (add_cross_product(e, ax, path, g, err, n))
            return -1;
    }
    return dedupe_configs(e) ? where(err, n, path, groups, "out of memory in %s", "configs") : 0;
}

static int load_stopping(const config_setting_t *root, ab_experiment *e, const char *path,
                         char *err, size_t n)
{
    const config_setting_t *st = config_setting_get_member(root, "stopping");
    e->adaptive = 0;
    e->target_rel_ci = 0.005;
    e->min_samples = 20;
    e->max_samples = 2000;
    e->budget_s = 10.0;
    if (!st)
        return 0;
    if (!config_setting_is_group(st))
        return where(err, n, path, st, "%s must be a group { target_rel_ci = 0.005; ... }",
                     "stopping");
    e->adaptive = 1;
    if (e->resolve == 1 && ab_exp_check_keys(st, ab_exp_stopping_keys, " in stopping", path, err, n))
        return -1;
    if (get_float(st, "target_rel_ci", 0.005, 1e-5, 0.5, &e->target_rel_ci, path, err, n) ||
        get_int(st, "min_samples", 20, 5, 10000000, &e->min_samples, path, err, n) ||
        get_int(st, "max_samples", 2000, 5, 10000000, &e->max_samples, path, err, n) ||
        get_float(st, "budget_s", 10.0, 0.001, 86400.0, &e->budget_s, path, err, n))
        return -1;
    if (e->max_samples < e->min_samples)
        return where(err, n, path, st, "%s must be >= min_samples", "max_samples");
    return 0;
}

/* The GPU-time budget (experiment.h): top-level `min_time` and `max_time`
 * (seconds of GPU time per measurement) and, in fixed mode, `max_samples`
 * (with `stopping` the group's own max_samples is the cap). Called after
 * load_stopping. 0, or -1 with "file:line: ..." naming the field. */
static int load_budget(const config_setting_t *root, ab_experiment *e, const char *path,
                       char *err, size_t n)
{
    const config_setting_t *mt = config_setting_get_member(root, "min_time"),
                           *xt = config_setting_get_member(root, "max_time"),
                           *ms = config_setting_get_member(root, "max_samples");
    e->sampling_from = mt || xt ? "experiment" : "default";
    if (get_float(root, "min_time", AB_MIN_TIME_DEFAULT_S, 0.0, 3600.0, &e->min_time_s, path,
                  err, n) ||
        get_float(root, "max_time", 0.0, 0.0, 3600.0, &e->max_time_s, path, err, n))
        return -1;
    if (e->max_time_s > 0 && e->max_time_s < e->min_time_s)
        return where(err, n, path, xt ? xt : mt, "%s must be 0 (no cap) or >= min_time",
                     "max_time");
    if (ms && e->adaptive)
        return where(err, n, path, ms,
                     "%s: with `stopping` the cap is stopping's max_samples; give it there",
                     "max_samples");
    if (!e->adaptive &&
        get_int(root, "max_samples",
                e->samples > AB_FIXED_MAX_SAMPLES ? e->samples : AB_FIXED_MAX_SAMPLES, 1,
                10000000, &e->max_samples, path, err, n))
        return -1;
    if (!e->adaptive && e->max_samples < e->samples)
        return where(err, n, path, ms, "%s must be >= samples", "max_samples");
    return 0;
}

/* A number of seconds in [0, 3600] from an option's value; 0 or -1. */
static int parse_seconds(const char *opt, const char *v, double *out, char *err, size_t n)
{
    char *end = NULL;
    errno = 0;
    double x = strtod(v, &end);
    if (!*v || *end || errno || !(x >= 0.0 && x <= 3600.0)) {
        snprintf(err, n, "%s: '%s' is not a number of seconds in [0, 3600]", opt, v);
        return -1;
    }
    *out = x;
    return 0;
}

int ab_experiment_set_budget(ab_experiment *e, const char *min_time, const char *max_time,
                             char *err, size_t n)
{
    double lo = e->min_time_s, hi = e->max_time_s;
    if ((min_time && parse_seconds("--min-time", min_time, &lo, err, n)) ||
        (max_time && parse_seconds("--max-time", max_time, &hi, err, n)))
        return -1;
    if (e->instances_split) { /* a measurement's budget, split as the file's is (split_budget) */
        if (min_time)
            lo /= e->instances;
        if (max_time)
            hi /= e->instances;
    }
    if (hi > 0 && hi < lo) {
        if (max_time)
            snprintf(err, n, "--max-time: %g s is below min_time (%g s); 0 means no cap", hi, lo);
        else
            snprintf(err, n, "--min-time: %g s is above max_time (%g s)", lo, hi);
        return -1;
    }
    e->min_time_s = lo;
    e->max_time_s = hi;
    if (min_time || max_time)
        e->sampling_from = "command line";
    return 0;
}

/* A new experiment's name and variant names hold no control characters:
 * they are printed on terminals and in reports (util.h, ab_printable). The
 * name also names the report file (reports/<name>-run<N>.md): not empty,
 * no '/', at most AB_EXP_NAME_MAX bytes. 0, or -1 with "file:line: ..." in
 * err. */
static int names_refuse_controls(const config_setting_t *root, const ab_experiment *e,
                                 const char *path, char *err, size_t n)
{
    char shown[200];
    const config_setting_t *ns = config_setting_get_member(root, "name");
    if (!e->name[0])
        return where(err, n, path, ns, "%s must not be empty (it names the report file)", "name");
    if (strlen(e->name) > AB_EXP_NAME_MAX) {
        char msg[96];
        snprintf(msg, sizeof msg, "%%s is %zu bytes long; at most %d (it names the report file)",
                 strlen(e->name), AB_EXP_NAME_MAX);
        return where(err, n, path, ns, msg, "name");
    }
    if (strchr(e->name, '/'))
        return where(err, n, path, ns,
                     "name '%s' holds a '/' (it names the report file reports/<name>-run<N>.md)",
                     ab_printable(e->name, shown, sizeof shown));
    if (ab_has_control(e->name))
        return where(err, n, path, config_setting_get_member(root, "name"),
                     "name '%s' holds a control character (names are printed on terminals)",
                     ab_printable(e->name, shown, sizeof shown));
    const config_setting_t *vl = config_setting_get_member(root, "variants");
    for (size_t i = 0; i < e->nvariants; i++)
        if (strlen(e->variants[i].name) > AB_VARIANT_NAME_MAX) {
            char msg[96];
            snprintf(msg, sizeof msg, "%%s is %zu bytes long; at most %d",
                     strlen(e->variants[i].name), AB_VARIANT_NAME_MAX);
            return where(err, n, path, vl ? config_setting_get_elem(vl, (unsigned)i) : NULL, msg,
                         "variant name");
        } else if (ab_has_control(e->variants[i].name))
            return where(err, n, path, vl ? config_setting_get_elem(vl, (unsigned)i) : NULL,
                         "variant name '%s' holds a control character (names are printed on "
                         "terminals)", ab_printable(e->variants[i].name, shown, sizeof shown));
    return 0;
}

/* A stored experiment read for a report: its names with control characters
 * escaped (ab_printable), as ab_run_load gives the measurements' names, so
 * the two still match. 0, or -1 when out of memory. */
static int names_printable(ab_experiment *e)
{
    char **names[2] = {&e->name, &e->baseline};
    for (size_t i = 0; i < 2 + e->nvariants; i++) {
        char **p = i < 2 ? names[i] : &e->variants[i - 2].name;
        if (!*p || !ab_has_control(*p))
            continue;
        char *q = ab_printable_dup(*p);
        if (!q)
            return -1;
        free(*p);
        *p = q;
    }
    return 0;
}

/* A default of k instances (ab_exp_default_instances) costs about what one
 * instance cost: each instance gets a k-th of the measurement's budget,
 * rounded up, and no less than the analysis needs of it. Fixed mode:
 * samples (at least two rounds an instance, the least from which the
 * instance analysis has a within-instance variance) and max_samples;
 * adaptive: min_samples (at least 5, the field's floor), budget_s and
 * max_samples (at least AB_MIN_ROUNDS rounds, below which the stopping
 * rule never converges: src/run/sampling.h); both: min_time and max_time.
 * The rounds follow from samples / round_size. */
static void split_budget(ab_experiment *e)
{
    const int k = e->instances;
    const int two_rounds = 2 * e->round_size;
    const int min_rounds = AB_MIN_ROUNDS * e->round_size;
#define CEIL_DIV(a) (((a) + k - 1) / k)
    if (e->adaptive) {
        e->min_samples = CEIL_DIV(e->min_samples) > 5 ? CEIL_DIV(e->min_samples) : 5;
        int mx = CEIL_DIV(e->max_samples);
        mx = mx > min_rounds ? mx : min_rounds;
        e->max_samples = mx > e->max_samples ? e->max_samples : mx;
        if (e->max_samples < e->min_samples)
            e->max_samples = e->min_samples;
        e->budget_s /= k;
    } else {
        int sm = CEIL_DIV(e->samples);
        sm = sm > two_rounds ? sm : two_rounds;
        e->samples = sm > e->samples ? e->samples : sm;
        int mx = CEIL_DIV(e->max_samples);
        e->max_samples = mx > e->samples ? mx : e->samples;
    }
#undef CEIL_DIV
    e->min_time_s /= k;
    e->max_time_s /= k;
}

int ab_experiment_load(const char *path, ab_experiment *e, char *err, size_t n)
{
    memset(e, 0, sizeof *e);
    size_t len = 0;
    int too_big = 0;
    char *text = ab_read_file_limit(path, AB_EXP_MAX_BYTES, &len, &too_big);
    if (!text) {
        if (too_big == 1)
            snprintf(err, n, "%s: experiment file larger than %u bytes (is it an experiment?)",
                     path, AB_EXP_MAX_BYTES);
        else if (too_big == 2)
            snprintf(err, n, "%s: not a regular file (a FIFO, device or socket); an experiment "
                     "is a file", path);
        else if (errno == EISDIR)
            snprintf(err, n, "%s: is a directory, not an experiment file", path);
        else
            snprintf(err, n, "%s: cannot read experiment file: %s", path, strerror(errno));
        return -1;
    }
    if (strlen(text) != len) {
        snprintf(err, n, "%s: NUL byte at offset %zu: not a text file", path, strlen(text));
        free(text);
        return -1;
    }
    /* a UTF-8 byte-order mark (editors on Windows write one) is no setting:
     * left out of what is parsed, hashed and stored */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        memmove(text, text + 3, len - 2);
    /* the experiment as it runs: its @include files expanded into the text
     * that is parsed, hashed and stored with the run */
    char *expanded = ab_exp_expand_includes(path, text, AB_EXP_MAX_BYTES, err, n);
    free(text);
    if (!expanded)
        return -1;
    int rc = ab_experiment_parse(path, expanded, 1, e, err, n);
    free(expanded);
    return rc;
}

int ab_experiment_parse(const char *path, const char *text, int resolve, ab_experiment *e,
                        char *err, size_t n)
{
    return ab_experiment_parse_k(path, text, resolve, resolve == 1 ? 0 : 1, e, err, n);
}

int ab_experiment_parse_k(const char *path, const char *text, int resolve, int missing_k,
                          ab_experiment *e, char *err, size_t n)
{
    config_t cfg;
    int rc = -1;
    const char *s = NULL;
    memset(e, 0, sizeof *e);
    e->path = strdup(path);
    e->text = strdup(text);
    e->resolve = resolve;
    ab_exp_hash(e->text, e->hash); /* comments and whitespace aside (exp_canon.h) */
    config_init(&cfg);
    if (!config_read_string(&cfg, e->text)) {
        ab_exp_syntax_message(path, e->text, config_error_line(&cfg), config_error_text(&cfg),
                              err, n);
        goto cleanup;
    }
    const config_setting_t *root = config_root_setting(&cfg);
    /* new runs are strict about keys; experiments stored with old runs are
     * read as they were accepted then */
    if (resolve == 1 && ab_exp_check_keys(root, ab_exp_root_keys, "", path, err, n))
        goto cleanup;
    if (get_string(root, "name", 1, &s, path, err, n))
        goto cleanup;
    e->name = strdup(s);
    if (get_string(root, "hypothesis", 0, &s, path, err, n))
        goto cleanup;
    e->hypothesis = strdup(s ? s : "");
    if (load_variants(root, e, path, err, n) || expand_instances(root, e, missing_k, path, err, n))
        goto cleanup;
    if (get_string(root, "baseline", 0, &s, path, err, n))
        goto cleanup;
    e->baseline = dup_or_null(s);
    if (e->baseline) {
        int found = 0;
        for (size_t i = 0; i < e->nvariants; i++)
            found |= e->instances > 1 ? ab_exp_instance_of(e->variants[i].name, e->baseline)
                                      : strcmp(e->variants[i].name, e->baseline) == 0;
        if (!found) {
            where(err, n, path, config_setting_get_member(root, "baseline"),
                  "baseline '%s' is not one of the experiment's variants", e->baseline);
            goto cleanup;
        }
    }
    if (load_configs(root, e, path, err, n))
        goto cleanup;
    int seed = 42;
    if (get_int(root, "warmup", 10, 0, 1000000, &e->warmup, path, err, n) ||
        get_float(root, "warmup_time", AB_WARMUP_TIME_DEFAULT_S, 0.0, 3600.0, &e->warmup_time_s,
                  path, err, n) ||
        get_int(root, "samples", 60, 1, 10000000, &e->samples, path, err, n) ||
        get_int(root, "seed", 42, 0, 2147483647, &seed, path, err, n) ||
        get_int(root, "graph_k", 10, 1, 10000, &e->graph_k, path, err, n) ||
        get_int(root, "round_size", 2, 1, 10000000, &e->round_size, path, err, n) ||
        get_int(root, "threads", 1, 0, 4096, &e->threads, path, err, n) ||
        get_float(root, "alpha", 0.05, 1e-6, 0.5, &e->alpha, path, err, n) ||
        get_float(root, "practical", 0.01, 0.0, 1.0, &e->practical, path, err, n) ||
        load_stopping(root, e, path, err, n) || load_budget(root, e, path, err, n))
        goto cleanup;
    e->file_samples = e->samples;
    if (e->instances_split)
        split_budget(e);
    e->seed = (unsigned long)seed;
    e->threads_set = config_setting_get_member(root, "threads") != NULL;
    {
        const config_setting_t *sk = config_setting_get_member(root, "skip_unsupported");
        if (sk && config_setting_type(sk) != CONFIG_TYPE_BOOL) {
            where(err, n, path, sk, "%s must be true or false", "skip_unsupported");
            goto cleanup;
        }
        e->skip_unsupported = sk ? config_setting_get_bool(sk) : 0;
    }
    {
        const config_setting_t *sb = config_setting_get_member(root, "stabilise");
        if (sb && config_setting_type(sb) != CONFIG_TYPE_BOOL) {
            where(err, n, path, sb, "%s must be true or false", "stabilise");
            goto cleanup;
        }
        e->stabilise = sb ? config_setting_get_bool(sb) : 0;
    }
    if (get_string(root, "timing", 0, &s, path, err, n))
        goto cleanup;
    e->timing = AB_TIME_HOT;
    if (s && ab_timing_mode_parse(s, &e->timing)) {
        where(err, n, path, config_setting_get_member(root, "timing"),
              "%s must be \"cold\", \"hot\" or \"graph\"", "timing");
        goto cleanup;
    }
    for (size_t i = 0; i < e->nvariants; i++)
        if ((int)e->variants[i].timing < 0)
            e->variants[i].timing = e->timing;
    if (resolve == 1 && names_refuse_controls(root, e, path, err, n))
        goto cleanup;
    if (resolve == 0 && names_printable(e)) {
        snprintf(err, n, "%s: out of memory", path);
        goto cleanup;
    }
    rc = 0;
cleanup:
    config_destroy(&cfg);
    return rc;
}

/* MemAvailable of /proc/meminfo in bytes (the kernel's estimate of what can
 * be allocated without swapping), else free RAM by sysconf; 0 if unknown. */
static unsigned long long host_available(const char **source)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
            fclose(f);
            *source = "MemAvailable in /proc/meminfo";
            return kb * 1024ULL;
        }
    if (f)
        fclose(f);
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    *source = "free memory";
    return pages > 0 && size > 0 ? (unsigned long long)pages * (unsigned long long)size : 0;
}

int ab_experiment_validate(const ab_experiment *e, char *err, size_t n)
{
    /* sizes and host memory first: Q, K, V, O as float on the host (inputs,
     * CPU variants and the correctness check's output), before anything is
     * allocated or stored */
    const char *source = "";
    unsigned long long avail = host_available(&source);
    for (size_t c = 0; c < e->nconfigs; c++) {
        const ab_shape *s = &e->configs[c];
        ab_shape_sizes z;
        char why[256];
        if (ab_shape_check(s, &z, why, sizeof why)) {
            snprintf(err, n, "%s: configuration B=%d H=%d S=%d D=%d: %s", e->path, s->B, s->H,
                     s->S, s->D, why);
            return -1;
        }
        if (avail && z.host_bytes > avail) {
            snprintf(err, n,
                     "%s: configuration B=%d H=%d S=%d D=%d needs %.2f GiB of host memory for "
                     "Q, K, V, O (4 x %zu floats); %.2f GiB available (%s)",
                     e->path, s->B, s->H, s->S, s->D, (double)z.host_bytes / 1073741824.0,
                     z.numel, (double)avail / 1073741824.0, source);
            return -1;
        }
    }
    for (size_t i = 0; i < e->nvariants; i++) {
        const ab_variant *v = e->variants[i].native;
        if (!v)
            continue; /* external: the adapter refuses what it cannot run */
        if (v->unavailable && e->variants[i].library)
            continue; /* a plugin that did not load: stored as an error per configuration */
        if (v->unavailable) {
            snprintf(err, n, "%s: variant %s: %s", e->path, v->name, v->unavailable);
            return -1;
        }
        if (e->skip_unsupported)
            continue; /* nvbench-style skip: the runner leaves those pairs out */
        for (size_t c = 0; c < e->nconfigs; c++) {
            char why[256];
            if (ab_variant_supports(v, &e->configs[c], why, sizeof why)) {
                snprintf(err, n, "%s: %s (configuration B=%d H=%d S=%d D=%d %s %s)", e->path,
                         why, e->configs[c].B, e->configs[c].H, e->configs[c].S, e->configs[c].D,
                         e->configs[c].causal ? "causal" : "non-causal",
                         ab_dtype_name(e->configs[c].dtype));
                return -1;
            }
        }
    }
    return 0;
}

void ab_experiment_free(ab_experiment *e)
{
    for (size_t i = 0; i < e->nvariants; i++) {
        free(e->variants[i].name);
        free(e->variants[i].command);
        free(e->variants[i].library);
        free(e->variants[i].plugin_record);
        ab_plugin_variant_free(e->variants[i].plugin);
    }
    free(e->variants);
    free(e->configs);
    free(e->path);
    free(e->text);
    free(e->name);
    free(e->hypothesis);
    free(e->baseline);
    memset(e, 0, sizeof *e);
}

int ab_exp_instance_of(const char *name, const char *variant)
{
    size_t len = strlen(variant);
    if (strncmp(name, variant, len) != 0 || name[len] != '#' || !name[len + 1])
        return 0;
    for (const char *p = name + len + 1; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}
