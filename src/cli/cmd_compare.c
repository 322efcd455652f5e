/*
 * cmd_compare.c: `attnbench compare RUN_A RUN_B`: every (variant,
 * configuration) measured ok in both runs, B against A, by the comparison
 * of two runs (src/analysis/pair.h, ab_pair_analyse_runs: when both were
 * sampled in rounds, each run's per-round medians as two independent
 * samples, Mann-Whitney U and the two-sample Hodges-Lehmann interval,
 * since the rounds of two runs are not paired in time; else i.i.d.; where
 * either run measured the variant as several instances V#1..V#k, which
 * compare matches as V (src/analysis/variant_groups.h), the instance is the
 * unit: ab_pair_analyse_runs_instances, instances.h):
 * medians, speedup of B over A with its CI, p adjusted over the family
 * (Holm), Cliff's delta, and a verdict (improved / regressed / unchanged) by
 * the one verdict rule (stats/verdict.c, through ab_pair_decide_family over
 * the pairs compared, with each pair's minimum resolvable shift,
 * resolution.h). Where the database holds AB_BETWEEN_RUNS_MIN or more runs
 * of the same (variant, configuration) in A's environment, A and B left out, the
 * pair is judged by their between-run variance instead
 * (src/analysis/between_runs.h; --within-run turns that off), and compare
 * says for how many pairs it did, or that it did not.
 * Environment fields that differ are listed first, so that a driver or clock
 * change is not mistaken for a kernel change. Every (variant,
 * configuration) of A that could not be compared (missing or failed in B,
 * failed in A, too few samples, a statistics error) is listed with the
 * reason. Exit status with --fail-on-regression: 3 when anything regressed;
 * else 4 when any pair of A could not be compared or nothing was compared
 * (a gate must not pass by dropping data); else 0.
 */
#include "abstats.h"
#include "pair.h"
#include "commands.h"
#include "env_diff.h"
#include "read.h"
#include "aa_samples.h"
#include "resolution.h"
#include "runenv.h"
#include "rundata.h"
#include "store.h"
#include "util.h"
#include "variant_groups.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pair {
    ab_variant_group *a, *b; /* the variant in A and in B: one measurement, or its instances */
    ab_pair_analysis an; /* B (candidate) against A (baseline): src/analysis/pair.h */
} pair;

/* A (variant, configuration) of A that could not be compared, and why. */
typedef struct dropped {
    ab_variant_group *a;
    char why[160];
} dropped;

#define AB_COMPARE_MIN_SAMPLES 3 /* ab_compare's minimum (the drift test's) */

/* The between-run spread of g's (variant, configuration): the log medians
 * of its ok measurements in every other run of the database in run ra's
 * environment (same environment hash), runs ra and rb left out: the
 * yardstick is then independent of the two runs compared, so that the
 * statistic is Student's t under "no change", and neither run (a slowed
 * baseline, a slowed candidate) widens its own yardstick. A run that
 * measured the variant as instances gives the median of their samples
 * pooled. Returns 0 with out filled, 1 when there are fewer than
 * AB_BETWEEN_RUNS_MIN such runs, -1 on a database error (printed). */
