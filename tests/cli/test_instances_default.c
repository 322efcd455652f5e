/*
 * test_instances_default.c: the instances an experiment gets when it does
 * not set `instances` (src/run/experiment.h, ab_exp_default_instances and
 * ab_experiment_parse_k), checked on the parsed settings, without a GPU
 * (built-in GPU variants are in the registry of every build). The rule
 * under test is the one docs/experiments.md states: built-in GPU variants
 * only run as AB_INSTANCES_DEFAULT (4) instances, each with a quarter of
 * the measurement's budget rounded up (fixed mode: samples at least two
 * rounds; adaptive: min_samples at least 5, max_samples at least 20
 * rounds), CPU variants and external adapters stay at one, an explicit
 * `instances` is taken as written, and a stored text without `instances`
 * means one instance unless the run's stored settings record the default.
 * Each expected number is worked by hand from that rule next to it.
 */
#include "experiment.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures;

static void expect_int(const char *what, long long got, long long want)
{
    if (got != want) {
        fprintf(stderr, "FAIL: %s: %lld, expected %lld\n", what, got, want);
        failures++;
    }
}

static void expect_real(const char *what, double got, double want)
{
    if (fabs(got - want) > 1e-12) {
        fprintf(stderr, "FAIL: %s: %g, expected %g\n", what, got, want);
        failures++;
    }
}

/* Parses text as a new run (missing_k 0) or a stored one; 0 or -1. */
static int parse(const char *what, const char *text, int resolve, int missing_k,
                 ab_experiment *e)
{
    char err[1024];
    if (ab_experiment_parse_k("test.cfg", text, resolve, missing_k, e, err, sizeof err)) {
        fprintf(stderr, "FAIL: %s: does not parse: %s\n", what, err);
        failures++;
        return -1;
    }
    return 0;
}

#define GPU_TEXT "name = \"x\"; variants = [\"cuda_naive\", \"cublas_standard\"]; " \
                 "baseline = \"cuda_naive\"; sweep = { S = 64; };"

