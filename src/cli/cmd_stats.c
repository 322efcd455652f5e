/*
 * cmd_stats.c: `attnbench stats A B`: reads two files of latency samples
 * (one per line, optionally with the sample's round: "MS ROUND", and its
 * instance: "MS ROUND INSTANCE") and prints
 * what a report says about the pair, through the comparison report and
 * compare make (src/analysis/pair.h: by instance when both files give an
 * instance column as well, "MS ROUND INSTANCE", as report compares a
 * variant measured as several instances; paired over the shared rounds
 * when both files give rounds, else i.i.d.; stats/abstats.h: summaries,
 * bootstrap CIs of the medians, Mann-Whitney U, Cliff's delta,
 * Hodges-Lehmann shift, the speedup median(B)/median(A) with its bootstrap
 * CI, Tukey outlier counts, drift, and the verdict), as text or JSON
 * (jansson). The verdict is the one rule of stats/verdict.c (ab_decide_family)
 * that compare, report and calibrate apply: a single comparison is a family
 * of one (its Holm-adjusted p is its p); --alpha and --practical as in an
 * experiment file; --min-shift MS the minimum resolvable shift (what report
 * and compare take from the run's timer floor; default 0).
 */
#include "commands.h"
#include "abstats.h"
#include "pair.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define ERR(...)                                                                 \
    do {                                                                         \
        fprintf(stderr, "attnbench: stats: ");                                   \
        fprintf(stderr, __VA_ARGS__);                                            \
        fputc('\n', stderr);                                                     \
    } while (0)

/* The largest file of samples stats reads (some 50 million lines). */
#define AB_STATS_MAX_FILE_BYTES (1ull << 30)

static int cmp_int(const void *p, const void *q)
{
    int a = *(const int *)p, b = *(const int *)q;
    return (a > b) - (a < b);
}

/* Reads path (a regular file of at most AB_STATS_MAX_FILE_BYTES) into a malloc'd array *x of *n latencies (ms) and, when the
 * file has a second column, *round (malloc'd, the round of each sample, in
 * the order taken) and *rounds (the distinct rounds); else *round = NULL,
 * *rounds = 0; when it has a third, *instance (malloc'd, the instance of
 * each sample: a variant measured as several instances), else NULL. One
 * sample per line, "MS", "MS ROUND" or "MS ROUND INSTANCE" (whitespace
 * separated, ROUND and INSTANCE integers >= 0), every line the same; blank lines and
 * everything after '#' ignored. Returns 0, or 1 after printing the error
 * (file, line, offending text). */