static int between_runs_of(sqlite3 *db, const ab_variant_group *g, long long ra, long long rb,
                           ab_between_runs *out)
{
    const ab_rmeas *x = g->m[0];
    ab_config_pat pat;
    memset(&pat, 0, sizeof pat);
    pat.B = x->B;
    pat.H = x->H;
    pat.S = x->S;
    pat.D = x->D;
    pat.causal = x->causal;
    pat.H_kv = x->H_kv;
    pat.S_kv = x->S_kv;
    snprintf(pat.dtype, sizeof pat.dtype, "%s", x->dtype);
    snprintf(pat.pass, sizeof pat.pass, "%s", x->pass[0] ? x->pass : "fwd");
    ab_history_point *hp = NULL;
    size_t n = 0, k = 0;
    char err[AB_ERR];
    if (ab_history_load(db, g->variant, &pat, &hp, &n, err))
        return error("compare: %s", err);
    const char *env = NULL;
    for (size_t i = 0; i < n; i++)
        if (hp[i].run == ra)
            env = hp[i].env;
    /* the other runs' samples (db/; a run's instances pooled), their
     * spread (src/analysis/between_runs.h) */
    double **ms = calloc(n ? n : 1, sizeof *ms);
    size_t *m = calloc(n ? n : 1, sizeof *m);
    int rc = -1;
    if (!ms || !m) {
        error("out of memory");
        goto cleanup;
    }
    for (size_t i = 0; env && i < n; i++) {
        if (hp[i].run == ra || hp[i].run == rb || strcmp(hp[i].env, env) != 0)
            continue;
        double *s = NULL;
        size_t ns = 0;
        if (ab_db_samples(db, hp[i].mid, 0, &s, &ns, err)) {
            error("compare: %s", err);
            goto cleanup;
        }
        /* rows of one run are adjacent (ab_history_load's order) */
        size_t at = k > 0 && i > 0 && hp[i - 1].run == hp[i].run && ms[k - 1] ? k - 1 : k++;
        double *grown = realloc(ms[at], (m[at] + ns + 1) * sizeof *grown);
        if (!grown) {
            free(s);
            error("out of memory");
            goto cleanup;
        }
        memcpy(grown + m[at], s, ns * sizeof *s);
        ms[at] = grown;
        m[at] += ns;
        free(s);
    }
    rc = ab_between_runs_of_samples(ms, m, k, out) == 0 ? 0 : 1;
cleanup:
    for (size_t i = 0; i < n; i++)
        free(hp[i].fp);
    free(hp);
    for (size_t i = 0; ms && i < k; i++)
        free(ms[i]);
    free(ms);
    free(m);
    return rc;
}

/* The A/A groups (src/analysis/resolution.h) of each (environment, timing
 * mode) that compare meets, each built once from the environment's A/A
 * samples (db/aa_samples.h). */
#define SHIFT_KEYS 16
typedef struct shift_cache {
    char env[SHIFT_KEYS][64];
    ab_aa_groups g[SHIFT_KEYS];
    size_t n;
} shift_cache;

/* The minimum resolvable shift (ms) of measurement x: its A/A resolution
 * in its environment and timing mode times its median; 0 when none. */
static double min_shift_of(sqlite3 *db, shift_cache *c, const ab_rmeas *x)
{
    char env[64], mode[16];
    if (ab_measurement_env_mode(db, x->id, env, mode))
        return 0;
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->env[i], env) == 0 && strcmp(c->g[i].mode, mode) == 0)
            return ab_aa_min_shift_ms(&c->g[i], x->ms, x->n);
    if (c->n == SHIFT_KEYS)
        return 0;
    ab_aa_samples aa;
    ab_aa_samples_load(db, env, &aa);
    snprintf(c->env[c->n], sizeof c->env[0], "%s", env);
    ab_aa_groups_build(&aa, mode, &c->g[c->n]);
    ab_aa_samples_free(&aa);
    return ab_aa_min_shift_ms(&c->g[c->n++], x->ms, x->n);
}

static json_t *run_fingerprint(sqlite3 *db, long long run)
{
    char *text = ab_run_fingerprint_text(db, run);
    json_t *fp = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    json_t *rs = fp ? ab_runenv_load(db, run) : NULL; /* the run's settings: "run.threads" */
    if (rs) {
        json_object_del(rs, "load_avg"); /* conditions, not settings: differ every run */
        json_object_del(rs, "load_avg_end");
        json_object_del(rs, "walltime_variants"); /* where each variant's wall time went */
        json_object_set_new(fp, "run", rs);
    }
    return fp;
}

