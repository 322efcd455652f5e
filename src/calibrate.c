/*
 * calibrate.c: `attnbench calibrate EXPERIMENT [--variant V] [--pairs K]`, the
 * A/A test of the verdict rule. One variant is measured against itself: 2K
 * instances of it per configuration, interleaved in seeded random order like
 * any run, compared in K disjoint pairs. Every difference the rule reports is
 * a false positive, so the observed rate estimates the rule's real
 * false-positive rate on this machine (Kohavi et al., "Trustworthy Online
 * Controlled Experiments", 2020, ch. 19: A/A tests). The run is stored like
 * any other (experiment "<name>-calibration"), so its report can be written,
 * and reports of runs in the same environment show the result, flagged when
 * the rule called more than alpha of the pairs different.
 */
#include "calibrate.h"
#include "abstats.h"
#include "commands.h"
#include "experiment.h"
#include "resolution.h"
#include "runner.h"
#include "store.h"
#include "util.h"

#include <gsl/gsl_cdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The calibration experiment's text: the original settings with the variant
 * replaced by 2k instances and the configurations listed explicitly. */
static char *calibration_text(const ab_experiment *e, const char *variant, int k)
{
    size_t cap = 4096 + e->nconfigs * 160 + (size_t)k * 160;
    char *t = malloc(cap);
    if (!t)
        return NULL;
    size_t n = 0;
#define PUT(...) n += (size_t)snprintf(t + n, n < cap ? cap - n : 0, __VA_ARGS__)
    PUT("# A/A calibration of %s, derived from %s by attnbench calibrate\n", variant, e->path);
    PUT("name = \"%s-calibration\";\n", e->name);
    PUT("hypothesis = \"A/A test: %d instances of %s measured against each other in interleaved "
        "rounds; every difference the verdict rule reports is a false positive, so the rule "
        "should call at most alpha = %g of the %d x %zu pairs different.\";\n",
        2 * k, variant, e->alpha, k, e->nconfigs);
    PUT("variants = (");
    for (int i = 1; i <= 2 * k; i++)
        PUT("%s{ name = \"%s#%d\"; variant = \"%s\"; }", i > 1 ? ", " : "", variant, i, variant);
    PUT(");\nbaseline = \"%s#2\";\nconfigs = (\n", variant);
    for (size_t c = 0; c < e->nconfigs; c++) {
        const ab_shape *s = &e->configs[c];
        PUT("  { B = %d; H = %d; S = %d; D = %d; causal = %s; dtype = \"%s\"; }%s\n", s->B, s->H,
            s->S, s->D, s->causal ? "true" : "false", ab_dtype_name(s->dtype),
            c + 1 < e->nconfigs ? "," : "");
    }
    PUT(");\nwarmup = %d;\nsamples = %d;\nround_size = %d;\ntiming = \"%s\";\ngraph_k = %d;\n"
        "seed = %lu;\nalpha = %g;\npractical = %g;\n",
        e->warmup, e->samples, e->round_size, ab_timing_mode_name(e->timing), e->graph_k,
        e->seed, e->alpha, e->practical);
#undef PUT
    if (n >= cap) {
        free(t);
        return NULL;
    }
    return t;
}

