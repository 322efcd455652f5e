/*
 * walltime.c: storing, loading and printing a run's wall-time account
 * (walltime.h) in the run_walltime table.
 */
#include "walltime.h"
#include "db_internal.h"
#include "store.h"
#include "runmeta.h"
#include "util.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define COLS "total_s, timed_s, sampling_s, warmup_s, check_s, setup_s, inputs_s, ceilings_s, adapter_s, store_s"

int ab_walltime_store(sqlite3 *db, long long run_id, const ab_walltime *w, char *err)
{
    sqlite3_stmt *st = NULL;
    if (ab_db_prepare(db, "INSERT OR REPLACE INTO run_walltime (run_id, " COLS ") "
                          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                      &st, err))
        return -1;
    const double v[] = {w->total_s, w->timed_s, w->sampling_s, w->warmup_s, w->check_s,
                        w->setup_s, w->inputs_s, w->ceilings_s, w->adapter_s, w->store_s};
    sqlite3_bind_int64(st, 1, run_id);
    for (int i = 0; i < 10; i++)
        sqlite3_bind_double(st, i + 2, v[i]);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        snprintf(err, AB_ERR, "storing the wall-time account of run %lld: %s", run_id,
                 sqlite3_errmsg(db));
        return -1;
    }
    return 0;
}

int ab_walltime_load(sqlite3 *db, long long run_id, ab_walltime *w)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    memset(w, 0, sizeof *w);
    if (ab_db_prepare(db, "SELECT " COLS " FROM run_walltime WHERE run_id = ?", &st, err))
        return error("%s", err);
    sqlite3_bind_int64(st, 1, run_id);
    int found = sqlite3_step(st) == SQLITE_ROW;
    if (found) {
        double *v[] = {&w->total_s, &w->timed_s, &w->sampling_s, &w->warmup_s, &w->check_s,
                       &w->setup_s, &w->inputs_s, &w->ceilings_s, &w->adapter_s, &w->store_s};
        for (int i = 0; i < 10; i++)
            *v[i] = sqlite3_column_double(st, i);
    }
    sqlite3_finalize(st);
    return found ? 0 : 1;
}

/* The phases a variant is charged for, in report order: JSON key, column
 * title, field. */
static const struct {
    const char *key, *title;
    size_t off;
} vphases[] = {
    {"timed_s", "timed samples", offsetof(ab_walltime, timed_s)},
    {"sampling_overhead_s", "sampling overhead", offsetof(ab_walltime, sampling_s)},
    {"warmup_s", "warm-up", offsetof(ab_walltime, warmup_s)},
    {"check_s", "check", offsetof(ab_walltime, check_s)},
    {"setup_s", "setup/teardown", offsetof(ab_walltime, setup_s)},
    {"adapter_s", "adapter's own", offsetof(ab_walltime, adapter_s)},
    {"inputs_s", "its inputs", offsetof(ab_walltime, inputs_s)},
    {"store_s", "writes", offsetof(ab_walltime, store_s)},
    {"shared_reference_s", "shared reference it built (left out)",
     offsetof(ab_walltime, reference_s)},
};
#define NVPHASES (sizeof vphases / sizeof vphases[0])

size_t ab_walltime_nvphases(void) { return NVPHASES; }

const char *ab_walltime_vphase_title(size_t i) { return vphases[i].title; }
#define NFIELDS (sizeof(ab_walltime) / sizeof(double))

/* Phase i of w; the sampling overhead is the sampling calls less their
 * samples. */
double ab_walltime_vphase(const ab_walltime *w, size_t i)
{
    const double x = *(const double *)((const char *)w + vphases[i].off);
    return vphases[i].off == offsetof(ab_walltime, sampling_s) ? x - w->timed_s : x;
}

/* The mean fixed cost of x's measurements after its first; NAN with one. */
double ab_walltime_later_mean(const ab_walltime_variant *x)
{
    return x->measurements > 1
               ? (x->w.total_s - x->w.timed_s - x->first_fixed_s) / (x->measurements - 1)
               : NAN;
}

int ab_walltime_variant_merge(ab_walltime_variant **v, size_t *n, const ab_walltime_variant *x)
{
    size_t i = 0;
    while (i < *n && strcmp((*v)[i].variant, x->variant) != 0)
        i++;
    if (i == *n) {
        ab_walltime_variant *p = realloc(*v, (*n + 1) * sizeof *p);
        if (!p)
            return -1;
        *v = p;
        p[i] = *x;
        (*n)++;
        return 0;
    }
    ab_walltime_variant *y = &(*v)[i];
    double *dst = &y->w.total_s;
    const double *src = &x->w.total_s;
    for (size_t k = 0; k < NFIELDS; k++)
        dst[k] += src[k];
    y->measurements += x->measurements;
    /* x's first measurement is a later one of y's */
    const double xw = x->worst_fixed_s > x->first_fixed_s ? x->worst_fixed_s : x->first_fixed_s;
    if (xw > y->worst_fixed_s) {
        y->worst_fixed_s = xw;
        memcpy(y->worst_config, x->worst_config, sizeof y->worst_config);
    }
    return 0;
}

