/*
 * rounds_make.c: writes the cases of the round-agreement test
 * (rounds_agree.sh): samples of a candidate A and a baseline B taken in
 * interleaved rounds (2 samples of each per round, seeded GSL mt19937), as
 * caseKK_a.txt / caseKK_b.txt ("MS ROUND" lines, for `stats`) and as an
 * attnbench export (rounds.json) holding, per case k, three runs built from
 * grid_template.json (as grid_make.c builds them): uuid c<hex (k+1)*16+1>
 * with cuda_mma_pipeline = A and cuda_mma_swizzle (the baseline) = B, for
 * `report`; c<hex (k+1)*16+2> with cuda_mma_pipeline = B and c<hex
 * (k+1)*16+3> with cuda_mma_pipeline = A, for `compare` (B before, A
 * after). Prints one line per case: "KK EXPECTED" (faster, slower, none, or
 * - when only agreement is demanded).
 * Usage: rounds_make TEMPLATE OUTDIR
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

typedef struct rcase {
    int rounds;
    double slow;     /* A = B (1 + slow) */
    double s_round;  /* round effect shared by both (log sd) */
    double s_var;    /* each variant's own per-round noise */
    double s_within; /* per-sample noise */
    double phi;      /* A's own noise AR(1) across rounds (0: none), sd s_var */
    const char *expect;
} rcase;

static const rcase cases[] = {
    /* 80 samples as 20 rounds, A 2.5% slower under round effects of 15%: the
     * i.i.d. analysis cannot see it, the paired one does */
    {20, 0.025, 0.15, 0.002, 0.002, 0, "slower"},
    {20, -0.03, 0.02, 0.005, 0.005, 0, "faster"},
    {20, 0.0, 0.03, 0.01, 0.005, 0, "-"},
    {10, 0.02, 0.02, 0.01, 0.005, 0, "-"},
    {40, 0.0, 0.02, 0.03, 0.002, 0.9, "-"}, /* serial correlation: widened */
};

static json_t *samples_json(const double *x, const int *r, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_pack("{s:I, s:f, s:I, s:f, s:I}", "idx", (json_int_t)i, "ms",
                                           x[i], "round", (json_int_t)r[i], "t_s",
                                           0.001 * (double)i, "throttled", (json_int_t)0));
    return a;
}

/* a run from the template: cuda_mma_pipeline = x; cuda_mma_swizzle = y, or
 * dropped when y is NULL */
static json_t *make_run(json_t *tmpl, const char *uuid, const double *x, const double *y,
                        const int *r, size_t n)
{
    json_t *run = json_deep_copy(tmpl);
    json_object_set_new(run, "uuid", json_string(uuid));
    json_object_set_new(run, "timer_floor", json_array());
    json_t *ms = json_object_get(run, "measurements"), *keep = json_array();
    for (size_t i = 0; i < json_array_size(ms); i++) {
        json_t *m = json_array_get(ms, i);
        int pipe = strcmp(json_string_value(json_object_get(m, "variant")), "cuda_mma_pipeline") == 0;
        if (!pipe && y == NULL)
            continue;
        json_object_set_new(m, "samples", samples_json(pipe ? x : y, r, n));
        json_array_append(keep, m);
    }
    json_object_set_new(run, "measurements", keep);
    return run;
}

static int write_txt(const char *path, const double *x, const int *r, size_t n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%.17g %d\n", x[i], r[i]);
    return fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: rounds_make TEMPLATE OUTDIR\n");
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
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 2611);
    char path[4096], uuid[48];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const rcase *c = &cases[k];
        size_t n = 2 * (size_t)c->rounds;
        double a[200], b[200], ar = 0;
        int r[200];
        for (int t = 0; t < c->rounds; t++) {
            double u = gsl_ran_gaussian(g, c->s_round);
            ar = c->phi > 0 ? c->phi * ar + sqrt(1 - c->phi * c->phi) * gsl_ran_gaussian(g, c->s_var)
                            : gsl_ran_gaussian(g, c->s_var);
            double eb = gsl_ran_gaussian(g, c->s_var);
            for (int j = 0; j < 2; j++) {
                size_t i = 2 * (size_t)t + (size_t)j;
                r[i] = t;
                a[i] = (1 + c->slow) * exp(u + ar + gsl_ran_gaussian(g, c->s_within));
                b[i] = exp(u + eb + gsl_ran_gaussian(g, c->s_within));
            }
        }
        for (int j = 1; j <= 3; j++) {
            snprintf(uuid, sizeof uuid, "c%07zx-0000-4000-8000-000000000000", (k + 1) * 16 + j);
            json_array_append_new(runs, j == 1   ? make_run(tmpl, uuid, a, b, r, n)
                                        : j == 2 ? make_run(tmpl, uuid, b, NULL, r, n)
                                                 : make_run(tmpl, uuid, a, NULL, r, n));
        }
        snprintf(path, sizeof path, "%s/case%02zu_a.txt", argv[2], k);
        if (write_txt(path, a, r, n))
            return 1;
        snprintf(path, sizeof path, "%s/case%02zu_b.txt", argv[2], k);
        if (write_txt(path, b, r, n))
            return 1;
        printf("%02zu %s\n", k, c->expect);
    }
    json_object_set_new(doc, "runs", runs);
    snprintf(path, sizeof path, "%s/rounds.json", argv[2]);
    if (json_dump_file(doc, path, JSON_REAL_PRECISION(17)) != 0)
        return 1;
    gsl_rng_free(g);
    json_decref(doc);
    return 0;
}
