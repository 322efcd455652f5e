/*
 * units.h: the unit a table prints a rate in, chosen from the largest value
 * the table holds, so that CPU variants (MFLOP/s to GFLOP/s) and GPU
 * variants (TFLOP/s) both print digits instead of 0.00; and latencies in ms
 * printed with at least four significant digits whatever their size (a
 * 3.8 us kernel is 0.003812 ms, not 0.0038).
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

#include <stddef.h>

/* Writes ms (milliseconds) into buf (n bytes) in fixed notation with at
 * least four significant digits: four decimals, more below 0.1 ms (3 -
 * floor(log10 |ms|), at most 9): 0.003812, 0.03514, 0.5000, 12.3457; sign
 * != 0 prints a
 * leading '+' for non-negative values (a shift). 0 prints "0.0000",
 * non-finite values "nan" / "inf" / "-inf". Returns buf. */
const char *ab_fmt_ms(double ms, int sign, char *buf, size_t n);

#endif
