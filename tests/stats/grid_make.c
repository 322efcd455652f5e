/*
 * grid_make.c: writes the cases of the verdict-grid test (verdict_grid.sh):
 * for each case a candidate sample A and a baseline sample B (seeded GSL
 * mt19937), a minimum resolvable shift FLOOR (the A/A resolution,
 * src/analysis/resolution.h), and an attnbench export (grid.json) holding, per case
 * k, in an environment of its own (hash "grid-env-KK"), three runs built from
 * grid_template.json (run 11 of reports/seeds-and-ladders/attnbench.db, an H200 hot-mode run,
 * with its samples removed), uuids "a" then the hex (k + 1) * 16 + 1, 2,
 * 3: the first with cuda_mma_pipeline = A and cuda_mma_swizzle (the
 * experiment's baseline) = B for `report`; the next two with
 * cuda_mma_pipeline = B, then A, for `compare`. A and B also go
 * to caseKK_a.txt / caseKK_b.txt for `stats`. Every sample is in round 0,
 * so report uses its i.i.d. comparison (the one stats and compare make;
 * with rounds it pairs them, a different inference). Runs "0000a001-0000-4000-8000-000000000000".."0000a004-0000-4000-8000-000000000000" serve
 * compare_gate.sh (see below). Prints one line per case:
 * "KK MIN_SHIFT_MS EXPECTED" (EXPECTED: faster, slower, none, or - when the
 * test only demands agreement). Where FLOOR > 0 the case's environment also
 * holds an A/A calibration run (experiment "grid-calibration", uuid
 * b<hex>) of two cuda_mma_pipeline instances sampled in 10 rounds, the
 * second exactly (1 + rel) times the first in every round, rel = FLOOR /
 * median(B): its A/A resolution is rel by construction, and the minimum
 * shift report and compare must apply is rel x max(median(A), median(B)),
 * the MIN_SHIFT_MS printed (and given to stats --min-shift).
 * Usage: grid_make TEMPLATE OUTDIR
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

typedef struct gcase {
    size_t na, nb;
    double med_a, med_b, sd_rel; /* lognormal around the medians */
    double grid;                 /* rounding step (ms), 0: none */
    double floor_ms;
    int two_levels;              /* heavy ties: two values only */
    const char *expect;
} gcase;

static const gcase cases[] = {
    /* the hot-mode small shift: 4.85 v 5.00 us, n = 200, floor 4 us */
    {200, 200, 0.00485, 0.00500, 0.01, 1e-5, 0.004, 0, "none"},
    /* 20 -> 17 us (1.18x) under a 4 us floor: main and chain tables agree */
    {200, 200, 0.017, 0.020, 0.02, 1e-5, 0.004, 0, "none"},
    /* the same change with a 1 us floor: resolved, faster */
    {200, 200, 0.017, 0.020, 0.02, 1e-5, 0.001, 0, "faster"},
    {50, 50, 1.0, 1.2, 0.02, 0, 0.004, 0, "faster"},
    {50, 50, 1.2, 1.0, 0.02, 0, 0.004, 0, "slower"},
    {200, 200, 1.0, 1.0, 0.03, 0, 0.004, 0, "-"},
    {3, 3, 0.01, 0.02, 0, 0, 0, 0, "none"},   /* p = 0.1 exactly */
    {10, 10, 1.0, 1.06, 0.02, 1e-3, 0, 0, "-"},
    {2000, 2000, 1.0, 1.004, 0.01, 0, 0, 0, "none"}, /* significant, inside 1 +- 0.01 */
    {200, 200, 0.004, 0.0045, 0, 0, 0, 1, "-"},     /* two levels: Monte Carlo p */
    {30, 30, 0.1, 0.102, 0.01, 5e-4, 0.003, 0, "-"},
    {5, 400, 0.5, 0.6, 0.02, 1e-3, 0.003, 0, "-"},
};

static void sample(gsl_rng *r, const gcase *c, double med, size_t n, double *x)
{
    for (size_t i = 0; i < n; i++) {
        double v = c->two_levels ? (gsl_rng_uniform(r) < 0.85 ? 0.004 : med + 0.0005)
                                 : med * exp(c->sd_rel * gsl_ran_gaussian(r, 1.0));
        if (c->grid > 0)
            v = c->grid * round(v / c->grid);
        x[i] = v;
    }
}

