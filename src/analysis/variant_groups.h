/*
 * variant_groups.h: a run's measurements as the variants a user names
 * (variant_groups.c). A variant measured as k instances is stored as k
 * measurements V#1..V#k per configuration (src/run/experiment.h,
 * `instances`); every command that names or matches a variant (`compare`,
 * `history`, `show`) takes them together as V, so that a run with
 * instances lines up with a run without them (V alone). Each group is one
 * (variant, configuration) with its measurements in instance order.
 */
#ifndef ATTNBENCH_ANALYSIS_VARIANT_GROUPS_H
#define ATTNBENCH_ANALYSIS_VARIANT_GROUPS_H

#include "instances.h"
#include "rundata.h"

#include <stddef.h>

/* The length of the variant's name in a stored measurement's variant:
 * that of V in an instance "V#k" (k decimal digits), else the whole name. */
size_t ab_variant_name_len(const char *stored);

typedef struct ab_variant_group {
    char variant[64];  /* V, as the user names it */
    ab_rmeas **m;      /* its measurements m[0..k): V alone, or V#1..V#k by k */
    size_t k;
    int instances;     /* 1: the measurements are instances V#k (even if k = 1) */
} ab_variant_group;

/* Groups m[0..n) (one run's, db/rundata.h) by variant name and
 * configuration (ab_rmeas_same_config), groups in order of first
 * appearance. Returns 0 with *out (malloc'd, free with
 * ab_variant_groups_free) and *nout, or -1 out of memory. The groups point
 * into m. */
int ab_variant_groups(ab_rmeas *m, size_t n, ab_variant_group **out, size_t *nout);
void ab_variant_groups_free(ab_variant_group *g, size_t n);

/* The group of g[0..n) with variant name v and x's configuration, or NULL. */
ab_variant_group *ab_variant_group_find(ab_variant_group *g, size_t n, const char *v,
                                        const ab_rmeas *x);

/* The first measurement of g whose status is not "ok", or NULL. */
const ab_rmeas *ab_variant_group_failed(const ab_variant_group *g);

/* The fewest samples among g's measurements. */
size_t ab_variant_group_min_n(const ab_variant_group *g);

/* g's measurements as instance samples into s[0..g->k) (shallow). */
void ab_variant_group_samples(const ab_variant_group *g, ab_instance_sample *s);

#endif