int main(void)
{
    ab_experiment e;

    /* a GPU experiment without `instances`: 4 instances each, the budget split */
    if (parse("GPU, default", GPU_TEXT, 1, 0, &e) == 0) {
        expect_int("GPU default: instances", e.instances, 4);
        expect_int("GPU default: variants (2 x 4)", (long long)e.nvariants, 8);
        expect_int("GPU default: instance #3 of cuda_naive",
                   strcmp(e.variants[2].name, "cuda_naive#3") == 0, 1);
        expect_int("GPU default: split", e.instances_split, 1);
        expect_int("GPU default: file samples", e.file_samples, 60);
        expect_int("GPU default: samples ceil(60 / 4)", e.samples, 15);
        expect_int("GPU default: max_samples ceil(5000 / 4)", e.max_samples, 1250);
        expect_real("GPU default: min_time 0.02 s / 4", e.min_time_s, 0.005);
        expect_real("GPU default: max_time 0 (no cap) / 4", e.max_time_s, 0.0);
        char err[256];
        expect_int("GPU default: --min-time 0.1 accepted",
                   ab_experiment_set_budget(&e, "0.1", "0.4", err, sizeof err), 0);
        expect_real("GPU default: --min-time 0.1 s / 4", e.min_time_s, 0.025);
        expect_real("GPU default: --max-time 0.4 s / 4", e.max_time_s, 0.1);
        ab_experiment_free(&e);
    }
    /* the explicit instances = 1 of a GPU experiment: one, nothing split */
    if (parse("GPU, instances = 1", GPU_TEXT " instances = 1;", 1, 0, &e) == 0) {
        expect_int("GPU instances = 1: instances", e.instances, 1);
        expect_int("GPU instances = 1: variants", (long long)e.nvariants, 2);
        expect_int("GPU instances = 1: samples", e.samples, 60);
        expect_real("GPU instances = 1: min_time", e.min_time_s, 0.02);
        ab_experiment_free(&e);
    }
    /* an explicit instances = 4 keeps its per-instance budget (the study's files) */
    if (parse("GPU, instances = 4", GPU_TEXT " instances = 4; samples = 10;", 1, 0, &e) == 0) {
        expect_int("GPU instances = 4: instances", e.instances, 4);
        expect_int("GPU instances = 4: split", e.instances_split, 0);
        expect_int("GPU instances = 4: samples as written", e.samples, 10);
        ab_experiment_free(&e);
    }
    /* few samples: no fewer than two rounds an instance (round_size 3: 6) */
    if (parse("GPU, samples 12", GPU_TEXT " samples = 12; round_size = 3;", 1, 0, &e) == 0) {
        expect_int("GPU samples 12: samples max(ceil(12 / 4), 2 x 3)", e.samples, 6);
        ab_experiment_free(&e);
    }
    /* adaptive stopping: min_samples ceil(40 / 4) = 10, max_samples
     * max(ceil(100 / 4), 20 rounds x 2) = 40, budget_s 8 / 4 = 2 */
    if (parse("GPU, adaptive",
              GPU_TEXT " stopping = { min_samples = 40; max_samples = 100; budget_s = 8.0; };",
              1, 0, &e) == 0) {
        expect_int("GPU adaptive: min_samples", e.min_samples, 10);
        expect_int("GPU adaptive: max_samples", e.max_samples, 40);
        expect_real("GPU adaptive: budget_s", e.budget_s, 2.0);
        ab_experiment_free(&e);
    }
    /* CPU variants: one instance */
    if (parse("CPU", "name = \"c\"; variants = [\"cpu_reference\", \"cpu_flash\"]; "
                     "sweep = { S = 64; };", 1, 0, &e) == 0) {
        expect_int("CPU: instances", e.instances, 1);
        expect_int("CPU: samples", e.samples, 60);
        ab_experiment_free(&e);
    }
    /* a CPU variant beside GPU ones: one instance for all */
    if (parse("mixed", "name = \"m\"; variants = [\"cuda_naive\", \"cpu_flash\"]; "
                       "sweep = { S = 64; };", 1, 0, &e) == 0) {
        expect_int("mixed: instances", e.instances, 1);
        ab_experiment_free(&e);
    }
    /* an external adapter: one instance */
    if (parse("external", "name = \"x\"; variants = (\"cuda_naive\", "
                          "{ name = \"ext\"; command = \"true\"; }); sweep = { S = 64; };",
              1, 0, &e) == 0) {
        expect_int("external: instances", e.instances, 1);
        ab_experiment_free(&e);
    }
    /* a stored text without `instances` (a report of an old run): one */
    if (parse("stored, old", GPU_TEXT, 0, 1, &e) == 0) {
        expect_int("stored, old: instances", e.instances, 1);
        expect_int("stored, old: samples", e.samples, 60);
        ab_experiment_free(&e);
    }
    ab_experiment e2;
    if (ab_experiment_parse("test.cfg", GPU_TEXT, 0, &e2, (char[256]){0}, 256) == 0) {
        expect_int("stored via ab_experiment_parse: instances", e2.instances, 1);
        ab_experiment_free(&e2);
    }
    /* what the stored settings say the text meant */
    expect_int("settings: default 4",
               ab_exp_stored_instances("{\"instances\": 4, \"instances_from\": \"default\"}"), 4);
    expect_int("settings: the experiment's 4 (the text says it)",
               ab_exp_stored_instances("{\"instances\": 4, \"instances_from\": \"experiment\"}"),
               1);
    expect_int("settings: before the default", ab_exp_stored_instances("{\"threads\": 1}"), 1);
    expect_int("settings: none", ab_exp_stored_instances(NULL), 1);
    /* a stored run that got the default reads as it ran */
    if (parse("stored, default", GPU_TEXT, 0, 4, &e) == 0) {
        expect_int("stored, default: instances", e.instances, 4);
        expect_int("stored, default: samples", e.samples, 15);
        ab_experiment_free(&e);
    }
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    else
        printf("instances default: all checks passed\n");
    return failures ? 1 : 0;
}
