/*
 * rundata.c: loading a run's measurements and samples, resolving run
 * arguments, parsing configuration patterns (rundata.h).
 */
#include "rundata.h"
#include "db_internal.h"
#include "store.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ab_run_resolve(sqlite3 *db, const char *arg, long long *id)
{
    char *end, err[AB_ERR];
    long long v = strtoll(arg, &end, 10);
    sqlite3_stmt *st = NULL;
    int isnum = *arg && !*end && v > 0;
    if (!isnum && strlen(arg) < 4)
        return error("'%s' is neither a run id nor a uuid prefix of 4+ characters", arg);
    if (ab_db_prepare(db,
                      isnum ? "SELECT id FROM runs WHERE id = ?1"
                            : "SELECT id FROM runs WHERE substr(uuid, 1, length(?1)) = lower(?1)",
                      &st, err))
        return error("%s", err);
    if (isnum)
        sqlite3_bind_int64(st, 1, v);
    else
        sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
    int found = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
        found++;
    }
    sqlite3_finalize(st);
    if (step != SQLITE_DONE)
        return error("%s: looking up run %s: %s", ab_db_name(db), arg, sqlite3_errmsg(db));
    if (found == 0)
        return error("no run %s in the database (attnbench runs lists them)", arg);
    if (found > 1)
        return error("run uuid prefix '%s' is ambiguous (%d runs)", arg, found);
    return 0;
}

int ab_rmeas_same_config(const ab_rmeas *a, const ab_rmeas *b)
{
    return a->B == b->B && a->H == b->H && a->S == b->S && a->D == b->D &&
           a->causal == b->causal && strcmp(a->dtype, b->dtype) == 0 && a->H_kv == b->H_kv &&
           a->S_kv == b->S_kv && strcmp(a->pass, b->pass) == 0;
}

void ab_rmeas_title(const ab_rmeas *m, char *buf, size_t n)
{
    ab_shape s = {m->B, m->H, m->S, m->D, m->causal, AB_FP16, m->H_kv, m->S_kv};
    char hk[32] = "", sk[32] = "";
    if (ab_shape_hkv(&s) != m->H)
        snprintf(hk, sizeof hk, " H_kv=%d", m->H_kv);
    if (ab_shape_skv(&s) != m->S)
        snprintf(sk, sizeof sk, " S_kv=%d", m->S_kv);
    /* the forward pass is the default and is not named (titles of older
     * reports stay as they were) */
    const int fwd = m->pass[0] == '\0' || strcmp(m->pass, "fwd") == 0;
    snprintf(buf, n, "B=%d H=%d%s S=%d%s D=%d %s %s%s%s", m->B, m->H, hk, m->S, sk, m->D,
             m->causal ? "causal" : "non-causal", m->dtype, fwd ? "" : " ", fwd ? "" : m->pass);
}

/* The rounds of the unthrottled samples of measurement id, in the order of
 * ab_db_samples (index order); exactly n of them. Returns 0 or -1. */
static int load_rounds(sqlite3 *db, long long id, size_t n, int **round, int *distinct)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    size_t k = 0;
    *round = malloc((n ? n : 1) * sizeof **round);
    *distinct = 0;
    if (!*round)
        return error("out of memory");
    if (ab_db_prepare(db,
                      "SELECT round FROM samples WHERE measurement_id = ? AND throttled = 0 "
                      "ORDER BY idx",
                      &st, err))
        return error("%s", err);
    sqlite3_bind_int64(st, 1, id);
    while (k < n && sqlite3_step(st) == SQLITE_ROW) {
        int r = sqlite3_column_int(st, 0);
        int seen = 0;
        for (size_t j = k; j-- > 0 && !seen;)
            seen = (*round)[j] == r;
        *distinct += !seen;
        (*round)[k++] = r;
    }
    sqlite3_finalize(st);
    if (k != n)
        return error("measurement %lld: %zu rounds for %zu samples", id, k, n);
    return 0;
}

static const char *text(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? (const char *)t : "";
}