static json_t *samples_json(const double *x, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_pack("{s:I, s:f, s:I, s:f, s:I}", "idx", (json_int_t)i, "ms",
                                           x[i], "round", (json_int_t)0, "t_s",
                                           0.001 * (double)i, "throttled", (json_int_t)0));
    return a;
}

/* the case's own environment (hash "grid-env-KK") */
static void set_env(json_t *run, size_t k)
{
    char h[32];
    snprintf(h, sizeof h, "grid-env-%02zu", k);
    json_object_set_new(json_object_get(run, "environment"), "hash", json_string(h));
}

/* the A/A calibration run of case k: two instances of cuda_mma_pipeline,
 * one sample per round for 10 rounds, the second (1 + rel) x the first */
static json_t *make_calibration(json_t *tmpl, size_t k, double med, double rel)
{
    json_t *run = json_deep_copy(tmpl);
    char uuid[48];
    snprintf(uuid, sizeof uuid, "b%07zx-0000-4000-8000-000000000000", (k + 1) * 16);
    json_object_set_new(run, "uuid", json_string(uuid));
    set_env(run, k);
    json_t *x = json_object_get(run, "experiment");
    json_object_set_new(x, "name", json_string("grid-calibration"));
    json_object_set_new(x, "hash", json_string("gridcalibration0"));
    json_object_set_new(x, "path", json_string("grid-calibration.cfg"));
    json_t *ms = json_object_get(run, "measurements"), *keep = json_array();
    json_t *proto = NULL;
    for (size_t i = 0; i < json_array_size(ms); i++)
        if (strcmp(json_string_value(json_object_get(json_array_get(ms, i), "variant")),
                   "cuda_mma_pipeline") == 0)
            proto = json_array_get(ms, i);
    for (int inst = 0; inst < 2 && proto; inst++) {
        json_t *m = json_deep_copy(proto), *a = json_array();
        for (int r = 0; r < 10; r++)
            json_array_append_new(a, json_pack("{s:I, s:f, s:I, s:f, s:I}", "idx", (json_int_t)r,
                                               "ms", inst ? med * (1 + rel) : med, "round",
                                               (json_int_t)r, "t_s", 0.001 * r, "throttled",
                                               (json_int_t)0));
        json_object_set_new(m, "samples", a);
        json_object_set_new(m, "variant", json_string(inst ? "cuda_mma_pipeline#2" : "cuda_mma_pipeline#1"));
        json_array_append_new(keep, m);
    }
    json_object_set_new(run, "measurements", keep);
    json_object_set_new(run, "timer_floor", json_array());
    return run;
}

/* the median of x (n values; x is sorted in place), GSL's */
static double median(double *x, size_t n)
{
    gsl_sort(x, 1, n);
    return gsl_stats_median_from_sorted_data(x, 1, n);
}

/* a run from the template with the given uuid, floor and samples of the
 * measurements kept (pipeline = x; swizzle = y, or dropped when y NULL) */
static json_t *make_run(json_t *tmpl, const char *uuid, double floor_ms, const double *x, size_t nx,
                        const double *y, size_t ny)
{
    json_t *run = json_deep_copy(tmpl);
    json_object_set_new(run, "uuid", json_string(uuid));
    json_object_set_new(run, "timer_floor",
                        floor_ms > 0 ? json_pack("[{s:f, s:i, s:s}]", "median_ms", floor_ms, "n",
                                                 200, "timing_mode", "hot")
                                     : json_array()); /* none recorded: floor 0 */
    json_t *ms = json_object_get(run, "measurements"), *keep = json_array();
    for (size_t i = 0; i < json_array_size(ms); i++) {
        json_t *m = json_array_get(ms, i);
        const char *v = json_string_value(json_object_get(m, "variant"));
        int pipe = strcmp(v, "cuda_mma_pipeline") == 0;
        if (!pipe && y == NULL)
            continue;
        json_object_set_new(m, "samples", pipe ? samples_json(x, nx) : samples_json(y, ny));
        json_array_append(keep, m);
    }
    json_object_set_new(run, "measurements", keep);
    return run;
}