int cmd_compare(int argc, char **argv)
{
    const char *db_flag = NULL, *runs[2] = {NULL, NULL}, *v;
    int missing = 0, fail_on_regression = 0, nruns = 0, within_run = 0;
    ab_compare_opts co;
    ab_compare_opts_default(&co);
    co.boot.method = AB_CI_BCA;
    for (int i = 1; i < argc; i++) {
        char *end;
        if ((v = ab_opt(argc, argv, &i, "--db", &missing)))
            db_flag = v;
        else if ((v = ab_opt(argc, argv, &i, "--practical", &missing))) {
            co.practical = strtod(v, &end);
            if (*end || !(co.practical >= 0 && co.practical < 1))
                return ab_usage("compare: --practical wants a fraction in [0, 1), e.g. 0.01");
        } else if ((v = ab_opt(argc, argv, &i, "--alpha", &missing))) {
            co.alpha = strtod(v, &end);
            if (*end || !(co.alpha > 0 && co.alpha < 1))
                return ab_usage("compare: --alpha wants a level in (0, 1), e.g. 0.05");
        } else if (!missing && strcmp(argv[i], "--fail-on-regression") == 0)
            fail_on_regression = 1;
        else if (!missing && strcmp(argv[i], "--within-run") == 0)
            within_run = 1;
        else if (missing || argv[i][0] == '-' || nruns == 2)
            return ab_usage("compare: %s '%s' (attnbench help compare)",
                         missing ? "missing value for" : "unexpected argument", argv[i]);
        else
            runs[nruns++] = argv[i];
    }
    if (nruns != 2)
        return ab_usage("compare: needs two runs, RUN_A (before) and RUN_B (after)");

    sqlite3 *db = NULL;
    long long ra, rb;
    if (!(db = ab_cmd_open_db(ab_db_path(db_flag), 1)))
        return 1;
    ab_rmeas *ma = NULL, *mb = NULL;
    size_t na = 0, nb = 0, np = 0, nga = 0, ngb = 0;
    ab_variant_group *ga = NULL, *gb = NULL; /* instances V#k under V (variant_groups.h) */
    ab_instance_sample *ia = NULL, *ib = NULL;
    pair *p = NULL;
    int rc = 1;
    if (ab_run_resolve(db, runs[0], &ra) || ab_run_resolve(db, runs[1], &rb) ||
        ab_run_load(db, ra, &ma, &na) || ab_run_load(db, rb, &mb, &nb))
        goto done;
    if (ab_variant_groups(ma, na, &ga, &nga) || ab_variant_groups(mb, nb, &gb, &ngb) ||
        !(ia = malloc((na ? na : 1) * sizeof *ia)) || !(ib = malloc((nb ? nb : 1) * sizeof *ib))) {
        error("out of memory");
        goto done;
    }

    json_t *fa = run_fingerprint(db, ra), *fb = run_fingerprint(db, rb);
    printf("compare run %lld (A, before) with run %lld (B, after)\n\n", ra, rb);
    printf("environment differences (A -> B):\n");
    ab_print_env_diff(stdout, fa, fb, "  ");
    json_decref(fa);
    json_decref(fb);

    p = calloc(nga ? nga : 1, sizeof *p);
    dropped *dr = calloc(nga ? nga : 1, sizeof *dr);
    if (!p || !dr) {
        free(dr);
        error("out of memory");
        goto done;
    }
    size_t ndrop = 0, only_b = 0, ninst = 0;
    for (size_t i = 0; i < nga; i++) {
        ab_variant_group *x = &ga[i], *y = ab_variant_group_find(gb, ngb, x->variant, x->m[0]);
        const ab_rmeas *fx = ab_variant_group_failed(x), *fy = y ? ab_variant_group_failed(y) : NULL;
        char *why = dr[ndrop].why;
        size_t wn = sizeof dr[ndrop].why;
        if (fx)
            snprintf(why, wn, "A: status %s%s%s", fx->status, x->instances ? " in " : "",
                     x->instances ? fx->variant : "");
        else if (!y)
            snprintf(why, wn, "not measured in B");
        else if (fy)
            snprintf(why, wn, "B: status %s%s%s", fy->status, y->instances ? " in " : "",
                     y->instances ? fy->variant : "");
        else if (ab_variant_group_min_n(x) < AB_COMPARE_MIN_SAMPLES ||
                 ab_variant_group_min_n(y) < AB_COMPARE_MIN_SAMPLES)
            snprintf(why, wn, "too few samples (A %zu, B %zu; %d needed)",
                     ab_variant_group_min_n(x), ab_variant_group_min_n(y), AB_COMPARE_MIN_SAMPLES);
        else {
            /* candidate B, baseline A: speedup = median(A) / median(B);
             * round r of A and round r of B were not taken together, so
             * the two runs' per-round medians are independent samples
             * (not the within-run pairing of report and stats); where
             * either run has several instances, the instance is the unit
             * (src/analysis/instances.h, ab_instances_compare_runs) */
            int st;
            /* several measurements of one name are instances only when named V#k */
            const size_t kx = x->instances ? x->k : 1, ky = y->instances ? y->k : 1;
            if (kx == 1 && ky == 1) {
                const ab_rmeas *u = x->m[0], *w = y->m[0];
                st = ab_pair_analyse_runs(w->ms, w->round, w->n, w->rounds, u->ms, u->round, u->n,
                                          u->rounds, &co, &p[np].an);
            } else {
                ab_variant_group_samples(x, ia);
                ab_variant_group_samples(y, ib);
                st = ab_pair_analyse_runs_instances(ib, ky, ia, kx, &co, &p[np].an);
            }
            if (st == AB_STATS_OK) {
                ab_between_runs br;
                int got = within_run ? 1 : between_runs_of(db, x, ra, rb, &br);
                if (got < 0) {
                    free(dr);
                    goto done;
                }
                if (got == 0)
                    ab_pair_between_runs(&p[np].an, &br, co.boot.level);
                ninst += p[np].an.by_instance;
                p[np].a = x;
                p[np].b = y;
                np++;
                continue;
            }
            snprintf(why, wn, "%s", st == AB_STATS_EZERO
                                        ? "median of B is 0: speedup undefined (statistics error)"
                                        : ab_stats_strerror(st));
        }
        dr[ndrop++].a = x;
    }
    for (size_t j = 0; j < ngb; j++)
        only_b += !ab_variant_group_find(ga, nga, gb[j].variant, gb[j].m[0]);
    if (np) {
        ab_pair_analysis **fam = malloc(np * sizeof *fam);
        double *shift = malloc(np * sizeof *shift);
        int st = AB_STATS_ENOMEM;
        shift_cache *sc = calloc(1, sizeof *sc);
        if (fam && shift && sc) {
            for (size_t k = 0; k < np; k++) {
                fam[k] = &p[k].an;
                const double sa = min_shift_of(db, sc, p[k].a->m[0]),
                             sb = min_shift_of(db, sc, p[k].b->m[0]);
                shift[k] = sa > sb ? sa : sb;
            }
            st = ab_pair_decide_family(fam, np, shift, &co);
        }
        free(fam);
        free(shift);
        free(sc);
        if (st != AB_STATS_OK) {
            free(dr);
            error("compare: %s", ab_stats_strerror(st));
            goto done;
        }
    }
    printf("\n%zu (variant, configuration) pairs compared", np);
    if (ndrop || only_b)
        printf("; %zu of A could not be compared (listed below), %zu new in B", ndrop, only_b);
    printf(".\nspeedup of B over A (> 1: B is faster): where both were sampled in rounds, "
           "two runs: rounds as independent samples, Mann-Whitney (the rounds of two runs are "
           "not paired in time): each run's per-round medians (first sample of a round left "
           "out) are one sample, speedup exp(-(two-sample Hodges-Lehmann shift of their logs)) "
           "with the interval that inverts the Mann-Whitney U test (Hollander & Wolfe), p that "
           "test (marked u); else median(A) / median(B) with "
           "a %.0f%% %s bootstrap CI (%zu resamples, seed %lu), p Mann-Whitney of the samples; "
           "change = median(B) / median(A) - 1; p Holm-adjusted over the %zu pairs; Cliff's "
           "delta of B against A (< 0: B faster); "
           "verdict: improved / regressed when p (Holm) < %.3g, the speedup CI excludes "
           "1 +/- %.3g and the Hodges-Lehmann shift is at least the A/A resolution of its environment and mode, else "
           "unchanged.\n\n",
           100 * co.boot.level, ab_ci_method_name(co.boot.method), co.boot.resamples,
           co.boot.seed, np, co.alpha, co.practical);
    printf("%-36s %-20s %10s %10s %8s %-27s %9s %7s  %s\n", "configuration", "variant",
           "A ms", "B ms", "change", "speedup [95% CI]", "p (Holm)", "delta", "verdict");
    size_t regressed = 0, improved = 0;
    for (size_t k = 0; k < np; k++) {
        char title[128], sp[64];
        ab_rmeas_title(p[k].a->m[0], title, sizeof title);
        const ab_pair_analysis *an = &p[k].an;
        snprintf(sp, sizeof sp, "%.3fx [%.3f, %.3f]%s", an->speedup, an->lo, an->hi,
                 an->between_runs ? " b" : an->by_instance ? " i" : an->two_runs ? " u" : an->paired ? " r" : "");
        const char *verdict = an->verdict == AB_FASTER   ? "improved"
                              : an->verdict == AB_SLOWER ? "REGRESSED"
                              : an->too_few ? "unchanged (too few rounds for the test)"
                              : an->too_few_family ? "unchanged (too few rounds for the family's correction)"
                              : an->why == AB_WHY_RESOLUTION ? "unchanged (shift below the A/A resolution)"
                              : an->why == AB_WHY_UNATTAINABLE ? "unchanged (samples too small)"
                                                    : "unchanged";
        regressed += an->verdict == AB_SLOWER;
        improved += an->verdict == AB_FASTER;
        char vn[96];
        if (an->by_instance)
            snprintf(vn, sizeof vn, "%s (%zu|%zu)", p[k].a->variant, p[k].a->k, p[k].b->k);
        else
            snprintf(vn, sizeof vn, "%s", p[k].a->variant);
        printf("%-36s %-20s %10.5f %10.5f %+7.2f%% %-27s %9.2g %+7.3f  %s\n", title,
               vn, an->c.b.median, an->c.a.median,
               100 * (an->c.a.median / an->c.b.median - 1), sp, an->p_adj, an->c.cliff.delta,
               verdict);
    }
    printf("\n%zu improved, %zu regressed, %zu unchanged\n", improved, regressed,
           np - improved - regressed);
    if (np) {
        size_t nb_runs = 0, kmin = 0, kmax = 0;
        for (size_t k = 0; k < np; k++)
            if (p[k].an.between_runs) {
                size_t r = p[k].an.br.runs;
                kmin = nb_runs == 0 || r < kmin ? r : kmin;
                kmax = r > kmax ? r : kmax;
                nb_runs++;
            }
        if (nb_runs)
            printf("between-run variance: used for %zu of %zu pairs (marked b), from %zu to %zu "
                   "runs of the same variant and configuration in A's environment (A and B left out): "
                   "CI log(speedup) +/- t(k-1) sqrt(2) s, p the t-test, s the sd of those runs' "
                   "log medians%s\n",
                   nb_runs, np, kmin, kmax,
                   nb_runs < np ? "; the others have fewer than 3 such runs and are judged by "
                                  "their within-run variance only" : "");
        else if (within_run)
            printf("between-run variance: not used (--within-run)\n");
        else
            printf("between-run variance: not measured (no pair has %d runs of the same variant "
                   "and configuration in A's environment, A and B left out): judged by within-run "
                   "variance only, which a change from run to run can exceed\n",
                   AB_BETWEEN_RUNS_MIN);
        size_t ntr = 0, niid = 0, nbi = 0;
        for (size_t k = 0; k < np; k++) {
            ntr += p[k].an.two_runs && !p[k].an.by_instance && !p[k].an.between_runs;
            nbi += p[k].an.by_instance && !p[k].an.between_runs;
            niid += !p[k].an.two_runs && !p[k].an.between_runs;
        }
        printf("test: %zu pairs two runs: rounds as independent samples, Mann-Whitney (marked u); "
               "%zu pairs i.i.d. samples, Mann-Whitney (a run without rounds); %zu pairs the "
               "between-run t-test (marked b)",
               ntr, niid, nb_runs);
        if (ninst)
            printf("; %zu pairs two runs by instance (marked i)", nbi);
        printf("\n");
        size_t ndesign = 0; /* pairs whose runs differ in instances */
        for (size_t k = 0; k < np; k++)
            ndesign += (p[k].a->instances ? p[k].a->k : 1) != (p[k].b->instances ? p[k].b->k : 1);
        if (ndesign)
            printf("design: %zu pairs were measured with different instances in A and B (e.g. a "
                   "run stored before the default of 4 against one with it): the budget per "
                   "instance differs too, which can move a power-capped kernel's level by "
                   "itself (reports/instances-default/across-runs/); a regression gate should "
                   "compare runs of one design\n",
                   ndesign);
        if (ninst)
            printf("instances: %zu pairs had several instances in A or B (V#1..V#k, compared as "
                   "V): the instance is the unit across runs, as within one (Donner & Klar 2000, "
                   "sec. 6.2): each instance's level the mean of its log per-round medians (first "
                   "sample of a round left out); several instances on both sides: Welch t of the "
                   "levels on Hsu's df min(ka, kb) - 1, speedup exp(difference of the mean "
                   "levels) with the interval inverting it; one side a single instance (a run "
                   "without instances): t = (its level - the other side's mean) / (sd sqrt(1 + "
                   "1/k)) on k - 1 df, the prediction of one further instance (Hahn & Meeker "
                   "1991, ch. 4); A ms and B ms are the medians of the pooled samples; the variant "
                   "column gives the instances in A and B as (kA|kB)\n",
                   ninst);
        size_t nm[AB_P_ONE_INSTANCE_T + 1] = {0};
        for (size_t k = 0; k < np; k++)
            if ((unsigned)p[k].an.p_method <= AB_P_ONE_INSTANCE_T)
                nm[p[k].an.p_method]++;
        printf("p: %zu exact, %zu exact permutation, %zu Monte Carlo permutation, %zu "
               "normal approximation",
               nm[AB_P_EXACT], nm[AB_P_PERMUTATION], nm[AB_P_MONTE_CARLO], nm[AB_P_NORMAL]);
        if (ninst)
            printf(", %zu Welch t of the instance levels, %zu t of one instance against "
                   "instances (before the between-run test where it was used)",
                   nm[AB_P_WELCH_T], nm[AB_P_ONE_INSTANCE_T]);
        printf("\n");
    }
    if (ndrop) {
        printf("\nnot compared (%zu):\n", ndrop);
        for (size_t k = 0; k < ndrop; k++) {
            char title[128];
            ab_rmeas_title(dr[k].a->m[0], title, sizeof title);
            printf("  %-36s %-20s %s\n", title, dr[k].a->variant, dr[k].why);
        }
    }
    free(dr);
    rc = 0;
    if (fail_on_regression) {
        if (regressed)
            rc = 3;
        else if (ndrop || np == 0) {
            rc = 4;
            fprintf(stderr, "attnbench: compare: --fail-on-regression: %s%zu of A could not be "
                            "compared (listed above)\n",
                    np == 0 ? "nothing was compared; " : "", ndrop);
        }
    }
done:
    free(p);
    free(ia);
    free(ib);
    ab_variant_groups_free(ga, nga);
    ab_variant_groups_free(gb, ngb);
    ab_run_free(ma, na);
    ab_run_free(mb, nb);
    ab_db_close(db);
    return rc;
}
