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
#define NFIELDS (sizeof(ab_walltime) / sizeof(double))

/* Phase i of w; the sampling overhead is the sampling calls less their
 * samples. */
static double vphase(const ab_walltime *w, size_t i)
{
    const double x = *(const double *)((const char *)w + vphases[i].off);
    return vphases[i].off == offsetof(ab_walltime, sampling_s) ? x - w->timed_s : x;
}

/* The mean fixed cost of x's measurements after its first; NAN with one. */
static double later_mean(const ab_walltime_variant *x)
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
static json_t *variant_json(const ab_walltime_variant *x)
{
    json_t *o = json_object(), *ph = json_object();
    if (!o || !ph) {
        json_decref(o);
        json_decref(ph);
        return NULL;
    }
    for (size_t i = 0; i < NVPHASES; i++)
        json_object_set_new(ph, vphases[i].key, json_real(vphase(&x->w, i)));
    json_object_set_new(o, "variant", json_string(x->variant));
    json_object_set_new(o, "measurements", json_integer(x->measurements));
    json_object_set_new(o, "total_s", json_real(x->w.total_s));
    json_object_set_new(o, "phases", ph);
    json_object_set_new(o, "fixed_s_per_measurement",
                        json_real(x->measurements
                                      ? (x->w.total_s - x->w.timed_s) / x->measurements
                                      : 0.0));
    json_object_set_new(o, "first_fixed_s", json_real(x->first_fixed_s));
    json_object_set_new(o, "later_fixed_s_mean", num_or_null(later_mean(x)));
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
        if (json_array_append_new(a, variant_json(&v[i]))) {
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

/* The run-level phases: JSON key, report row, seconds. */
typedef struct phase_row {
    const char *key, *what;
    double s;
} phase_row;

static size_t phase_rows(const ab_walltime *w, phase_row *rows)
{
    const double known = w->sampling_s + w->warmup_s + w->check_s + w->setup_s + w->inputs_s +
                         w->ceilings_s + w->adapter_s + w->store_s;
    const phase_row r[] = {
        {"timed_s", "timed samples (the samples themselves)", w->timed_s},
        {"sampling_overhead_s",
         "sampling overhead (launches, synchronisation, NVML reads around the samples)",
         w->sampling_s - w->timed_s},
        {"warmup_s", "warm-up", w->warmup_s},
        {"check_s", "correctness checks (float64 reference)", w->check_s},
        {"setup_s", "variant setup and teardown", w->setup_s},
        {"inputs_s", "input generation and upload", w->inputs_s},
        {"ceilings_s", "timer floor and ceilings", w->ceilings_s},
        {"adapter_s", "external adapters' own overhead (start-up, imports, their warm-up and check)",
         w->adapter_s},
        {"store_s", "database writes", w->store_s},
        {"other_s", "other (report lines, allocation, statistics of adaptive stopping)",
         w->total_s - known},
    };
    memcpy(rows, r, sizeof r);
    return sizeof r / sizeof r[0];
}

json_t *ab_walltime_json(const ab_walltime *w, const ab_walltime_variant *v, size_t n)
{
    phase_row rows[16];
    const size_t nr = phase_rows(w, rows);
    json_t *o = json_object(), *ph = json_object(), *a = json_array();
    if (!o || !ph || !a) {
        json_decref(o);
        json_decref(ph);
        json_decref(a);
        return NULL;
    }
    for (size_t i = 0; i < nr; i++)
        json_object_set_new(ph, rows[i].key, json_real(rows[i].s));
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, variant_json(&v[i]));
    json_object_set_new(o, "total_s", json_real(w->total_s));
    json_object_set_new(o, "timed_share", json_real(w->total_s > 0 ? w->timed_s / w->total_s : 0));
    json_object_set_new(o, "phases", ph);
    json_object_set_new(o, "variants", a);
    json_object_set_new(o, "fixed_cost_goal_s", json_real(AB_FIXED_COST_FLAG_S));
    return o;
}

void ab_walltime_report(FILE *out, const ab_walltime *w, const ab_walltime_variant *v, size_t n)
{
    const double t = w->total_s > 0 ? w->total_s : 1;
    phase_row rows[16];
    const size_t nr = phase_rows(w, rows);
    fprintf(out, "\n## Where the time went\n\nThe run took %.1f s of wall time; %.1f%% of it was "
                 "timed samples.\n\n| phase | s | share |\n|---|---:|---:|\n",
            w->total_s, 100 * w->timed_s / t);
    for (size_t i = 0; i < nr; i++)
        fprintf(out, "| %s | %.2f | %.1f%% |\n", rows[i].what, rows[i].s, 100 * rows[i].s / t);
    if (n == 0)
        return;
    fprintf(out, "\nPer variant, seconds over its measurements: what the runner did for that "
                 "variant alone (a configuration's inputs are in the table above only; the check "
                 "that built a configuration's float64 reference, shared by its variants, is "
                 "shown apart and left out of that variant's cost). Fixed cost: a measurement's "
                 "wall time less its timed samples. A variant's first measurement carries what "
                 "happens once (an adapter's start-up, a library's loading); a variant whose "
                 "later measurements' fixed cost exceeds %.0f ms is **flagged**.\n\n"
                 "| variant | measurements |",
            1e3 * AB_FIXED_COST_FLAG_S);
    for (size_t i = 0; i < NVPHASES; i++)
        fprintf(out, " %s |", vphases[i].title);
    fprintf(out, " timed share | fixed cost: first | later, mean | later, largest (configuration) "
                 "|\n|---|---:|");
    for (size_t i = 0; i < NVPHASES; i++)
        fprintf(out, "---:|");
    fprintf(out, "---:|---:|---:|---|\n");
    int flagged = 0;
    for (size_t k = 0; k < n; k++) {
        const ab_walltime_variant *x = &v[k];
        const int over = x->worst_fixed_s > AB_FIXED_COST_FLAG_S;
        flagged += over;
        fprintf(out, "| %s%s | %d |", x->variant, over ? " **flagged**" : "", x->measurements);
        for (size_t i = 0; i < NVPHASES; i++)
            fprintf(out, " %.2f |", vphase(&x->w, i));
        fprintf(out, " %.1f%% | %.0f ms |",
                x->w.total_s > 0 ? 100 * x->w.timed_s / x->w.total_s : 0.0,
                1e3 * x->first_fixed_s);
        if (x->worst_fixed_s >= 0)
            fprintf(out, " %.0f ms | %.0f ms (%s) |\n", 1e3 * later_mean(x),
                    1e3 * x->worst_fixed_s, x->worst_config);
        else
            fprintf(out, " - | - |\n");
    }
    if (flagged)
        fprintf(out, "\n%d variant%s had a later measurement whose fixed cost exceeded %.0f ms.\n",
                flagged, flagged == 1 ? "" : "s", 1e3 * AB_FIXED_COST_FLAG_S);
}
