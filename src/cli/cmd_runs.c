/*
 * cmd_runs.c: finding runs and looking at one: `attnbench runs` (with
 * filters by experiment, variant, GPU, date and build commit; text or JSON)
 * and `attnbench show RUN` (configurations, medians with the 95% CIs report gives,
 * statuses, stop reasons, fingerprint).
 */
#include "abstats.h"
#include "commands.h"
#include "median_ci.h"
#include "pair.h"
#include "read.h"
#include "rundata.h"
#include "runlist.h"
#include "runmeta.h"
#include "runenv.h"
#include "provenance.h"
#include "units.h"
#include "store.h"
#include "util.h"
#include "history.h"
#include "variant_groups.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct list_ctx {
    json_t *arr; /* --json: the array the rows go to; NULL: text */
} list_ctx;

static int print_run(void *arg, const ab_run_row *r)
{
    list_ctx *c = arg;
    if (c->arr) {
        json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:s?, s:s, s:s, s:s?, s:s, s:I, s:I}", "id",
                              (json_int_t)r->id, "uuid", r->uuid, "experiment", r->experiment,
                              "started_at", r->started, "finished_at", r->finished, "status",
                              r->status, "gpu", r->gpu, "commit", r->commit, "env_hash",
                              r->env_hash, "measurements", (json_int_t)r->measurements, "not_ok",
                              (json_int_t)r->not_ok);
        json_array_append_new(c->arr, o);
        return 0;
    }
    char name[200], gpu[200];
    printf("%5lld  %-28s %-20s  %-26s %-11s %lld", r->id,
           ab_printable(r->experiment, name, sizeof name), r->started,
           ab_printable(r->gpu, gpu, sizeof gpu), r->status, r->measurements);
    if (r->not_ok)
        printf(" (%lld not ok)", r->not_ok);
    printf("\n");
    return 0;
}

