/*
 * grid_make.c: writes the cases of the verdict-grid test (verdict_grid.sh):
 * for each case a candidate sample A and a baseline sample B (seeded GSL
 * mt19937), a timer floor (the minimum resolvable shift), and an attnbench
 * export (grid.json) holding, per case k, three runs built from
 * grid_template.json (run 11 of reports/attnbench.db, an H200 hot-mode run,
 * with its samples removed): uuid "a0KK0000-..." with cuda_mma_pipeline = A and
 * cuda_mma_swizzle (the experiment's baseline) = B for `report`; "b0KK..." and
 * "c0KK..." with cuda_mma_pipeline = B, then A, for `compare` (valid uuids: import checks them). A and B also go
 * to caseKK_a.txt / caseKK_b.txt for `stats`. Prints one line per case:
 * "KK FLOOR_MS EXPECTED" (EXPECTED: faster, slower, none, or - when the test
 * only demands agreement).
 * Usage: grid_make TEMPLATE OUTDIR
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

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

/* The samples of a run. All in round 0: `stats` reads files without
 * rounds, so the runs give report and compare the same i.i.d. samples (a
 * report pairs over rounds only where there are at least two, issue 11). */
static json_t *samples_json(const double *x, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_pack("{s:I, s:f, s:I, s:f, s:I}", "idx", (json_int_t)i, "ms",
                                           x[i], "round", (json_int_t)0, "t_s",
                                           0.001 * (double)i, "throttled", (json_int_t)0));
    return a;
}

/* a run from the template with the given uuid, floor and samples of the
 * measurements kept (pipeline = x; swizzle = y, or dropped when y NULL) */
static json_t *make_run(json_t *tmpl, const char *uuid, double floor_ms, const double *x, size_t nx,
                        const double *y, size_t ny)
{
    json_t *run = json_deep_copy(tmpl);
    json_object_set_new(run, "uuid", json_string(uuid));
    /* no floor: no timer_floor row (import refuses a median of 0) */
    json_object_set_new(run, "timer_floor",
                        floor_ms > 0 ? json_pack("[{s:f, s:i, s:s}]", "median_ms", floor_ms, "n",
                                                 200, "timing_mode", "hot")
                                     : json_array());
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
    char path[4096], uuid[40];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const gcase *c = &cases[k];
        double *a = malloc(c->na * sizeof *a), *b = malloc(c->nb * sizeof *b);
        sample(r, c, c->med_a, c->na, a);
        sample(r, c, c->med_b, c->nb, b);
        snprintf(uuid, sizeof uuid, "a0%02zu0000-0000-4000-8000-000000000000", k);
        json_array_append_new(runs, make_run(tmpl, uuid, c->floor_ms, a, c->na, b, c->nb));
        snprintf(uuid, sizeof uuid, "b0%02zu0000-0000-4000-8000-000000000000", k);
        json_array_append_new(runs, make_run(tmpl, uuid, c->floor_ms, b, c->nb, NULL, 0));
        snprintf(uuid, sizeof uuid, "c0%02zu0000-0000-4000-8000-000000000000", k);
        json_array_append_new(runs, make_run(tmpl, uuid, c->floor_ms, a, c->na, NULL, 0));
        snprintf(path, sizeof path, "%s/case%02zu_a.txt", argv[2], k);
        if (write_txt(path, a, c->na))
            return 1;
        snprintf(path, sizeof path, "%s/case%02zu_b.txt", argv[2], k);
        if (write_txt(path, b, c->nb))
            return 1;
        printf("%02zu %.17g %s\n", k, c->floor_ms, c->expect);
        free(a);
        free(b);
    }
    json_object_set_new(doc, "runs", runs);
    snprintf(path, sizeof path, "%s/grid.json", argv[2]);
    if (json_dump_file(doc, path, JSON_REAL_PRECISION(17)) != 0)
        return 1;
    gsl_rng_free(r);
    json_decref(doc);
    return 0;
}
