/*
 * calibrate.h: A/A calibration of the verdict rule (calibrate.c).
 */
#ifndef ATTNBENCH_CALIBRATE_H
#define ATTNBENCH_CALIBRATE_H

#include <sqlite3.h>

typedef struct ab_calibration {
    long long run_id;
    int pairs;                  /* A/A comparisons */
    int uncorrected_positives;  /* called different by the rule with the raw p */
    int rule_positives;         /* called different by the rule with Holm's p (the family) */
    int raw_positives;          /* Mann-Whitney p < alpha alone */
    double alpha;
    int flagged;                /* uncorrected_positives / pairs > alpha */
    double binom_p;             /* P(X >= uncorrected_positives), X ~ Binomial(pairs, alpha):
                                   how surprising the count is if the rule holds its alpha */
} ab_calibration;

/* Recomputes the A/A result of calibration run run_id from its samples.
 * Returns 0, or -1 with a message printed. */
int ab_calibration_summary(sqlite3 *db, long long run_id, ab_calibration *out);

/* The latest complete calibration run in the environment with this hash:
 * 0 and *out filled, 1 when there is none, -1 on a database error. */
int ab_calibration_for_environment(sqlite3 *db, const char *env_hash, ab_calibration *out);

/* `attnbench calibrate` (commands.h convention). */
int cmd_calibrate(int argc, char **argv);

#endif
