/*
 * cmd_info.c: the commands that describe rather than measure:
 * `attnbench variants`, `attnbench env` (`runs` is in cmd_runs.c).
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
