/*
 * changepoint.h: change-point (step) detection over a series of values, e.g.
 * the medians of one measurement across runs in time order.
 *
 * Method: airspeed velocity's step detection (asv, asv/step_detect.py,
 * after Friedrich et al. 2008, "Complexity Penalized M-Estimation: Fast
 * Computation", JCGS 17(1):201-224). The series is fitted by a piecewise
 * constant function minimising the L1 Potts functional
 *     gamma * k + sum_r sum_{i in segment r} w_i |y_i - mu_r|
 * (mu_r the weighted median of segment r), solved exactly by optimal
 * partitioning (dynamic programming over the right end of the last segment).
 * gamma is chosen as asv does: among the solutions for gamma = gamma_0 * e^x
 * (gamma_0 = the one-segment cost), the one minimising asv's Schwarz-type
 * information criterion
 *     beta * k + ln(sigma_0 + sum w_i |y_i - mu|),  beta = 4 ln(n) / n
 * (Yao 1988), with asv's noise floor sigma_0 = 0.1 min |mu_{r+1} - mu_r|
 * when there are more than 2 segments, else 0.001 min |mu_r|.
 *
 * Differences from asv, all towards exactness or determinism: the Potts
 * problem is solved exactly (asv limits segments to 20 points and merges);
 * gamma is scanned on a fixed logarithmic grid instead of a golden-section
 * search; asv's AR(1) noise-correlation term is left out (rho = 0).
 */
#ifndef ATTNBENCH_CHANGEPOINT_H
#define ATTNBENCH_CHANGEPOINT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ab_segment {
    size_t begin, end;  /* y[begin .. end), end exclusive */
    double value;       /* weighted median of the segment */
    double cost;        /* sum w_i |y_i - value| over the segment */
} ab_segment;

typedef struct ab_steps {
    ab_segment *seg;    /* malloc'd, nseg >= 1 for n >= 1 (free with ab_steps_free) */
    size_t nseg;
    double gamma;       /* the penalty chosen */
    double objective;   /* the information criterion at that gamma */
} ab_steps;

/* Detects steps in y[0..n) with optional weights w (NULL: all 1; a weight
 * <= 0 or non-finite is replaced by the median weight, as asv does). y must
 * be finite. n >= 1 and n <= 20000 (the exact solver is O(n^3) in the worst
 * case). Returns AB_STATS_OK, AB_STATS_EINVAL, AB_STATS_ENONFINITE or
 * AB_STATS_ENOMEM (abstats.h); on success out->seg lists the segments in
 * order, each change point being the begin of a segment after the first. */
int ab_detect_steps(const double *y, const double *w, size_t n, ab_steps *out);

/* Exact L1 Potts solution for one given gamma (>= 0), the building block
 * of ab_detect_steps; out->objective is the Potts cost. Same contract. */
int ab_potts_l1(const double *y, const double *w, size_t n, double gamma, ab_steps *out);

void ab_steps_free(ab_steps *s);

#ifdef __cplusplus
}
#endif

#endif
