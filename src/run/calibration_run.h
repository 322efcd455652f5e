/*
 * calibration_run.h: the A/A calibration experiment (calibration_run.c).
 */
#ifndef ATTNBENCH_CALIBRATION_RUN_H
#define ATTNBENCH_CALIBRATION_RUN_H

#include "experiment.h"

/* The calibration experiment's text (libconfig, parsed by
 * ab_experiment_parse): e's settings with the variant replaced by 2k
 * instances "variant#1".."variant#2k" and e's configurations listed
 * explicitly. Returns a malloc'd string, or NULL when out of memory. */
char *ab_calibration_text(const ab_experiment *e, const char *variant, int k);

#endif
