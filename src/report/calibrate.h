/*
 * calibrate.h: A/A calibration of the verdict rule (calibrate.c).
 */
#ifndef ATTNBENCH_CALIBRATE_H
#define ATTNBENCH_CALIBRATE_H

#include <sqlite3.h>
#include <stdio.h>

/* The A/A result of one configuration (or, in ab_calibration.all, of all). */
typedef struct ab_calibration_config {
    char title[96];             /* "B=4 H=16 S=4096 D=128 non-causal fp16", or "all" */
    int pairs;                  /* A/A comparisons */
    int paired;                 /* of them analysed over rounds (the rest i.i.d.) */
    int raw_positives;          /* p < alpha (no family correction) */
    double raw_lo, raw_hi;      /* Clopper-Pearson 95% CI of raw_positives / pairs */
    double raw_binom_p;         /* P(X >= raw_positives), X ~ Binomial(pairs, alpha) */
    int covered;                /* speedup CIs that contain 1 */
    double cov_lo, cov_hi;      /* Clopper-Pearson 95% CI of covered / pairs */
    double cov_binom_p;         /* P(X <= covered), X ~ Binomial(pairs, CI level) */
    int uncorrected_positives;  /* called different by the verdict rule with the raw p */
    double verdict_binom_p;     /* P(X >= uncorrected_positives), X ~ Binomial(pairs, alpha) */
    int rule_positives;         /* called different with Holm's p over the run's pairs */
    int flagged;                /* any of the three binomial p-values < AB_CAL_FLAG_P */
} ab_calibration_config;

/* A binomial p below this flags an environment: the observed rate is not
 * what the method promises (one-sided exact binomial tests). */
#define AB_CAL_FLAG_P 0.01
#define AB_CAL_MAX_CONFIGS 32

typedef struct ab_calibration {
    long long run_id;
    int pairs;                  /* A/A comparisons, all configurations */
    int uncorrected_positives;  /* called different by the rule with the raw p */
    int rule_positives;         /* called different by the rule with Holm's p (the family) */
    int raw_positives;          /* p < alpha alone */
    double alpha, level;
    int flagged;                /* any configuration (or all together) flagged */
    double binom_p;             /* P(X >= uncorrected_positives), X ~ Binomial(pairs, alpha):
                                   how surprising the count is if the rule holds its alpha */
    ab_calibration_config all;  /* every pair together */
    size_t nconfigs;            /* per configuration (the first AB_CAL_MAX_CONFIGS) */
    ab_calibration_config cfg[AB_CAL_MAX_CONFIGS];
} ab_calibration;

/* Recomputes the A/A result of calibration run run_id from its samples,
 * with the report's analysis (report_internal.h: paired over rounds, the
 * verdict rule and its timer-floor veto): instance #(2i-1) against #(2i)
 * in each configuration, disjoint pairs so the tests are independent.
 * Returns 0, or -1 with a message printed. */
int ab_calibration_summary(sqlite3 *db, long long run_id, ab_calibration *out);

/* Prints the per-configuration table of s (markdown) to out. */
void ab_calibration_print(FILE *out, const ab_calibration *s);

/* The latest complete calibration run in the environment with this hash:
 * 0 and *out filled, 1 when there is none, -1 on a database error. */
int ab_calibration_for_environment(sqlite3 *db, const char *env_hash, ab_calibration *out);

#endif
