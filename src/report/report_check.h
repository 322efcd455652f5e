/*
 * report_check.h: the correctness check's coverage in a report
 * (report_check.c).
 */
#ifndef ATTNBENCH_REPORT_CHECK_H
#define ATTNBENCH_REPORT_CHECK_H

#include "run_record.h"

#include <stdio.h>

/* Prints one "Coverage: ..." paragraph for run_id to out: every row checked,
 * or the sampled rows, coverage, single-wrong-row escape probability and
 * seeds. Prints nothing for runs made before the check stored rows_total. */
void ab_report_check_coverage(const ab_run_record *rec, FILE *out);

/* Prints the "### Gradients" table of run_id's backward passes:
 * per measurement and gradient (dQ, dK, dV) the max abs error, tolerance,
 * their ratio, the plain backward's error, rel L2, non-finite count and the
 * verdict. Prints nothing for a run without backward passes. */
void ab_report_grad_checks(const ab_run_record *rec, FILE *out);

#endif
