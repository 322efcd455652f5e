/*
 * cliff.c: Cliff's delta, the dominance statistic d = P(a > b) - P(a < b)
 * (Cliff 1993, "Dominance statistics: ordinal analyses to answer ordinal
 * questions", Psychological Bulletin 114(3), 494-509), with its CI from
 * Cliff's consistent variance estimator, in O(n log n) from one merge of the
 * sorted samples, and the magnitude labels of Romano et al. (2006).
 *
 * At |d| = 1 (complete separation, every a_i above, or below, every b_j)
 * Cliff's variance estimate and his floor (1 - d^2)/(na nb - 1) are both 0
 * and his interval collapses to [d, d] at any n. There the interval is
 * Newcombe's score-type "Method 5" for theta = P(a > b) + P(a = b)/2 =
 * (1 + d)/2 (Newcombe 2006, "Confidence intervals for an effect size
 * measure based on the Mann-Whitney statistic. Part 2: asymptotic methods
 * and evaluation", Statistics in Medicine 25, 559-573): all theta with
 * |theta^ - theta| <= z sqrt(V(theta)), V the Hanley & McNeil (1982)
 * variance with both sample sizes replaced by N* = (na + nb)/2,
 *   V(theta) = theta (1 - theta) / (na nb) [1 + (N* - 1) ((1 - theta) /
 *              (2 - theta) + theta / (1 + theta))],
 * which stays positive inside (0, 1), so the interval keeps a nonzero width;
 * mapped back by d = 2 theta - 1. Its end is the root of a smooth function
 * with a sign change on [0, 1], found by GSL's Brent solver.
 */
#include "abstats.h"
#include "stats_internal.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

typedef struct newcombe_par {
    double mn, nstar, z2;
} newcombe_par;

/* (1 - theta) na nb - z^2 theta [1 + (N* - 1)(...)]: zero at the lower end
 * of Newcombe's Method 5 interval when theta^ = 1 (the factor 1 - theta of
 * (1 - theta)^2 = z^2 V(theta) divided out). Positive at 0, negative at 1. */
static double newcombe_f(double t, void *vp)
{
    const newcombe_par *q = vp;
    return (1 - t) * q->mn -
           q->z2 * t * (1 + (q->nstar - 1) * ((1 - t) / (2 - t) + t / (1 + t)));
}

/* Lower end of Newcombe's Method 5 interval for theta^ = 1, in (0, 1). */
static int newcombe_lower(size_t na, size_t nb, double z, double *theta)
{
    newcombe_par q = {(double)na * (double)nb, 0.5 * (double)(na + nb), z * z};
    gsl_function F = {newcombe_f, &q};
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (s == NULL)
        return AB_STATS_ENOMEM;
    gsl_root_fsolver_set(s, &F, 0.0, 1.0);
    double x = 0.5;
    for (int it = 0; it < 200; it++) {
        if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS)
            break;
        x = gsl_root_fsolver_root(s);
        if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s),
                                   0, 1e-15) == GSL_SUCCESS)
            break;
    }
    gsl_root_fsolver_free(s);
    *theta = x;
    return AB_STATS_OK;
}

/* Cliff's delta of a[0..na) against b[0..nb) (ms), na, nb >= 2, with a CI
 * at level (0 < level < 1).
 *
 * With d_ij = sign(a_i - b_j): d = mean d_ij; the dominance rows
 * d_i. = (#{b < a_i} - #{b > a_i}) / nb and columns d_.j = (#{a > b_j} -
 * #{a < b_j}) / na come from the ranks of each value in the other sorted
 * sample (one merge: O(n log n) for the sorts, O(n) after). Cliff's (1993)
 * consistent estimator of var(d):
 *   s^2 = (nb^2 sum_i (d_i. - d)^2 + na^2 sum_j (d_.j - d)^2
 *          - sum_ij (d_ij - d)^2) / (na nb (na - 1)(nb - 1)),
 * with sum_ij (d_ij - d)^2 = #{a_i != b_j} - na nb d^2, floored at
 * (1 - d^2) / (na nb - 1) as Cliff recommends, except when every pair ties
 * (d_ij = 0 for all: constant equal samples, s^2 = 0, the interval is the
 * degenerate [0, 0]); and his asymmetric interval
 *   (d - d^3 -+ z s sqrt((1 - d^2)^2 + z^2 s^2)) / (1 - d^2 + z^2 s^2),
 * z = Phi^-1((1 + level) / 2), clipped to [-1, 1]; at d = +-1 Newcombe's
 * Method 5 interval (file comment), [2 theta_L - 1, 1] or its mirror. Errors: AB_STATS_EINVAL, AB_STATS_ENONFINITE,
 * AB_STATS_ENEGATIVE, AB_STATS_ENOMEM. */
