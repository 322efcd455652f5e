/*
 * claims.h: the claims of an experiment's `expect` list: each a variant,
 * the variant it is compared with (`than`, the baseline by default) and
 * the verdict claimed. Parsed from the experiment's text with libconfig;
 * the run's analysis adds the comparisons they need to its family
 * (run_analysis.c), and the conclusion judges them.
 */
#ifndef ATTNBENCH_CLAIMS_H
#define ATTNBENCH_CLAIMS_H

#include "abstats.h"
#include "experiment.h"

#include <libconfig.h>
#include <stddef.h>

typedef struct ab_claim {
    const char *variant, *than; /* into the parsed config (valid while it lives) */
    ab_verdict verdict;
} ab_claim;

/* 1 when measurement variant v is the one a claim names (with
 * `instances`, one of its instances name#k). */
int ab_claim_names(const ab_experiment *e, const char *v, const char *name);

/* Parses e->text into cfg and its `expect` list into claims (malloc'd, *nc
 * entries; none when the experiment has no `expect`). Returns 0 or -1 with
 * err (n bytes): "PATH:LINE: expect: ...". cfg must be destroyed by the
 * caller either way. */
int ab_claims_load(const ab_experiment *e, config_t *cfg, ab_claim **out, size_t *nc, char *err,
                   size_t n);

/* Checks the experiment's `expect` list: 0, or -1 with err (n bytes). */
int ab_expect_check(const ab_experiment *e, char *err, size_t n);

/* Calls fn(arg, variant, than) for each claim of e's `expect` whose `than`
 * is not the baseline. Returns 0, or -1 (an unparsable list: none). */
int ab_expect_pairs(const ab_experiment *e, void (*fn)(void *, const char *, const char *),
                    void *arg);

#endif
