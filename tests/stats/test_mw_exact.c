/*
 * test_mw_exact.c: the Mann-Whitney p-values that are exact (untied, or the
 * exact conditional permutation distribution given ties) or Monte Carlo,
 * against (1) fixtures/mw_exact.ref (argv[1]) from gen_mw_exact.py: scipy
 * 1.10.1 mannwhitneyu(method='exact') for untied data, and for tied data an
 * exact-integer generating function over tie groups, itself checked against
 * scipy.stats.permutation_test's full enumeration; and (2) brute force here:
 * every m-subset of the pooled sample of random small tied samples (seeded
 * GSL mt19937, N <= 14), rank sums from midranks counted in O(N^2). The
 * Monte Carlo p must lie within 4.5 of its own standard errors of the exact
 * one (fails by chance with probability < 1e-5), and the enumeration budget
 * is lowered to force Monte Carlo where the exact answer is known.
 */
#include "abstats.h"
#include "stats_internal.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

static double midrank(const double *x, size_t n, size_t i)
{
    double below = 0, same = 0;
    for (size_t j = 0; j < n; j++) {
        below += x[j] < x[i];
        same += x[j] == x[i];
    }
    return below + (same + 1) / 2;
}

/* 2 min(P(W <= w), P(W >= w)) over all m-subsets of the N pooled values,
 * W the rank sum of the subset; x = the first m values. */
static double brute_p(const double *pool, size_t N, size_t m)
{
    double r[16], w = 0;
    for (size_t i = 0; i < N; i++)
        r[i] = midrank(pool, N, i);
    for (size_t i = 0; i < m; i++)
        w += r[i];
    double le = 0, ge = 0, tot = 0;
    for (unsigned mask = 0; mask < (1u << N); mask++) {
        if ((size_t)__builtin_popcount(mask) != m)
            continue;
        double s = 0;
        for (size_t i = 0; i < N; i++)
            if (mask >> i & 1)
                s += r[i];
        tot++;
        le += s <= w + 1e-9;
        ge += s >= w - 1e-9;
    }
    double p = 2 * (le < ge ? le : ge) / tot;
    return p < 1 ? p : 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_mw_exact FIXTURE\n");
        return 2;
    }
    ab_stats_init();
    ab_mw_result r;

    /* the case, stated by hand: 3 x 0.01 v 3 x 0.02: the rank sum of
     * A is 6 only when A takes all three low values, 1 of C(6,3) = 20
     * subsets, and 15 likewise: p = 2/20 = 0.1 exactly */
    double lo3[3] = {0.01, 0.01, 0.01}, hi3[3] = {0.02, 0.02, 0.02};
    CHECK_RC(ab_mann_whitney(lo3, 3, hi3, 3, &r), AB_STATS_OK);
    CHECK(r.p == 0.1 && r.method == AB_P_PERMUTATION && r.exact == 1, "3x0.01 v 3x0.02: p %.17g (%s)",
          r.p, ab_pmethod_name(r.method));

    FILE *f = fopen(argv[1], "r");
    if (f == NULL) {
        perror(argv[1]);
        return 2;
    }
    static char line[1 << 16];
    int cases = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "mwx ", 4) != 0)
            continue;
        char *e = line + 4;
        size_t na = strtoul(e, &e, 10), nb = strtoul(e, &e, 10);
        double *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b);
        for (size_t i = 0; i < na; i++)
            a[i] = strtod(e, &e);
        for (size_t i = 0; i < nb; i++)
            b[i] = strtod(e, &e);
        double u = strtod(e, &e), p = strtod(e, &e);
        int method = (int)strtol(e, &e, 10);
        CHECK_RC(ab_mann_whitney(a, na, b, nb, &r), AB_STATS_OK);
        CHECK_CLOSE("U", r.u, u, 1e-12, 0);
        CHECK((int)r.method == method, "%zu v %zu: method %s, want %d", na, nb,
              ab_pmethod_name(r.method), method);
        if (method == AB_P_MONTE_CARLO) {
            CHECK(r.p_se > 0 && fabs(r.p - p) <= 4.5 * r.p_se, "%zu v %zu: MC p %g +- %g, exact %g",
                  na, nb, r.p, r.p_se, p);
        } else {
            CHECK_CLOSE("p", r.p, p, 1e-9, 1e-300);
            CHECK(r.p_se == 0 && r.exact == 1, "exact flags");
        }
        printf("  %3zu v %3zu: U %g p %.10g +- %.2g (%s), reference %.10g\n", na, nb, r.u, r.p,
               r.p_se, ab_pmethod_name(r.method), p);
        /* forcing Monte Carlo on an enumerable case: within 4.5 SE */
        if (method == AB_P_PERMUTATION && na + nb < 100) {
            size_t keep = ab__mw_enum_budget;
            ab__mw_enum_budget = 0;
            ab_mw_result mc;
            CHECK_RC(ab_mann_whitney(a, na, b, nb, &mc), AB_STATS_OK);
            ab__mw_enum_budget = keep;
            CHECK(mc.method == AB_P_MONTE_CARLO && fabs(mc.p - p) <= 4.5 * mc.p_se + 2.0 / 100001,
                  "forced MC %g +- %g, exact %g", mc.p, mc.p_se, p);
        }
        free(a);
        free(b);
        cases++;
    }
    fclose(f);
    CHECK(cases >= 20, "read %d fixture cases", cases);

    /* brute force: random tied samples, 2..4 levels, N <= 14 */
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 1313);
    double pool[16];
    for (int rep = 0; rep < 300; rep++) {
        size_t na = 1 + gsl_rng_uniform_int(g, 7), nb = 1 + gsl_rng_uniform_int(g, 7);
        int lv = 1 + (int)gsl_rng_uniform_int(g, 4);
        for (size_t i = 0; i < na + nb; i++)
            pool[i] = 0.01 + 0.0005 * (double)gsl_rng_uniform_int(g, (unsigned long)lv);
        CHECK_RC(ab_mann_whitney(pool, na, pool + na, nb, &r), AB_STATS_OK);
        /* the test is symmetric in A and B; brute force on A as the subset */
        double want = brute_p(pool, na + nb, na);
        CHECK_CLOSE("brute p", r.p, want, 1e-12, 1e-15);
        CHECK(r.exact == 1, "exact at %zu v %zu", na, nb);
    }
    gsl_rng_free(g);
    return check_report("test_mw_exact");
}
