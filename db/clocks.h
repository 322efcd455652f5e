/*
 * clocks.h: what the GPU's clocks and power did while a measurement was
 * sampled, summarised from its clock_blocks rows (NVML readings before and
 * after each block of samples, src/run/nvml_monitor.h): the median SM clock, the
 * median board power and the share of blocks at the software power cap.
 * Reports show them per measurement, warn when two compared variants ran at
 * clocks far apart, and can normalise latency to one clock (clocks.c).
 */
#ifndef ATTNBENCH_CLOCKS_H
#define ATTNBENCH_CLOCKS_H

#include <sqlite3.h>

typedef struct ab_clock_summary {
    int blocks;           /* clock blocks recorded (0: not monitored) */
    double sm_mhz;        /* median over blocks of (SM clock before + after) / 2, MHz */
    double power_w;       /* median over blocks of the block's power reading, W */
    double capped_share;  /* share of blocks at the software power cap, 0..1 */
} ab_clock_summary;

/* Summarises the clock blocks of measurement id into *out (all zero when it
 * has none). Returns 0, or -1 with a message printed (database error). */
int ab_clock_summary_load(sqlite3 *db, long long measurement_id, ab_clock_summary *out);

/* The highest SM clock (MHz) any block of run_id was read at, 0 when none:
 * the reference clock of `report --by-clock`. Returns 0 or -1 (printed). */
int ab_run_max_sm_mhz(sqlite3 *db, long long run_id, double *mhz);

/* Latency normalised to reference clock ref_mhz: ms x sm_mhz / ref_mhz,
 * what the measurement would have taken at ref_mhz if its time scaled
 * with the SM clock (compute-bound work; memory-bound work scales less, so
 * this over-corrects it). NAN when either clock is not positive. */
double ab_clock_normalised_ms(double ms, double sm_mhz, double ref_mhz);

/* |a - b| / max(a, b) > 0.02: the two measurements ran at SM clocks more
 * than 2% apart (0 when either is unknown). */
int ab_clocks_differ(const ab_clock_summary *a, const ab_clock_summary *b);

#endif
