/*
 * cmd_resume.c: `attnbench resume RUN [--force] [--db PATH]`: completes a
 * run that did not finish (killed, crashed, interrupted, or failed on a
 * database error) with the experiment stored with it, measuring only the
 * (variant, configuration) pairs it lacks. Measurements are unique per
 * (run, variant, configuration), so nothing is measured twice.
 */
#include "commands.h"
#include "experiment.h"
#include "liveness.h"
#include "runmeta.h"
#include "runner.h"
#include "shard.h"
#include "store.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_resume(int argc, char **argv)
{
    const char *run_s = NULL, *db_flag = NULL, *v;
    int missing, force = 0;
    for (int i = 1; i < argc; i++) {
        if ((v = ab_opt(argc, argv, &i, "--db", &missing)))
            db_flag = v;
        else if (missing)
            return ab_usage("resume: --db needs a path");
        else if (strcmp(argv[i], "--force") == 0)
            force = 1;
        else if (argv[i][0] == '-' || run_s)
            return error("resume: unexpected argument '%s' (attnbench help resume)", argv[i]) ? 2
                                                                                            : 2;
        else
            run_s = argv[i];
    }
    char *end;
    long long run = run_s ? strtoll(run_s, &end, 10) : 0;
    if (!run_s || *end || run <= 0)
        return ab_usage("resume: RUN must be a run id (attnbench runs lists them)");

    char err[AB_ERR];
    const char *db_path = ab_db_path(db_flag);
    sqlite3 *db = NULL;
    ab_experiment e;
    memset(&e, 0, sizeof e);
    ab_run_resume_row row = {0};
    int rc = 1;
    if (!(db = ab_cmd_open_db(db_path, 0)))
        return 1;
    int got = ab_run_resume_row_load(db, run, &row, err);
    if (got == 1)
        error("resume: no run %lld in %s (attnbench runs lists them)", run, db_path);
    else if (got < 0)
        error("%s", err);
    if (got)
        goto done;
    const char *status = row.status, *host = row.host;
    long pid = row.pid;
    if (strcmp(status, "complete") == 0) {
        fprintf(stderr, "attnbench: run %lld is complete; nothing to resume\n", run);
        printf("%lld\n", run);
        rc = 0;
        goto done;
    }
    if (strcmp(status, "running") == 0 && !force) {
        ab_liveness l = ab_process_liveness(host, pid, row.proc_start, row.boot_id);
        if (l == AB_LIVE_ALIVE) {
            error("resume: run %lld is still running (process %ld on this host)", run, pid);
            goto done;
        }
        if (l == AB_LIVE_UNKNOWN) {
            error("resume: run %lld is 'running' on host '%s', whose processes this host cannot "
                  "see; resume it there, or pass --force if it is certainly gone",
                  run, *host ? host : "unrecorded");
            goto done;
        }
    }
    if (ab_experiment_parse(row.exp_path, row.definition, 2, &e, err, sizeof err) ||
        ab_experiment_validate(&e, err, sizeof err)) {
        error("resume: run %lld: %s", run, err);
        goto done;
    }
    { /* issue 20: a run of one part resumes that part only (shard.h) */
        int sk = 0, sn = 0, sh = ab_shard_of_run(db, run, &sk, &sn, err);
        if (sh < 0 || (sh == 1 && ab_shard_select(&e, sk, sn, err, sizeof err))) {
            error("resume: run %lld: %s", run, err);
            goto done;
        }
    }
    ab_id run_id = run;
    int r = ab_run_experiment(&e, db, row.command, &run_id);
    printf("%lld\n", run);
    rc = r == 0 ? 0 : r == 1 ? 128 + ab_run_signal() : 1;
done:
    ab_experiment_free(&e);
    ab_db_close(db);
    ab_run_resume_row_free(&row);
    return rc;
}
