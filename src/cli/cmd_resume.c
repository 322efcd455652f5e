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
#include "runenv.h"
#include "runner.h"
#include "shard.h"
#include "store.h"
#include "util.h"

#include <stdint.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "sha256" (or, without libcrypto, "size") of a plugin record's JSON text
 * (plugin.h, {"plugin": {"library", "size", "sha256"}}) into buf; 0 when
 * the record has it. */
static int record_identity(const char *record, char *library, size_t nl, char *buf, size_t n)
{
    json_t *r = json_loads(record ? record : "", 0, NULL);
    json_t *p = json_object_get(r, "plugin");
    const char *sha = json_string_value(json_object_get(p, "sha256"));
    json_t *size = json_object_get(p, "size");
    const char *lib = json_string_value(json_object_get(p, "library"));
    int rc = -1;
    if (lib)
        snprintf(library, nl, "%s", lib);
    if (sha) {
        snprintf(buf, n, "SHA-256 %s", sha);
        rc = 0;
    } else if (json_is_integer(size)) {
        snprintf(buf, n, "size %lld bytes (no SHA-256: built without libcrypto)",
                 (long long)json_integer_value(size));
        rc = 0;
    }
    json_decref(r);
    return rc;
}

/* Every plugin library of e must be the file the run's stored measurements
 * were taken with (their adapter_env record): a library rebuilt or replaced
 * between a killed run and its resume would mix two builds in one run.
 * 0, or -1 after one message naming the file and both hashes. */
static int plugins_unchanged(sqlite3 *db, long long run, const ab_experiment *e)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT adapter_env FROM measurements WHERE run_id = ?1 AND "
                               "variant = ?2 AND adapter_env LIKE '{\"plugin\"%' LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
        return error("resume: run %lld: reading its plugin records: %s", run, sqlite3_errmsg(db));
    int rc = 0;
    for (size_t i = 0; i < e->nvariants && rc == 0; i++) {
        const ab_exp_variant *v = &e->variants[i];
        if (!v->library || !v->plugin_record)
            continue; /* not a plugin, or one that no longer loads (stored as an error) */
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, run);
        sqlite3_bind_text(st, 2, v->name, -1, SQLITE_TRANSIENT);
        int step = sqlite3_step(st);
        if (step == SQLITE_DONE)
            continue; /* nothing of it stored yet */
        if (step != SQLITE_ROW) {
            rc = error("resume: run %lld: reading its plugin records: %s", run, sqlite3_errmsg(db));
            break;
        }
        char was[160], now[160], lib_was[4096] = "", lib_now[4096] = "";
        const char *stored = (const char *)sqlite3_column_text(st, 0);
        if (record_identity(stored, lib_was, sizeof lib_was, was, sizeof was) ||
            record_identity(v->plugin_record, lib_now, sizeof lib_now, now, sizeof now))
            continue; /* nothing to compare with */
        if (strcmp(was, now) != 0)
            rc = error("resume: run %lld: plugin library %s of variant '%s' changed since the "
                       "run measured it: %s then, %s now; resuming would mix two builds in one "
                       "run (restore the library, or start a new run)",
                       run, lib_now, v->name, was, now);
    }
    sqlite3_finalize(st);
    return rc;
}

int cmd_resume(int argc, char **argv)
{
    const char *run_s = NULL, *db_flag = NULL, *v;
    int missing = 0, force = 0;
    for (int i = 1; i < argc; i++) {
        if ((v = ab_opt(argc, argv, &i, "--db", &missing)))
            db_flag = v;
        else if (missing)
            return ab_usage("resume: --db needs a path");
        else if (strcmp(argv[i], "--force") == 0)
            force = 1;
        else if (argv[i][0] == '-' || run_s)
            return ab_usage("resume: unexpected argument '%s' (attnbench help resume)", argv[i]);
        else
            run_s = argv[i];
    }
    long long run = 0;
    if (!run_s || ab_parse_count(run_s, 1, INT64_MAX, &run))
        return ab_usage("resume: RUN must be a run id, not '%s' (attnbench runs lists them)",
                        run_s ? run_s : "");

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
    char *stored_settings = ab_run_settings_text(db, run);
    int stored_k = ab_exp_stored_instances(stored_settings); /* the instances it ran with */
    free(stored_settings);
    if (ab_experiment_parse_k(row.exp_path, row.definition, 2, stored_k, &e, err, sizeof err) ||
        ab_experiment_validate(&e, err, sizeof err)) {
        error("resume: run %lld: %s", run, err);
        goto done;
    }
    if (plugins_unchanged(db, run, &e))
        goto done;
    ab_runenv_budget_restore(db, run, &e); /* the budget it ran with (a --min-time too) */
    { /* a run of one part resumes that part only (shard.h) */
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
