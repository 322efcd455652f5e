/*
 * resolution.c: the A/A resolution of a measurement (resolution.h): the
 * largest paired difference between identical instances in the A/A
 * calibration of its environment and timing mode.
 */
#include "resolution.h"
#include "db_internal.h"
#include "store.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One measurement's samples: per round, the median (rounds sorted). */
typedef struct round_medians {
    int *round;
    double *median;
    size_t n;
} round_medians;

static void rm_free(round_medians *m)
{
    free(m->round);
    free(m->median);
    memset(m, 0, sizeof *m);
}

/* Per-round medians of measurement mid (throttled samples left out).
 * Returns 0, or -1 on a database error or out of memory. */
static int load_round_medians(sqlite3 *db, long long mid, round_medians *out)
{
    int rc = -1;
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    double *ms = NULL;
    int *rd = NULL;
    size_t n = 0, cap = 0;
    memset(out, 0, sizeof *out);
    if (ab_db_prepare(db,
                      "SELECT round, ms FROM samples WHERE measurement_id = ? AND throttled = 0 "
                      "ORDER BY round, ms",
                      &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, mid);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            double *m2 = realloc(ms, cap * sizeof *ms);
            int *r2 = realloc(rd, cap * sizeof *rd);
            if (m2)
                ms = m2;
            if (r2)
                rd = r2;
            if (!m2 || !r2)
                goto cleanup;
        }
        rd[n] = sqlite3_column_int(st, 0);
        ms[n++] = sqlite3_column_double(st, 1);
    }
    out->round = malloc((n ? n : 1) * sizeof *out->round);
    out->median = malloc((n ? n : 1) * sizeof *out->median);
    if (!out->round || !out->median)
        goto cleanup;
    for (size_t i = 0; i < n;) { /* rows come sorted by round, then ms */
        size_t j = i;
        while (j < n && rd[j] == rd[i])
            j++;
        out->round[out->n] = rd[i];
        out->median[out->n++] = gsl_stats_median_from_sorted_data(ms + i, 1, j - i);
        i = j;
    }
    rc = 0;
cleanup:
    sqlite3_finalize(st);
    free(ms);
    free(rd);
    if (rc)
        rm_free(out);
    return rc;
}

/* The paired round estimate of a's speedup over b (exp of the median over
 * shared rounds of log(median_b / median_a)); NAN with no shared round. */
static double paired_speedup(const round_medians *a, const round_medians *b)
{
    size_t n = a->n < b->n ? a->n : b->n, k = 0, i = 0, j = 0;
    double *lr = malloc((n ? n : 1) * sizeof *lr);
    if (!lr)
        return NAN;
    while (i < a->n && j < b->n) {
        if (a->round[i] < b->round[j])
            i++;
        else if (a->round[i] > b->round[j])
            j++;
        else {
            if (a->median[i] > 0 && b->median[j] > 0)
                lr[k++] = log(b->median[j] / a->median[i]);
            i++;
            j++;
        }
    }
    double s = NAN;
    if (k > 0) {
        gsl_sort(lr, 1, k);
        s = exp(gsl_stats_median_from_sorted_data(lr, 1, k));
    }
    free(lr);
    return s;
}

/* Median of measurement mid's samples (throttled left out); 0 when none or
 * on a database error. */
static double median_of(sqlite3 *db, long long mid)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    double *x = NULL, med = 0;
    size_t n = 0, cap = 0;
    if (ab_db_prepare(db,
                      "SELECT ms FROM samples WHERE measurement_id = ? AND throttled = 0 ORDER BY ms",
                      &st, err))
        return 0;
    sqlite3_bind_int64(st, 1, mid);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            double *y = realloc(x, cap * sizeof *x);
            if (!y)
                goto cleanup;
            x = y;
        }
        x[n++] = sqlite3_column_double(st, 0);
    }
    if (n > 0)
        med = gsl_stats_median_from_sorted_data(x, 1, n);
cleanup:
    sqlite3_finalize(st);
    free(x);
    return med;
}

/* The A/A groups of one (environment, timing mode): one per (calibration
 * run, configuration) with at least one pair, computed once per database. */
#define MAX_GROUPS 64
typedef struct aa_groups {
    sqlite3 *db;
    char env[64], mode[16];
    size_t n;
    ab_resolution g[MAX_GROUPS];
} aa_groups;
#define CACHE 8
static aa_groups cache[CACHE];
static int ncache;

/* Computes the groups of (env, mode) into *G. Returns 0, or -1 on a
 * database error or out of memory. */
