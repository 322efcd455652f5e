/*
 * spread.h: whether a measurement's samples are too spread out, or too
 * clearly in two modes, for its median to mean one thing. A CPU run on a
 * busy host gives samples such as 1-2 ms and 12-50 ms in one measurement
 * (threads waiting for a core); the median then depends on how many samples
 * fell in each mode, and every comparison with it is unreliable.
 *
 * Rule: a measurement is *wide* when p90 / p10 > AB_SPREAD_RATIO (1.5: the
 * middle 80% of its samples spans a factor of 1.5, larger than the
 * differences this harness is asked to resolve), and *bimodal* when it is
 * wide and its bimodality coefficient BC = (g² + 1) / (k + 3(n-1)² /
 * ((n-2)(n-3))) exceeds 5/9, the value of a uniform distribution (g, k:
 * sample skewness and excess kurtosis, bias-corrected; Pfister, Schwarz,
 * Janczyk, Dale & Freeman 2013, "Good things peak in pairs: a note on the
 * bimodality coefficient", Frontiers in Psychology 4:700; SAS/STAT). BC
 * alone also exceeds 5/9 for one-sided heavy tails (a single slow sample),
 * which is why it is only read when the spread is wide.
 */
#ifndef ATTNBENCH_SPREAD_H
#define ATTNBENCH_SPREAD_H

#include <stddef.h>

#define AB_SPREAD_RATIO 1.5
#define AB_BIMODAL_BC (5.0 / 9.0)

typedef struct ab_spread {
    double p10, p90; /* GSL quantiles (linear interpolation, Hyndman & Fan type 7) */
    double ratio;    /* p90 / p10 (inf when p10 = 0) */
    double bc;       /* bimodality coefficient; NAN when n < 4 or all samples equal */
    int wide;        /* ratio > AB_SPREAD_RATIO */
    int bimodal;     /* wide and bc > AB_BIMODAL_BC */
} ab_spread;

/* The bimodality coefficient of x[0..n) (any order), with the sample-size
 * corrected skewness G1 = sqrt(n(n-1))/(n-2) · m3/m2^1.5 and excess kurtosis
 * G2 = (n-1)/((n-2)(n-3)) · ((n+1)(m4/m2² - 3) + 6), m_j the central
 * moments (scipy.stats.skew / kurtosis with bias=False). The moments come
 * from GSL (gsl_stats_skew, gsl_stats_kurtosis), rescaled to these
 * estimators. Returns NAN when n < 4 or the variance is 0. */
double ab_bimodality_coefficient(const double *x, size_t n);

/* Fills *out for the samples x[0..n) (latencies, any order; not modified).
 * Returns 0, or -1 when n < 2 or memory runs out (out untouched). */
int ab_spread_check(const double *x, size_t n, ab_spread *out);

#endif
