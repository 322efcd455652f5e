/*
 * test_shard_plan.c: the split of an experiment into parts (src/shard_plan.c)
 * against independent references:
 *  - balance: for 300 random instances (n <= 9 jobs, 2 or 3 parts, MT19937
 *    seed 20) the optimal largest load is found by brute-force enumeration of
 *    all parts^n assignments, and the split's largest load must be within
 *    Graham's bound for LPT, (4/3 - 1/(3m)) * OPT (Graham 1969, SIAM J. Appl.
 *    Math. 17(2), Theorem 1); Graham's tight instance {3,3,2,2,2} on 2
 *    machines must give exactly 7 (OPT 6, worked out by hand in the paper);
 *  - determinism: the same costs give the same split; a permutation of
 *    distinct costs gives the same grouping of costs; every job is in
 *    exactly one part;
 *  - --shard K/N and the Slurm array variables, against values worked out by
 *    hand from Slurm's sbatch(1) definitions (ID, MIN, MAX, COUNT, STEP).
 */
#include "shard_plan.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                               \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)

static double makespan(const double *c, const size_t *part, size_t n, size_t m)
{
    double load[8] = {0}, best = 0;
    for (size_t i = 0; i < n; i++)
        load[part[i]] += c[i];
    for (size_t p = 0; p < m; p++)
        best = fmax(best, load[p]);
    return best;
}

/* the optimum by enumerating all m^n assignments */
static double brute_opt(const double *c, size_t n, size_t m)
{
    size_t part[16] = {0}, total = 1;
    double best = INFINITY;
    for (size_t i = 0; i < n; i++)
        total *= m;
    for (size_t code = 0; code < total; code++) {
        size_t x = code;
        for (size_t i = 0; i < n; i++, x /= m)
            part[i] = x % m;
        best = fmin(best, makespan(c, part, n, m));
    }
    return best;
}

static void test_balance(void)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 20);
    for (int t = 0; t < 300; t++) {
        size_t n = 2 + gsl_rng_uniform_int(r, 8), m = 2 + gsl_rng_uniform_int(r, 2), part[16];
        double c[16];
        for (size_t i = 0; i < n; i++) /* FLOPs-like: a few distinct sizes, ties common */
            c[i] = (double)(1 + gsl_rng_uniform_int(r, 6)) * (gsl_rng_uniform(r) < 0.5 ? 1 : 4);
        CHECK(ab_shard_plan(c, n, m, part) == 0, "plan failed");
        double got = makespan(c, part, n, m), opt = brute_opt(c, n, m);
        double bound = (4.0 / 3.0 - 1.0 / (3.0 * (double)m)) * opt;
        CHECK(got <= bound + 1e-9, "instance %d: largest load %g > Graham bound %g (opt %g)", t,
              got, bound, opt);
    }
    gsl_rng_free(r);
    const double tight[5] = {3, 3, 2, 2, 2};
    size_t part[5];
    CHECK(ab_shard_plan(tight, 5, 2, part) == 0, "plan failed");
    CHECK(makespan(tight, part, 5, 2) == 7, "Graham's tight instance: %g, expected 7",
          makespan(tight, part, 5, 2));
    CHECK(brute_opt(tight, 5, 2) == 6, "brute force of the tight instance: expected 6");
}