static int groups_load(sqlite3 *db, const char *env, const char *mode, aa_groups *G)
{
    int rc = -1;
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    struct inst {
        long long id, run;
        char cfg[96];
    } *in = NULL;
    size_t n = 0, cap = 0;
    memset(G, 0, sizeof *G);
    G->db = db;
    snprintf(G->env, sizeof G->env, "%s", env);
    snprintf(G->mode, sizeof G->mode, "%s", mode);
    if (ab_db_prepare(db,
                      "SELECT m.id, m.run_id, m.B || ',' || m.H || ',' || m.S || ',' || m.D || ',' || "
                      "m.causal || ',' || m.dtype FROM measurements m "
                      "JOIN runs r ON r.id = m.run_id JOIN experiments x ON x.id = r.experiment_id "
                      "JOIN environments v ON v.id = r.environment_id "
                      "WHERE v.hash = ? AND x.name LIKE '%-calibration' AND r.status = 'complete' "
                      "AND m.timing_mode = ? AND m.status = 'ok' "
                      "ORDER BY m.run_id, 3, CAST(substr(m.variant, instr(m.variant, '#') + 1) AS "
                      "INTEGER), m.id",
                      &st, err))
        return -1;
    sqlite3_bind_text(st, 1, env, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, mode, -1, SQLITE_TRANSIENT);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            struct inst *y = realloc(in, cap * sizeof *in);
            if (!y)
                goto cleanup;
            in = y;
        }
        in[n].id = sqlite3_column_int64(st, 0);
        in[n].run = sqlite3_column_int64(st, 1);
        snprintf(in[n].cfg, sizeof in[n].cfg, "%s", (const char *)sqlite3_column_text(st, 2));
        n++;
    }
    for (size_t i = 0; i < n && G->n < MAX_GROUPS;) {
        size_t j = i;
        while (j < n && in[j].run == in[i].run && strcmp(in[j].cfg, in[i].cfg) == 0)
            j++;
        double worst = 0, logsum = 0;
        int pairs = 0, meds = 0;
        for (size_t a = i; a + 1 < j; a += 2) {
            round_medians ra, rb;
            if (load_round_medians(db, in[a].id, &ra))
                goto cleanup;
            if (load_round_medians(db, in[a + 1].id, &rb)) {
                rm_free(&ra);
                goto cleanup;
            }
            double sp = paired_speedup(&ra, &rb);
            rm_free(&ra);
            rm_free(&rb);
            if (isfinite(sp)) {
                pairs++;
                worst = fabs(sp - 1) > worst ? fabs(sp - 1) : worst;
            }
        }
        for (size_t a = i; a < j; a++) {
            double m = median_of(db, in[a].id);
            if (m > 0) {
                logsum += log(m);
                meds++;
            }
        }
        if (pairs > 0 && meds > 0) {
            ab_resolution *g = &G->g[G->n++];
            g->rel = worst;
            g->calibration_run = in[i].run;
            g->pairs = pairs;
            g->aa_median_ms = exp(logsum / meds);
        }
        i = j;
    }
    rc = 0;
cleanup:
    sqlite3_finalize(st);
    free(in);
    return rc;
}

void ab_resolution_for(sqlite3 *db, long long measurement_id, ab_resolution *r)
{
    memset(r, 0, sizeof *r);
    sqlite3_stmt *st = NULL;
    char err[AB_ERR], env[64] = "", mode[16] = "";
    if (ab_db_prepare(db,
                      "SELECT v.hash, m.timing_mode FROM measurements m "
                      "JOIN runs r ON r.id = m.run_id JOIN environments v ON v.id = r.environment_id "
                      "WHERE m.id = ?",
                      &st, err))
        return;
    sqlite3_bind_int64(st, 1, measurement_id);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) && sqlite3_column_text(st, 1)) {
        snprintf(env, sizeof env, "%s", (const char *)sqlite3_column_text(st, 0));
        snprintf(mode, sizeof mode, "%s", (const char *)sqlite3_column_text(st, 1));
    }
    sqlite3_finalize(st);
    if (!env[0])
        return;
    aa_groups *G = NULL;
    for (int i = 0; i < ncache && !G; i++)
        if (cache[i].db == db && strcmp(cache[i].env, env) == 0 && strcmp(cache[i].mode, mode) == 0)
            G = &cache[i];
    if (!G) {
        G = &cache[ncache < CACHE ? ncache++ : CACHE - 1];
        if (groups_load(db, env, mode, G)) {
            G->n = 0;
            return;
        }
    }
    if (G->n == 0)
        return;
    const double med = median_of(db, measurement_id);
    if (!(med > 0))
        return;
    size_t best = 0;
    for (size_t i = 1; i < G->n; i++)
        if (fabs(log(G->g[i].aa_median_ms / med)) < fabs(log(G->g[best].aa_median_ms / med)))
            best = i;
    *r = G->g[best];
}

double ab_min_shift_ms(sqlite3 *db, long long measurement_id)
{
    ab_resolution r;
    ab_resolution_for(db, measurement_id, &r);
    if (!(r.rel > 0))
        return 0;
    double med;
    med = median_of(db, measurement_id);
    return med > 0 ? r.rel * med : 0;
}

double ab_min_shift_pair_ms(sqlite3 *db, long long measurement_a, long long measurement_b)
{
    double a = ab_min_shift_ms(db, measurement_a), b = ab_min_shift_ms(db, measurement_b);
    return a > b ? a : b;
}

void ab_resolution_forget(sqlite3 *db)
{
    for (int i = 0; i < ncache; i++)
        if (cache[i].db == db)
            cache[i].db = NULL;
}
