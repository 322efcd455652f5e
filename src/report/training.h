/*
 * training.h: the report sections of runs with backward passes
 * (training.c): training step, scaling with B, bandwidth by pass.
 */
#ifndef ATTNBENCH_TRAINING_H
#define ATTNBENCH_TRAINING_H

#include "report_internal.h"

#include <stdio.h>

/* Prints, for the run's measurements m[0..n) (sorted as the report sorts
 * them; samples in ms), when any measurement timed a backward pass: the
 * "Training step" table (per variant and configuration the fwd, bwd and
 * fwd+bwd medians, F+B ratio = bwd / fwd (seed 003), fwd+bwd TFLOP/s, peak
 * MiB), the "Scaling with B" table for every group of measurements equal
 * but for B (throughput B·S / median relative to the smallest B, efficiency
 * = that / (B / B_min)), and, with peak_copy_gbs > 0 (the run's measured
 * copy ceiling, GB/s), the "Bandwidth by pass" table (bw[0..nbw), the
 * analysis's median and max of bytes / median per variant and pass, and
 * their share of the ceiling). Prints nothing for a forward-only run. */
void ab_report_training(FILE *out, ab_rep_meas *const *m, size_t n, const ab_pass_bandwidth *bw,
                        size_t nbw, double peak_copy_gbs);

#endif
