/*
 * cmd_export.c: `attnbench export RUN... --format json|csv [-o FILE]`.
 *
 * JSON (jansson): {"attnbench_export": 1, "schema_version": N, "runs": [...]},
 * one object per run: its own columns (uuid, times, status, command, ...),
 * "experiment" (name, path, definition text, hash), "environment" (hash and
 * the fingerprint object), "timer_floor" rows and "measurements", each with
 * its columns, "samples" and "clock_blocks" rows. Database ids are left out:
 * a run is identified by its uuid, environments and experiments by their
 * hashes, so `attnbench import` can remap everything. Column sets are read
 * from the database (SELECT *), so new columns travel without code changes.
 * Reals are written with 17 significant digits: an export/import round trip
 * keeps every sample bit for bit.
 *
 * CSV (RFC 4180): one row per sample: run_uuid, experiment, variant, B, H,
 * S, D, causal, dtype, status, idx, ms, round, t_s, throttled.
 */
#include "commands.h"
#include "import_check.h"
#include "outfile.h"
#include "rundata.h"
#include "store.h"
#include "transfer.h"
#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_export(int argc, char **argv)
{
    const char *db_flag = NULL, *format = "json", *outpath = "-", *v;
    const char **run_args = calloc(argc, sizeof *run_args);
    int missing = 0, nruns = 0, rc = 1;
    if (!run_args)
        return error("out of memory") ? 1 : 1;
    for (int i = 1; i < argc; i++) {
        if ((v = ab_opt(argc, argv, &i, "--db", &missing)))
            db_flag = v;
        else if ((v = ab_opt(argc, argv, &i, "--format", &missing)))
            format = v;
        else if ((v = ab_opt(argc, argv, &i, "-o", &missing)))
            outpath = v;
        else if (missing || argv[i][0] == '-') {
            error("export: %s '%s' (attnbench help export)",
                  missing ? "missing value for" : "unknown option", argv[i]);
            free(run_args);
            return 2;
        } else
            run_args[nruns++] = argv[i];
    }
    if (strcmp(format, "json") != 0 && strcmp(format, "csv") != 0) {
        free(run_args);
        return ab_usage("export: --format is json or csv, not '%s'", format);
    }
    if (nruns == 0) {
        free(run_args);
        return ab_usage("export: which runs? (attnbench runs lists them)");
    }
    char err[AB_ERR];
    sqlite3 *db = NULL;
    long long *ids = calloc(nruns, sizeof *ids);
    json_t *doc = NULL;
    FILE *out = NULL;
    ab_outfile of = {0};
    if (!ids || ab_db_open(ab_db_path(db_flag), 1, &db, err)) {
        error("%s", ids ? err : "out of memory");
        goto done;
    }
    for (int k = 0; k < nruns; k++)
        if (ab_run_resolve(db, run_args[k], &ids[k]))
            goto done;
    if (strcmp(format, "json") == 0) {
        json_t *arr = json_array();
        doc = json_pack("{s:i, s:i, s:o}", "attnbench_export", AB_EXPORT_VERSION,
                        "schema_version", ab_db_schema_version(), "runs", arr);
        for (int k = 0; k < nruns; k++) {
            json_t *r = ab_export_run(db, ids[k]);
            if (!r)
                goto done;
            json_array_append_new(arr, r);
        }
        /* what export writes, import accepts: a database edited or damaged
         * into values no run stores (a sample of -1 ms) is refused here with
         * import's own message, not written into a file import refuses */
        char why[AB_ERR];
        if (ab_import_check(doc, why, sizeof why)) {
            error("export: %s: %s (a damaged or edited database); nothing exported",
                  ab_db_path(db_flag), why);
            goto done;
        }
    }
    /* a temporary file beside the target, renamed on success; never the
     * database or another SQLite file */
    if (ab_out_open(&of, outpath, ab_db_path(db_flag)))
        goto done;
    out = of.f;
    if (doc) {
        if (json_dumpf(doc, out, JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(17)) ||
            fputc('\n', out) == EOF) {
            error("export: writing %s failed: %s",
                  strcmp(outpath, "-") == 0 ? "standard output" : outpath, strerror(errno));
            goto done;
        }
    } else if (ab_export_csv(db, ids, nruns, out)) {
        goto done;
    }
    if (ab_db_damage(err)) {
        error("%s; nothing exported", err);
        goto done;
    }
    rc = ab_out_commit(&of) ? 1 : 0;
done:
    if (rc)
        ab_out_abort(&of);
    json_decref(doc);
    free(ids);
    free(run_args);
    ab_db_close(db);
    return rc;
}
