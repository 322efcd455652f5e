/*
 * sampling.c: block sizes and stop rules of a measurement's sampling
 * (sampling.h). The GPU-time budget follows nvbench's min_time (NVIDIA
 * nvbench, docs/cli_help.md: "--min-time: accumulate at least this much GPU
 * time per measurement"), spread over the rounds of attnbench's block
 * design instead of taken in one stretch.
 */
#include "sampling.h"

#include <math.h>

/* ceil of a ratio of seconds, forgiving the last bit of a division that
 * should be exact (0.01 / 0.00002 is 500.00000000000006) */
static double ceil_ratio(double x) { return ceil(x - 1e-6); }

int ab_sampling_rounds(const ab_experiment *e)
{
    const int rs = e->round_size > 0 ? e->round_size : 1;
    const int count = e->adaptive ? e->min_samples : e->samples;
    int r = (count + rs - 1) / rs;
    if (e->adaptive && r < AB_MIN_ROUNDS)
        r = AB_MIN_ROUNDS;
    return r > 0 ? r : 1;
}

size_t ab_sampling_block(const ab_experiment *e, const ab_sampling_state *s)
{
    double count = e->round_size > 0 ? e->round_size : 1;
    const int time_short = s->budgeted && s->timed_s < e->min_time_s;
    if (time_short && s->est_ms > 0) {
        const int left = ab_sampling_rounds(e) - s->rounds;
        const double want = ceil_ratio((e->min_time_s - s->timed_s) / (left > 1 ? left : 1) /
                                       (s->est_ms * 1e-3));
        if (want > count)
            count = want;
        if (count > AB_MAX_BLOCK_SAMPLES && count > e->round_size)
            count = AB_MAX_BLOCK_SAMPLES > e->round_size ? AB_MAX_BLOCK_SAMPLES : e->round_size;
    }
    if (s->budgeted && e->max_time_s > 0 && s->est_ms > 0) {
        const double room = ceil_ratio((e->max_time_s - s->timed_s) / (s->est_ms * 1e-3));
        if (room < count)
            count = room;
    }
    const double n = (double)s->n;
    if (!e->adaptive && !time_short && n + count > (double)e->samples)
        count = (double)e->samples - n;
    if (n + count > (double)e->max_samples)
        count = (double)e->max_samples - n;
    return count >= 1 ? (size_t)count : 1;
}

const char *ab_sampling_stop(const ab_experiment *e, const ab_sampling_state *s,
                             int *may_converge)
{
    *may_converge = 0;
    if ((double)s->n >= (double)e->max_samples)
        return "max_samples";
    if (s->budgeted && e->max_time_s > 0 && s->timed_s >= e->max_time_s)
        return "max_time";
    const int time_short = s->budgeted && s->timed_s < e->min_time_s;
    if (!e->adaptive) {
        if ((double)s->n < (double)e->samples || time_short)
            return NULL;
        /* the count was reached before this block: the time was awaited */
        return s->budgeted && (double)(s->n - s->last_block) >= (double)e->samples ? "min_time"
                                                                                    : "fixed";
    }
    if (s->spent_s >= e->budget_s)
        return "budget";
    *may_converge = (double)s->n >= (double)e->min_samples && s->rounds >= AB_MIN_ROUNDS &&
                    !time_short;
    return NULL;
}
