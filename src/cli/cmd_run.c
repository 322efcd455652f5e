/*
 * cmd_run.c: `attnbench run EXPERIMENT [--db PATH] [--min-time S]
 * [--max-time S] [--keep-adapters S]`: load and validate the experiment,
 * set the GPU-time budget given on the command line and the adapters'
 * keeping (the command line's, else ATTNBENCH_KEEP_ADAPTERS's, else the
 * run's default), open the database, run, print the run's id.
 */
#include "commands.h"
#include "claims.h"
#include "experiment.h"
#include "runner.h"
#include "scaleout.h"
#include "store.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Seconds from text into *s: 0 when it is a number from 0 to 86400 and
 * nothing else, else -1. */
static int keep_seconds(const char *text, double *s)
{
    char *end;
    *s = strtod(text, &end);
    return end == text || *end || !(*s >= 0 && *s <= 86400) ? -1 : 0;
}

int cmd_run(int argc, char **argv)
{
    const char *path = NULL, *db_flag = NULL, *v;
    const char *shard_s = NULL, *devices_s = NULL, *worker = NULL; /* scale-out */
    const char *min_time = NULL, *max_time = NULL; /* the GPU-time budget */
    const char *keep = NULL;                       /* --keep-adapters S (ext_keep.h) */
    int missing = 0;
    for (int i = 1; i < argc; i++) {
        if ((v = ab_opt(argc, argv, &i, "--db", &missing)))
            db_flag = v;
        else if (missing)
            return ab_usage("run: --db needs a path");
        else if ((v = ab_opt(argc, argv, &i, "--shard", &missing)))
            shard_s = v;
        else if (!missing && (v = ab_opt(argc, argv, &i, "--devices", &missing)))
            devices_s = v;
        else if (!missing && (v = ab_opt(argc, argv, &i, "--worker", &missing)))
            worker = v;
        else if (!missing && (v = ab_opt(argc, argv, &i, "--min-time", &missing)))
            min_time = v;
        else if (!missing && (v = ab_opt(argc, argv, &i, "--max-time", &missing)))
            max_time = v;
        else if (!missing && (v = ab_opt(argc, argv, &i, "--keep-adapters", &missing)))
            keep = v;
        else if (missing)
            return ab_usage("run: %s needs a value (attnbench help run)", argv[i]);
        else if (argv[i][0] == '-')
            return ab_usage("run: unknown option '%s' (attnbench help run)", argv[i]);
        else if (!path)
            path = argv[i];
        else
            return ab_usage("run: one experiment file at a time ('%s' is extra)", argv[i]);
    }
    if (!path)
        return ab_usage("run: missing EXPERIMENT (attnbench help run)");
    /* the adapters' keeping: the command line's, else the environment's,
     * else (-1) the run's default (runner.c keep_resolve) */
    double keep_s = -1;
    const char *keep_from = NULL;
    const char *keep_env = getenv("ATTNBENCH_KEEP_ADAPTERS");
    if (keep) {
        if (keep_seconds(keep, &keep_s))
            return ab_usage("run: --keep-adapters: '%s' is not a number of seconds from 0 to "
                            "86400", keep);
        keep_from = "command line";
    } else if (keep_env && *keep_env) {
        if (keep_seconds(keep_env, &keep_s)) {
            error("ATTNBENCH_KEEP_ADAPTERS='%s' is not a number of seconds from 0 to 86400 "
                  "(0 keeps no adapter after a run)",
                  keep_env);
            return 1;
        }
        keep_from = "ATTNBENCH_KEEP_ADAPTERS";
    }

    char err[AB_ERR];
    ab_experiment e;
    if (ab_experiment_load(path, &e, err, sizeof err) ||
        ab_experiment_validate(&e, err, sizeof err) ||
        ab_expect_check(&e, err, sizeof err) || /* `expect`: claims.h */
        ab_experiment_set_budget(&e, min_time, max_time, err, sizeof err)) {
        ab_experiment_free(&e);
        error("%s", err);
        return 1;
    }
    e.keep_adapters_s = keep_s;
    e.keep_adapters_from = keep_from;
    const char *db_path = ab_db_path(db_flag);
    char shard_cmd[64] = "";
    int sr = ab_run_scaleout(&e, path, db_path, shard_s, devices_s, worker, shard_cmd,
                             sizeof shard_cmd); /* scaleout.h */
    if (sr != -1) {
        ab_experiment_free(&e);
        return sr;
    }
    sqlite3 *db = NULL;
    if (ab_db_open(db_path, 0, &db, err)) {
        ab_experiment_free(&e);
        error("%s", err);
        return 1;
    }
    char command[1024];
    char budget_cmd[96] = "";
    if (min_time || max_time) /* the reproduce line gives the budget too */
        snprintf(budget_cmd, sizeof budget_cmd, " --min-time %.6g --max-time %.6g", e.min_time_s,
                 e.max_time_s);
    snprintf(command, sizeof command, "attnbench run %s%s%s", path, shard_cmd, budget_cmd);
    ab_id run_id = 0;
    int rc = ab_run_experiment(&e, db, command, &run_id);
    if (run_id)
        printf("%lld\n", (long long)run_id);
    long all = 0, ok = 0;
    const int some_bad = rc == 0 && run_id &&
                         ab_db_count_measurements(db, run_id, &all, &ok, err) == 0 && ok < all;
    if (some_bad)
        fprintf(stderr,
                "attnbench: run %lld complete, but %ld of its %ld measurements did not pass "
                "(a failed check or an error; `attnbench show %lld`)\n",
                (long long)run_id, all - ok, all, (long long)run_id);
    ab_db_close(db);
    ab_experiment_free(&e);
    /* 3: complete with a measurement that failed; the shell's convention
     * 128 + the signal that stopped the run */
    return rc == 0 ? (some_bad ? 3 : 0) : rc == 1 ? 128 + ab_run_signal() : 1;
}
