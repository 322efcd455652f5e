/*
 * cmd_info.c: the commands that describe rather than measure:
 * `attnbench variants`, `attnbench runs`, `attnbench env`.
 */
#include "commands.h"
#include "env.h"
#include "registry.h"
#include "store.h"
#include "util.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_variants(int argc, char **argv)
{
    if (argc > 1)
        return error("variants: takes no arguments") ? 2 : 2;
    printf("%-20s %-8s %-15s %-8s %s\n", "name", "backend", "dtypes", "D", "idea");
    for (size_t i = 0; i < ab_variant_count(); i++) {
        const ab_variant *v = ab_variant_at(i);
        char dt[32], dims[64];
        printf("%-20s %-8s %-15s %-8s %s\n", v->name, v->backend,
               ab_variant_dtypes_str(v, dt, sizeof dt), ab_variant_dims_str(v, dims, sizeof dims),
               v->idea);
        if (v->unavailable)
            printf("%-20s   (%s)\n", "", v->unavailable);
    }
    return 0;
}

int cmd_runs(int argc, char **argv)
{
    const char *db_flag = NULL, *v;
    int missing;
    for (int i = 1; i < argc; i++) {
        if ((v = ab_opt(argc, argv, &i, "--db", &missing)))
            db_flag = v;
        else
            return error("runs: %s '%s' (attnbench help runs)",
                         missing ? "missing value for" : "unknown argument", argv[i]) ? 2 : 2;
    }
    char err[AB_ERR];
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    if (ab_db_open(ab_db_path(db_flag), 1, &db, err)) {
        error("%s", err);
        return 1;
    }
    if (ab_db_prepare(db,
                      "SELECT r.id, x.name, r.started_at, "
                      "coalesce(json_extract(v.fingerprint, '$.gpu.name'), 'CPU only'), r.status, "
                      "(SELECT count(*) FROM measurements m WHERE m.run_id = r.id), "
                      "(SELECT count(*) FROM measurements m WHERE m.run_id = r.id AND m.status != 'ok') "
                      "FROM runs r JOIN experiments x ON x.id = r.experiment_id "
                      "JOIN environments v ON v.id = r.environment_id ORDER BY r.id",
                      &st, err)) {
        ab_db_close(db);
        error("%s", err);
        return 1;
    }
    printf("%5s  %-28s %-20s  %-26s %-11s %s\n", "id", "experiment", "started (UTC)", "GPU",
           "status", "measurements");
    while (sqlite3_step(st) == SQLITE_ROW) {
        long long bad = sqlite3_column_int64(st, 6);
        printf("%5lld  %-28s %-20s  %-26s %-11s %lld", (long long)sqlite3_column_int64(st, 0),
               sqlite3_column_text(st, 1), sqlite3_column_text(st, 2), sqlite3_column_text(st, 3),
               sqlite3_column_text(st, 4), (long long)sqlite3_column_int64(st, 5));
        if (bad)
            printf(" (%lld not ok)", bad);
        printf("\n");
    }
    sqlite3_finalize(st);
    ab_db_close(db);
    return 0;
}

int cmd_env(int argc, char **argv)
{
    int gpu = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-gpu") == 0)
            gpu = 0;
        else
            return error("env: unknown argument '%s' (attnbench help env)", argv[i]) ? 2 : 2;
    }
    json_t *fp = ab_env_fingerprint(gpu, NULL);
    char *text = NULL, hash[17];
    if (!fp || ab_env_canonical(fp, &text, hash)) {
        json_decref(fp);
        return error("env: out of memory") ? 1 : 1;
    }
    json_object_set_new(fp, "hash", json_string(hash));
    char *pretty = json_dumps(fp, JSON_SORT_KEYS | JSON_INDENT(2));
    printf("%s\n", pretty ? pretty : text);
    free(pretty);
    free(text);
    json_decref(fp);
    return 0;
}
