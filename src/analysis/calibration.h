/*
 * calibration.h: A/A calibration of the verdict rule (calibration.c): the
 * rates an A/A run gives, from its loaded samples (db/aa_samples.h).
 */
#ifndef ATTNBENCH_CALIBRATION_H
#define ATTNBENCH_CALIBRATION_H

#include "aa_samples.h"
#include "clocks.h"
#include "rundata.h"

#include <stddef.h>

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

/* Recomputes the A/A result of calibration run run_id from its
 * measurements r[0..n) (with samples) and their clock summaries clk, with
 * the report's analysis (run_analysis.h: paired over rounds, the verdict
 * rule without the resolution veto) at the run's alpha and practical
 * threshold: instance #(2i-1) against #(2i) in each configuration,
 * disjoint pairs so the tests are independent. Returns 0, or -1 with a
 * message printed (out of memory). */
int ab_calibration_analyse(const ab_rmeas *r, const ab_clock_summary *clk, size_t n,
                           long long run_id, double alpha, double practical, ab_calibration *out);

/* The same for a loaded calibration run, at the alpha and practical
 * threshold of its stored experiment (the defaults when it has none or it
 * does not parse). */
int ab_calibration_of_run(const ab_aa_run *r, ab_calibration *out);

#endif
