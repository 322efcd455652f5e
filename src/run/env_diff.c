/*
 * env_diff.c: the environment fields that differ between two runs, printed
 * for people (`attnbench compare`, `attnbench history`): the field names
 * come from ab_env_diff (env.c), each shown with both values.
 */
#include "env_diff.h"
#include "env.h"

#include <stdlib.h>
#include <string.h>

/* the value of a dotted path ("gpu.driver") as compact JSON text */
static char *path_value(json_t *fp, const char *path)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *x = fp;
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && x; k = strtok_r(NULL, ".", &save))
        x = json_is_object(x) ? json_object_get(x, k) : NULL;
    return x ? json_dumps(x, JSON_ENCODE_ANY | JSON_COMPACT) : strdup("(absent)");
}

/* Prints the environment fields that differ between two runs' fingerprints,
 * one per line with both values. */
void ab_print_env_diff(FILE *out, json_t *fa, json_t *fb, const char *indent)
{
    char diff[8192];
    if (!fa || !fb) {
        fprintf(out, "%s(a fingerprint is unreadable)\n", indent);
        return;
    }
    ab_env_diff(fa, fb, diff, sizeof diff);
    if (!*diff) {
        fprintf(out, "%sidentical environments\n", indent);
        return;
    }
    char *save = NULL;
    for (char *f = strtok_r(diff, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        while (*f == ' ')
            f++;
        char *va = path_value(fa, f), *vb = path_value(fb, f);
        fprintf(out, "%s%s: %s -> %s\n", indent, f, va ? va : "?", vb ? vb : "?");
        free(va);
        free(vb);
    }
}
