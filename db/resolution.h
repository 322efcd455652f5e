/*
 * resolution.h: what feeds the verdict rule's minimum resolvable shift
 * (stats/verdict.c, ab_decide_why): the A/A resolution of a measurement,
 * the largest difference attnbench's own paired analysis found between
 * identical instances of one kernel in an A/A calibration (`attnbench
 * calibrate`) of the same environment and timing mode (the
 * empty-kernel "timer floor" it replaces is launch overhead both sides
 * pay, not the resolution of a difference). report and compare take it
 * from here, so that the same samples get the same verdict in each.
 */
#ifndef ATTNBENCH_RESOLUTION_H
#define ATTNBENCH_RESOLUTION_H

#include <sqlite3.h>

/* The A/A resolution found for a measurement. */
typedef struct ab_resolution {
    double rel;               /* max over A/A pairs of |speedup - 1|; 0: no calibration */
    long long calibration_run; /* the A/A run it came from, 0 when none */
    int pairs;                /* A/A pairs it was computed from */
    double aa_median_ms;      /* median latency of the calibrated kernel at that configuration */
    double median_ms;         /* this measurement's median (set when rel > 0) */
} ab_resolution;

/* The A/A resolution for measurement measurement_id, in *r: among the
 * complete A/A calibration runs (experiments named "*-calibration") of the
 * measurement's environment, the measurements in its timing mode are
 * grouped by (run, configuration); the group whose median latency is
 * closest to this measurement's (in log scale) is used. Its instances
 * (variant#1, #2, ...), in instance order, form disjoint pairs (1, 2), (3,
 * 4), ... as `calibrate` pairs them; per pair, the speedup is the paired round estimate of the report
 * (exp of the median over shared rounds of log(median_a / median_b) per
 * round; throttled samples left out), and r->rel is the largest |speedup -
 * 1|. r->rel = 0 (no veto) when there is no such calibration or on a
 * database error. The groups are computed once per (database, environment,
 * mode) and cached until ab_resolution_forget (ab_db_close calls it, registered
 * through ab_db_on_close). */
void ab_resolution_for(sqlite3 *db, long long measurement_id, ab_resolution *r);

/* Minimum resolvable shift (ms) of measurement measurement_id: its A/A
 * resolution times its median (ab_resolution_for); 0 when none. */
double ab_min_shift_ms(sqlite3 *db, long long measurement_id);

/* The same for a comparison of two measurements (possibly of two runs): the
 * larger of their two minimum shifts. */
double ab_min_shift_pair_ms(sqlite3 *db, long long measurement_a, long long measurement_b);

/* Drops what is cached for db (called by ab_db_close). */
void ab_resolution_forget(sqlite3 *db);

#endif
