/*
 * resolution.h: what feeds the verdict rule's minimum resolvable shift
 * (stats/verdict.c, ab_decide_why): the smallest difference the timer can
 * resolve for a measurement, today the median of the empty kernel timed in
 * the measurement's run and timing mode (the timer floor). report, compare
 * and calibrate all take it from here, so that the same samples get the
 * same verdict in each (the round-level issue may change what it returns).
 */
#ifndef ATTNBENCH_RESOLUTION_H
#define ATTNBENCH_RESOLUTION_H

#include <sqlite3.h>

/* Minimum resolvable shift (ms) of measurement measurement_id: the timer
 * floor median_ms of its run and timing mode, 0 when none was recorded (CPU
 * variants, runs before the floor was measured) or on a database error. */
double ab_min_shift_ms(sqlite3 *db, long long measurement_id);

/* The same for a comparison of two measurements (possibly of two runs): the
 * larger of their two minimum shifts. */
double ab_min_shift_pair_ms(sqlite3 *db, long long measurement_a, long long measurement_b);

#endif
