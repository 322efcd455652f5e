/*
 * cmd_import.c: `attnbench import FILE` (a JSON export, cmd_export.c) and
 * `attnbench merge OTHER.db` (SQLite ATTACH): argument parsing and the
 * summary line around the transfer library (db/transfer.h).
 */
#include "commands.h"
#include "experiment.h"
#include "import_check.h"
#include "outfile.h"
#include "store.h"
#include "transfer.h"
#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The largest export import reads (the file, or what comes on stdin). */
#define AB_IMPORT_MAX_BYTES (4ull << 30)

/* A stream read by jansson up to AB_IMPORT_MAX_BYTES (then an error). */
typedef struct capped_input {
    FILE *f;
    unsigned long long got;
} capped_input;

static size_t read_capped(void *buf, size_t len, void *arg)
{
    capped_input *in = arg;
    if (in->got > AB_IMPORT_MAX_BYTES)
        return (size_t)-1;
    size_t r = fread(buf, 1, len, in->f);
    in->got += r;
    if (in->got > AB_IMPORT_MAX_BYTES || (r == 0 && ferror(in->f)))
        return (size_t)-1;
    return r;
}

int cmd_import(int argc, char **argv)
{
    const char *db_flag = NULL, *file = NULL, *v;
    int missing = 0;
    for (int i = 1; i < argc; i++) {
        if ((v = ab_opt(argc, argv, &i, "--db", &missing)))
            db_flag = v;
        else if (missing || (argv[i][0] == '-' && argv[i][1]) || file)
            return ab_usage("import: %s '%s' (attnbench help import)",
                         missing ? "missing value for" : "unexpected argument", argv[i]);
        else
            file = argv[i];
    }
    if (!file)
        return ab_usage("import: which file? (a JSON export: attnbench export RUN -o FILE)");
    json_error_t jerr;
    char why[600];
    capped_input in = {strcmp(file, "-") == 0 ? stdin : NULL, 0};
    if (!in.f && !(in.f = ab_open_regular(file, AB_IMPORT_MAX_BYTES, why, sizeof why)))
        return error("import: %s", why) ? 1 : 1;
    /* a key given twice (two "runs" arrays) is refused, not resolved by
     * keeping the last one */
    json_t *doc = json_load_callback(read_capped, &in, JSON_REJECT_DUPLICATES, &jerr);
    if (in.f != stdin)
        fclose(in.f);
    if (!doc && in.got > AB_IMPORT_MAX_BYTES)
        return error("import: %s: larger than %llu bytes; nothing imported", file,
                     (unsigned long long)AB_IMPORT_MAX_BYTES) ? 1 : 1;
    if (!doc)
        return error("import: %s:%d: %s", file, jerr.line, jerr.text) ? 1 : 1;
    json_t *runs = json_object_get(doc, "runs");
    json_int_t version = json_integer_value(json_object_get(doc, "attnbench_export"));
    if (version != AB_EXPORT_VERSION || !json_is_array(runs)) {
        json_decref(doc);
        return error("import: %s is not an attnbench export (version %d with a \"runs\" array)",
                     file, AB_EXPORT_VERSION) ? 1 : 1;
    }
    char err[AB_ERR];
    /* every field checked as a run would store it, before the database is
     * even opened: a bad file imports nothing */
    if (ab_import_check(doc, err, sizeof err)) {
        json_decref(doc);
        return error("import: %s: %s; nothing imported", file, err) ? 1 : 1;
    }
    /* each run's experiment is read again by report and resume: it must
     * parse as a stored experiment does (variants this build lacks allowed) */
    size_t ri;
    json_t *r;
    json_array_foreach(runs, ri, r) {
        const json_t *x = json_object_get(r, "experiment");
        ab_experiment e;
        char why[AB_ERR];
        if (ab_experiment_parse(json_string_value(json_object_get(x, "path")),
                                json_string_value(json_object_get(x, "definition")), 0, &e, why,
                                sizeof why)) {
            json_decref(doc);
            return error("import: %s: runs[%zu].experiment.definition does not parse (%s); "
                         "nothing imported",
                         file, ri, why) ? 1 : 1;
        }
        ab_experiment_free(&e);
    }
    sqlite3 *db = NULL;
    if (ab_db_open(ab_db_path(db_flag), 0, &db, err)) {
        json_decref(doc);
        error("%s", err);
        return 1;
    }
    size_t added = 0, present = 0;
    int rc = ab_import_doc(db, doc, file, &added, &present) ? 1 : 0;
    if (rc == 0)
        printf("imported %zu run%s, %zu already present\n", added, added == 1 ? "" : "s",
               present);
    ab_db_close(db);
    json_decref(doc);
    return rc;
}

int cmd_merge(int argc, char **argv)
{
    const char *db_flag = NULL, *other = NULL, *v;
    int missing = 0;
    for (int i = 1; i < argc; i++) {
        if ((v = ab_opt(argc, argv, &i, "--db", &missing)))
            db_flag = v;
        else if (missing || argv[i][0] == '-' || other)
            return ab_usage("merge: %s '%s' (attnbench help merge)",
                         missing ? "missing value for" : "unexpected argument", argv[i]);
        else
            other = argv[i];
    }
    if (!other)
        return ab_usage("merge: which database? (attnbench merge OTHER.db)");
    /* before the database is opened (and created): OTHER must be an SQLite
     * file, and not the database itself, whose write lock the merge holds
     * while it reads OTHER */
    const char *db_path = ab_db_path(db_flag);
    struct stat so, sd;
    if (stat(other, &so) != 0)
        return error("merge: cannot read %s: %s", other, strerror(errno)) ? 1 : 1;
    if (stat(db_path, &sd) == 0 && so.st_dev == sd.st_dev && so.st_ino == sd.st_ino)
        return error("merge: %s is the database itself (--db %s): nothing to merge", other,
                     db_path) ? 1 : 1;
    if (!ab_is_sqlite_file(other))
        return error("merge: %s is not an SQLite database (an attnbench database to merge)",
                     other) ? 1 : 1;
    sqlite3 *db = NULL;
    if (!(db = ab_cmd_open_db(db_path, 0)))
        return 1;
    ab_merge_counts c;
    int rc = ab_merge_db(db, other, &c) ? 1 : 0;
    if (rc == 0 || c.runs_added) { /* after an error, what was merged before it */
        printf("merged %ld run%s, %ld already present", c.runs_added,
               c.runs_added == 1 ? "" : "s", c.runs_present);
        if (c.runs_unfinished)
            printf(" (%ld unfinished, merged as they are)", c.runs_unfinished);
        if (c.runs_skipped_running)
            printf(", %ld still running (skipped)", c.runs_skipped_running);
        printf("\n");
    }
    ab_db_close(db);
    return rc;
}
