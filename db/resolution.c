/*
 * resolution.c: the A/A resolution of a measurement (resolution.h): the
 * largest paired difference between identical instances in the A/A
 * calibration of its environment and timing mode.
 */
#include "resolution.h"
#include "db_internal.h"
#include "store.h"
#include "rounds.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One measurement's samples (throttled left out): their median and the
 * median of each round (stats/rounds.h's ab_round_medians). */
typedef struct msamples {
    double *ms;
    int *round;
    size_t n;
    int *rid;      /* the rounds, ascending */
    double *rmed;  /* their medians */
    size_t nr;
    double median; /* of all samples; 0 when there are none */
} msamples;

static void ms_free(msamples *m)
{
    free(m->ms);
    free(m->round);
    free(m->rid);
    free(m->rmed);
    memset(m, 0, sizeof *m);
}

/* ab_db_each_row callback: appends (round, ms) to the msamples arg */
static int add_sample(void *arg, sqlite3_stmt *st)
{
    msamples *m = arg;
    if ((m->n & (m->n - 1)) == 0) { /* n = 0, 1, 2, 4, ...: grow to 2n (at least 256) */
        size_t cap = m->n < 128 ? 256 : 2 * m->n;
        double *x = realloc(m->ms, cap * sizeof *x);
        if (x)
            m->ms = x;
        int *r = realloc(m->round, cap * sizeof *r);
        if (r)
            m->round = r;
        if (!x || !r)
            return 1;
    }
    m->round[m->n] = sqlite3_column_int(st, 0);
    m->ms[m->n++] = sqlite3_column_double(st, 1);
    return 0;
}

/* Loads measurement mid's samples once, with their median and per-round
 * medians. Returns 0 (m->n may be 0), or -1 on a database error or out of
 * memory. */
static int load_measurement(sqlite3 *db, long long mid, msamples *m)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    memset(m, 0, sizeof *m);
    if (ab_db_prepare(db, "SELECT round, ms FROM samples WHERE measurement_id = ? AND throttled = 0",
                      &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, mid);
    if (ab_db_each_row(db, st, add_sample, m, "samples", err))
        goto fail;
    if (m->n == 0)
        return 0;
    double *sorted = malloc(m->n * sizeof *sorted);
    m->rid = malloc(m->n * sizeof *m->rid);
    m->rmed = malloc(m->n * sizeof *m->rmed);
    if (!sorted || !m->rid || !m->rmed) {
        free(sorted);
        goto fail;
    }
    memcpy(sorted, m->ms, m->n * sizeof *sorted);
    gsl_sort(sorted, 1, m->n);
    m->median = gsl_stats_median_from_sorted_data(sorted, 1, m->n);
    free(sorted);
    if (ab_round_medians(m->ms, m->round, m->n, m->rid, m->rmed, &m->nr) != AB_STATS_OK)
        goto fail;
    return 0;
fail:
    ms_free(m);
    return -1;
}

/* The paired round estimate of a's speedup over b as the report made it
 * until it took the Hodges-Lehmann estimate of settled per-round medians
 * (stats/rounds.h): exp of the median over shared rounds of log(median_b /
 * median_a), kept so that the A/A resolution, and the verdicts it vetoes,
 * stay as they were; NAN with no shared round. */
static double paired_speedup(const msamples *a, const msamples *b)
{
    size_t n = a->nr < b->nr ? a->nr : b->nr, k = 0, i = 0, j = 0;
    double *lr = malloc((n ? n : 1) * sizeof *lr);
    if (!lr)
        return NAN;
    while (i < a->nr && j < b->nr) {
        if (a->rid[i] < b->rid[j])
            i++;
        else if (a->rid[i] > b->rid[j])
            j++;
        else {
            if (a->rmed[i] > 0 && b->rmed[j] > 0)
                lr[k++] = log(b->rmed[j] / a->rmed[i]);
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
    msamples m;
    if (load_measurement(db, mid, &m))
        return 0;
    const double med = m.median;
    ms_free(&m);
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
                      "m.causal || ',' || m.dtype || ',' || m.H_kv || ',' || m.S_kv "
                      "FROM measurements m "
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
        for (size_t a = i; a < j; a += 2) { /* pairs (a, a + 1); a lone last instance counts for the median */
            msamples ma, mb = {0};
            if (load_measurement(db, in[a].id, &ma))
                goto cleanup;
            if (a + 1 < j && load_measurement(db, in[a + 1].id, &mb)) {
                ms_free(&ma);
                goto cleanup;
            }
            const msamples *both[2] = {&ma, &mb};
            for (int w = 0; w < 2; w++)
                if (both[w]->median > 0) { /* mb is empty (median 0) for a lone instance */
                    logsum += log(both[w]->median);
                    meds++;
                }
            double sp = a + 1 < j ? paired_speedup(&ma, &mb) : NAN;
            ms_free(&ma);
            ms_free(&mb);
            if (isfinite(sp)) {
                pairs++;
                worst = fabs(sp - 1) > worst ? fabs(sp - 1) : worst;
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
        if (ab_db_on_close(ab_resolution_forget)) /* the cache must not outlive the handle */
            return;
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
    r->median_ms = med;
}

double ab_min_shift_ms(sqlite3 *db, long long measurement_id)
{
    ab_resolution r;
    ab_resolution_for(db, measurement_id, &r);
    return r.rel > 0 && r.median_ms > 0 ? r.rel * r.median_ms : 0;
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
