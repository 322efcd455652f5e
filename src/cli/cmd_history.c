/*
 * cmd_history.c: `attnbench history VARIANT --config B,H,S,D[,causal][,dtype]`:
 * one measurement across every run of the database in time order (median
 * with its 95% BCa CI, run, date, build commit, GPU, environment hash; a
 * run that measured the variant as instances V#k gives one point for them
 * all, the instance the unit of its CI: src/analysis/history.h), and
 * the runs where performance moved, by airspeed velocity's step detection
 * weighted as asv weights points (src/analysis/history.h computes them
 * from the samples loaded here). A step that coincides with an environment
 * change names the fields that changed. --plot FILE draws the series.
 */
#include "units.h"
#include "abstats.h"
#include "commands.h"
#include "history.h"
#include "env_diff.h"
#include "plot.h"
#include "read.h"
#include "rundata.h"
#include "store.h"
#include "util.h"
#include "instances.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INSTANCES 64 /* instances of one variant a run's point takes */

typedef struct point {
    long long run, mid;
    long long imid[MAX_INSTANCES]; /* its instances' measurements (k >= 2), in id order */
    size_t k;                      /* instances: 1 for a variant without them */
    char date[32], commit[48], gpu[64], env[20], config[96];
    int B, H, S, D, causal;
    char dtype[8];
    double median, lo, hi;
    size_t n;
    char *fp;
} point;

/* The point of a run that measured the variant as x->k >= 2 instances
 * (x->imid): their samples and rounds (db/rundata.h, the run's load), the
 * median of them pooled with the interval of the run's level over its
 * instances (src/analysis/history.h, ab_history_point_instances). Sets
 * median, lo, hi, n (samples pooled). Returns 0, or -1 (no point). */
static int instances_point(sqlite3 *db, point *x)
{
    ab_rmeas *m = NULL;
    size_t n = 0, k = 0;
    ab_instance_sample s[MAX_INSTANCES];
    if (ab_run_load(db, x->run, &m, &n))
        return -1;
    x->n = 0;
    for (size_t j = 0; j < x->k; j++)
        for (size_t i = 0; i < n; i++)
            if (m[i].id == x->imid[j] && m[i].n >= 1) {
                s[k++] = (ab_instance_sample){m[i].ms, m[i].round, m[i].n};
                x->n += m[i].n;
            }
    int rc = k >= 2 && ab_history_point_instances(s, k, 0.95, &x->median, &x->lo, &x->hi) == 0
                 ? 0 : -1;
    ab_run_free(m, n);
    return rc;
}

