/*
 * serial.c: serial correlation of per-round differences and the
 * signed-rank test widened for it (rounds.h: ab_serial_correlation,
 * ab_signrank_test).
 *
 * Rounds are the independent unit by design, but noise that belongs to one
 * variant and persists from round to round (a clock or a placement that
 * drifts for one kernel only) makes consecutive per-round log ratios
 * correlated, and then the signed-rank test and its interval are too
 * confident. The lag-1 sample autocorrelation r1 of the ratios in round
 * order (Box & Jenkins 1976, eq. 2.1.12) is biased down by about
 * (1 + 4 rho)/n when the mean is estimated (Kendall 1954, Biometrika 41,
 * 403-404; at n = 20, rho = 0.5: E r1 = 0.350 in 40,000 simulated AR(1)
 * series, the formula 0.35), so rho is estimated as (n r1 + 1)/(n - 4),
 * clipped to [0, 0.95]. The rule: with at least AB_SERIAL_MIN_ROUNDS rounds
 * and that estimate above 0, the differences are treated as AR(1) and the
 * variance of any sum of them is inflated by f = (1 + rho)/(1 - rho), the
 * effective number of rounds being n/f (Bayley & Hammersley 1946, JRSS
 * Suppl. 8, 184-197; Zwiers & von Storch 1995, J. Climate 8, 336-351,
 * who also show that the normal quantile is then liberal at small n and
 * use Student's t with n/f - 1 degrees of freedom, as here). The rule
 * fires only where a test of no serial correlation rejects: Young's (1941)
 * C = 1 - sum (d_{i+1} - d_i)^2 / (2 sum (d_i - mean)^2), the von Neumann
 * ratio's complement, has mean 0 and variance (n - 2)/(n^2 - 1) under
 * independence (Young 1941, Ann. Math. Statist. 12, 293-300; unlike r1 it
 * is unbiased at the null), and the rule widens when its one-sided normal
 * p is below AB_SERIAL_GATE = 0.35: a preliminary test at a lenient level,
 * as Bancroft (1944, Ann. Math. Statist. 15, 190-204) and later work on
 * preliminary tests advise where a miss costs more than a false alarm,
 * its value chosen by measurement in tests/stats/block_design.py (400
 * null runs, 20 rounds): the gate that keeps A's noise persisting at phi
 * 0.5 at raw p < 0.05 in at most 7% of null runs (0.10: 11.3%, 0.20:
 * 8.3%, 0.25: 7.5%, 0.35: 6.0%, none: 5.3%) with the most power at a true
 * 2% (independent rounds: none 55%, 0.35: 58.5%, 0.25: 62.5%, 0.10: 67%).
 * Without the gate the rule fired on about half of independent runs (where
 * r1 > -1/n) with a noisy rho; with it, on about a third.
 * reports/block-design/after.md has the measured trade.
 * Below 16 rounds r1 is measured but not acted on: its standard error
 * (about 1/sqrt(n), 0.32 at 10 rounds) is as large as the correlations
 * that matter, and the bias correction (n r1 + 1)/(n - 4) would widen
 * most runs of 10 rounds on noise.
 * With 20 rounds it cannot fully correct strong persistence (phi 0.85:
 * tests/stats/block_design.py measures what is left).
 */
#include "rounds.h"
#include "stats_internal.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

int ab_serial_correlation(const double *d, size_t n, ab_serial *out)
{
    if (d == NULL || out == NULL || n < 1)
        return AB_STATS_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(d[i]))
            return AB_STATS_ENONFINITE;
    out->r1 = NAN;
    out->young_c = NAN;
    out->p_serial = 1;
    out->rho = 0;
    out->inflation = 1;
    out->widened = 0;
    if (n < 3)
        return AB_STATS_OK;
    double mean = gsl_stats_mean(d, 1, n), num = 0, den = 0;
    for (size_t i = 0; i < n; i++)
        den += (d[i] - mean) * (d[i] - mean);
    for (size_t i = 0; i + 1 < n; i++)
        num += (d[i] - mean) * (d[i + 1] - mean);
    if (!(den > 0))
        return AB_STATS_OK; /* all equal: nothing to correlate */
    out->r1 = num / den;
    double dsq = 0;
    for (size_t i = 0; i + 1 < n; i++)
        dsq += (d[i + 1] - d[i]) * (d[i + 1] - d[i]);
    double dn = (double)n;
    out->young_c = 1 - dsq / (2 * den);
    out->p_serial = gsl_cdf_ugaussian_Q(out->young_c / sqrt((dn - 2) / (dn * dn - 1)));
    if (n < AB_SERIAL_MIN_ROUNDS)
        return AB_STATS_OK;
    double rho = ((double)n * out->r1 + 1) / ((double)n - 4);
    if (rho > 0 && out->p_serial < AB_SERIAL_GATE) {
        out->rho = rho > 0.95 ? 0.95 : rho;
        out->inflation = (1 + out->rho) / (1 - out->rho);
        out->widened = 1;
    }
    return AB_STATS_OK;
}

int ab_signrank_test(const double *d, size_t n, double inflation, ab_wilcoxon *out)
{
    int rc = ab_wilcoxon_signed_rank(d, n, NULL, out);
    if (rc != AB_STATS_OK || !(inflation > 1))
        return rc;
    /* the normal form of the test on T+ (scipy's mode='approx' without
     * continuity correction: midranks of the nonzero |d|, variance
     * (m(m+1)(2m+1) - sum t(t^2 - 1)/2)/24 over tie groups), the variance
     * times the inflation, the p from Student's t with m/f - 1 df */
    size_t m = n - out->n_zero;
    if (m == 0)
        return AB_STATS_OK; /* all zero: p = 1 stands */
    double *a = malloc(m * sizeof *a);
    if (a == NULL)
        return AB_STATS_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (d[i] != 0)
            a[k++] = fabs(d[i]);
    gsl_sort(a, 1, m);
    double ties = 0;
    for (size_t i = 0; i < m;) {
        size_t j = i;
        while (j < m && a[j] == a[i])
            j++;
        double t = (double)(j - i);
        ties += t * (t * t - 1) / 2;
        i = j;
    }
    free(a);
    double dm = (double)m;
    double var = (dm * (dm + 1) * (2 * dm + 1) - ties) / 24 * inflation;
    if (!(var > 0))
        return AB_STATS_OK;
    double z = (out->t_plus - dm * (dm + 1) / 4) / sqrt(var);
    double df = dm / inflation - 1;
    out->z = z;
    out->p = 2 * gsl_cdf_tdist_Q(fabs(z), df < 1 ? 1 : df);
    if (out->p > 1)
        out->p = 1;
    out->p_se = 0;
    out->method = AB_P_NORMAL;
    return AB_STATS_OK;
}