static int read_samples(const char *path, double **x, size_t *n, int **round, int *rounds,
                        int **instance)
{
    int rc = 1;
    char why[600];
    FILE *f = ab_open_regular(path, AB_STATS_MAX_FILE_BYTES, why, sizeof why);
    char *line = NULL;
    size_t cap = 0, len = 0, alloc = 0, lineno = 0;
    double *v = NULL;
    int *rv = NULL, *iv = NULL, with_rounds = -1; /* columns; -1: not known yet (no sample read) */
    if (f == NULL) {
        ERR("%s", why);
        goto cleanup;
    }
    while (getline(&line, &cap, f) != -1) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash != NULL)
            *hash = '\0';
        char *s = line, *e;
        while (*s == ' ' || *s == '\t')
            s++;
        e = s + strlen(s);
        while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
            *--e = '\0';
        if (*s == '\0')
            continue;
        char *end;
        long r = -1, inst = -1;
        char *col[3] = {s, NULL, NULL};
        int ncol = 1;
        for (char *t = s; *t && ncol <= 3;) { /* whitespace-separated columns */
            while (*t && *t != ' ' && *t != '\t')
                t++;
            if (!*t)
                break;
            *t++ = '\0';
            while (*t == ' ' || *t == '\t')
                t++;
            if (ncol == 3) {
                ERR("%s:%zu: more than three columns (MS, MS ROUND or MS ROUND INSTANCE): '%s'",
                    path, lineno, t);
                goto cleanup;
            }
            col[ncol++] = t;
        }
        for (int c = 1; c < ncol; c++) {
            char *rend;
            errno = 0;
            long v = strtol(col[c], &rend, 10);
            if (rend == col[c] || *rend != '\0' || v < 0 || v > 1000000 || errno) {
                ERR("%s:%zu: the %s must be an integer in [0, 1000000], got '%s'", path, lineno,
                    c == 1 ? "round" : "instance", col[c]);
                goto cleanup;
            }
            if (c == 1)
                r = v;
            else
                inst = v;
        }
        errno = 0;
        double d = strtod(s, &end);
        if (end == s || *end != '\0') {
            ERR("%s:%zu: not a number: '%s'", path, lineno, s);
            goto cleanup;
        }
        if (strpbrk(s, "xXpP")) { /* strtod reads C's hexadecimal floats: 0x10 is 16 */
            ERR("%s:%zu: not a decimal number of ms: '%s'", path, lineno, s);
            goto cleanup;
        }
        if (with_rounds < 0)
            with_rounds = ncol;
        else if (with_rounds != ncol) {
            ERR("%s:%zu: %d columns where the lines before have %d: every line needs the same "
                "columns (MS, MS ROUND, or MS ROUND INSTANCE)", path, lineno, ncol, with_rounds);
            goto cleanup;
        }
        if (!isfinite(d) || (errno == ERANGE && fabs(d) > 1)) {
            ERR("%s:%zu: not a finite number (%s): '%s'", path, lineno,
                isnan(d) ? "NaN" : errno == ERANGE ? "overflows a double" : "infinite", s);
            goto cleanup;
        }
        if (errno == ERANGE || (d != 0 && fabs(d) < AB_STATS_MIN_VALUE)) {
            ERR("%s:%zu: underflows: '%s' is nonzero but below %g ms (would be read as %g)", path,
                lineno, s, AB_STATS_MIN_VALUE, d);
            goto cleanup;
        }
        if (fabs(d) > AB_STATS_MAX_VALUE) {
            ERR("%s:%zu: out of range: '%s' exceeds %g ms (sums and ratios would overflow)", path,
                lineno, s, AB_STATS_MAX_VALUE);
            goto cleanup;
        }
        if (d < 0) {
            ERR("%s:%zu: negative latency: '%s'", path, lineno, s);
            goto cleanup;
        }
        if (len == alloc) {
            size_t na = alloc ? 2 * alloc : 1024;
            double *nv = realloc(v, na * sizeof *nv);
            if (nv != NULL)
                v = nv;
            int *nr = realloc(rv, na * sizeof *nr);
            if (nr != NULL)
                rv = nr;
            int *ni = realloc(iv, na * sizeof *ni);
            if (ni != NULL)
                iv = ni;
            if (nv == NULL || nr == NULL || ni == NULL) {
                ERR("%s: out of memory", path);
                goto cleanup;
            }
            alloc = na;
        }
        rv[len] = (int)r;
        iv[len] = (int)inst;
        v[len++] = d;
    }
    if (ferror(f)) {
        ERR("%s: %s", path, strerror(errno));
        goto cleanup;
    }
    if (len < 3) {
        ERR("%s: needs at least 3 samples, has %zu", path, len);
        goto cleanup;
    }
    *x = v;
    *n = len;
    v = NULL;
    *round = NULL;
    *rounds = 0;
    *instance = NULL;
    if (with_rounds >= 2) {
        int distinct = 0;
        int *sorted = malloc(len * sizeof *sorted);
        if (sorted == NULL) {
            ERR("%s: out of memory", path);
            goto cleanup;
        }
        memcpy(sorted, rv, len * sizeof *sorted);
        qsort(sorted, len, sizeof *sorted, cmp_int);
        for (size_t i = 0; i < len; i++)
            distinct += i == 0 || sorted[i] != sorted[i - 1];
        free(sorted);
        *round = rv;
        *rounds = distinct;
        rv = NULL;
        if (with_rounds == 3) {
            *instance = iv;
            iv = NULL;
        }
    }
    rc = 0;
