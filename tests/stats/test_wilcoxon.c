/*
 * test_wilcoxon.c: ab_wilcoxon_signed_rank against two independent sources.
 * (1) fixtures/wilcoxon.ref (argv[1]), written by gen_wilcoxon.py from
 * scipy 1.10.1: scipy.stats.wilcoxon's exact and normal p-values, and
 * scipy.stats.permutation_test's full sign-flip enumeration where there are
 * ties or zeros; T+, T-, p within 1e-9 relative and the method named.
 * (2) brute force here: for random small samples with heavy ties and zeros
 * (seeded GSL mt19937), every one of the 2^m sign patterns of the nonzero
 * differences is enumerated, T+ recomputed from midranks counted in O(n^2),
 * and the two-sided p = P(|T+ - E| >= |t+ - E|) counted; ours must agree
 * to 1e-12, for both zero conventions.
 */
#include "abstats.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

/* midrank of |x[i]| among the |x[j]|, j in the kept set, by counting */
static double midrank(const double *x, const int *keep, size_t n, size_t i)
{
    double below = 0, same = 0;
    for (size_t j = 0; j < n; j++) {
        if (!keep[j])
            continue;
        if (fabs(x[j]) < fabs(x[i]))
            below++;
        else if (fabs(x[j]) == fabs(x[i]))
            same++;
    }
    return below + (same + 1) / 2;
}

static double brute_p(const double *d, size_t n, int pratt, double *tp_obs)
{
    int keep[24];
    double r[24];
    size_t nzi[24], m = 0;
    for (size_t i = 0; i < n; i++)
        keep[i] = pratt || d[i] != 0;
    double total = 0, tp = 0;
    for (size_t i = 0; i < n; i++) {
        r[i] = midrank(d, keep, n, i);
        if (d[i] != 0) {
            nzi[m++] = i;
            total += r[i];
            if (d[i] > 0)
                tp += r[i];
        }
    }
    *tp_obs = tp;
    double dev = fabs(tp - total / 2), hits = 0;
    for (unsigned long mask = 0; mask < (1ul << m); mask++) {
        double s = 0;
        for (size_t k = 0; k < m; k++)
            if (mask >> k & 1)
                s += r[nzi[k]];
        hits += fabs(s - total / 2) >= dev - 1e-9;
    }
    return hits / (double)(1ul << m);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_wilcoxon FIXTURE\n");
        return 2;
    }
    ab_stats_init();
    ab_test_opts o;
    ab_test_opts_default(&o);
    CHECK(o.exact_max_n == 50 && o.zero_method == AB_ZERO_WILCOX && o.seed == 42, "defaults");
    ab_wilcoxon w;

    /* (1) scipy fixtures */
    FILE *f = fopen(argv[1], "r");
    if (f == NULL) {
        perror(argv[1]);
        return 2;
    }
    static char line[1 << 16];
    int cases = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "wsr ", 4) != 0)
            continue;
        char *s = line + 4, *e;
        int zero = (int)strtol(s, &e, 10);
        size_t n = (size_t)strtoul(e, &e, 10);
        double *d = malloc(n * sizeof *d);
        for (size_t i = 0; i < n; i++)
            d[i] = strtod(e, &e);
        double tp = strtod(e, &e), tm = strtod(e, &e), p = strtod(e, &e);
        int method = (int)strtol(e, &e, 10);
        o.zero_method = zero ? AB_ZERO_PRATT : AB_ZERO_WILCOX;
        CHECK_RC(ab_wilcoxon_signed_rank(d, n, &o, &w), AB_STATS_OK);
        char what[64];
        snprintf(what, sizeof what, "n %zu zero %d T+", n, zero);
        CHECK_CLOSE(what, w.t_plus, tp, 1e-12, 0);
        CHECK_CLOSE(what, w.t_minus, tm, 1e-12, 0);
        snprintf(what, sizeof what, "n %zu zero %d p", n, zero);
        CHECK_CLOSE(what, w.p, p, 1e-9, 1e-300);
        CHECK((int)w.method == method, "n %zu zero %d: method %s, want %d", n, zero,
              ab_pmethod_name(w.method), method);
        printf("  n %3zu %s: T+ %g p %.10g (%s)\n", n, zero ? "pratt " : "wilcox", w.t_plus, w.p,
               ab_pmethod_name(w.method));
        free(d);
        cases++;
    }
    fclose(f);
    CHECK(cases >= 30, "read %d fixture cases", cases);

    /* (2) brute-force enumeration, heavy ties and zeros, n = 1..18 */
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 13);
    double d[24];
    for (int rep = 0; rep < 300; rep++) {
        size_t n = 1 + gsl_rng_uniform_int(r, 18);
        int levels = 1 + (int)gsl_rng_uniform_int(r, 4);
        for (size_t i = 0; i < n; i++)
            d[i] = 0.01 * (double)((long)gsl_rng_uniform_int(r, 2 * levels + 1) - levels);
        for (int pratt = 0; pratt < 2; pratt++) {
            o.zero_method = pratt ? AB_ZERO_PRATT : AB_ZERO_WILCOX;
            double tp;
            double want = brute_p(d, n, pratt, &tp);
            CHECK_RC(ab_wilcoxon_signed_rank(d, n, &o, &w), AB_STATS_OK);
            CHECK_CLOSE("brute T+", w.t_plus, tp, 1e-12, 1e-12);
            CHECK_CLOSE("brute p", w.p, want, 1e-12, 1e-15);
            CHECK(w.method == AB_P_EXACT || w.method == AB_P_PERMUTATION, "exact at n %zu", n);
        }
    }
    gsl_rng_free(r);

    /* the edges: all zeros (nothing to permute), bad input */
    double zeros[4] = {0, 0, -0.0, 0};
    o.zero_method = AB_ZERO_WILCOX;
    CHECK_RC(ab_wilcoxon_signed_rank(zeros, 4, &o, &w), AB_STATS_OK);
    CHECK(w.p == 1 && w.n_zero == 4 && w.t_plus == 0 && w.t_minus == 0, "all zeros");
    double bad[3] = {1, NAN, 2};
    CHECK_RC(ab_wilcoxon_signed_rank(bad, 3, &o, &w), AB_STATS_ENONFINITE);
    CHECK_RC(ab_wilcoxon_signed_rank(NULL, 3, &o, &w), AB_STATS_EINVAL);
    CHECK_RC(ab_wilcoxon_signed_rank(zeros, 0, &o, &w), AB_STATS_EINVAL);
    CHECK_RC(ab_wilcoxon_signed_rank(zeros, 4, NULL, &w), AB_STATS_OK); /* defaults */
    /* three rounds all faster by the same rounded amount: T+ = 6 of 6, the
     * exact p is 2 / 2^3 = 0.25 (never significant at n = 3) */
    double three[3] = {0.01, 0.01, 0.01};
    CHECK_RC(ab_wilcoxon_signed_rank(three, 3, &o, &w), AB_STATS_OK);
    CHECK(w.p == 0.25 && w.method == AB_P_PERMUTATION, "3 tied: p %g", w.p);
    return check_report("test_wilcoxon");
}
