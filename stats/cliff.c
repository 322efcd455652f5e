/*
 * cliff.c: Cliff's delta, the dominance statistic d = P(a > b) - P(a < b)
 * (Cliff 1993, "Dominance statistics: ordinal analyses to answer ordinal
 * questions", Psychological Bulletin 114(3), 494-509), with its CI from
 * Cliff's consistent variance estimator, in O(n log n) from one merge of the
 * sorted samples, and the magnitude labels of Romano et al. (2006).
 */
#include "abstats.h"
#include "stats_internal.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

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
 * z = Phi^-1((1 + level) / 2), clipped to [-1, 1] (degenerate [d, d] when
 * d = +-1 and s = 0). Errors: AB_STATS_EINVAL, AB_STATS_ENONFINITE,
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
