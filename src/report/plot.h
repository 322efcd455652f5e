/*
 * plot.h: figures drawn by gnuplot (an external program, found on PATH):
 * the latency distributions and TFLOP/s sweeps beside an ablation report,
 * and the series of one measurement across runs with its change points.
 *
 * Data go to gnuplot as inline data blocks ($data << EOD) through a pipe;
 * images are SVG (text, so the same database and gnuplot version give the
 * same bytes) unless a .png path asks for PNG. Jitter comes from a fixed-seed
 * generator, so nothing in a figure depends on the time or the machine.
 */
#ifndef ATTNBENCH_PLOT_H
#define ATTNBENCH_PLOT_H

#include "experiment.h"
#include "rundata.h"

#include <stddef.h>
#include <stdio.h>

/* 1 when `gnuplot --version` runs and succeeds. */
int ab_gnuplot_available(void);

/* Writes the figures of one run's measurements m[0..n) (as the report
 * loaded them, samples in ms; m is only read) next to the report at report_path (the
 * report's name without .md, then -1.svg, -2.svg, ... one per configuration
 * (strip plot: every sample, jittered, per variant, with the median marked),
 * then -sweepK.svg for each group of configurations differing only in S
 * (median TFLOP/s against S per variant)), and appends a "## Plots" section
 * with markdown image links (relative names) to md. Variants are drawn in
 * the order of e's list (NULL: none), then by first appearance. Without gnuplot, or
 * when report_path is NULL or "-" (no directory to put images in), the
 * section holds one line saying so instead. Returns 0, or -1 after printing
 * an error (out of memory, gnuplot failed, file not writable). */
int ab_report_plots(const ab_rmeas *m, size_t n, const ab_experiment *e, const char *report_path,
                    FILE *md);

/* One point of a history series. */
typedef struct ab_hist_point {
    long long run_id;
    double median, lo, hi; /* ms */
} ab_hist_point;

/* Plots a history series (medians with CI bars, in time order, x labelled
 * by run id) with the fitted step function of segments (begin, end, value)
 * and a dashed line at each change point, into path (.svg or .png).
 * Returns 0, or -1 after printing an error (including no gnuplot). */
int ab_history_plot(const char *path, const char *title, const ab_hist_point *pts, size_t n,
                    const size_t *seg_begin, const size_t *seg_end, const double *seg_value,
                    size_t nseg);

#endif
