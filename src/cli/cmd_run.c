/*
 * cmd_run.c: `attnbench run EXPERIMENT [--db PATH]`: load and validate the
 * experiment, open the database, run, print the run's id.
 */
#include "commands.h"
#include "conclusion.h"
#include "experiment.h"
#include "runner.h"
#include "store.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

int cmd_run(int argc, char **argv)
{
    const char *path = NULL, *db_flag = NULL, *v;
    int missing;
    for (int i = 1; i < argc; i++) {
        if ((v = ab_opt(argc, argv, &i, "--db", &missing)))
            db_flag = v;
        else if (missing)
            return ab_usage("run: --db needs a path");
        else if (argv[i][0] == '-')
            return ab_usage("run: unknown option '%s' (attnbench help run)", argv[i]);
        else if (!path)
            path = argv[i];
        else
            return ab_usage("run: one experiment file at a time ('%s' is extra)", argv[i]);
    }
    if (!path)
        return ab_usage("run: missing EXPERIMENT (attnbench help run)");

    char err[AB_ERR];
    ab_experiment e;
    if (ab_experiment_load(path, &e, err, sizeof err) ||
        ab_experiment_validate(&e, err, sizeof err) ||
        ab_expect_check(&e, err, sizeof err)) { /* `expect`: conclusion.h */
        ab_experiment_free(&e);
        error("%s", err);
        return 1;
    }
    sqlite3 *db = NULL;
    const char *db_path = ab_db_path(db_flag);
    if (ab_db_open(db_path, 0, &db, err)) {
        ab_experiment_free(&e);
        error("%s", err);
        return 1;
    }
    char command[1024];
    snprintf(command, sizeof command, "attnbench run %s", path);
    sqlite3_int64 run_id = 0;
    int rc = ab_run_experiment(&e, db, command, &run_id);
    if (run_id)
        printf("%lld\n", (long long)run_id);
    ab_db_close(db);
    ab_experiment_free(&e);
    /* the shell's convention: 128 + the signal that stopped the run */
    return rc == 0 ? 0 : rc == 1 ? 128 + ab_run_signal() : 1;
}
