/*
 * sampling.h: how many samples a measurement takes, block by block: the
 * arithmetic of the GPU-time budget (nvbench's min_time, experiment.h's
 * min_time_s / max_time_s) and of the stop rules that do not need the
 * samples themselves (fixed count, caps, adaptive stopping's gates). The
 * runner (runner.c) takes the blocks and runs the CI check; these functions
 * only count, so they are tested without a GPU (tests/cli/test_sampling.c).
 */
#ifndef ATTNBENCH_SAMPLING_H
#define ATTNBENCH_SAMPLING_H

#include <stddef.h>

#include "experiment.h"

/* Adaptive stopping converges only after this many rounds: the round-level
 * test needs them (docs/statistics.md). */
#define AB_MIN_ROUNDS 20

/* The most samples one block takes: each sample is a launch and an event
 * queued behind the launch hold (kernels/gpu_harness.cu), and a block that
 * filled the GPU's queue of pending launches (about a thousand) would wait
 * for the hold's timeout instead of being released by the host; 256
 * samples are 512 queued commands. A budget that needs more takes more
 * rounds. */
#define AB_MAX_BLOCK_SAMPLES 256

/* The state of one measurement's sampling, as far as counting goes. */
typedef struct ab_sampling_state {
    size_t n;          /* samples taken */
    size_t last_block; /* samples of the last block */
    int rounds;        /* blocks (rounds) taken */
    double timed_s;    /* GPU time of the samples, s (a graph sample: all its launches) */
    double est_ms;     /* GPU time per sample of the last block (median), ms; 0: none yet */
    double spent_s;    /* wall time spent sampling, s (adaptive budget_s) */
    int budgeted;      /* the GPU-time budget applies (a GPU variant) */
} ab_sampling_state;

/* The rounds in which a measurement is meant to reach e->min_time_s: those
 * of its fixed count (ceil(samples / round_size)), or adaptive stopping's
 * first convergence check (AB_MIN_ROUNDS, more when min_samples needs
 * them). At least 1. */
int ab_sampling_rounds(const ab_experiment *e);

/* The samples of the next block, >= 1. round_size without a budget, before
 * the first block (no estimate) or once min_time is reached; while the
 * samples hold less than min_time, enough samples of est_ms that the
 * rounds left of ab_sampling_rounds take what is left of min_time, so each
 * round holds a like share of it (a 20 us kernel takes many samples a
 * block, a 3 ms one round_size), at most AB_MAX_BLOCK_SAMPLES. Never
 * past max_samples, nor (by the estimate) past max_time, nor past
 * `samples` in fixed mode once min_time is reached. */
size_t ab_sampling_block(const ab_experiment *e, const ab_sampling_state *s);

/* After a block: the reason sampling stops whatever the samples say
 * ("max_samples", "max_time", "budget" (adaptive budget_s of wall time),
 * "fixed": the count reached together with min_time, "min_time": the count
 * was reached earlier and the block completed min_time), or NULL. When NULL
 * and adaptive, *may_converge is 1 when the CI check may stop it now (at
 * least min_samples samples, AB_MIN_ROUNDS rounds and min_time). */
const char *ab_sampling_stop(const ab_experiment *e, const ab_sampling_state *s,
                             int *may_converge);

#endif
