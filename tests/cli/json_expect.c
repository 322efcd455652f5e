/*
 * json_expect.c: checks a JSON document against expected "dotted.key value"
 * lines (blank lines and # comments skipped): numbers to 1e-6 relative
 * (absolute near zero), true/false and strings exactly. Used by the CLI tests
 * to compare `attnbench stats --json` with values computed by scipy.
 * Usage: json_expect FILE.json EXPECTED.txt
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *lookup(json_t *root, char *key)
{
    json_t *j = root;
    for (char *part = strtok(key, "."); part && j; part = strtok(NULL, "."))
        j = json_object_get(j, part);
    return j;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: json_expect FILE.json EXPECTED.txt\n");
        return 2;
    }
    json_error_t jerr;
    json_t *root = json_load_file(argv[1], 0, &jerr);
    FILE *f = fopen(argv[2], "r");
    if (!root || !f) {
        fprintf(stderr, "json_expect: cannot read %s: %s\n", root ? argv[2] : argv[1],
                root ? "" : jerr.text);
        return 2;
    }
    char line[512];
    int bad = 0, checked = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char key[256], val[256];
        if (line[0] == '#' || sscanf(line, "%255s %255s", key, val) != 2)
            continue;
        char keycopy[256];
        snprintf(keycopy, sizeof keycopy, "%s", key);
        json_t *j = lookup(root, keycopy);
        int ok;
        if (!j)
            ok = 0;
        else if (strcmp(val, "true") == 0 || strcmp(val, "false") == 0)
            ok = json_is_boolean(j) && json_is_true(j) == (strcmp(val, "true") == 0);
        else if (json_is_number(j)) {
            double want = strtod(val, NULL), got = json_number_value(j);
            ok = fabs(got - want) <= 1e-6 * fmax(fabs(want), 1e-12) || fabs(got - want) < 1e-15;
        } else
            ok = json_is_string(j) && strcmp(json_string_value(j), val) == 0;
        if (!ok) {
            char *got = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
            fprintf(stderr, "%s:%d: %s: expected %s, got %s\n", argv[2], lineno, key, val,
                    got ? got : "(missing)");
            free(got);
            bad++;
        }
        checked++;
    }
    fclose(f);
    json_decref(root);
    printf("json_expect: %d values checked, %d differ\n", checked, bad);
    return bad || !checked ? 1 : 0;
}