cleanup:
    free(v);
    free(rv);
    free(iv);
    free(line);
    if (f != NULL)
        fclose(f);
    return rc;
}

static int parse_ulong(const char *s, unsigned long *out)
{
    char *end;
    errno = 0;
    if (*s == '-' || *s == '\0')
        return -1;
    unsigned long v = strtoul(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

static json_t *jreal(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *sample_json(const char *file, const ab_summary *s, double lo, double hi,
                           const ab_boot_opts *bo, const ab_outliers *o, const ab_drift *d)
{
    return json_pack("{s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:[o,o], s:s,"
                     " s:{s:I, s:I}, s:{s:o, s:o, s:b}}",
                     "file", file, "n", (json_int_t)s->n, "median", jreal(s->median),
                     "mean", jreal(s->mean), "stddev", jreal(s->stddev), "cv", jreal(s->cv),
                     "min", jreal(s->min), "max", jreal(s->max), "q1", jreal(s->q1),
                     "q3", jreal(s->q3), "median_ci", jreal(lo), jreal(hi),
                     "median_ci_method", ab_median_ci_name(s->n, bo),
                     "outliers", "mild", (json_int_t)o->mild, "severe", (json_int_t)o->severe,
                     "drift", "rho", jreal(d->rho), "p", jreal(d->p), "drifting", d->drifting);
}

/* The reason of a verdict as stats prints it: the rule's, or the rounds'. */
static const char *why_text(const ab_pair_analysis *an)
{
    if (an->too_few)
        return "too few rounds for the test";
    if (an->too_few_family)
        return "too few rounds for the family's correction";
    return ab_why_name(an->why);
}

static void print_text(const char *fa, const char *fb, const ab_pair_analysis *an,
                       const ab_compare_opts *o, const ab_decision *dec, double min_shift)
{
    const ab_comparison *c = &an->c;
    double pct = 100 * o->boot.level;
    printf("%-10s %8s %12s %12s %12s %12s %22s %9s %9s\n", "sample", "n", "median ms", "mean ms",
           "stddev ms", "cv", "median CI", "outliers", "drift p");
    const char *names[2] = {fa, fb};
    const ab_summary *s[2] = {&c->a, &c->b};
    double lo[2] = {c->a_ci_lo, c->b_ci_lo}, hi[2] = {c->a_ci_hi, c->b_ci_hi};
    const ab_outliers *ot[2] = {&c->a_out, &c->b_out};
    const ab_drift *dr[2] = {&c->a_drift, &c->b_drift};
    for (int k = 0; k < 2; k++) {
        char ci[64], out[32];
        snprintf(ci, sizeof ci, "[%.6g, %.6g]", lo[k], hi[k]);
        snprintf(out, sizeof out, "%zu+%zu", ot[k]->mild, ot[k]->severe);
        printf("%-10s %8zu %12.6g %12.6g %12.6g %12.4f %22s %9s %9.3g%s\n",
               k ? "B" : "A", s[k]->n, s[k]->median, s[k]->mean, s[k]->stddev, s[k]->cv, ci,
               out, dr[k]->p, dr[k]->drifting ? " (drifting)" : "");
    }
    /* each sample's interval under its own name (ab_median_ci: order
     * statistics below 30 samples, the bootstrap from 30) */
    const char *ma = ab_median_ci_name(c->a.n, &o->boot), *mb = ab_median_ci_name(c->b.n, &o->boot);
    char how[160];
    if (strcmp(ma, mb) == 0)
        snprintf(how, sizeof how, "%s", ma);
    else
        snprintf(how, sizeof how, "A %s, B %s", ma, mb);
    printf("A = %s, B = %s; %.4g%% median CIs: %s", names[0], names[1], pct, how);
    if (strstr(ma, "bootstrap") || strstr(mb, "bootstrap"))
        printf(" (%zu resamples, seed %lu)", o->boot.resamples, o->boot.seed);
    printf("; %s\n", c->cis_overlap ? "CIs overlap" : "CIs do not overlap");
    if (an->by_instance) {
        printf("by instance: %zu and %zu instances (each instance's level the mean over its "
               "rounds of the log per-round median, first sample of a round left out, centred "
               "on the round's mean over every instance)\n",
               an->ir.instances_a, an->ir.instances_b);
        printf("speedup exp(difference of the mean instance levels): %.6g  [%.6g, %.6g] "
               "(the interval of Welch's t on Hsu's df)\n",
               an->speedup, an->lo, an->hi);
        printf("Welch t %.4g on Hsu's df %.0f (min(ka, kb) - 1): p %.4g; between-instance sd "
               "%.3g%%, within-instance round sd %.3g%%, minimum detectable effect %.3g%% "
               "(alpha 0.05, 80%% power)\n",
               an->ir.w.t, an->ir.w.df, an->ir.w.p, 100 * an->ir.sd_instance,
               100 * an->ir.sd_round, 100 * an->ir.mde);
        printf("i.i.d. statistics of the pooled samples, for description:\n");
    }
    if (an->paired) {
        printf("paired over %zu shared rounds (each round's first sample left out of its median "
               "where it has two or more: %zu left out)\n",
               an->rr.rounds, an->rr.dropped);
        printf("speedup exp(Hodges-Lehmann of the per-round log ratios): %.6g  [%.6g, %.6g] "
               "(signed-rank interval)\n",
               an->speedup, an->lo, an->hi);
        printf("Wilcoxon signed-rank over rounds: p %.4g (%s); lag-1 serial correlation %.3g%s; "
               "minimum detectable effect %.3g%% (alpha 0.05, 80%% power)\n",
               an->rr.p, ab_pmethod_name(an->rr.test.method), an->rr.serial.r1,
               an->rr.serial.widened ? ", test and interval widened for it" : "",
               100 * an->rr.mde);
        printf("i.i.d. statistics of the pooled samples, for description:\n");
    }
    printf("speedup median(B)/median(A): %.6g  [%.6g, %.6g]\n", c->speedup, c->speedup_lo,
           c->speedup_hi);
    if (c->mw.method == AB_P_MONTE_CARLO)
        printf("Mann-Whitney U: %.10g  p %.4g +- %.2g (%s, %zu permutations, seed %lu)\n", c->mw.u,
               c->mw.p, c->mw.p_se, ab_pmethod_name(c->mw.method), o->test.mc_resamples,
               o->test.seed);
    else
        printf("Mann-Whitney U: %.10g  z %.4g  p %.4g (%s)\n", c->mw.u, c->mw.z, c->mw.p,
               ab_pmethod_name(c->mw.method));
    printf("Cliff's delta: %.4f  [%.4f, %.4f]  %s\n", c->cliff.delta, c->cliff.lo, c->cliff.hi,
           ab_cliffs_magnitude(c->cliff.delta));
    printf("Hodges-Lehmann shift A - B: %.6g ms  [%.6g, %.6g]", c->hl.shift, c->hl.lo, c->hl.hi);
    if (c->hl.level < o->boot.level)
        printf("  (attained confidence %.4g%%: %.4g%% is not attainable at these sizes)\n",
               100 * c->hl.level, pct);
    else
        printf("  (attained confidence %.4g%%)\n", 100 * c->hl.level);
    printf("verdict (%s p (Holm, family of 1) < %.3g, speedup CI outside 1 +- %.3g, |HL shift| >= "
           "%.3g ms): %s%s%s%s%s\n",
           an->by_instance ? "Welch t" : an->paired ? "signed-rank" : "Mann-Whitney", o->alpha, o->practical, min_shift,
           dec->verdict == AB_NO_DIFFERENCE ? "" : "A is ", ab_verdict_name(dec->verdict),
           dec->why != AB_WHY_SIGNIFICANT ? " (" : "", why_text(an),
           dec->why != AB_WHY_SIGNIFICANT ? ")" : "");
}

/* The samples x[0..n) of one file with their rounds r and instances in,
 * regrouped by instance (in order of instance number, each instance's
 * samples in the order taken) into *gx, *gr (malloc'd) and *is[0..*k)
 * pointing into them: what report compares over instances
 * (src/analysis/instances.h). Needs at least 2 instances. Returns 0, or 1
 * after printing the error. */
static int by_instance(const char *path, const double *x, const int *r, const int *in, size_t n,
                       double **gx, int **gr, ab_instance_sample **is, size_t *k)
{
    int *ids = malloc(n * sizeof *ids);
    size_t nid = 0;
    *gx = malloc(n * sizeof **gx);
    *gr = malloc(n * sizeof **gr);
    if (!ids || !*gx || !*gr) {
        free(ids);
        ERR("%s: out of memory", path);
        return 1;
    }
    memcpy(ids, in, n * sizeof *ids);
    qsort(ids, n, sizeof *ids, cmp_int);
    for (size_t i = 0; i < n; i++)
        if (nid == 0 || ids[nid - 1] != ids[i])
            ids[nid++] = ids[i];
    if (nid < 2) {
        free(ids);
        ERR("%s: one instance (%d): the instance column needs two or more instances to compare "
            "by instance (leave the column out for one)", path, in[0]);
        return 1;
    }
    *is = malloc(nid * sizeof **is);
    if (!*is) {
        free(ids);
        ERR("%s: out of memory", path);
        return 1;
    }
    size_t at = 0;
    for (size_t j = 0; j < nid; j++) {
        size_t from = at;
        for (size_t i = 0; i < n; i++)
            if (in[i] == ids[j]) {
                (*gx)[at] = x[i];
                (*gr)[at++] = r[i];
            }
        (*is)[j] = (ab_instance_sample){*gx + from, *gr + from, at - from};
    }
    *k = nid;
    free(ids);
    return 0;
}

int cmd_stats(int argc, char **argv)
{
    int rc = 1, json = 0;
    const char *files[2] = {NULL, NULL};
    int nfiles = 0;
    double *x[2] = {NULL, NULL};
    int *rd[2] = {NULL, NULL}, nrounds[2] = {0, 0}, *in[2] = {NULL, NULL};
    ab_instance_sample *is[2] = {NULL, NULL}; /* by instance: each file's instances */
    double *gx[2] = {NULL, NULL};
    int *gr[2] = {NULL, NULL};
    size_t ki[2] = {0, 0};
    size_t n[2] = {0, 0};
    json_t *root = NULL;
    ab_compare_opts o;
    ab_compare_opts_default(&o);
    double min_shift = 0;
    ab_stats_init();

    for (int i = 1; i < argc; i++) {
        const char *v;
        int missing = 0;
        unsigned long u;
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if ((v = ab_opt(argc, argv, &i, "--alpha", &missing)) != NULL) {
            char *end;
            o.alpha = strtod(v, &end);
            if (*end != '\0' || !(o.alpha > 0 && o.alpha < 1)) {
                ERR("--alpha: expected a number in (0, 1), got '%s'", v);
                goto cleanup;
            }
        } else if (!missing && (v = ab_opt(argc, argv, &i, "--practical", &missing)) != NULL) {
            char *end;
            o.practical = strtod(v, &end);
            if (*end != '\0' || !(o.practical >= 0 && o.practical < 1)) {
                ERR("--practical: expected a fraction in [0, 1), e.g. 0.01, got '%s'", v);
                goto cleanup;
            }
        } else if (!missing && (v = ab_opt(argc, argv, &i, "--min-shift", &missing)) != NULL) {
            char *end;
            min_shift = strtod(v, &end);
            if (*end != '\0' || !(min_shift >= 0 && isfinite(min_shift))) {
                ERR("--min-shift: expected a shift in ms >= 0 (e.g. the timer floor), got '%s'", v);
                goto cleanup;
            }
        } else if (!missing && (v = ab_opt(argc, argv, &i, "--resamples", &missing)) != NULL) {
            if (parse_ulong(v, &u) != 0 || u < 2 || u > 10000000) {
                ERR("--resamples: expected an integer in [2, 10000000], got '%s'", v);
                goto cleanup;
            }
            o.boot.resamples = u;
        } else if (!missing && (v = ab_opt(argc, argv, &i, "--seed", &missing)) != NULL) {
            if (parse_ulong(v, &u) != 0) {
                ERR("--seed: expected a non-negative integer, got '%s'", v);
                goto cleanup;
            }
            o.boot.seed = u;
        } else if (!missing && (v = ab_opt(argc, argv, &i, "--ci", &missing)) != NULL) {
            if (strcmp(v, "percentile") == 0) {
                o.boot.method = AB_CI_PERCENTILE;
            } else if (strcmp(v, "bca") == 0 || strcmp(v, "BCa") == 0) {
                o.boot.method = AB_CI_BCA;
            } else {
                ERR("--ci: expected 'percentile' or 'bca', got '%s'", v);
                goto cleanup;
            }
        } else if (missing) {
            ERR("%s: missing value", argv[i]);
            goto cleanup;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            ERR("unknown option '%s'", argv[i]);
            goto cleanup;
        } else if (nfiles < 2) {
            files[nfiles++] = argv[i];
        } else {
            ERR("expected two files, got a third: '%s'", argv[i]);
            goto cleanup;
        }
    }
    if (nfiles != 2) {
        ERR("usage: attnbench stats A B (files of MS, MS ROUND or MS ROUND INSTANCE lines) [--json] [--alpha 0.05] [--practical 0.01] [--min-shift MS]"
            " [--resamples N] [--seed N] [--ci percentile|bca]");
        goto cleanup;
    }
    for (int k = 0; k < 2; k++)
        if (read_samples(files[k], &x[k], &n[k], &rd[k], &nrounds[k], &in[k]) != 0)
            goto cleanup;
    if ((rd[0] == NULL) != (rd[1] == NULL)) {
        ERR("%s has a round column and %s has none: give both, or neither", files[rd[0] ? 0 : 1],
            files[rd[0] ? 1 : 0]);
        goto cleanup;
    }

    if ((in[0] == NULL) != (in[1] == NULL)) {
        ERR("%s has an instance column and %s has none: give both, or neither",
            files[in[0] ? 0 : 1], files[in[0] ? 1 : 0]);
        goto cleanup;
    }
    for (int k = 0; in[0] && k < 2; k++) /* each file's samples by instance */
        if (by_instance(files[k], x[k], rd[k], in[k], n[k], &gx[k], &gr[k], &is[k], &ki[k]))
            goto cleanup;

    /* the comparison report and compare make (src/analysis/pair.h): by
     * instance when the files give instances, else paired over the rounds
     * both files share when they give rounds, else i.i.d. */
    ab_pair_analysis an;
    int st = in[0] ? ab_pair_analyse_instances(is[0], ki[0], is[1], ki[1], &o, &an)
                   : ab_pair_analyse(x[0], rd[0], n[0], nrounds[0], x[1], rd[1], n[1],
                                     nrounds[1], &o, &an);
    const ab_comparison c = an.c;
    if (st == AB_STATS_EZERO) { /* only A's median divides */
        ERR("%s (sample A): %s", files[0], ab_stats_strerror(st));
        goto cleanup;
    }
    if (st != AB_STATS_OK) {
        ERR("%s vs %s: %s", files[0], files[1], ab_stats_strerror(st));
        goto cleanup;
    }
    ab_pair_analysis *fam[1] = {&an}; /* a family of one */
    st = ab_pair_decide_family(fam, 1, &min_shift, &o);
    if (st != AB_STATS_OK) {
        ERR("%s", ab_stats_strerror(st));
        goto cleanup;
    }
    ab_decision dec = {an.verdict, an.why, an.p_adj};
    double padj = an.p_adj;
    if (!json) {
        print_text(files[0], files[1], &an, &o, &dec, min_shift);
        rc = 0;
        goto cleanup;
    }
    root = json_pack(
        "{s:o, s:o, s:b, s:{s:o, s:o, s:o, s:o, s:b, s:s, s:o}, s:{s:o, s:o, s:o, s:s},"
        " s:{s:o, s:o, s:o, s:o}, s:{s:o, s:o, s:o}, s:s,"
        " s:s, s:{s:o, s:o, s:o, s:I, s:I, s:s, s:o, s:s, s:I, s:I}}",
        "a", sample_json(files[0], &c.a, c.a_ci_lo, c.a_ci_hi, &o.boot, &c.a_out, &c.a_drift),
        "b", sample_json(files[1], &c.b, c.b_ci_lo, c.b_ci_hi, &o.boot, &c.b_out, &c.b_drift),
        "cis_overlap", c.cis_overlap,
        "mann_whitney", "u", jreal(c.mw.u), "z", jreal(c.mw.z), "p", jreal(c.mw.p),
        "p_adjusted", jreal(padj), "exact", c.mw.exact, "method", ab_pmethod_name(c.mw.method),
        "p_se", jreal(c.mw.p_se),
        "cliffs_delta", "delta", jreal(c.cliff.delta), "lo", jreal(c.cliff.lo),
        "hi", jreal(c.cliff.hi), "magnitude", ab_cliffs_magnitude(c.cliff.delta),
        "hodges_lehmann", "shift", jreal(c.hl.shift), "lo", jreal(c.hl.lo), "hi", jreal(c.hl.hi),
        "level", jreal(c.hl.level),
        "speedup", "ratio", jreal(an.speedup), "lo", jreal(an.lo), "hi", jreal(an.hi),
        "verdict", ab_verdict_name(dec.verdict), "verdict_reason", why_text(&an),
        "options", "alpha", jreal(o.alpha), "practical", jreal(o.practical),
        "min_shift", jreal(min_shift),
        "resamples", (json_int_t)o.boot.resamples, "seed", (json_int_t)o.boot.seed,
        "ci", ab_ci_method_name(o.boot.method), "level", jreal(o.boot.level),
        "padjust", ab_padjust_name(o.padjust), "permutations", (json_int_t)o.test.mc_resamples,
        "permutation_seed", (json_int_t)o.test.seed);
    if (root != NULL) { /* the inference used, and the paired test over rounds */
        json_object_set_new(root, "method", json_string(ab_pair_method(&an)));
        json_object_set_new(root, "p", jreal(an.p));
        json_object_set_new(root, "p_method", json_string(ab_pmethod_name(an.p_method)));
        json_object_set_new(root, "paired", json_boolean(an.paired));
        json_object_set_new(
            root, "instances",
            !an.by_instance
                ? json_null()
                : json_pack("{s:[I,I], s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "instances",
                            (json_int_t)an.ir.instances_a, (json_int_t)an.ir.instances_b,
                            "welch_t", jreal(an.ir.w.t), "df", jreal(an.ir.w.df),
                            "df_satterthwaite", jreal(an.ir.w.df_satterthwaite), "p",
                            jreal(an.ir.w.p), "sd_instance", jreal(an.ir.sd_instance),
                            "sd_round", jreal(an.ir.sd_round), "mde", jreal(an.ir.mde)));
        json_object_set_new(
            root, "rounds",
            !an.paired ? json_null()
                       : json_pack("{s:I, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:I}", "shared",
                                   (json_int_t)an.rr.rounds, "wilcoxon_p", jreal(an.rr.p),
                                   "p_min", jreal(an.rr.p_min), "serial_correlation",
                                   jreal(an.rr.serial.r1), "serial_correlation_p",
                                   jreal(an.rr.serial.p_serial), "serial_correlation_widened",
                                   an.rr.serial.widened, "variance_inflation",
                                   jreal(an.rr.serial.inflation), "mde", jreal(an.rr.mde),
                                   "first_samples_left_out", (json_int_t)an.rr.dropped));
    }
    if (root == NULL || json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) != 0) {
        ERR("cannot write JSON");
        goto cleanup;
    }
    putchar('\n');
    rc = 0;
cleanup:
    json_decref(root);
    for (int k = 0; k < 2; k++) {
        free(x[k]);
        free(rd[k]);
        free(in[k]);
        free(gx[k]);
        free(gr[k]);
        free(is[k]);
    }
    return rc;
}