int ab_walltime_variant_add(ab_walltime_variant **v, size_t *n, const char *name,
                            const char *config, const ab_walltime *m)
{
    size_t i = 0;
    while (i < *n && strcmp((*v)[i].variant, name) != 0)
        i++;
    const double fixed = m->total_s - m->timed_s;
    if (i == *n) { /* its first measurement */
        ab_walltime_variant x;
        memset(&x, 0, sizeof x);
        snprintf(x.variant, sizeof x.variant, "%s", name);
        x.measurements = 1;
        x.w = *m;
        x.first_fixed_s = fixed;
        x.worst_fixed_s = -1;
        return ab_walltime_variant_merge(v, n, &x);
    }
    ab_walltime_variant *y = &(*v)[i];
    double *dst = &y->w.total_s;
    const double *src = &m->total_s;
    for (size_t k = 0; k < NFIELDS; k++)
        dst[k] += src[k];
    y->measurements++;
    if (fixed > y->worst_fixed_s) {
        y->worst_fixed_s = fixed;
        snprintf(y->worst_config, sizeof y->worst_config, "%s", config ? config : "");
    }
    return 0;
}

static json_t *num_or_null(double x) { return isfinite(x) ? json_real(x) : json_null(); }

/* One variant's account as the JSON object stored and reported. */
json_t *ab_walltime_variant_json(const ab_walltime_variant *x)
{
    json_t *o = json_object(), *ph = json_object();
    if (!o || !ph) {
        json_decref(o);
        json_decref(ph);
        return NULL;
    }
    for (size_t i = 0; i < NVPHASES; i++)
        json_object_set_new(ph, vphases[i].key, json_real(ab_walltime_vphase(&x->w, i)));
    json_object_set_new(o, "variant", json_string(x->variant));
    json_object_set_new(o, "measurements", json_integer(x->measurements));
    json_object_set_new(o, "total_s", json_real(x->w.total_s));
    json_object_set_new(o, "phases", ph);
    json_object_set_new(o, "fixed_s_per_measurement",
                        json_real(x->measurements
                                      ? (x->w.total_s - x->w.timed_s) / x->measurements
                                      : 0.0));
    json_object_set_new(o, "first_fixed_s", json_real(x->first_fixed_s));
    json_object_set_new(o, "later_fixed_s_mean", num_or_null(ab_walltime_later_mean(x)));
    json_object_set_new(o, "worst_fixed_s",
                        x->worst_fixed_s >= 0 ? json_real(x->worst_fixed_s) : json_null());
    json_object_set_new(o, "worst_config", json_string(x->worst_config));
    json_object_set_new(o, "over_fixed_cost_goal",
                        json_boolean(x->worst_fixed_s > AB_FIXED_COST_FLAG_S));
    return o;
}

int ab_walltime_variants_store(sqlite3 *db, long long run_id, const ab_walltime_variant *v,
                               size_t n, char *err)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, ab_walltime_variant_json(&v[i]))) {
            json_decref(a);
            a = NULL;
        }
    char *text = a ? json_dumps(a, JSON_COMPACT | JSON_REAL_PRECISION(9)) : NULL;
    json_decref(a);
    if (!text) {
        snprintf(err, AB_ERR, "out of memory storing the wall time per variant");
        return -1;
    }
    int rc = ab_run_settings_set(db, run_id, "$.walltime_variants", text, err);
    free(text);
    return rc;
}

int ab_walltime_variants_load(sqlite3 *db, long long run_id, ab_walltime_variant **v,
                              size_t *n)
{
    *v = NULL;
    *n = 0;
    char *text = ab_run_settings_text(db, run_id);
    json_t *s = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    json_t *a = json_object_get(s, "walltime_variants");
    size_t i;
    json_t *o;
    int rc = 0;
    if (json_is_array(a) && json_array_size(a)) {
        *v = calloc(json_array_size(a), sizeof **v);
        if (!*v)
            rc = -1;
    }
    json_array_foreach(a, i, o) {
        if (rc)
            break;
        ab_walltime_variant *x = &(*v)[(*n)++];
        json_t *ph = json_object_get(o, "phases"), *worst = json_object_get(o, "worst_fixed_s");
        snprintf(x->variant, sizeof x->variant, "%s",
                 json_string_value(json_object_get(o, "variant")) ?: "?");
        snprintf(x->worst_config, sizeof x->worst_config, "%s",
                 json_string_value(json_object_get(o, "worst_config")) ?: "");
        x->measurements = (int)json_integer_value(json_object_get(o, "measurements"));
        x->first_fixed_s = json_number_value(json_object_get(o, "first_fixed_s"));
        x->worst_fixed_s = json_is_number(worst) ? json_number_value(worst) : -1;
        x->w.total_s = json_number_value(json_object_get(o, "total_s"));
        for (size_t k = 0; k < NVPHASES; k++)
            *(double *)((char *)&x->w + vphases[k].off) =
                json_number_value(json_object_get(ph, vphases[k].key));
        x->w.sampling_s += x->w.timed_s; /* stored as the overhead */
    }
    json_decref(s);
    return rc;
}