static int valid_date(const char *s)
{
    if (!(strlen(s) == 10 && isdigit((unsigned char)s[0]) && isdigit((unsigned char)s[1]) &&
          isdigit((unsigned char)s[2]) && isdigit((unsigned char)s[3]) && s[4] == '-' &&
          isdigit((unsigned char)s[5]) && isdigit((unsigned char)s[6]) && s[7] == '-' &&
          isdigit((unsigned char)s[8]) && isdigit((unsigned char)s[9])))
        return 0;
    /* a month and a day that exist (2026-13-45 matched nothing, silently) */
    static const int days[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const int mo = (s[5] - '0') * 10 + s[6] - '0', d = (s[8] - '0') * 10 + s[9] - '0';
    return mo >= 1 && mo <= 12 && d >= 1 && d <= days[mo - 1];
}

int cmd_runs(int argc, char **argv)
{
    const char *db_flag = NULL, *experiment = NULL, *variant = NULL, *gpu = NULL,
               *since = NULL, *commit = NULL, *v;
    int missing = 0, as_json = 0;
    for (int i = 1; i < argc; i++) {
        if ((v = ab_opt(argc, argv, &i, "--db", &missing)))
            db_flag = v;
        else if ((v = ab_opt(argc, argv, &i, "--experiment", &missing)))
            experiment = v;
        else if ((v = ab_opt(argc, argv, &i, "--variant", &missing)))
            variant = v;
        else if ((v = ab_opt(argc, argv, &i, "--gpu", &missing)))
            gpu = v;
        else if ((v = ab_opt(argc, argv, &i, "--since", &missing)))
            since = v;
        else if ((v = ab_opt(argc, argv, &i, "--commit", &missing)))
            commit = v;
        else if (!missing && strcmp(argv[i], "--json") == 0)
            as_json = 1;
        else
            return ab_usage("runs: %s '%s' (attnbench help runs)",
                         missing ? "missing value for" : "unknown argument", argv[i]);
    }
    if (since && !valid_date(since))
        return ab_usage("runs: --since wants YYYY-MM-DD, not '%s'", since);
    char err[AB_ERR];
    sqlite3 *db = NULL;
    if (!(db = ab_cmd_open_db(ab_db_path(db_flag), 1)))
        return 1;
    ab_run_filter f = {experiment, variant, gpu, since, commit};
    list_ctx c = {as_json ? json_array() : NULL};
    if (!as_json)
        printf("%5s  %-28s %-20s  %-26s %-11s %s\n", "id", "experiment", "started (UTC)", "GPU",
               "status", "measurements");
    if (ab_runs_each(db, &f, print_run, &c, err)) {
        error("%s", err);
        ab_db_close(db);
        json_decref(c.arr);
        return 1;
    }
    ab_db_close(db);
    json_t *arr = c.arr;
    if (as_json) {
        char *s = json_dumps(arr, JSON_INDENT(2));
        printf("%s\n", s ? s : "[]");
        free(s);
        json_decref(arr);
    }
    return 0;
}

int cmd_show(int argc, char **argv)
{
    const char *db_flag = NULL, *run_s = NULL, *v;
    int missing = 0;
    for (int i = 1; i < argc; i++) {
        if ((v = ab_opt(argc, argv, &i, "--db", &missing)))
            db_flag = v;
        else if (missing || argv[i][0] == '-' || run_s)
            return ab_usage("show: %s '%s' (attnbench help show)",
                         missing ? "missing value for" : "unexpected argument", argv[i]);
        else
            run_s = argv[i];
    }
    if (!run_s)
        return ab_usage("show: which run? (attnbench runs lists them)");
    sqlite3 *db = NULL;
    long long run;
    if (!(db = ab_cmd_open_db(ab_db_path(db_flag), 1)))
        return 1;
    if (ab_run_resolve(db, run_s, &run)) {
        ab_db_close(db);
        return 1;
    }
    ab_run_header h;
    if (ab_run_header_load(db, run, &h)) {
        ab_db_close(db);
        return 1;
    }
    printf("run %lld  %s\n", run, h.uuid);
    char shown[3][1024];
    printf("experiment   %s (%s)\n", ab_printable(h.exp_name, shown[0], sizeof shown[0]),
           ab_printable(h.exp_path, shown[1], sizeof shown[1]));
    printf("started      %s   finished %s   status %s\n", h.started, h.finished, h.status);
    printf("timing       %s\n", h.mode);
    printf("command      %s\n", ab_printable(h.command, shown[2], sizeof shown[2]));
    printf("environment  %s\n\n", h.env_hash);
    char *fp_text = strdup(h.fingerprint);
    { /* what produced each variant's numbers (provenance.h) */
        ab_experiment e;
        char err[AB_ERR];
        memset(&e, 0, sizeof e);
        char *st = ab_run_settings_text(db, run);
        int k = ab_exp_stored_instances(st);
        free(st);
        if (h.definition &&
            ab_experiment_parse_k(h.exp_path, h.definition, 0, k, &e, err, sizeof err) == 0) {
            json_t *prov = ab_provenance_load(db, run, &e, err);
            ab_provenance_text(stdout, prov);
            json_decref(prov);
        }
        ab_experiment_free(&e);
    }
    ab_run_header_free(&h);

    ab_rmeas *m = NULL;
    size_t n = 0;
    if (ab_run_load(db, run, &m, &n)) {
        free(fp_text);
        ab_db_close(db);
        return 1;
    }
    ab_boot_opts bo;
    ab_boot_opts_default(&bo);
    bo.method = AB_CI_BCA;
    printf("medians with 95%% CIs as report gives them: a cluster bootstrap over rounds (%d "
           "resamples, seed %lu) where a measurement has two or more rounds, else ‡: order "
           "statistics below 30 samples, a %s bootstrap (%zu resamples) from 30; throttled "
           "samples left out\n\n",
           AB_ROUND_RESAMPLES, bo.seed, ab_ci_method_name(bo.method), bo.resamples);
    int nconf = 0;
    double max_rate = 0; /* FLOP/s, for the rate column's unit (units.h) */
    for (size_t i = 0; i < n; i++) {
        double med;
        if (m[i].config + 1 > nconf)
            nconf = m[i].config + 1;
        if (ab_measurement_median(&m[i], &med) == 0) /* src/analysis/median_ci.h */
            max_rate = fmax(max_rate, m[i].flops / (med * 1e-3));
    }
    const ab_unit fu = ab_flop_unit(max_rate);
    ab_variant_group *groups = NULL; /* instances V#k under V (variant_groups.h) */
    size_t ngroups = 0;
    int shown_inst = 0;
    if (ab_variant_groups(m, n, &groups, &ngroups)) {
        free(fp_text);
        ab_run_free(m, n);
        ab_db_close(db);
        return error("out of memory");
    }
    for (int c = 0; c < nconf; c++) {
        char title[128];
        for (size_t i = 0; i < n; i++)
            if (m[i].config == c) {
                ab_rmeas_title(&m[i], title, sizeof title);
                break;
            }
        printf("%s\n  %-22s %-7s %5s %11s  %-25s %9s  %s\n", title, "variant", "status", "n",
               "median ms", "95% CI ms", fu.name, "stop");
        /* by variant, a variant's instances V#1..V#k together and in order */
        for (size_t gi = 0; gi < ngroups; gi++)
        for (size_t gj = 0; gj < groups[gi].k; gj++) {
            if (groups[gi].m[0]->config != c)
                continue;
            ab_rmeas *x = groups[gi].m[gj];
            printf("  %-22s %-7s %5zu ", x->variant, x->status, x->n);
            double median, lo, hi;
            int by_rounds = 0;
            if (ab_measurement_median_with_ci(x, &bo, &median, &lo, &hi, &by_rounds) == 0) {
                char ci[96], m1[40], m2[40], med[40];
                snprintf(ci, sizeof ci, "[%s, %s]%s", ab_fmt_ms(lo, 0, m1, sizeof m1),
                         ab_fmt_ms(hi, 0, m2, sizeof m2), by_rounds ? "" : " ‡");
                printf("%11s  %-25s %9.2f  %s", ab_fmt_ms(median, 0, med, sizeof med), ci,
                       x->flops / (median * fu.per_ms),
                       x->stop);
            } else {
                printf("%11s  %-25s %9s  %s", "—", "", "", x->stop);
            }
            if (x->throttled)
                printf(" (%ld throttled)", x->throttled);
            printf("\n");
            /* after a variant's last instance, one row for V, the
             * instance its unit (src/analysis/history.h) */
            ab_variant_group *g = &groups[gi];
            if (gj + 1 < g->k || !g->instances || g->k < 2)
                continue;
            ab_instance_sample is[64];
            size_t k = 0, tot = 0;
            for (size_t j = 0; j < g->k && k < 64; j++)
                if (strcmp(g->m[j]->status, "ok") == 0 && g->m[j]->n >= 1) {
                    is[k++] = (ab_instance_sample){g->m[j]->ms, g->m[j]->round, g->m[j]->n};
                    tot += g->m[j]->n;
                }
            char name[80], gci[96], g1[40], g2[40], gmed[40];
            double gm, glo, ghi;
            snprintf(name, sizeof name, "%s (%zu inst.)", g->variant, k);
            if (k >= 2 && ab_history_point_instances(is, k, 0.95, &gm, &glo, &ghi) == 0) {
                snprintf(gci, sizeof gci, "[%s, %s] §", ab_fmt_ms(glo, 0, g1, sizeof g1),
                         ab_fmt_ms(ghi, 0, g2, sizeof g2));
                printf("  %-22s %-7s %5zu %11s  %-25s %9.2f\n", name, "ok", tot,
                       ab_fmt_ms(gm, 0, gmed, sizeof gmed), gci,
                       g->m[0]->flops / (gm * fu.per_ms));
                shown_inst = 1;
            }
        }
        printf("\n");
    }
    if (shown_inst)
        printf("§ a variant measured as instances V#1..V#k, taken together: the median of their "
               "samples pooled, its 95%% CI the level over the instances (Student's t of the "
               "instances' mean log per-round medians, k - 1 df) around it\n\n");
    json_t *fp = json_loads(fp_text, 0, NULL);
    char *pretty = fp ? json_dumps(fp, JSON_SORT_KEYS | JSON_INDENT(2)) : NULL;
    printf("fingerprint\n%s\n", pretty ? pretty : fp_text);
    free(pretty);
    json_decref(fp);
    json_t *rs = ab_runenv_load(db, run); /* NULL for runs before run settings */
    char *rs_text = rs ? json_dumps(rs, JSON_SORT_KEYS | JSON_INDENT(2)) : NULL;
    if (rs_text)
        printf("run settings\n%s\n", rs_text);
    free(rs_text);
    json_decref(rs);
    free(fp_text);
    ab_variant_groups_free(groups, ngroups);
    ab_run_free(m, n);
    ab_db_close(db);
    return 0;
}
