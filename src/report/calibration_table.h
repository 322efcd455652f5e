/*
 * calibration_table.h: the A/A calibration table the report of a
 * calibration run and `attnbench calibrate` print.
 */
#ifndef ATTNBENCH_CALIBRATION_TABLE_H
#define ATTNBENCH_CALIBRATION_TABLE_H

#include "calibration.h"

#include <stdio.h>

/* Prints the per-configuration table of s (markdown) to out: one row per
 * configuration (and "all" with two or more), its pairs, raw p < alpha,
 * CI coverage and the verdict rule's calls, with Clopper-Pearson CIs and
 * the flags. */
void ab_calibration_print(FILE *out, const ab_calibration *s);

#endif
