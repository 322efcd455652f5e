/*
 * cmd_calibrate.c: `attnbench calibrate EXPERIMENT [--variant V] [--pairs K]`,
 * the A/A test of the verdict rule: builds the calibration experiment
 * (run/calibration_run.c), runs it like any run and prints its analysis
 * (src/analysis/calibration.c computes it, src/report/calibration_table.c
 * prints its table).
 */
#include "aa_samples.h"
#include "calibration.h"
#include "calibration_table.h"
#include "calibration_run.h"
#include "commands.h"
#include "experiment.h"
#include "runner.h"
#include "store.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_calibrate(int argc, char **argv)
{
    const char *path = NULL, *db_flag = NULL, *variant = NULL, *v;
    int pairs = 5, missing = 0;
    for (int i = 1; i < argc; i++) {
        if ((v = ab_opt(argc, argv, &i, "--db", &missing)))
            db_flag = v;
        else if ((v = ab_opt(argc, argv, &i, "--variant", &missing)))
            variant = v;
        else if ((v = ab_opt(argc, argv, &i, "--pairs", &missing))) {
            long long p;
            if (ab_parse_count(v, 1, 50, &p))
                return ab_usage("calibrate: --pairs must be a whole number between 1 and 50, "
                                "not '%s'", v);
            pairs = (int)p;
        }
        else if (missing)
            return ab_usage("calibrate: %s needs a value", argv[i]);
        else if (argv[i][0] == '-')
            return ab_usage("calibrate: unknown option '%s' (attnbench help calibrate)", argv[i]);
        else if (!path)
            path = argv[i];
        else
            return ab_usage("calibrate: one experiment at a time ('%s' is extra)", argv[i]);
    }
    if (!path)
        return ab_usage("calibrate: missing EXPERIMENT (attnbench help calibrate)");
    if (pairs < 1 || pairs > 50)
        return ab_usage("calibrate: --pairs must be between 1 and 50");

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
    char *text = ab_calibration_text(&e, ev->native->name, pairs);
    char calpath[600];
    snprintf(calpath, sizeof calpath, "%s (A/A calibration)", path);
    int rc = 1;
    sqlite3 *db = NULL;
    ab_id run = 0;
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
        rc = r == 1 ? 128 + ab_run_signal() : 1; /* 130 after Ctrl-C, 143 after SIGTERM */
        goto cleanup;
    }
    ab_calibration s;
    ab_aa_run loaded; /* load (db/), analyse (src/analysis/), print (src/report/) */
    if (ab_aa_run_load(db, run, &loaded))
        goto cleanup;
    int st = ab_calibration_of_run(&loaded, &s);
    ab_aa_run_free(&loaded);
    if (st)
        goto cleanup;
    printf("%lld\n", (long long)run);
    fprintf(stderr,
            "A/A calibration of %s (run %lld): %d pairs; raw p < %.2f in %d, speedup CI covers 1 "
            "in %d, verdict rule (raw p) called %d different, with Holm %d: %s\n",
            ev->native->name, (long long)run, s.pairs, s.alpha, s.raw_positives, s.all.covered,
            s.uncorrected_positives, s.rule_positives,
            s.flagged ? "FLAGGED (a rate is not what the method promises here)" : "ok");
    ab_calibration_print(stderr, &s);
    rc = 0;
cleanup:
    free(text);
    ab_db_close(db);
    ab_experiment_free(&cal);
    ab_experiment_free(&e);
    return rc;
}