int ab_cliffs_delta(const double *a, size_t na, const double *b, size_t nb,
                    double level, ab_cliff_result *r)
{
    double *as = NULL, *bs = NULL;
    int rc = ab__two_sorted(a, na, b, nb, 2, &as, &bs);
    if (rc == AB_STATS_OK && (r == NULL || !(level > 0 && level < 1)))
        rc = AB_STATS_EINVAL;
    if (rc != AB_STATS_OK)
        goto cleanup;
    double fa = (double)na, fb = (double)nb, n = fa * fb;
    /* Pass 1: d. Pass 2: the row and column sums of squares about d. */
    double gt = 0, lt = 0, sr = 0, sc = 0, d = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t i = 0, j = 0;
        while (i < na || j < nb) {
            double v = (j >= nb || (i < na && as[i] <= bs[j])) ? as[i] : bs[j];
            size_t ia = i, jb = j, ca = 0, cb = 0;
            while (i < na && as[i] == v) { i++; ca++; }
            while (j < nb && bs[j] == v) { j++; cb++; }
            double bbelow = (double)jb, babove = fb - (double)jb - (double)cb;
            double abelow = (double)ia, aabove = fa - (double)ia - (double)ca;
            if (pass == 0) {
                gt += (double)ca * bbelow;
                lt += (double)ca * babove;
            } else {
                double di = (bbelow - babove) / fb - d;
                double dj = (aabove - abelow) / fa - d;
                sr += (double)ca * di * di;
                sc += (double)cb * dj * dj;
            }
        }
        d = (gt - lt) / n;
    }
    double sij = (gt + lt) - n * d * d;
    double s2 = (fb * fb * sr + fa * fa * sc - sij) / (n * (fa - 1) * (fb - 1));
    double floor_s2 = (1 - d * d) / (n - 1);
    if (gt + lt > 0 && s2 < floor_s2)
        s2 = floor_s2;
    double z = gsl_cdf_ugaussian_Pinv(0.5 + level / 2.0);
    double den = 1 - d * d + z * z * s2;
    r->delta = d;
    if (fabs(d) == 1) { /* complete separation: Newcombe's Method 5 */
        double t;
        rc = newcombe_lower(na, nb, z, &t);
        if (rc != AB_STATS_OK)
            goto cleanup;
        r->lo = d > 0 ? 2 * t - 1 : -1;
        r->hi = d > 0 ? 1 : 1 - 2 * t;
        goto cleanup;
    }
    if (!(den > 0)) {
        r->lo = r->hi = d;
        goto cleanup;
    }
    double half = z * sqrt(s2) * sqrt((1 - d * d) * (1 - d * d) + z * z * s2);
    r->lo = (d - d * d * d - half) / den;
    r->hi = (d - d * d * d + half) / den;
    if (r->lo < -1) r->lo = -1;
    if (r->hi > 1) r->hi = 1;
cleanup:
    free(bs);
    free(as);
    return rc;
}

/* Label of |delta| with the thresholds of Romano et al. (2006, "Appropriate
 * statistics for ordinal level data", FAIR conference): < 0.147 negligible,
 * < 0.33 small, < 0.474 medium, else large. NaN gives "negligible". */
const char *ab_cliffs_magnitude(double delta)
{
    double m = fabs(delta);
    if (!(m >= 0.147))
        return "negligible";
    if (m < 0.33)
        return "small";
    if (m < 0.474)
        return "medium";
    return "large";
}
