/*
 * bench_stats.c: wall-clock time of one full ab_compare (summaries, two
 * median CIs, Mann-Whitney, Cliff's delta, Hodges-Lehmann, speedup CI,
 * outliers, drift) at n = 100, 1,000, 100,000 and 1,000,000 samples per
 * side, 10,000 bootstrap resamples, BCa, on synthetic lognormal latencies
 * rounded to the 0.0005 ms resolution of CUDA events (gsl_rng_mt19937,
 * seed 1). Prints a markdown table: the best of 3 runs and the median of 3.
 * A benchmark, not a test: `build/stats/bench_stats [max_n]`.
 */
#include "abstats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    size_t sizes[] = {100, 1000, 100000, 1000000};
    size_t max_n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
    ab_stats_init();
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 1);
    ab_compare_opts o;
    ab_compare_opts_default(&o); /* 10,000 resamples, BCa, seed 42 */
    printf("| n per sample | resamples | ab_compare best (s) | median of 3 (s) |\n");
    printf("|---:|---:|---:|---:|\n");
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes && sizes[k] <= max_n; k++) {
        size_t n = sizes[k];
        double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
        if (a == NULL || b == NULL)
            return 1;
        for (size_t i = 0; i < n; i++) {
            a[i] = round(gsl_ran_lognormal(r, log(0.0130), 0.05) / 0.0005) * 0.0005;
            b[i] = round(gsl_ran_lognormal(r, log(0.0128), 0.05) / 0.0005) * 0.0005;
        }
        double t[3];
        ab_comparison c;
        for (int rep = 0; rep < 3; rep++) {
            double t0 = now_s();
            int rc = ab_compare(a, n, b, n, &o, &c);
            t[rep] = now_s() - t0;
            if (rc != AB_STATS_OK) {
                fprintf(stderr, "bench_stats: ab_compare: %s\n", ab_stats_strerror(rc));
                return 1;
            }
        }
        gsl_sort(t, 1, 3);
        printf("| %zu | %zu | %.4f | %.4f |\n", n, o.boot.resamples, t[0], t[1]);
        fflush(stdout);
        free(a);
        free(b);
    }
    gsl_rng_free(r);
    return 0;
}
