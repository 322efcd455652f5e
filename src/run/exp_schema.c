/*
 * exp_schema.c: the strict schema of experiment files (exp_schema.h): the
 * keys each group may hold, and for a key that is none of them the nearest
 * known key by edit distance, so that `sample = 3;` is refused with "did you
 * mean 'samples'?" instead of silently running the default 100 samples.
 */
#include "exp_schema.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

const char *const ab_exp_root_keys[] = {
    "name",     "hypothesis", "variants", "baseline", "sweep", "configs",
    "warmup",   "samples",    "round_size", "timing", "seed",  "stopping",
    "alpha",    "practical",  "graph_k",  "skip_unsupported", "threads",
    "expect",   "stabilise", "min_time", "max_time", "max_samples", "instances",
    "warmup_time", NULL};
const char *const ab_exp_axis_keys[] = {"B", "H", "S", "D", "causal", "dtype", "H_kv", "S_kv", "pass", NULL};
const char *const ab_exp_stopping_keys[] = {"target_rel_ci", "min_samples", "max_samples",
                                            "budget_s", NULL};
const char *const ab_exp_variant_keys[] = {"name", "command", "variant", "timing", "timeout",
                                           "protocol", "library", "ipc", "layout", NULL};

size_t ab_edit_distance(const char *a, const char *b)
{
    /* Levenshtein (1966) by the two-row dynamic programme (Wagner and
     * Fischer 1974), letters compared without case so that "d" is 0 away
     * from "D" plus nothing else; names longer than 63 bytes are "far". */
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return (size_t)-1;
    size_t prev[64], cur[64];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (tolower((unsigned char)a[i - 1]) !=
                                        tolower((unsigned char)b[j - 1]));
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (lb + 1) * sizeof *prev);
    }
    return prev[lb];
}

const char *ab_nearest_key(const char *key, const char *const *known)
{
    const char *best = NULL;
    size_t bestd = (size_t)-1, len = strlen(key);
    /* at most 2 edits, and fewer than half the key: "Dd" -> "D", not "x" -> "B" */
    size_t limit = len < 4 ? 1 : 2;
    for (; *known; known++) {
        size_t d = ab_edit_distance(key, *known);
        if (d <= limit && d < bestd) {
            bestd = d;
            best = *known;
        }
    }
    return best;
}

int ab_exp_check_keys(const config_setting_t *group, const char *const *known, const char *where,
                      const char *path, char *err, size_t n)
{
    int len = config_setting_length(group);
    for (int i = 0; i < len; i++) {
        const config_setting_t *s = config_setting_get_elem(group, (unsigned)i);
        const char *key = config_setting_name(s);
        if (!key)
            continue;
        int ok = 0;
        for (const char *const *k = known; *k && !ok; k++)
            ok = strcmp(*k, key) == 0;
        if (ok)
            continue;
        const char *near = ab_nearest_key(key, known);
        int line = config_setting_source_line(s);
        char at[64] = "";
        if (line > 0)
            snprintf(at, sizeof at, ":%d", line);
        if (near)
            snprintf(err, n, "unknown key '%.64s'%s at %s%s; did you mean '%s'?", key, where,
                     path, at, near);
        else {
            size_t off = (size_t)snprintf(err, n, "unknown key '%.64s'%s at %s%s; known keys:",
                                          key, where, path, at);
            for (const char *const *k = known; *k && off < n; k++)
                off += (size_t)snprintf(err + off, n - off, " %s", *k);
        }
        return -1;
    }
    return 0;
}