int ab_run_load(sqlite3 *db, long long run_id, ab_rmeas **out, size_t *nout)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    size_t cap = 16, n = 0;
    ab_rmeas *m = calloc(cap, sizeof *m);
    *out = NULL;
    *nout = 0;
    if (!m)
        return error("out of memory");
    if (ab_db_prepare(db,
                      "SELECT id, variant, dtype, status, coalesce(stop_reason, ''), B, H, S, D, "
                      "causal, flops, (SELECT count(*) FROM samples s WHERE s.measurement_id = "
                      "m.id AND s.throttled), H_kv, S_kv, bytes, pass FROM measurements m "
                      "WHERE run_id = ? ORDER BY id",
                      &st, err)) {
        free(m);
        return error("%s", err);
    }
    sqlite3_bind_int64(st, 1, run_id);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            ab_rmeas *nm = realloc(m, 2 * cap * sizeof *m);
            if (!nm) {
                sqlite3_finalize(st);
                ab_run_free(m, n);
                return error("out of memory");
            }
            m = nm;
            memset(m + cap, 0, cap * sizeof *m);
            cap *= 2;
        }
        ab_rmeas *x = &m[n++];
        x->id = sqlite3_column_int64(st, 0);
        ab_printable(text(st, 1), x->variant, sizeof x->variant); /* printed: escaped */
        snprintf(x->dtype, sizeof x->dtype, "%s", text(st, 2));
        snprintf(x->status, sizeof x->status, "%s", text(st, 3));
        snprintf(x->stop, sizeof x->stop, "%s", text(st, 4));
        x->B = sqlite3_column_int(st, 5);
        x->H = sqlite3_column_int(st, 6);
        x->S = sqlite3_column_int(st, 7);
        x->D = sqlite3_column_int(st, 8);
        x->causal = sqlite3_column_int(st, 9);
        x->flops = sqlite3_column_double(st, 10);
        x->throttled = (long)sqlite3_column_int64(st, 11);
        x->H_kv = sqlite3_column_int(st, 12);
        x->S_kv = sqlite3_column_int(st, 13);
        x->bytes = sqlite3_column_double(st, 14);
        snprintf(x->pass, sizeof x->pass, "%s", text(st, 15));
    }
    sqlite3_finalize(st);
    if (step != SQLITE_DONE) { /* never a silently shorter run */
        ab_run_free(m, n);
        return error("%s: loading the measurements of run %lld: %s", ab_db_name(db),
                     (long long)run_id, sqlite3_errmsg(db));
    }
    int nconf = 0;
    for (size_t i = 0; i < n; i++) {
        if (ab_db_samples(db, m[i].id, 0, &m[i].ms, &m[i].n, err)) {
            ab_run_free(m, n);
            return error("%s", err);
        }
        if (load_rounds(db, m[i].id, m[i].n, &m[i].round, &m[i].rounds)) {
            ab_run_free(m, n);
            return -1;
        }
        m[i].config = -1;
        for (size_t j = 0; j < i && m[i].config < 0; j++)
            if (ab_rmeas_same_config(&m[i], &m[j]))
                m[i].config = m[j].config;
        if (m[i].config < 0)
            m[i].config = nconf++;
    }
    *out = m;
    *nout = n;
    return 0;
}

void ab_run_free(ab_rmeas *m, size_t n)
{
    for (size_t i = 0; m && i < n; i++) {
        free(m[i].ms);
        free(m[i].round);
    }
    free(m);
}

int ab_config_parse(const char *textin, ab_config_pat *p)
{
    char buf[128];
    int v[4], k = 0;
    snprintf(buf, sizeof buf, "%s", textin);
    p->causal = -1;
    p->dtype[0] = '\0';
    p->H_kv = p->S_kv = 0;
    snprintf(p->pass, sizeof p->pass, "fwd");
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *end;
        while (*tok == ' ')
            tok++;
        if (k < 4) {
            long x = strtol(tok, &end, 10);
            if (!*tok || *end || x <= 0)
                return error("--config: '%s' is not a positive integer (want B,H,S,D[,causal][,dtype])", tok);
            v[k++] = (int)x;
        } else if (strcmp(tok, "causal") == 0 || strcmp(tok, "1") == 0) {
            p->causal = 1;
        } else if (strcmp(tok, "noncausal") == 0 || strcmp(tok, "non-causal") == 0 ||
                   strcmp(tok, "0") == 0) {
            p->causal = 0;
        } else if (strcmp(tok, "fp16") == 0 || strcmp(tok, "bf16") == 0 || strcmp(tok, "fp32") == 0) {
            snprintf(p->dtype, sizeof p->dtype, "%s", tok);
        } else if (strcmp(tok, "fwd") == 0 || strcmp(tok, "bwd") == 0 ||
                   strcmp(tok, "fwd+bwd") == 0) {
            snprintf(p->pass, sizeof p->pass, "%s", tok);
        } else if (strncmp(tok, "H_kv=", 5) == 0 || strncmp(tok, "S_kv=", 5) == 0) {
            long x = strtol(tok + 5, &end, 10);
            if (!tok[5] || *end || x <= 0 || x > (1 << 24))
                return error("--config: '%s': %.4s must be a positive integer", tok, tok);
            *(tok[0] == 'H' ? &p->H_kv : &p->S_kv) = (int)x;
        } else {
            return error("--config: unknown field '%s' (causal, noncausal, fp16, bf16, fp32, "
                         "H_kv=N, S_kv=N, fwd, bwd, fwd+bwd)", tok);
        }
    }
    if (k < 4)
        return error("--config needs B,H,S,D (got '%s')", textin);
    p->B = v[0];
    p->H = v[1];
    p->S = v[2];
    p->D = v[3];
    return 0;
}
