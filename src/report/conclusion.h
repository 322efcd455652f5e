/*
 * conclusion.h: the last section of a report, "Conclusion": whether the
 * experiment's hypothesis held, as the analysis judged it from the
 * report's own verdicts (src/analysis/claims.h), and which measurements'
 * samples are too spread out to trust (src/analysis/spread.h). The
 * experiment states its claims with
 *   expect = ( { variant = "cpu_flash"; than = "cpu_reference"; verdict = "faster"; } );
 * (`than` defaults to the baseline; verdict "faster", "slower" or
 * "no difference").
 */
#ifndef ATTNBENCH_CONCLUSION_H
#define ATTNBENCH_CONCLUSION_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "claims.h" /* the claims judged (src/analysis/claims.h) */
#include "experiment.h"
#include "rundata.h"

/* Writes the "## Conclusion" section: a table of the parts (claim, verdict
 * counts over configurations, measurements with wide samples, outcome),
 * the overall outcome (held / held in part / did not hold / inconclusive)
 * and the list of wide or bimodal measurements among meas[0..nmeas), from
 * J (ab_judge_all over the same meas). */
void ab_conclusion_write(FILE *out, const ab_judged *J, const ab_rmeas *const *meas, size_t nmeas);

/* The same conclusion as JSON: {"parts": [{variant, reference, claim,
 * faster, slower, no_difference, not_compared, wide, outcome, finding (a
 * part without a claim)}], "overall", "held", "did_not_hold",
 * "inconclusive", "not_judged", "wide_measurements": [{variant, config,
 * p10, p90, ratio, bimodality, bimodal}]}; NULL when out of memory or J
 * failed. */
json_t *ab_conclusion_json(const ab_judged *J, const ab_rmeas *const *meas, size_t nmeas);

#endif
