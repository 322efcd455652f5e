/*
 * signrank_ci.c: the Hodges-Lehmann estimate of the centre of a sample of
 * paired differences with the confidence interval that inverts the
 * Wilcoxon signed-rank test (rounds.h, ab_signrank_hl).
 *
 * Hollander & Wolfe 1999, Nonparametric Statistical Methods, 2nd ed., sec.
 * 3.2: with the M = n(n+1)/2 Walsh averages W_ij = (d_i + d_j)/2, i <= j, in
 * ascending order W_(1) <= ... <= W_(M), the estimate is their median
 * (Hodges & Lehmann 1963) and the interval [W_(C), W_(M+1-C)], C the
 * largest integer with P(T+ <= C - 1) <= (1 - level)/2 under the null
 * distribution of the signed-rank statistic T+ (the interval is the set of
 * shifts theta that the two-sided signed-rank test of d - theta does not
 * reject: T+(d - theta) counts the Walsh averages above theta). C comes
 * from the exact distribution of T+ (untied, counted on the integer lattice
 * with the recursion N_k(s) = N_{k-1}(s) + N_{k-1}(s - k)) for n <= 50, as
 * R's wilcox.test(conf.int = TRUE) does; above 50 from the normal
 * approximation C = floor(n(n+1)/4 - z sqrt(n(n+1)(2n+1)/24)) (H&W eq.
 * 3.28), z the standard normal quantile. An inflation f > 1 (serial
 * correlation of the differences, serial.c) multiplies the variance of T+
 * and takes the quantile from Student's t with n/f - 1 degrees of freedom
 * (at least 1) instead of z, the equivalent-sample-size correction of
 * Zwiers & von Storch 1995 (J. Climate 8, 336-351); it always uses the
 * normal form.
 */
#include "rounds.h"
#include "stats_internal.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

/* Walsh averages above which ab_signrank_hl refuses (2^26: 512 MiB of
 * doubles; 11,585 rounds) */
#define WALSH_MAX ((size_t)1 << 26)

int ab__signrank_exact_cdf(size_t n, double *cdf)
{
    size_t M = n * (n + 1) / 2;
    for (size_t s = 0; s <= M; s++)
        cdf[s] = s == 0;
    for (size_t k = 1; k <= n; k++) /* N_k(s) = N_{k-1}(s) + N_{k-1}(s - k), s descending */
        for (size_t s = k * (k + 1) / 2; s >= k; s--)
            cdf[s] += cdf[s - k];
    double total = ldexp(1.0, (int)n), run = 0;
    for (size_t s = 0; s <= M; s++) {
        run += cdf[s];
        cdf[s] = run / total;
    }
    return AB_STATS_OK;
}

double ab__signrank_quantile(double level, double inflation, size_t n)
{
    double q = 0.5 + level / 2;
    if (inflation > 1) {
        double df = (double)n / inflation - 1;
        return gsl_cdf_tdist_Pinv(q, df < 1 ? 1 : df);
    }
    return gsl_cdf_ugaussian_Pinv(q);
}

int ab_signrank_hl(const double *d, size_t n, double level, double inflation,
                   ab_signrank_ci *out)
{
    int rc = AB_STATS_EINVAL;
    double *w = NULL, *cdf = NULL;
    if (d == NULL || out == NULL || n < 1 || !(level > 0 && level < 1) || !(inflation >= 1) ||
        !isfinite(inflation))
        return AB_STATS_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(d[i]))
            return AB_STATS_ENONFINITE;
    size_t M = n * (n + 1) / 2;
    if (M > WALSH_MAX)
        return AB_STATS_ENOMEM;
    rc = AB_STATS_ENOMEM;
    w = malloc(M * sizeof *w);
    if (w == NULL)
        goto cleanup;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            w[k++] = (d[i] + d[j]) / 2;
    gsl_sort(w, 1, M);
    out->estimate = gsl_stats_median_from_sorted_data(w, 1, M);
    size_t C;
    if (inflation == 1 && n <= 50) {
        cdf = malloc((M + 1) * sizeof *cdf);
        if (cdf == NULL)
            goto cleanup;
        ab__signrank_exact_cdf(n, cdf);
        /* the largest C with P(T+ <= C - 1) <= (1 - level)/2; C >= 1 */
        double tail = (1 - level) / 2;
        C = 1;
        while (C < M && cdf[C] <= tail * (1 + 1e-12))
            C++;
        out->attained = 1 - 2 * cdf[C - 1]; /* of [W_(C), W_(M+1-C)] */
        out->exact = 1;
    } else {
        double var = inflation * (double)n * (n + 1) * (2.0 * n + 1) / 24;
        double c = floor((double)M / 2 - ab__signrank_quantile(level, inflation, n) * sqrt(var));
        C = c < 1 ? 1 : (size_t)c;
        out->attained = level; /* the approximation's nominal level */
        out->exact = 0;
    }
    if (C > (M + 1) / 2)
        C = (M + 1) / 2;
    out->lo = w[C - 1];
    out->hi = w[M - C];
    out->c = C;
    out->attainable = out->attained >= level * (1 - 1e-12);
    rc = AB_STATS_OK;
cleanup:
    free(w);
    free(cdf);
    return rc;
}
