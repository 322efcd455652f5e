/*
 * test_extremes.c: the statistics at their edges, each
 * against an independent answer. From fixtures/edges.ref (argv[1],
 * gen_edges.py, scipy 1.10.1): Cliff's delta at complete separation with
 * Newcombe's (2006) Method 5 interval (scipy's brentq on the squared
 * equation), the Hodges-Lehmann critical rank and attained confidence from
 * scipy's exact U distribution, and Spearman's drift p by full enumeration
 * of orderings (itertools). By hand or by simulation here: zeros (speedup
 * error AB_STATS_EZERO), out-of-range values (AB_STATS_ERANGE), and the size
 * of the drift test on i.i.d. series at n = 3, 4, 5 (at most alpha + 2 SE;
 * the t approximation flagged 30.5% at n = 3).
 */
#include "abstats.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* P(|S - E| >= |s_obs - E|) over all orderings of r[0..n), S = sum (i+1) r,
 * by plain recursion (swap-based permutation generation) */
static double perm_hits, perm_count;
static void perm_rec(double *r, int n, int k, double centre, double dev)
{
    if (k == n) {
        double s = 0;
        for (int i = 0; i < n; i++)
            s += (i + 1) * r[i];
        perm_hits += fabs(s - centre) >= dev - 1e-9;
        perm_count++;
        return;
    }
    for (int i = k; i < n; i++) {
        double t = r[k];
        r[k] = r[i];
        r[i] = t;
        perm_rec(r, n, k + 1, centre, dev);
        r[i] = r[k];
        r[k] = t;
    }
}
static double enum_p(double *r, int n, double s_obs)
{
    double tot = 0;
    for (int i = 0; i < n; i++)
        tot += r[i];
    double centre = (n + 1) / 2.0 * tot;
    perm_hits = perm_count = 0;
    perm_rec(r, n, 0, centre, fabs(s_obs - centre));
    return perm_hits / perm_count;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_extremes FIXTURE\n");
        return 2;
    }
    ab_stats_init();
    FILE *f = fopen(argv[1], "r");
    if (f == NULL) {
        perror(argv[1]);
        return 2;
    }
    static char line[1 << 16];
    int ncl = 0, nhl = 0, nsp = 0;
    while (fgets(line, sizeof line, f)) {
        char *e = line;
        if (strncmp(line, "cliff ", 6) == 0) {
            e += 6;
            size_t na = strtoul(e, &e, 10), nb = strtoul(e, &e, 10);
            double d = strtod(e, &e), lo = strtod(e, &e), hi = strtod(e, &e);
            double *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b);
            /* complete separation with a sign d: A entirely above (or below) B */
            for (size_t i = 0; i < na; i++)
                a[i] = 1.0 + 0.01 * (double)i + (d > 0 ? 10 : 0);
            for (size_t j = 0; j < nb; j++)
                b[j] = 1.0 + 0.01 * (double)j + (d > 0 ? 0 : 10);
            ab_cliff_result r;
            CHECK_RC(ab_cliffs_delta(a, na, b, nb, 0.95, &r), AB_STATS_OK);
            CHECK(r.delta == d, "delta %g", r.delta);
            CHECK_CLOSE("Newcombe lo", r.lo, lo, 1e-9, 1e-12);
            CHECK_CLOSE("Newcombe hi", r.hi, hi, 1e-9, 1e-12);
            CHECK(r.hi > r.lo, "%zu v %zu: zero-width interval", na, nb);
            printf("  cliff %zu v %zu: %g [%.6f, %.6f]\n", na, nb, r.delta, r.lo, r.hi);
            free(a);
            free(b);
            ncl++;
        } else if (strncmp(line, "hlconf ", 7) == 0) {
            e += 7;
            size_t na = strtoul(e, &e, 10), nb = strtoul(e, &e, 10);
            double level = strtod(e, &e);
            size_t c = strtoul(e, &e, 10);
            double att = strtod(e, &e);
            /* untied data with distinct differences: a_i = i, b_j = j / (nb + 1) / 7 */
            double *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b);
            double *dd = malloc(na * nb * sizeof *dd);
            for (size_t i = 0; i < na; i++)
                a[i] = 1.0 + (double)i;
            for (size_t j = 0; j < nb; j++)
                b[j] = 0.5 + (double)j / (double)(nb + 1) / 7;
            for (size_t i = 0; i < na; i++)
                for (size_t j = 0; j < nb; j++)
                    dd[i * nb + j] = a[i] - b[j];
            qsort(dd, na * nb, sizeof *dd, cmp_d);
            ab_hl_result r;
            CHECK_RC(ab_hodges_lehmann(a, na, b, nb, level, &r), AB_STATS_OK);
            CHECK_CLOSE("HL attained", r.level, att, 1e-12, 0);
            CHECK(r.attainable == (att >= level), "attainable flag");
            CHECK(r.lo == dd[c - 1] && r.hi == dd[na * nb - c], "%zu v %zu: [%g, %g] want D(%zu)",
                  na, nb, r.lo, r.hi, c);
            printf("  HL %zu v %zu: C %zu, attained %.6f%s\n", na, nb, c, r.level,
                   r.level < level ? " (95% not attainable)" : "");
            free(a);
            free(b);
            free(dd);
            nhl++;
        } else if (strncmp(line, "spear ", 6) == 0) {
            e += 6;
            size_t n = strtoul(e, &e, 10);
            double x[16];
            for (size_t i = 0; i < n; i++)
                x[i] = strtod(e, &e);
            double rho = strtod(e, &e), p = strtod(e, &e);
            ab_drift d;
            CHECK_RC(ab_drift_test(x, n, 0.05, &d), AB_STATS_OK);
            CHECK_CLOSE("spearman rho", d.rho, rho, 1e-9, 1e-12);
            CHECK_CLOSE("spearman exact p", d.p, p, 1e-12, 0);
            CHECK(d.method == AB_P_PERMUTATION && d.drifting == (p < 0.05), "drift flags");
            nsp++;
        }
    }
    fclose(f);
    CHECK(ncl >= 10 && nhl >= 5 && nsp >= 8, "fixture lines %d %d %d", ncl, nhl, nsp);

    /* n = 10 (the largest exact size; untied series use a distribution
     * computed once per process): against a recursive enumeration of all
     * 10! orderings here, counting |S - E| >= observed with S = sum i r_i
     * over midranks, for an untied and a tied series */
    {
        double xs[2][10] = {{1.3, 1.1, 1.25, 1.4, 1.2, 1.45, 1.5, 1.35, 1.6, 1.55},
                            {1.1, 1.1, 1.2, 1.3, 1.2, 1.4, 1.1, 1.5, 1.5, 1.6}};
        for (int t = 0; t < 2; t++) {
            double r[10];
            for (int i = 0; i < 10; i++) {
                double below = 0, same = 0;
                for (int j = 0; j < 10; j++) {
                    below += xs[t][j] < xs[t][i];
                    same += xs[t][j] == xs[t][i];
                }
                r[i] = below + (same + 1) / 2;
            }
            double s_obs = 0;
            for (int i = 0; i < 10; i++)
                s_obs += (i + 1) * r[i];
            double want = enum_p(r, 10, s_obs);
            ab_drift dd;
            CHECK_RC(ab_drift_test(xs[t], 10, 0.05, &dd), AB_STATS_OK);
            CHECK_CLOSE("drift n = 10 exact p", dd.p, want, 1e-12, 0);
            printf("  drift n = 10 %s: p %.10g (enumeration %.10g)\n", t ? "tied" : "untied", dd.p, want);
        }
    }

    /* distribution-free median CI by hand: n = 10 -> [x_(2), x_(9)], the
     * confidence 1 - 2 P(Bin(10, 1/2) <= 1) = 1 - 2 * 11/1024; n = 5 cannot
     * reach 95%: [x_(1), x_(5)] with 1 - 2/32 = 0.9375 */
    {
        double x10[10] = {5, 3, 9, 1, 7, 2, 8, 4, 10, 6}, lo, hi, att;
        CHECK_RC(ab_median_ci_exact(x10, 10, 0.95, &lo, &hi, &att), AB_STATS_OK);
        CHECK(lo == 2 && hi == 9 && fabs(att - (1 - 22.0 / 1024)) < 1e-15, "n = 10: [%g, %g] %g", lo, hi, att);
        CHECK_RC(ab_median_ci_exact(x10, 5, 0.95, &lo, &hi, &att), AB_STATS_OK);
        CHECK(lo == 1 && hi == 9 && fabs(att - 0.9375) < 1e-15, "n = 5: [%g, %g] %g", lo, hi, att);
        ab_boot_opts o;
        ab_boot_opts_default(&o);
        double l2, h2;
        CHECK_RC(ab_median_ci(x10, 10, &o, &l2, &h2), AB_STATS_OK);
        CHECK(l2 == 2 && h2 == 9, "ab_median_ci uses the exact interval below n = 30");
    }

    /* the drift case: a monotone series of 3: p = 2/3! = 1/3 */
    double mono[3] = {1, 2, 3};
    ab_drift d;
    CHECK_RC(ab_drift_test(mono, 3, 0.05, &d), AB_STATS_OK);
    CHECK(fabs(d.p - 1.0 / 3) < 1e-15 && !d.drifting, "monotone 3: p %g", d.p);

    /* size of the drift test on i.i.d. lognormal series, n = 3, 4, 5, 11:
     * the fraction flagged at alpha = 0.05 must not exceed alpha + 2 SE */
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 4242);
    size_t ns[4] = {3, 4, 5, 11};
    for (int k = 0; k < 4; k++) {
        int reps = ns[k] > 10 ? 4000 : 2000, flagged = 0;
        double x[16];
        for (int rep = 0; rep < reps; rep++) {
            for (size_t i = 0; i < ns[k]; i++)
                x[i] = gsl_ran_lognormal(g, 0, 0.1);
            CHECK_RC(ab_drift_test(x, ns[k], 0.05, &d), AB_STATS_OK);
            flagged += d.drifting;
        }
        double rate = (double)flagged / reps, se = sqrt(0.05 * 0.95 / reps);
        CHECK(rate <= 0.05 + 2 * se, "drift size at n = %zu: %.4f", ns[k], rate);
        printf("  drift size n = %zu: %.4f (alpha 0.05, 2 SE %.4f)\n", ns[k], rate, 2 * se);
    }
    gsl_rng_free(g);

    /* zeros: median(A) = 0 is its own error; zeros that only make some
     * bootstrap medians of A zero (the issue's [1.09, inf]) too */
    ab_boot_opts bo;
    ab_boot_opts_default(&bo);
    double za[5] = {0, 0, 0, 0.02, 0.02}, zb[5] = {0.02, 0.021, 0.022, 0.02, 0.019};
    double half[7] = {0, 0, 0, 0.02, 0.02, 0.021, 0.02};
    double ratio, lo, hi;
    CHECK_RC(ab_bootstrap_speedup_ci(za, 5, zb, 5, &bo, &ratio, &lo, &hi), AB_STATS_EZERO);
    CHECK_RC(ab_bootstrap_speedup_ci(half, 7, zb, 5, &bo, &ratio, &lo, &hi), AB_STATS_EZERO);
    ab_compare_opts co;
    ab_compare_opts_default(&co);
    ab_comparison c;
    CHECK_RC(ab_compare(half, 7, zb, 5, &co, &c), AB_STATS_EZERO);
    /* zeros in B only: speedup 0-bounded and finite */
    CHECK_RC(ab_bootstrap_speedup_ci(zb, 5, half, 7, &bo, &ratio, &lo, &hi), AB_STATS_OK);
    CHECK(isfinite(lo) && isfinite(hi) && lo >= 0, "zeros in B: [%g, %g]", lo, hi);

    /* out of range: 1e300 (its square and sums overflow) and subnormals */
    double big[3] = {1, 1e300, 2}, sub[3] = {1, 1e-310, 2}, edge[3] = {1e-150, 1, 1e150};
    ab_summary s;
    CHECK_RC(ab_summarize(big, 3, &s), AB_STATS_ERANGE);
    CHECK_RC(ab_summarize(sub, 3, &s), AB_STATS_ERANGE);
    CHECK_RC(ab_summarize(edge, 3, &s), AB_STATS_OK);
    CHECK(isfinite(s.mean) && isfinite(s.stddev), "edges of the range stay finite");
    ab_mw_result mw;
    CHECK_RC(ab_mann_whitney(big, 3, edge, 3, &mw), AB_STATS_ERANGE);
    CHECK(strstr(ab_stats_strerror(AB_STATS_EZERO), "median latency of A is 0") != NULL, "EZERO text");
    return check_report("test_extremes");
}
