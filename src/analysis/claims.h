/*
 * claims.h: the claims of an experiment's `expect` list: each a variant,
 * the variant it is compared with (`than`, the baseline by default), the
 * verdict claimed and/or the speedup predicted (`speedup = [lo, hi]`, the
 * reference's time over the variant's). Parsed from the experiment's text with libconfig;
 * the run's analysis adds the comparisons they need to its family
 * (run_analysis.c) and judges them from its verdicts (ab_judge_all), which
 * src/report/conclusion.c writes.
 *
 * The hypothesis is free text; what is judged is a list of claims, one per
 * part (a pair of variants: a variant and its reference, the baseline or,
 * with --chain, the rung before it), each the verdict expected in every
 * configuration. Two instances of one built-in variant in one timing mode
 * (an A/A test, `attnbench calibrate`) are claimed no different without
 * being told. No other claim is guessed: a part without one is "not
 * judged" and its verdicts are summarised. A part held when every
 * configuration's verdict is the claimed one, did not hold when any verdict
 * contradicts it (the opposite direction, or any difference where none was
 * claimed), and is inconclusive otherwise (no significant difference, or
 * no comparison, somewhere). A predicted speedup is judged from the
 * comparisons' estimates and 95% CIs: held when every configuration's
 * estimate lies in [lo, hi], did not hold when some configuration's CI lies
 * wholly outside it, inconclusive otherwise; a part with both a verdict and
 * a range takes the worse of the two outcomes. A claim with `where = { D =
 * 128; causal = false; pass = "bwd"; }` covers only the configurations
 * whose axes (B, H, H_kv, S, S_kv, D, causal, dtype, pass) have those
 * values: one pair may then have several claims (a predicted range per
 * head dimension, say), each judged as a part of its own, named with its
 * `where` (a configuration's claim is the pair's first, in the list's
 * order, that covers it); configurations no claim of the pair covers form
 * a part without a claim.
 */
#ifndef ATTNBENCH_CLAIMS_H
#define ATTNBENCH_CLAIMS_H

#include "abstats.h"
#include "experiment.h"
#include "rundata.h"
#include "spread.h"

#include <libconfig.h>
#include <stddef.h>

/* One condition of a claim's `where`: an axis and its value. */
typedef struct ab_claim_cond {
    int axis;        /* 0..8: B, H, H_kv, S, S_kv, D, causal, dtype, pass */
    long long value; /* numeric axes and causal (0, 1) */
    const char *str; /* dtype, pass: into the parsed config */
} ab_claim_cond;

enum { AB_CLAIM_MAX_WHERE = 9 };

typedef struct ab_claim {
    const char *variant, *than; /* into the parsed config (valid while it lives) */
    int has_verdict;            /* 0: a speedup range alone */
    ab_verdict verdict;
    int has_range;              /* `speedup = [lo, hi]` given */
    double lo, hi;              /* predicted speedup of variant over than (0 < lo <= hi) */
    size_t nwhere;              /* conditions of `where` (0: every configuration) */
    ab_claim_cond where[AB_CLAIM_MAX_WHERE];
    char where_text[160]; /* "D = 128, causal = false" as given; "" without `where` */
} ab_claim;

/* 1 when claim c covers measurement m's configuration (every condition of
 * its `where` holds; always without one). */
int ab_claim_covers(const ab_claim *c, const ab_rmeas *m);

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

/* One comparison of the report: `variant` against `reference` in one
 * configuration, with the verdict the report printed for it. */
typedef struct ab_outcome {
    const ab_rmeas *variant, *reference;
    int computed;       /* 0: not compared (a side failed or has < 2 samples) */
    ab_verdict verdict; /* after the family correction and the A/A resolution */
    double speedup, lo, hi; /* the estimate and its 95% CI (computed only) */
} ab_outcome;

/* Where a part's claim comes from. */
enum { AB_NO_CLAIM, AB_STATED, AB_AA_TEST };
/* A part's outcome (ab_part_judge). */
enum { AB_HELD, AB_NOT_HELD, AB_INCONCLUSIVE, AB_NOT_JUDGED };