int cmd_history(int argc, char **argv)
{
    const char *db_flag = NULL, *variant = NULL, *config = NULL, *plot = NULL, *v;
    double practical = 0.01;
    int missing = 0;
    for (int i = 1; i < argc; i++) {
        if ((v = ab_opt(argc, argv, &i, "--db", &missing)))
            db_flag = v;
        else if ((v = ab_opt(argc, argv, &i, "--config", &missing)))
            config = v;
        else if ((v = ab_opt(argc, argv, &i, "--plot", &missing)))
            plot = v;
        else if ((v = ab_opt(argc, argv, &i, "--practical", &missing))) {
            char *end;
            practical = strtod(v, &end);
            if (*end || !(practical >= 0 && practical < 1))
                return ab_usage("history: --practical wants a fraction in [0, 1)");
        } else if (missing || argv[i][0] == '-' || variant)
            return ab_usage("history: %s '%s' (attnbench help history)",
                         missing ? "missing value for" : "unexpected argument", argv[i]);
        else
            variant = argv[i];
    }
    if (!variant || !config)
        return ab_usage("history: needs VARIANT and --config B,H,S,D[,causal][,dtype]");
    ab_config_pat pat;
    if (ab_config_parse(config, &pat))
        return 2;

    char err[AB_ERR];
    sqlite3 *db = NULL;
    if (!(db = ab_cmd_open_db(ab_db_path(db_flag), 1)))
        return 1;
    ab_history_point *hp = NULL;
    size_t n = 0;
    if (ab_history_load(db, variant, &pat, &hp, &n, err)) {
        ab_db_close(db);
        error("%s", err);
        return 1;
    }
    point *p = hp ? calloc(n ? n : 1, sizeof *p) : NULL;
    int rc = 1;
    size_t np = 0; /* one point per run and configuration: a run's instances V#k go together */
    for (size_t i = 0; p && i < n; i++) {
        point *x = NULL; /* the run's point at this configuration (its rows are adjacent) */
        for (size_t q = np; q-- > 0 && p[q].run == hp[i].run && !x;)
            if (p[q].causal == hp[i].causal && strcmp(p[q].dtype, hp[i].dtype) == 0)
                x = &p[q];
        if (x) {
            if (x->k < MAX_INSTANCES)
                x->imid[x->k++] = hp[i].mid;
            free(hp[i].fp);
            continue;
        }
        x = &p[np++];
        x->run = hp[i].run;
        x->mid = hp[i].mid;
        x->imid[0] = hp[i].mid;
        x->k = 1;
        memcpy(x->date, hp[i].date, sizeof x->date);
        memcpy(x->commit, hp[i].commit, sizeof x->commit);
        memcpy(x->gpu, hp[i].gpu, sizeof x->gpu);
        memcpy(x->env, hp[i].env, sizeof x->env);
        x->causal = hp[i].causal;
        memcpy(x->dtype, hp[i].dtype, sizeof x->dtype);
        x->fp = hp[i].fp; /* moves to p */
    }
    if (p)
        n = np;
    if (!p)
        for (size_t i = 0; i < n; i++)
            free(hp[i].fp);
    free(hp);
    if (!p) {
        error("out of memory");
        goto done;
    }
    if (n == 0) {
        error("history: no ok measurement of %s at %s in the database", variant, config);
        goto done;
    }
    for (size_t i = 1; i < n; i++)
        if (p[i].causal != p[0].causal || strcmp(p[i].dtype, p[0].dtype) != 0) {
            error("history: --config %s matches several configurations (%s %s and %s %s): "
                  "add causal/noncausal and the dtype",
                  config, p[0].causal ? "causal" : "noncausal", p[0].dtype,
                  p[i].causal ? "causal" : "noncausal", p[i].dtype);
            goto done;
        }
    ab_boot_opts bo;
    ab_boot_opts_default(&bo);
    bo.method = AB_CI_BCA;
    size_t used = 0, ninst = 0;
    for (size_t i = 0; i < n; i++) { /* the samples (db/), each run's point (src/analysis/) */
        double *ms = NULL;
        size_t k = 0;
        if (p[i].k >= 2 ? instances_point(db, &p[i]) == 0
                        : ab_db_samples(db, p[i].mid, 0, &ms, &k, err) == 0 &&
                              ab_history_point_summary(ms, k, &bo, &p[i].median, &p[i].lo,
                                                       &p[i].hi) == 0) {
            if (p[i].k >= 2)
                k = p[i].n;
            ninst += p[i].k >= 2;
            p[i].n = k;
            p[used++] = p[i];
        } else {
            free(p[i].fp);
        }
        free(ms);
    }
    n = used;
    if (n == 0) {
        error("history: no measurement with 2+ samples");
        goto done;
    }
    double *y = malloc(n * sizeof *y), *ylo = malloc(n * sizeof *ylo), *yhi = malloc(n * sizeof *yhi);
    if (!y || !ylo || !yhi) {
        free(y);
        free(ylo);
        free(yhi);
        error("out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        y[i] = p[i].median;
        ylo[i] = p[i].lo;
        yhi[i] = p[i].hi;
    }
    ab_history_fit fit; /* the between-run spread and the steps (src/analysis/history.h) */
    int src = ab_history_fit_series(y, ylo, yhi, n, practical, &fit);
    free(y);
    free(ylo);
    free(yhi);
    if (src != AB_STATS_OK) {
        error("history: step detection: %s", ab_stats_strerror(src));
        goto done;
    }
    const ab_steps steps = fit.steps;
    const ab_between_runs br = fit.br;
    const int have_br = fit.have_br;

    char title[200], hk[24] = "", sk[24] = "";
    if (pat.H_kv > 0 && pat.H_kv != pat.H)
        snprintf(hk, sizeof hk, " H_kv=%d", pat.H_kv);
    if (pat.S_kv > 0 && pat.S_kv != pat.S)
        snprintf(sk, sizeof sk, " S_kv=%d", pat.S_kv);
    snprintf(title, sizeof title, "%s B=%d H=%d%s S=%d%s D=%d %s %s", variant, pat.B, pat.H, hk,
             pat.S, sk, pat.D, p[0].causal ? "causal" : "non-causal", p[0].dtype);
    printf("history of %s: %zu runs, medians with 95%% %s bootstrap CIs (%zu resamples, seed %lu)\n\n",
           title, n, ab_ci_method_name(bo.method), bo.resamples, bo.seed);
    if (ninst)
        printf("instances: %zu runs measured %s as several instances (V#1..V#k), taken together: "
               "the point is the median of their samples pooled, its 95%% CI the run's level over "
               "its instances (Student's t of the instances' mean log per-round medians, "
               "k - 1 df: the instance the unit) around it; n counts the pooled samples (k "
               "instances marked xk)\n\n",
               ninst, variant);
    printf("%5s  %-20s  %-18s %-22s %-16s %5s %11s  %-25s %s\n", "run", "started (UTC)", "commit",
           "GPU", "environment", "n", "median ms", "95% CI ms", "level");
    size_t seg = 0;
    for (size_t i = 0; i < n; i++) {
        while (seg + 1 < steps.nseg && steps.seg[seg + 1].begin <= i)
            seg++;
        char ci[96], m1[40], m2[40];
        snprintf(ci, sizeof ci, "[%s, %s]", ab_fmt_ms(p[i].lo, 0, m1, sizeof m1),
                 ab_fmt_ms(p[i].hi, 0, m2, sizeof m2));
        char med[40], lvl[40];
        char nk[40];
        if (p[i].k >= 2)
            snprintf(nk, sizeof nk, "%zu x%zu", p[i].n, p[i].k);
        else
            snprintf(nk, sizeof nk, "%zu", p[i].n);
        printf("%5lld  %-20s  %-18.18s %-22.22s %-16s %5s %11s  %-25s %s%s\n", p[i].run,
               p[i].date, p[i].commit, p[i].gpu, p[i].env, nk,
               ab_fmt_ms(p[i].median, 0, med, sizeof med), ci,
               ab_fmt_ms(steps.seg[seg].value, 0, lvl, sizeof lvl),
               seg > 0 && steps.seg[seg].begin == i ? "  <- change point" : "");
    }
    if (have_br)
        printf("\nbetween-run variance: sd %.3g%% of the median from the %zu runs (median "
               "absolute successive difference of the log medians x 1.4826 / sqrt 2, robust to "
               "steps: Fryzlewicz 2014), added to each run's CI width for the weights\n",
               100 * br.sd_log, n);
    else
        printf("\nbetween-run variance: not measured (%zu runs; %d needed): weights from the "
               "within-run CIs only\n",
               n, AB_BETWEEN_RUNS_MIN);
    printf("\nchange points (asv step detection: L1 Potts fit, Friedrich et al. 2008; gamma %.3g "
           "by asv's criterion, beta = 4 ln(n)/n; steps under %.3g%% merged):\n",
           steps.gamma, 100 * practical);
    if (steps.nseg == 1) {
        char lvl[40];
        printf("  none: one level, %s ms, over all %zu runs\n",
               ab_fmt_ms(steps.seg[0].value, 0, lvl, sizeof lvl), n);
    }
    for (size_t j = 1; j < steps.nseg; j++) {
        const ab_segment *a = &steps.seg[j - 1], *b = &steps.seg[j];
        double rel = b->value / a->value - 1;
        const point *at = &p[b->begin];
        char va[40], vb[40];
        printf("  run %lld (%s, commit %s): %s -> %s ms, %+.2f%% (%s)%s%s\n", at->run,
               at->date, at->commit, ab_fmt_ms(a->value, 0, va, sizeof va),
               ab_fmt_ms(b->value, 0, vb, sizeof vb), 100 * rel,
               rel > 0 ? "SLOWER" : "faster",
               b->end - b->begin == 1 && j + 1 < steps.nseg ? "; a single run, then it moved again"
                                                            : "",
               "");
        json_t *fa = json_loads(p[b->begin - 1].fp, 0, NULL), *fb = json_loads(at->fp, 0, NULL);
        if (strcmp(p[b->begin - 1].env, at->env) != 0) {
            printf("    the environment changed here too (run %lld -> %lld):\n",
                   p[b->begin - 1].run, at->run);
            ab_print_env_diff(stdout, fa, fb, "      ");
        }
        json_decref(fa);
        json_decref(fb);
    }
    rc = 0;
    if (plot) {
        ab_hist_point *hp = malloc(n * sizeof *hp);
        size_t *sb = malloc(steps.nseg * sizeof *sb), *se = malloc(steps.nseg * sizeof *se);
        double *sv = malloc(steps.nseg * sizeof *sv);
        if (hp && sb && se && sv) {
            for (size_t i = 0; i < n; i++)
                hp[i] = (ab_hist_point){p[i].run, p[i].median, p[i].lo, p[i].hi};
            for (size_t j = 0; j < steps.nseg; j++) {
                sb[j] = steps.seg[j].begin;
                se[j] = steps.seg[j].end;
                sv[j] = steps.seg[j].value;
            }
            if (ab_history_plot(plot, title, hp, n, sb, se, sv, steps.nseg))
                rc = 1;
            else
                printf("\nplot: %s\n", plot);
        } else {
            rc = error("out of memory");
        }
        free(hp);
        free(sb);
        free(se);
        free(sv);
    }
    ab_history_fit_free(&fit);
done:
    for (size_t i = 0; p && i < n; i++)
        free(p[i].fp);
    free(p);
    ab_db_close(db);
    return rc ? 1 : 0;
}
