/*
 * test_sampling.c: the GPU-time budget's block sizes and stop rules
 * (src/run/sampling.h). Expected values are worked by hand from the
 * definition of nvbench's min_time ("accumulate at least this much GPU time
 * per measurement", NVIDIA nvbench docs/cli_help.md) spread evenly over the
 * rounds of the fixed count (ceil(samples / round_size)) or of adaptive
 * stopping's first check (20 rounds): a block of a kernel of t ms, with r
 * rounds left and T s of min_time left, holds ceil(T / r / (t / 1000))
 * samples, never fewer than round_size. Each expectation names its sum.
 */
#include "sampling.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void expect_size(const char *what, size_t got, size_t want)
{
    if (got != want) {
        fprintf(stderr, "FAIL: %s: %zu samples, expected %zu\n", what, got, want);
        failures++;
    }
}

static void expect_reason(const char *what, const char *got, const char *want)
{
    if ((got == NULL) != (want == NULL) || (got && strcmp(got, want) != 0)) {
        fprintf(stderr, "FAIL: %s: stop reason %s, expected %s\n", what, got ? got : "(none)",
                want ? want : "(none)");
        failures++;
    }
}

static ab_experiment fixed(double min_time, double max_time)
{
    ab_experiment e;
    memset(&e, 0, sizeof e);
    e.samples = 60; /* the defaults: 60 samples in rounds of 2, 30 rounds */
    e.round_size = 2;
    e.max_samples = 5000;
    e.min_time_s = min_time;
    e.max_time_s = max_time;
    return e;
}

int main(void)
{
    ab_experiment e = fixed(0.05, 0);
    ab_sampling_state s = {0};
    s.budgeted = 1;

    /* the first block: no estimate yet, round_size */
    expect_size("first block", ab_sampling_block(&e, &s), 2);
    /* a 20 us kernel after one round: 0.05 s - 40 us left over 29 rounds:
     * (0.05 - 0.00004) / 29 / 0.00002 = 86.14 -> 87 */
    s.n = 2, s.last_block = 2, s.rounds = 1, s.timed_s = 0.00004, s.est_ms = 0.02;
    expect_size("20 us kernel, round 2", ab_sampling_block(&e, &s), 87);
    /* a 3 ms kernel: 0.044 s over 29 rounds = 1.5 ms a round < one sample:
     * round_size */
    s.timed_s = 0.006, s.est_ms = 3.0;
    expect_size("3 ms kernel", ab_sampling_block(&e, &s), 2);
    /* past the planned rounds the rest comes in one block: 0.01 s left,
     * 1 round (never fewer), 20 us -> 500, more than a block may hold:
     * AB_MAX_BLOCK_SAMPLES, 256 */
    s.n = 2000, s.rounds = 31, s.timed_s = 0.04, s.est_ms = 0.02;
    expect_size("behind plan", ab_sampling_block(&e, &s), 256);
    /* 0.004 s left at 20 us: 200 */
    s.timed_s = 0.046;
    expect_size("behind plan, under the block cap", ab_sampling_block(&e, &s), 200);
    /* max_samples caps it: 5000 - 4800 = 200 */
    s.timed_s = 0.04;
    s.n = 4800;
    expect_size("max_samples cap", ab_sampling_block(&e, &s), 200);
    /* once min_time is reached, fixed mode tops up to `samples` only */
    s.n = 59, s.rounds = 30, s.timed_s = 0.06, s.est_ms = 3.0;
    expect_size("count top-up", ab_sampling_block(&e, &s), 1);
    /* a CPU variant: no budget, round_size and the count */
    s.budgeted = 0, s.n = 10, s.timed_s = 0, s.est_ms = 0.02;
    expect_size("CPU variant", ab_sampling_block(&e, &s), 2);

    /* max_time 0.1 s: 0.099 s spent, 20 us -> ceil(0.001 / 0.00002) = 50 */
    e = fixed(0.05, 0.1);
    e.min_time_s = 1.0; /* (unchecked here: the loader refuses max < min) */
    s = (ab_sampling_state){100, 2, 10, 0.099, 0.02, 0, 1};
    expect_size("max_time room", ab_sampling_block(&e, &s), 50);

    /* adaptive: min_time over 20 rounds (min_samples 20 / 2 = 10 < 20):
     * 0.05 / 20 / 0.00002 = 125 */
    e = fixed(0.05, 0);
    e.adaptive = 1, e.min_samples = 20, e.max_samples = 2000, e.budget_s = 10;
    s = (ab_sampling_state){0, 0, 0, 0, 0.02, 0, 1};
    expect_size("adaptive", ab_sampling_block(&e, &s), 125);
    if (ab_sampling_rounds(&e) != 20) {
        fprintf(stderr, "FAIL: adaptive budget rounds %d, expected 20\n", ab_sampling_rounds(&e));
        failures++;
    }

    /* stop rules */
    int conv;
    e = fixed(0.05, 0);
    s = (ab_sampling_state){60, 2, 30, 0.01, 0.2, 0, 1};
    expect_reason("count reached, time short", ab_sampling_stop(&e, &s, &conv), NULL);
    s = (ab_sampling_state){2060, 2000, 31, 0.05, 0.02, 0, 1};
    expect_reason("time completed later", ab_sampling_stop(&e, &s, &conv), "min_time");
    s = (ab_sampling_state){60, 2, 30, 0.18, 3.0, 0, 1};
    expect_reason("both at once", ab_sampling_stop(&e, &s, &conv), "fixed");
    s = (ab_sampling_state){60, 2, 30, 0.0, 0.0, 0, 0};
    expect_reason("CPU variant at its count", ab_sampling_stop(&e, &s, &conv), "fixed");
    s = (ab_sampling_state){5000, 100, 40, 0.01, 0.002, 0, 1};
    expect_reason("sample cap", ab_sampling_stop(&e, &s, &conv), "max_samples");
    e = fixed(0.05, 0.2);
    s = (ab_sampling_state){70, 2, 35, 0.21, 3.0, 0, 1};
    expect_reason("time cap", ab_sampling_stop(&e, &s, &conv), "max_time");
    /* adaptive: the CI check only once min_time is reached */
    e = fixed(0.05, 0);
    e.adaptive = 1, e.min_samples = 20, e.max_samples = 2000, e.budget_s = 10;
    s = (ab_sampling_state){2000 - 1, 100, 20, 0.04, 0.02, 1, 1};
    expect_reason("adaptive, time short", ab_sampling_stop(&e, &s, &conv), NULL);
    if (conv) {
        fprintf(stderr, "FAIL: convergence allowed before min_time\n");
        failures++;
    }
    s.timed_s = 0.05;
    expect_reason("adaptive, time reached", ab_sampling_stop(&e, &s, &conv), NULL);
    if (!conv) {
        fprintf(stderr, "FAIL: convergence not allowed after min_time, 20 rounds\n");
        failures++;
    }
    s.spent_s = 11;
    expect_reason("adaptive wall budget", ab_sampling_stop(&e, &s, &conv), "budget");
    if (failures)
        return 1;
    printf("ok: block sizes and stop rules of the GPU-time budget\n");
    return 0;
}
