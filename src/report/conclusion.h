/*
 * conclusion.h: the last section of a report, "Conclusion": whether the
 * experiment's hypothesis held, derived from the report's own verdicts, and
 * which measurements' samples are too spread out to trust (spread.h).
 *
 * The hypothesis is free text; what is judged is a list of claims, one per
 * part (a pair of variants: a variant and its reference, the baseline or,
 * with --chain, the rung before it), each the verdict expected in every
 * configuration. The experiment states them with
 *   expect = ( { variant = "cpu_flash"; than = "cpu_reference"; verdict = "faster"; } );
 * (`than` defaults to the baseline; verdict "faster", "slower" or
 * "no difference"). Two instances of one built-in variant in one timing mode
 * (an A/A test, `attnbench calibrate`) are claimed no different without
 * being told. No other claim is guessed from the free-text hypothesis: a
 * part without one is "not judged" and its verdicts are summarised
 * (faster everywhere, slower everywhere, no difference anywhere, mixed).
 * A part held when every configuration's verdict is the claimed one, did
 * not hold when any verdict contradicts it (the opposite direction, or any
 * difference where none was claimed), and is inconclusive otherwise (no
 * significant difference, or no comparison, somewhere).
 */
#ifndef ATTNBENCH_CONCLUSION_H
#define ATTNBENCH_CONCLUSION_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "abstats.h"
#include "claims.h" /* the claims judged (src/analysis/claims.h) */
#include "experiment.h"
#include "rundata.h"

/* One comparison of the report: `variant` against `reference` in one
 * configuration, with the verdict the report printed for it. */
typedef struct ab_outcome {
    const ab_rmeas *variant, *reference;
    int computed;       /* 0: not compared (a side failed or has < 2 samples) */
    ab_verdict verdict; /* after the family correction and the timer floor */
} ab_outcome;

/* Writes the "## Conclusion" section: a table of the parts (claim, verdict
 * counts over configurations, measurements with wide samples, outcome),
 * the overall outcome (held / held in part / did not hold / inconclusive)
 * and the list of wide or bimodal measurements among meas[0..nmeas). The
 * outcomes o[0..n) are the report's comparisons, in the report's order. */
void ab_conclusion_write(FILE *out, const ab_experiment *e, const ab_outcome *o, size_t n,
                         const ab_rmeas *const *meas, size_t nmeas);

/* The same conclusion as JSON: {"parts": [{variant, reference, claim,
 * faster, slower, no_difference, not_compared, wide, outcome, finding (a
 * part without a claim)}], "overall", "held", "did_not_hold",
 * "inconclusive", "not_judged", "wide_measurements": [{variant, config,
 * p10, p90, ratio, bimodality, bimodal}]}; NULL when out of memory. */
json_t *ab_conclusion_json(const ab_experiment *e, const ab_outcome *o, size_t n,
                           const ab_rmeas *const *meas, size_t nmeas);

#endif