int ab_calibration_summary(sqlite3 *db, long long run_id, ab_calibration *out)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    int rc = -1;
    memset(out, 0, sizeof *out);
    out->run_id = run_id;
    /* pairs: instance #(2i-1) against #(2i) in the same configuration */
    if (ab_db_prepare(db,
                      "SELECT a.id, b.id, x.definition FROM measurements a JOIN measurements b "
                      "ON b.run_id = a.run_id AND b.B = a.B AND b.H = a.H AND b.S = a.S AND "
                      "b.D = a.D AND b.causal = a.causal AND b.dtype = a.dtype "
                      "JOIN runs r ON r.id = a.run_id JOIN experiments x ON x.id = r.experiment_id "
                      "WHERE a.run_id = ? AND a.status = 'ok' AND b.status = 'ok' AND "
                      "instr(a.variant, '#') > 0 AND "
                      "substr(a.variant, 1, instr(a.variant, '#')) = substr(b.variant, 1, instr(b.variant, '#')) AND "
                      "CAST(substr(a.variant, instr(a.variant, '#') + 1) AS INTEGER) % 2 = 1 AND "
                      "CAST(substr(b.variant, instr(b.variant, '#') + 1) AS INTEGER) = "
                      "CAST(substr(a.variant, instr(a.variant, '#') + 1) AS INTEGER) + 1 "
                      "ORDER BY a.id",
                      &st, err))
        return error("%s", err);
    sqlite3_bind_int64(st, 1, run_id);
    size_t cap = 64, n = 0;
    ab_comparison *c = malloc(cap * sizeof *c);
    double *p = malloc(cap * sizeof *p), *adj = NULL; /* p: each pair's minimum shift */
    const ab_comparison **fam = NULL;
    ab_decision *dec = NULL, *dec_raw = NULL;
    ab_compare_opts o;
    ab_compare_opts_default(&o);
    int got_opts = 0;
    while (c && p && sqlite3_step(st) == SQLITE_ROW) {
        if (!got_opts) {
            ab_experiment e;
            char perr[AB_ERR];
            if (ab_experiment_parse("(stored)", (const char *)sqlite3_column_text(st, 2), 0, &e,
                                    perr, sizeof perr) == 0) {
                o.alpha = e.alpha;
                o.practical = e.practical;
            }
            ab_experiment_free(&e);
            got_opts = 1;
        }
        double *a = NULL, *b = NULL;
        size_t na = 0, nb = 0;
        if (ab_db_samples(db, sqlite3_column_int64(st, 0), 0, &a, &na, err) ||
            ab_db_samples(db, sqlite3_column_int64(st, 1), 0, &b, &nb, err)) {
            free(a);
            free(b);
            error("%s", err);
            goto cleanup;
        }
        if (n == cap) {
            cap *= 2;
            ab_comparison *nc = realloc(c, cap * sizeof *c);
            double *np = realloc(p, cap * sizeof *p);
            if (nc)
                c = nc;
            if (np)
                p = np;
            if (!nc || !np) {
                free(a);
                free(b);
                error("out of memory");
                goto cleanup;
            }
        }
        if (ab_compare(a, na, b, nb, &o, &c[n]) == AB_STATS_OK) {
            p[n] = ab_min_shift_pair_ms(db, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1));
            n++;
        }
        free(a);
        free(b);
    }
    /* the one verdict rule (stats/verdict.c), over the family of the K
     * pairs, and without the family correction (the per-comparison error) */
    fam = malloc((n ? n : 1) * sizeof *fam);
    dec = malloc((n ? n : 1) * sizeof *dec);
    dec_raw = malloc((n ? n : 1) * sizeof *dec_raw);
    ab_compare_opts raw = o;
    raw.padjust = AB_PADJ_NONE;
    for (size_t i = 0; c && fam && i < n; i++)
        fam[i] = &c[i];
    if (!c || !p || !fam || !dec || !dec_raw ||
        (n && (ab_decide_family(fam, n, p, &o, dec) != AB_STATS_OK ||
               ab_decide_family(fam, n, p, &raw, dec_raw) != AB_STATS_OK))) {
        error("out of memory");
        goto cleanup;
    }
    out->pairs = (int)n;
    out->alpha = o.alpha;
    for (size_t i = 0; i < n; i++) {
        out->raw_positives += c[i].mw.p < o.alpha;
        out->rule_positives += dec[i].verdict != AB_NO_DIFFERENCE;
        out->uncorrected_positives += dec_raw[i].verdict != AB_NO_DIFFERENCE;
    }
    out->flagged = n > 0 && (double)out->uncorrected_positives / (double)n > o.alpha;
    out->binom_p = out->uncorrected_positives == 0
                       ? 1.0
                       : gsl_cdf_binomial_Q((unsigned)out->uncorrected_positives - 1, o.alpha,
                                            (unsigned)n);
    rc = 0;
cleanup:
    sqlite3_finalize(st);
    free(c);
    free(p);
    free(adj);
    free(fam);
    free(dec);
    free(dec_raw);
    return rc;
}