static void test_determinism(void)
{
    const double c[7] = {5, 1, 9, 3, 7, 2, 8};
    const size_t perm[7] = {3, 6, 0, 5, 1, 4, 2}; /* c'[j] = c[perm[j]] */
    double c2[7];
    size_t a[7], b[7], p2[7];
    for (int j = 0; j < 7; j++)
        c2[j] = c[perm[j]];
    CHECK(ab_shard_plan(c, 7, 3, a) == 0 && ab_shard_plan(c, 7, 3, b) == 0, "plan failed");
    CHECK(memcmp(a, b, sizeof a) == 0, "two splits of the same costs differ");
    CHECK(ab_shard_plan(c2, 7, 3, p2) == 0, "plan failed");
    for (int j = 0; j < 7; j++)
        CHECK(p2[j] == a[perm[j]], "job of cost %g: part %zu after a permutation, %zu before",
              c2[j], p2[j], a[perm[j]]);
    /* ties go by index: equal costs fill parts 0, 1, 2, 0, ... */
    const double eq[6] = {1, 1, 1, 1, 1, 1};
    size_t e[6];
    CHECK(ab_shard_plan(eq, 6, 3, e) == 0, "plan failed");
    for (size_t i = 0; i < 6; i++)
        CHECK(e[i] == i % 3, "equal costs: job %zu in part %zu, expected %zu", i, e[i], i % 3);
    /* one part: everything in it; bad input refused */
    CHECK(ab_shard_plan(c, 7, 1, a) == 0, "one part");
    for (int i = 0; i < 7; i++)
        CHECK(a[i] == 0, "one part: job %d in part %zu", i, a[i]);
    const double bad[2] = {1, NAN};
    CHECK(ab_shard_plan(bad, 2, 2, a) == -1, "NaN cost accepted");
    CHECK(ab_shard_plan(c, 7, 0, a) == -1, "zero parts accepted");
}

static void test_parse(void)
{
    char err[256];
    int k = 0, n = 0;
    CHECK(ab_shard_parse("2/3", &k, &n, err, sizeof err) == 0 && k == 2 && n == 3, "2/3");
    const char *bad[] = {"0/2", "3/2", "1/0", "1", "a/2", "1/2x", "/2", "1/", "-1/2", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(ab_shard_parse(bad[i], &k, &n, err, sizeof err) == -1, "'%s' accepted", bad[i]);
}

static int slurm(const char *id, const char *min, const char *max, const char *count,
                 const char *step, int *k, int *n)
{
    char err[256];
    const char *names[5] = {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX",
                            "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_STEP"};
    const char *vals[5] = {id, min, max, count, step};
    for (int i = 0; i < 5; i++)
        if (vals[i])
            setenv(names[i], vals[i], 1);
        else
            unsetenv(names[i]);
    return ab_shard_from_slurm(k, n, err, sizeof err);
}

static void test_slurm(void)
{
    int k = 0, n = 0;
    CHECK(slurm(NULL, NULL, NULL, NULL, NULL, &k, &n) == 0, "no array task");
    /* --array=1-2, task 2: part 2 of 2 */
    CHECK(slurm("2", "1", "2", NULL, NULL, &k, &n) == 1 && k == 2 && n == 2, "1-2 task 2");
    /* --array=0-3, task 0 (COUNT 4 only): part 1 of 4 */
    CHECK(slurm("0", "0", NULL, "4", NULL, &k, &n) == 1 && k == 1 && n == 4, "0-3 task 0");
    /* --array=0-6:2 (tasks 0, 2, 4, 6), task 4: part 3 of 4 */
    CHECK(slurm("4", "0", "6", "4", "2", &k, &n) == 1 && k == 3 && n == 4, "0-6:2 task 4");
    /* inconsistent or sparse arrays are refused */
    CHECK(slurm("3", "1", "2", NULL, NULL, &k, &n) == -1, "ID beyond MAX accepted");
    CHECK(slurm("1", "1", "9", "3", NULL, &k, &n) == -1, "sparse array (1,5,9) accepted");
    CHECK(slurm("1", NULL, "2", NULL, NULL, &k, &n) == -1, "no MIN accepted");
    CHECK(slurm("1", "1", NULL, NULL, NULL, &k, &n) == -1, "no MAX or COUNT accepted");
    CHECK(slurm("x", "1", "2", NULL, NULL, &k, &n) == -1, "ID 'x' accepted");
    CHECK(slurm("3", "0", "6", NULL, "2", &k, &n) == -1, "ID off the step accepted");
}

int main(void)
{
    test_balance();
    test_determinism();
    test_parse();
    test_slurm();
    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    else
        printf("shard plan: all checks passed\n");
    return failures ? 1 : 0;
}