/* One part: a variant against its reference over the configurations. */
typedef struct ab_part {
    const char *variant, *reference; /* as named: V for a variant run as instances V#k */
    char names[2][64];               /* their storage */
    ab_verdict claim;
    int source;   /* AB_NO_CLAIM, AB_STATED, AB_AA_TEST */
    int count[3]; /* by verdict: no difference, faster, slower */
    int not_compared, wide;
    /* a predicted speedup (the claim's `speedup`), judged by ab_part_range_judge */
    int has_range;
    double range_lo, range_hi;
    int vclaim, rclaim; /* indices of its verdict claim and range claim (-1: none) */
    const char *where;  /* the covering claim's `where` ("" for every configuration) */
    int inside, below, above; /* configurations by where the estimate falls */
    int excluded;             /* configurations whose 95% CI lies wholly outside the range */
    double log_sum, est_min, est_max; /* the estimates: sum of logs, smallest, largest */
} ab_part;

/* The parts of a conclusion and the spread of each measurement. */
typedef struct ab_judged {
    int status;        /* 0, or -1 when out of memory */
    config_t cfg;      /* the claims point into it */
    ab_claim *claims;
    size_t nclaims;
    ab_part *parts;
    size_t np;
    ab_spread *sp;     /* sp[i] of meas[i] where has_sp[i] */
    int *has_sp;
} ab_judged;

/* Judges the outcomes o[0..n) (the report's comparisons, in its order)
 * against e's claims into *J, with the spread (spread.h) of each usable
 * measurement of meas[0..nmeas). Returns 0, or -1 when out of memory
 * (J->status; J to be freed with ab_judged_free either way). */
int ab_judge_all(ab_judged *J, const ab_experiment *e, const ab_outcome *o, size_t n,
                 const ab_rmeas *const *meas, size_t nmeas);
void ab_judged_free(ab_judged *J);

/* A part's outcome: AB_HELD, AB_NOT_HELD, AB_INCONCLUSIVE or AB_NOT_JUDGED
 * (no claim); its name ("held", "did not hold", "inconclusive", "not
 * judged"). With both a verdict and a predicted range, the worse of
 * the two outcomes (not held, then inconclusive, then held). */
int ab_part_judge(const ab_part *p);

/* The outcome of a part's predicted speedup alone (AB_NOT_JUDGED without
 * one): held when every compared configuration's estimate lies in the
 * range, not held when some configuration's 95% CI lies wholly outside it,
 * inconclusive otherwise (or when nothing was compared). */
int ab_part_range_judge(const ab_part *p);

/* Where an estimate s with 95% CI [lo, hi] falls against a predicted
 * range [plo, phi]: -1 below, 0 inside, 1 above; *outside: 1 when the CI
 * lies wholly outside the range. */
int ab_range_place(double s, double lo, double hi, double plo, double phi, int *outside);

/* The predicted range of the claim for (variant, than) in claims c[0..nc)
 * (measurement names; instances match their variant) that covers m's
 * configuration (any claim when m is NULL): its index with *lo, *hi, or -1
 * when no such claim has a `speedup`. */
int ab_claim_range(const ab_experiment *e, const ab_claim *c, size_t nc, const char *variant,
                   const char *than, const ab_rmeas *m, double *lo, double *hi);
const char *ab_part_outcome_name(int outcome);

/* What the verdicts say without a claim: one verdict everywhere, one
 * direction with some configurations undecided, or both directions. */
const char *ab_part_finding(const ab_part *p);

/* The claim as the conclusion names it ("faster", "no difference (A/A)",
 * "none stated", ...). */
const char *ab_part_claim_name(const ab_part *p);

/* The overall outcome from the tally of ab_part_judge over the parts:
 * "held", "inconclusive", "held in part", "did not hold", or "not judged"
 * when no part has a claim; *judged_n: the parts judged. */
const char *ab_conclusion_overall(const int tally[4], int *judged_n);

#endif
