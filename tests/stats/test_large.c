/*
 * test_large.c: 10^6 latencies per sample, built from the formula of
 * gen_large.py (0.0005 ms grid, heavy ties, 0.1% outliers): one full
 * ab_compare (10,000 resamples, BCa) must finish (meson timeout) and agree
 * with fixtures/large.ref (scipy.stats.mannwhitneyu on the full arrays;
 * brute force over the weighted distinct values for Cliff's delta and the
 * Hodges-Lehmann estimate, whose 10^12 differences ab_hodges_lehmann
 * selects without materialising). Usage: test_large fixtures/large.ref
 */
#include "abstats.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 1000000

static double ref[5][3];

static void load(const char *path)
{
    const char *keys[5] = {"median", "mw", "cliff", "hl", "tukey_a"};
    FILE *f = fopen(path, "r");
    char line[512];
    if (f == NULL) {
        perror(path);
        exit(2);
    }
    while (fgets(line, sizeof line, f)) {
        for (int k = 0; k < 5; k++) {
            size_t l = strlen(keys[k]);
            if (strncmp(line, keys[k], l) == 0 && line[l] == ' ')
                sscanf(line + l, "%lf %lf %lf", &ref[k][0], &ref[k][1], &ref[k][2]);
        }
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_large fixtures/large.ref\n");
        return 2;
    }
    ab_stats_init();
    load(argv[1]);
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    for (long i = 0; i < N; i++) {
        a[i] = 1.0 + 0.0005 * (double)((i * 7919) % 997) + (i % 1000 == 7 ? 0.5 : 0.0);
        b[i] = 1.0 + 0.0005 * (double)((i * 7907) % 991) + (i % 1000 == 3 ? 0.5 : 0.0);
    }
    ab_compare_opts o;
    ab_compare_opts_default(&o);
    ab_comparison c;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK_RC(ab_compare(a, N, b, N, &o, &c), AB_STATS_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("ab_compare, n = %d + %d, %zu resamples: %.2f s\n", N, N, o.boot.resamples, s);

    CHECK_CLOSE("median A", c.a.median, ref[0][0], 1e-12, 0);
    CHECK_CLOSE("median B", c.b.median, ref[0][1], 1e-12, 0);
    CHECK_CLOSE("U", c.mw.u, ref[1][0], 1e-6, 0);
    CHECK_CLOSE("p", c.mw.p, ref[1][1], 1e-6, 0);
    CHECK(c.mw.exact == 0, "asymptotic expected");
    CHECK_CLOSE("delta", c.cliff.delta, ref[2][0], 1e-6, 0);
    CHECK_CLOSE("delta lo", c.cliff.lo, ref[2][1], 1e-6, 0);
    CHECK_CLOSE("delta hi", c.cliff.hi, ref[2][2], 1e-6, 0);
    CHECK_CLOSE("HL shift", c.hl.shift, ref[3][0], 1e-6, 1e-12);
    CHECK_CLOSE("HL lo", c.hl.lo, ref[3][1], 1e-6, 1e-12);
    CHECK_CLOSE("HL hi", c.hl.hi, ref[3][2], 1e-6, 1e-12);
    CHECK_CLOSE("speedup", c.speedup, ref[0][1] / ref[0][0], 1e-12, 0);
    /* Sanity of the randomised parts (no independent reference at this n):
     * each CI holds its estimate. */
    CHECK(c.a_ci_lo <= c.a.median && c.a.median <= c.a_ci_hi, "A median CI");
    CHECK(c.b_ci_lo <= c.b.median && c.b.median <= c.b_ci_hi, "B median CI");
    CHECK(c.speedup_lo <= c.speedup && c.speedup <= c.speedup_hi, "speedup CI");
    /* Tukey counts: numpy quartiles, counted in gen_large.py. */
    CHECK(c.a_out.mild == (size_t)ref[4][0] && c.a_out.severe == (size_t)ref[4][1],
          "A outliers %zu+%zu, want %g+%g", c.a_out.mild, c.a_out.severe, ref[4][0], ref[4][1]);
    free(a);
    free(b);
    return check_report("test_large");
}