int ab_calibration_for_environment(sqlite3 *db, const char *env_hash, ab_calibration *out)
{
    sqlite3_stmt *st = NULL;
    char err[AB_ERR];
    memset(out, 0, sizeof *out);
    if (ab_db_prepare(db,
                      "SELECT r.id FROM runs r JOIN experiments x ON x.id = r.experiment_id "
                      "JOIN environments v ON v.id = r.environment_id WHERE v.hash = ? AND "
                      "x.name LIKE '%-calibration' AND r.status = 'complete' ORDER BY r.id DESC "
                      "LIMIT 1",
                      &st, err))
        return -1;
    sqlite3_bind_text(st, 1, env_hash, -1, SQLITE_STATIC);
    long long run = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (!run)
        return 1;
    return ab_calibration_summary(db, run, out);
}

int cmd_calibrate(int argc, char **argv)
{
    const char *path = NULL, *db_flag = NULL, *variant = NULL, *v;
    int pairs = 5, missing;
    for (int i = 1; i < argc; i++) {
        if ((v = ab_opt(argc, argv, &i, "--db", &missing)))
            db_flag = v;
        else if ((v = ab_opt(argc, argv, &i, "--variant", &missing)))
            variant = v;
        else if ((v = ab_opt(argc, argv, &i, "--pairs", &missing)))
            pairs = atoi(v);
        else if (missing)
            return error("calibrate: %s needs a value", argv[i]) ? 2 : 2;
        else if (argv[i][0] == '-')
            return error("calibrate: unknown option '%s' (attnbench help calibrate)", argv[i]) ? 2 : 2;
        else if (!path)
            path = argv[i];
        else
            return error("calibrate: one experiment at a time ('%s' is extra)", argv[i]) ? 2 : 2;
    }
    if (!path)
        return error("calibrate: missing EXPERIMENT (attnbench help calibrate)") ? 2 : 2;
    if (pairs < 1 || pairs > 50)
        return error("calibrate: --pairs must be between 1 and 50") ? 2 : 2;

    char err[AB_ERR];
    ab_experiment e, cal;
    memset(&cal, 0, sizeof cal);
    if (ab_experiment_load(path, &e, err, sizeof err)) {
        ab_experiment_free(&e);
        return error("%s", err) ? 1 : 1;
    }
    if (!variant)
        variant = e.baseline ? e.baseline : e.variants[0].name;
    const ab_exp_variant *ev = NULL;
    for (size_t i = 0; i < e.nvariants; i++)
        if (strcmp(e.variants[i].name, variant) == 0)
            ev = &e.variants[i];
    if (!ev || !ev->native) {
        ab_experiment_free(&e);
        return error("calibrate: '%s' is not a built-in variant of %s", variant, path) ? 1 : 1;
    }
    char *text = calibration_text(&e, ev->native->name, pairs);
    char calpath[600];
    snprintf(calpath, sizeof calpath, "%s (A/A calibration)", path);
    int rc = 1;
    sqlite3 *db = NULL;
    sqlite3_int64 run = 0;
    if (!text || ab_experiment_parse(calpath, text, 1, &cal, err, sizeof err) ||
        ab_experiment_validate(&cal, err, sizeof err)) {
        error("calibrate: %s", text ? err : "out of memory");
        goto cleanup;
    }
    if (ab_db_open(ab_db_path(db_flag), 0, &db, err)) {
        error("%s", err);
        goto cleanup;
    }
    char command[700];
    snprintf(command, sizeof command, "attnbench calibrate %s --variant %s --pairs %d", path,
             ev->native->name, pairs);
    int r = ab_run_experiment(&cal, db, command, &run);
    if (r != 0) {
        rc = r == 1 ? 130 : 1;
        goto cleanup;
    }
    ab_calibration s;
    if (ab_calibration_summary(db, run, &s))
        goto cleanup;
    printf("%lld\n", (long long)run);
    fprintf(stderr,
            "A/A calibration of %s (run %lld): %d pairs; verdict rule without family correction "
            "called %d different (%.1f%%, binomial p %.3f), with Holm %d, raw p < %.2f %d; alpha %.2f: %s\n",
            ev->native->name, (long long)run, s.pairs, s.uncorrected_positives,
            s.pairs ? 100.0 * s.uncorrected_positives / s.pairs : 0.0, s.binom_p, s.rule_positives, s.alpha,
            s.raw_positives, s.alpha, s.flagged ? "FLAGGED (rule too permissive here)" : "ok");
    rc = 0;
cleanup:
    free(text);
    ab_db_close(db);
    ab_experiment_free(&cal);
    ab_experiment_free(&e);
    return rc;
}
