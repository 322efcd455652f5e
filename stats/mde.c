/*
 * mde.c: the minimum detectable effect of the paired round-level test
 * (rounds.h, ab_paired_mde): what a run of n rounds with the measured
 * between-round spread of the per-round log ratios can detect, in place of
 * an A/A "resolution" (the largest difference among K identical pairs,
 * which grows with K for the same noise and is no property of one
 * comparison).
 *
 * The normal-approximation power of a two-sided paired z-test at level
 * alpha: a true mean difference delta is detected with probability power
 * when delta = (z_{1-alpha/2} + z_power) sd / sqrt(n) (Chow, Shao & Wang
 * 2008, Sample Size Calculations in Clinical Research, 2nd ed., sec. 3.1).
 * The signed-rank test needs n pi/3 rounds where the z-test needs n at the
 * normal (asymptotic relative efficiency 3/pi: Hodges & Lehmann 1956, Ann.
 * Math. Statist. 27, 324-335), so n is replaced by 3n/pi; serially
 * correlated rounds (serial.c) count n/f.
 *
 * Also the fewest rounds any verdict of a Holm-corrected family needs
 * (ab_rounds_needed), which `attnbench run` warns about before sampling.
 */
#include "rounds.h"

#include <math.h>

#include <gsl/gsl_cdf.h>

double ab_paired_mde(double sd, size_t n, double inflation, double alpha, double power)
{
    if (n < 2 || !(sd >= 0) || !isfinite(sd) || !(inflation >= 1) || !isfinite(inflation) ||
        !(alpha > 0 && alpha < 1) || !(power > 0 && power < 1))
        return NAN;
    double z = gsl_cdf_ugaussian_Pinv(1 - alpha / 2) + gsl_cdf_ugaussian_Pinv(power);
    double neff = 3.0 * (double)n / M_PI / inflation;
    return expm1(z * sd / sqrt(neff));
}

int ab_rounds_needed(size_t family, double alpha)
{
    if (family == 0 || !(alpha > 0 && alpha < 1))
        return 0;
    /* smallest n with family * 2^(1 - n) < alpha, by doubling (no log
     * rounding at the boundary) */
    double p = 2.0 * (double)family; /* family * 2^(1 - n) at n = 0 */
    int n = 0;
    while (!(p < alpha)) {
        p /= 2;
        n++;
    }
    return n < 1 ? 1 : n;
}
