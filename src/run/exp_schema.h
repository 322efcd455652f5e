/*
 * exp_schema.h: the keys an experiment file may hold, group by group, and
 * the check that refuses any other key with the nearest known one
 * (exp_schema.c). A new experiment setting is added to the list of its group
 * here and parsed in experiment.c.
 */
#ifndef ATTNBENCH_EXP_SCHEMA_H
#define ATTNBENCH_EXP_SCHEMA_H

#include <libconfig.h>
#include <stddef.h>

/* NULL-terminated key lists: the top level, a sweep or configs group, the
 * stopping group, a variant group. */
extern const char *const ab_exp_root_keys[];
extern const char *const ab_exp_axis_keys[];
extern const char *const ab_exp_stopping_keys[];
extern const char *const ab_exp_variant_keys[];

/* Levenshtein distance between a and b, letters compared case-blind;
 * (size_t)-1 when either is longer than 63 bytes. */
size_t ab_edit_distance(const char *a, const char *b);

/* The known key nearest to key (at most 1 edit for keys shorter than 4
 * bytes, else 2), or NULL when none is that near. */
const char *ab_nearest_key(const char *key, const char *const *known);

/* Refuses the first member of group that is not in known: -1 with
 * "unknown key 'sample' at e.cfg:3; did you mean 'samples'?" (or the list of
 * known keys) in err; `where` is inserted after the key (" in sweep", or "").
 * Returns 0 when every member is known. */
int ab_exp_check_keys(const config_setting_t *group, const char *const *known, const char *where,
                      const char *path, char *err, size_t n);

#endif
