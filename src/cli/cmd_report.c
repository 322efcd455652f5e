/*
 * cmd_report.c: `attnbench report RUN [--baseline V] [--chain] [--by-clock] [--json]
 * [-o FILE]`.
 */
#include "commands.h"
#include "outfile.h"
#include "read.h"
#include "report.h"
#include "store.h"
#include "util.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* reports/<experiment name>-run<RUN>.<ext>. A stored name (an imported
 * run, a database older than the name rules of experiment.c) may hold what
 * a file name must not: '/' (a path out of reports/) and control bytes
 * become '_', an empty name "experiment", and it is cut at 200 bytes. */
static int default_path(sqlite3 *db, long long run, const char *ext, char *buf, size_t n)
{
    char err[AB_ERR], name[1024];
    int found = ab_run_experiment_name(db, run, name, sizeof name, err);
    if (found < 0)
        return error("%s", err);
    if (found > 0)
        return error("report: no run %lld in the database (attnbench runs lists them)", run);
    for (char *c = name; *c; c++)
        if (*c == '/' || (unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '_';
    snprintf(buf, n, "reports/%.200s-run%lld.%s", name[0] ? name : "experiment", run, ext);
    return 0;
}

int cmd_report(int argc, char **argv)
{
    const char *run_s = NULL, *db_flag = NULL, *outpath = NULL, *v;
    ab_report_opts o = {0};
    int missing = 0;
    for (int i = 1; i < argc; i++) {
        if ((v = ab_opt(argc, argv, &i, "--db", &missing)))
            db_flag = v;
        else if ((v = ab_opt(argc, argv, &i, "--baseline", &missing)))
            o.baseline = v;
        else if ((v = ab_opt(argc, argv, &i, "-o", &missing)))
            outpath = v;
        else if (missing)
            return ab_usage("report: %s needs a value", argv[i]);
        else if (strcmp(argv[i], "--chain") == 0)
            o.chain = 1;
        else if (strcmp(argv[i], "--no-plots") == 0)
            o.plots = -1;
        else if (strcmp(argv[i], "--json") == 0)
            o.json = 1;
        else if (strcmp(argv[i], "--by-clock") == 0)
            o.by_clock = 1;
        else if (argv[i][0] == '-')
            return ab_usage("report: unknown option '%s' (attnbench help report)", argv[i]);
        else if (!run_s)
            run_s = argv[i];
        else
            return ab_usage("report: one run at a time ('%s' is extra)", argv[i]);
    }
    long long run = 0;
    if (!run_s || ab_parse_count(run_s, 1, INT64_MAX, &run))
        return ab_usage("report: RUN must be a run id, not '%s' (attnbench runs lists them)",
                        run_s ? run_s : "");

    char err[AB_ERR], pathbuf[512];
    sqlite3 *db = NULL;
    const char *db_path = ab_db_path(db_flag);
    if (!(db = ab_cmd_open_db(db_path, 1)))
        return 1;
    const char *slash = strrchr(db_path, '/');
    char label[300];
    snprintf(label, sizeof label, "`%s`", slash ? slash + 1 : db_path);
    o.db_label = label;
    if (!outpath) {
        if (default_path(db, run, o.json ? "json" : "md", pathbuf, sizeof pathbuf)) {
            ab_db_close(db);
            return 1;
        }
        if (mkdir("reports", 0777) != 0 && errno != EEXIST) {
            /* the real cause (an unwritable working directory), not the
             * "No such file" of the report file that follows */
            error("report: cannot create the directory reports/ for %s: %s (pass -o FILE)",
                  pathbuf, strerror(errno));
            ab_db_close(db);
            return 1;
        }
        outpath = pathbuf;
    }
    o.plots = o.plots == 0 && !o.json; /* on unless --no-plots or --json */
    o.path = outpath;
    /* written beside the target and renamed on success: a failed report
     * leaves whatever was at outpath untouched */
    ab_outfile of;
    if (ab_out_open(&of, outpath, db_path)) {
        ab_db_close(db);
        return 1;
    }
    /* load once (db/), analyse once (src/analysis/), write (src/report/) */
    ab_run_record rec;
    ab_run_analysis an;
    const ab_analysis_opts ao = {o.baseline, o.chain, o.by_clock};
    int rc = ab_run_record_load(db, run, &rec);
    if (rc == 0)
        rc = ab_run_analyse(&rec, &ao, &an);
    else
        memset(&an, 0, sizeof an);
    if (rc == 0)
        rc = ab_report_write(&rec, &an, &o, of.f);
    ab_run_analysis_free(&an);
    ab_run_record_free(&rec);
    if (rc == 0 && ab_db_damage(err))
        rc = error("%s; no report written", err); /* not a report of part of the data */
    if (rc == 0)
        rc = ab_out_commit(&of);
    else
        ab_out_abort(&of);
    ab_db_close(db);
    if (rc)
        return 1;
    if (strcmp(outpath, "-") != 0)
        printf("%s\n", outpath);
    return 0;
}
