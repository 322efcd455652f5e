/*
 * units.h: the unit a table prints a rate in, chosen from the largest value
 * the table holds, so that CPU variants (MFLOP/s to GFLOP/s) and GPU
 * variants (TFLOP/s) both print digits instead of 0.00.
 */
#ifndef ATTNBENCH_UNITS_H
#define ATTNBENCH_UNITS_H

typedef struct ab_unit {
    double per_ms;    /* a rate in this unit = amount (FLOPs, bytes) / (ms × per_ms) */
    const char *name; /* "TFLOP/s" */
} ab_unit;

/* For FLOP rates (FLOP/s): TFLOP/s when max_flop_s >= 1e12, GFLOP/s when
 * >= 1e9, else MFLOP/s; printed with two decimals, the largest value then
 * keeps at least three significant digits. Non-finite or non-positive
 * max: TFLOP/s. */
ab_unit ab_flop_unit(double max_flop_s);

/* For byte rates (bytes/s): GB/s when max_byte_s >= 1e10 (10 GB/s), else
 * MB/s; printed without decimals, the largest value keeps at least two
 * significant digits. Non-finite or non-positive max: GB/s. */
ab_unit ab_byte_unit(double max_byte_s);

#endif