static int write_txt(const char *path, const double *x, size_t n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%.17g\n", x[i]);
    return fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: grid_make TEMPLATE OUTDIR\n");
        return 2;
    }
    json_error_t jerr;
    json_t *doc = json_load_file(argv[1], 0, &jerr);
    if (!doc) {
        fprintf(stderr, "%s:%d: %s\n", argv[1], jerr.line, jerr.text);
        return 1;
    }
    json_t *tmpl = json_array_get(json_object_get(doc, "runs"), 0);
    json_t *runs = json_array();
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 1313);
    char path[4096], uuid[48];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const gcase *c = &cases[k];
        double *a = malloc(c->na * sizeof *a), *b = malloc(c->nb * sizeof *b);
        sample(r, c, c->med_a, c->na, a);
        sample(r, c, c->med_b, c->nb, b);
        for (int j = 1; j <= 3; j++) {
            snprintf(uuid, sizeof uuid, "a%07zx-0000-4000-8000-000000000000", (k + 1) * 16 + j);
            json_t *run = j == 1   ? make_run(tmpl, uuid, 0, a, c->na, b, c->nb)
                          : j == 2 ? make_run(tmpl, uuid, 0, b, c->nb, NULL, 0)
                                   : make_run(tmpl, uuid, 0, a, c->na, NULL, 0);
            set_env(run, k);
            json_array_append_new(runs, run);
        }
        double min_shift = 0;
        if (c->floor_ms > 0) {
            double *sa = malloc(c->na * sizeof *sa), *sb = malloc(c->nb * sizeof *sb);
            memcpy(sa, a, c->na * sizeof *sa);
            memcpy(sb, b, c->nb * sizeof *sb);
            const double ma = median(sa, c->na), mb = median(sb, c->nb);
            const double rel = c->floor_ms / mb;
            json_array_append_new(runs, make_calibration(tmpl, k, mb, rel));
            min_shift = rel * (ma > mb ? ma : mb);
            free(sa);
            free(sb);
        }
        snprintf(path, sizeof path, "%s/case%02zu_a.txt", argv[2], k);
        if (write_txt(path, a, c->na))
            return 1;
        snprintf(path, sizeof path, "%s/case%02zu_b.txt", argv[2], k);
        if (write_txt(path, b, c->nb))
            return 1;
        printf("%02zu %.17g %s\n", k, min_shift, c->expect);
        free(a);
        free(b);
    }
    /* the gates of `compare --fail-on-regression` (compare_gate.sh):
     * gatea: both variants, 50 samples; gatec: the same samples again;
     * gateb: cuda_mma_pipeline with 2 samples, cuda_mma_swizzle failed;
     * gated: cuda_mma_pipeline 1.5x slower than in gatea */
    {
        double x[50], y[50], slow[50];
        gcase c = {50, 50, 1.0, 1.0, 0.02, 0, 0.004, 0, "-"};
        sample(r, &c, 1.0, 50, x);
        sample(r, &c, 1.1, 50, y);
        for (int i = 0; i < 50; i++)
            slow[i] = 1.5 * x[i];
        json_array_append_new(runs, make_run(tmpl, "0000a001-0000-4000-8000-000000000000", 0.004, x, 50, y, 50));
        json_array_append_new(runs, make_run(tmpl, "0000a003-0000-4000-8000-000000000000", 0.004, x, 50, y, 50));
        json_t *b = make_run(tmpl, "0000a002-0000-4000-8000-000000000000", 0.004, x, 50, y, 50);
        json_t *bm = json_object_get(b, "measurements");
        for (size_t i = 0; i < json_array_size(bm); i++) {
            json_t *m = json_array_get(bm, i);
            if (strcmp(json_string_value(json_object_get(m, "variant")), "cuda_mma_swizzle") == 0) {
                json_object_set_new(m, "status", json_string("error"));
                json_object_set_new(m, "message", json_string("launch failed (test)"));
                json_object_set_new(m, "samples", json_array());
            }
        }
        json_array_append_new(runs, b);
        json_array_append_new(runs, make_run(tmpl, "0000a004-0000-4000-8000-000000000000", 0.004, slow, 50, y, 50));
        json_array_append_new(runs, make_run(tmpl, "0000a005-0000-4000-8000-000000000000", 0.004, x, 2, y, 50));
    }
    json_object_set_new(doc, "runs", runs);
    snprintf(path, sizeof path, "%s/grid.json", argv[2]);
    if (json_dump_file(doc, path, JSON_REAL_PRECISION(17)) != 0)
        return 1;
    gsl_rng_free(r);
    json_decref(doc);
    return 0;
}
