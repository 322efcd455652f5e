/*
 * runner.c: the measurement loop of runner.h.
 *
 * Per configuration: one set of seeded random inputs (kernels/data.h), shared
 * by every variant: generated on the device for GPU variants, on the host
 * (the same values) only when a CPU variant runs the configuration; the
 * float64 reference is made once per configuration and pass, on the device
 * for GPU variants (gpu_check.h), and every variant's output is checked
 * against it in full. Per variant: setup outside timing, warm-up launches, then
 * check-then-benchmark (karpathy/llm.c dev/cuda): O is poisoned with NaN, the
 * variant runs once and is compared with the float64 reference
 * (kernels/check.h); a variant that fails is stored as failed and never
 * timed. The variants that pass are sampled in interleaved rounds: each round
 * visits them in an order shuffled by a seeded RNG and takes `round_size`
 * samples of each, so slow drift of the machine spreads over all variants
 * instead of becoming a fake speedup; the round is the unit the report's
 * inference resamples and pairs (stats/rounds.h). Sampling stops at a fixed
 * count, or adaptively when the cluster-bootstrap CI of the median over
 * rounds is narrow enough (nvbench's relative-noise criterion, on the
 * median; at least AB_MIN_ROUNDS rounds), at a maximum count, or at a time
 * budget. NVML is read around each block of samples. External variants of
 * protocol 2 (src/external2.h) join the rounds like native ones; those of
 * protocol 1 run after the native ones, one process per configuration
 * (src/external.h). A CPU plugin's calls run in a worker process of its own
 * (plugin_worker.h), so that its crash, exit or hang is one measurement's
 * error. The run's wall time is accounted by phase (src/walltime.h).
 */
#include "runner.h"
#include "sampling.h"
#include "plugin.h"
#include "plugin_worker.h"
#include "plugin_watch.h"
#include "shard.h"
#include "runenv.h"
#include "units.h"
#include "abstats.h"
#include "rounds.h"
#include "check.h"
#include "check_store.h"
#include "gpu_check.h"
#include "data.h"
#include "reference.h"
#include "env.h"
#include "external.h"
#include "external2.h"
#include "ext_output.h"
#include "ext_ipc.h"
#include "ext_keep.h"
#include "gpu.h"
#include "nvml_monitor.h"
#include "stabilise.h"
#include "registry.h"
#include "store.h"
#include "util.h"
#include "walltime.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <gsl/gsl_rng.h>
#include <math.h>
#include <signal.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t interrupted = 0; /* the signal that stopped the run, or 0 */

/* Where this run's wall time goes (walltime.h); reset at each run's start. */
static ab_walltime wt;

/* ... and per variant: each measurement's account folded in when its
 * configuration ends (malloc'd; reset at each run's start). */
static ab_walltime_variant *wt_var;
static size_t wt_nvar;

/* Protocol-2 adapters of this run, one per external variant (index of the
 * experiment's variant), started at their first configuration and stopped
 * at the run's end (external2.h). */
static ab_ext2 **ext_procs;

/* How long this run's protocol-2 adapters may stay after it (ext_keep.h),
 * and who said so ("command line", "ATTNBENCH_KEEP_ADAPTERS", "default");
 * keep_resolve sets both at each run's start. */
static double keep_s;
static const char *keep_from;

static void on_signal(int sig) { interrupted = sig; }

/* Signals that end a run like Ctrl-C: finished measurements kept, the run
 * marked 'interrupted' (a closed terminal, a closed pipe, Ctrl-\ too, and
 * every other signal whose default action ends the process without a
 * crash: SIGUSR1/2, timers, CPU and file-size limits). They are caught from
 * before the run's row is written until its final status is, so that none
 * of them can leave the run 'running'; a write to a closed pipe then fails
 * with EPIPE and stops the run at the next block. */
static const int stop_signals[] = {SIGINT,  SIGTERM, SIGHUP,    SIGQUIT, SIGPIPE,
                                   SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGXCPU, SIGXFSZ};
#define NSTOP (sizeof stop_signals / sizeof stop_signals[0])

static struct sigaction old_stop_sa[NSTOP];
static int stop_handlers_set;

static void stop_handlers_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    for (size_t k = 0; k < NSTOP; k++)
        sigaction(stop_signals[k], &sa, &old_stop_sa[k]);
    stop_handlers_set = 1;
}

static void stop_handlers_restore(void)
{
    if (!stop_handlers_set)
        return;
    for (size_t k = 0; k < NSTOP; k++)
        sigaction(stop_signals[k], &old_stop_sa[k], NULL);
    stop_handlers_set = 0;
}

int ab_run_signal(void) { return (int)interrupted; }

/* exit() called while a run is in progress (by a plugin running in this
 * process: a CUDA plugin, or any code under a built-in variant) must not
 * end attnbench with status 0 and the run 'running': the run is marked
 * failed and the process exits 1. Not in a CPU plugin's worker, whose exit
 * its parent reports (plugin_worker.h). */
static sqlite3 *guard_db;
static ab_id guard_run;

static void exit_guard(void)
{
    if (!guard_db || ab_pw_in_worker())
        return;
    char err[AB_ERR];
    sqlite3 *db = guard_db;
    guard_db = NULL;
    ab_db_end_run(db, guard_run, "failed", err);
    fprintf(stderr, "attnbench: exit() was called during run %lld (by a plugin?): the run is "
                    "marked failed; 'attnbench resume %lld' measures the rest\n",
            (long long)guard_run, (long long)guard_run);
    _exit(1);
}

/* CPU plugins run in worker processes unless ATTNBENCH_PLUGIN_WORKER=0
 * (in attnbench's process, e.g. under a debugger or a profiler). */
static int plugin_workers(void)
{
    const char *w = getenv("ATTNBENCH_PLUGIN_WORKER");
    return !(w && strcmp(w, "0") == 0);
}

/* 1 when ev is a loaded plugin whose calls run in attnbench's process: a
 * CUDA plugin, or a CPU one without workers (guarded by plugin_watch.h). */
static int in_process_plugin(const ab_exp_variant *ev)
{
    return ev && ev->plugin && !ev->plugin->unavailable &&
           (ev->plugin->device == AB_DEV_CUDA || !plugin_workers());
}

/* Arms the watchdog for `calls` in-process calls of ev's plugin. */
static void watch_plugin(const ab_exp_variant *ev, double calls, const char *call)
{
    if (!in_process_plugin(ev))
        return;
    char who[600];
    snprintf(who, sizeof who, "%s: variant '%s'", ev->library, ev->name);
    ab_watch_arm(ev->timeout_s, calls > 1 ? calls : 1, who, call);
}

/* The state of one native variant within one configuration. */
typedef struct vstate {
    const ab_exp_variant *ev;
    const ab_variant *v;
    void *ctx;
    int have_ctx;
    int active;            /* still sampling */
    ab_measurement m;
    char message[AB_ERR];
    ab_sample *samples;
    size_t n, cap;
    ab_clock_block *blocks;
    size_t nblocks, capblocks;
    double spent_s;        /* time spent sampling */
    unsigned long check_seed; /* row sample of the check (0: every row checked) */
    long rows_total;          /* B * H * S, when checked */
    int rounds;            /* blocks (rounds) taken */
    ab_ext2 *ext;          /* a protocol-2 external variant: its adapter (else NULL) */
    ab_variant pseudo;     /* ... and the registry-like row v points to */
    char *ext_env, *ext_stderr; /* its environment JSON and stderr tail (malloc'd) */
    int next_check;        /* adaptive: rounds at which convergence is next checked */
    double timed_s;        /* GPU time of its samples so far, s (graph: every launch) */
    double est_ms;         /* GPU time per sample of its last block (median), ms; 0: none yet */
    size_t last_block;     /* samples of its last block */
    ab_walltime acct;      /* the wall time charged to this measurement (walltime.h) */
    int gpu_timed;         /* its samples are GPU time: a CUDA variant, or a protocol-2
                              adapter where the configuration has device buffers */
    int stored;            /* its outcome was stored */
    ab_grad_row grads[3];  /* a checked backward pass: dQ, dK, dV (m.grads points here) */
    ab_plugin_worker *pw;  /* a CPU plugin: its calls run in this worker (plugin_worker.h) */
    /* a protocol-2 adapter's configuration sent and not yet answered
     * (prepare_ext2_send): where its output and buffers were offered */
    struct {
        char opath[600], ipath[640];
        const char *offered;
        ab_layout layout;
        size_t vi;
    } ext_pending;
} vstate;

/* Seed of the check's row samples: fresh per run, stored with
 * each measurement that was sampled. */
static unsigned long check_seed_base;

/* The backward pass's host data of the configuration being measured
 * (all NULL for a forward configuration): dO (ab_dout_fill), the
 * forward state O and logsumexp (ab_reference_fwd_lse, float64; made only
 * when a CPU variant runs the configuration), and the gradients a CPU
 * variant writes; grads[] the check of the last prepared variant. */
static struct {
    float *dout, *o, *lse, *dq, *dk, *dv;
    ab_grad_row grads[3];
} bwd;

static void bwd_free(void)
{
    free(bwd.dout);
    free(bwd.o);
    free(bwd.lse);
    free(bwd.dq);
    free(bwd.dk);
    free(bwd.dv);
    memset(&bwd, 0, sizeof bwd);
}

/* Allocates and fills the host data of a backward configuration s when
 * host = 1 (CPU variants run it): dO, O and logsumexp; the device makes its
 * own dO (ab_gpu_bwd_prepare). 0 or -1. */
static int bwd_make(const ab_shape *s, unsigned long seed, const float *q, const float *k,
                    const float *v, int host)
{
    const size_t nq = ab_shape_numel(s), nkv = ab_shape_kv_numel(s);
    if (!host)
        return 0;
    bwd.dout = malloc(sizeof(float) * nq);
    if (!bwd.dout || ab_dout_fill(s, seed, bwd.dout))
        return -1;
    bwd.o = malloc(sizeof(float) * nq);
    bwd.lse = malloc(sizeof(float) * (size_t)s->B * (size_t)s->H * (size_t)s->S);
    bwd.dq = malloc(sizeof(float) * nq);
    bwd.dk = malloc(sizeof(float) * nkv);
    bwd.dv = malloc(sizeof(float) * nkv);
    if (!bwd.o || !bwd.lse || !bwd.dq || !bwd.dk || !bwd.dv)
        return -1;
    return ab_reference_fwd_lse(s, q, k, v, bwd.o, bwd.lse);
}

/* One timed unit of a CPU variant: the forward, the backward (from the
 * float64 forward state), or the forward then the backward (from the O it
 * just wrote and the float64 logsumexp). */
static int cpu_pass(vstate *st, const ab_shape *s, const float *q, const float *k,
                    const float *v, float *o)
{
    if (s->pass == AB_FWD)
        return st->v->run(st->ctx, s, q, k, v, o, NULL);
    ab_bwd_fn bw = ab_variant_bwd(st->v);
    if (!bw || !bwd.dq)
        return -1;
    if (s->pass == AB_FWDBWD && st->v->run(st->ctx, s, q, k, v, o, NULL))
        return -1;
    return bw(st->ctx, s, q, k, v, s->pass == AB_FWDBWD ? o : bwd.o, bwd.dout, bwd.lse, bwd.dq,
              bwd.dk, bwd.dv, NULL);
}

/* Charges to st's measurement what the run's account gained since
 * `before` (taken at time t0, ab_now_s): the phases and the wall time,
 * less the check that built the configuration's shared reference
 * (wt.reference_s, kept apart in acct.reference_s). */
static void charge(vstate *st, const ab_walltime *before, double t0)
{
    double *dst = &st->acct.total_s;
    const double *now = &wt.total_s, *was = &before->total_s;
    for (size_t k = 1; k < sizeof(ab_walltime) / sizeof(double); k++)
        dst[k] += now[k] - was[k];
    const double shared = wt.reference_s - before->reference_s;
    st->acct.check_s -= shared;
    st->acct.total_s += ab_now_s() - t0 - shared;
}

/* 1 when bufs hold their configuration's float64 device reference (made
 * by the first check that needs it, gpu_check.h, and reused by the
 * others): the forward's output, or a backward's gradients. */
static int have_reference(ab_gpu_bufs *bufs)
{
    ab_gpu_parts p;
    if (!bufs)
        return 0;
    ab_gpu_bufs_parts(bufs, &p);
    if (p.s.pass != AB_FWD)
        return p.bref && ab_gpu_bref_has_grads(*p.bref);
    return p.ref && *p.ref;
}

/* After a variant's preparation that began with the reference absent
 * (had_ref 0) and the check time at check0: when its check built the
 * reference, that check is the configuration's (wt.reference_s). */
static void note_reference(ab_gpu_bufs *bufs, int had_ref, double check0)
{
    if (!had_ref && have_reference(bufs))
        wt.reference_s += wt.check_s - check0;
}

/* Makes bufs' float64 reference now (ab_gpu_reference_make), before a
 * check needs it, counted as a check and, when this made it, as the
 * configuration's shared reference (note_reference). A CUDA error is
 * printed; the checks then meet it again and store why. */
static void reference_now(ab_gpu_bufs *bufs)
{
    char err[AB_ERR];
    const int had_ref = have_reference(bufs);
    const double check0 = wt.check_s, t = ab_now_s();
    if (ab_gpu_reference_make(bufs, err, sizeof err) < 0)
        fprintf(stderr, "  (the reference could not be made ahead: %s)\n", err);
    wt.check_s += ab_now_s() - t;
    note_reference(bufs, had_ref, check0);
}

/* Seconds of plans built ahead (prepare_ahead) not yet charged, per
 * experiment variant: carried to that variant's first stored measurement,
 * whose fixed cost is then what happens once (walltime.h). */
static double *prepare_carry;

/* Folds st's measurement account into the run's per-variant account when
 * its outcome was stored (shape text sh names the configuration); vi is
 * its index among the experiment's variants (prepare_carry). */
static void fold(vstate *st, size_t vi, const char *sh)
{
    if (st->stored && prepare_carry && prepare_carry[vi] > 0) {
        st->acct.setup_s += prepare_carry[vi];
        st->acct.total_s += prepare_carry[vi];
        prepare_carry[vi] = 0;
    }
    if (st->stored && st->m.variant &&
        ab_walltime_variant_add(&wt_var, &wt_nvar, st->m.variant, sh, &st->acct))
        fprintf(stderr, "  (out of memory for the wall time per variant)\n");
}

static int push_sample(vstate *s, ab_sample x)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 256;
        ab_sample *p = realloc(s->samples, nc * sizeof *p);
        if (!p)
            return -1;
        s->samples = p;
        s->cap = nc;
    }
    s->samples[s->n++] = x;
    return 0;
}

static int push_block(vstate *s, ab_clock_block b)
{
    if (s->nblocks == s->capblocks) {
        size_t nc = s->capblocks ? 2 * s->capblocks : 32;
        ab_clock_block *p = realloc(s->blocks, nc * sizeof *p);
        if (!p)
            return -1;
        s->blocks = p;
        s->capblocks = nc;
    }
    s->blocks[s->nblocks++] = b;
    return 0;
}

static const char *shape_str(const ab_shape *s, char *buf, size_t n)
{
    char hk[32] = "", sk[32] = "";
    if (ab_shape_hkv(s) != s->H)
        snprintf(hk, sizeof hk, " H_kv=%d", ab_shape_hkv(s));
    if (ab_shape_skv(s) != s->S)
        snprintf(sk, sizeof sk, " S_kv=%d", ab_shape_skv(s));
    snprintf(buf, n, "B=%d H=%d%s S=%d%s D=%d %s %s%s%s", s->B, s->H, hk, s->S, sk, s->D,
             s->causal ? "causal" : "non-causal", ab_dtype_name(s->dtype),
             s->pass == AB_FWD ? "" : " ", s->pass == AB_FWD ? "" : ab_pass_name(s->pass));
    return buf;
}

/* Runs a CPU variant `count` times, timing each with the monotonic clock. */
static int cpu_time(vstate *st, const ab_shape *s, const float *q, const float *k,
                    const float *v, float *o, size_t count, double *ms)
{
    if (st->pw) /* a CPU plugin: timed in its worker */
        return ab_pw_run(st->pw, count, ms, NULL, st->message, sizeof st->message) ? -1 : 0;
    for (size_t i = 0; i < count; i++) {
        double t0 = ab_now_s();
        if (cpu_pass(st, s, q, k, v, o))
            return -1;
        ms[i] = (ab_now_s() - t0) * 1e3;
    }
    return 0;
}

/* The warm-up of st before its check: up to e->warmup launches (hot
 * timing on a GPU, the monotonic clock on the host), stopping once they add
 * up to e->warmup_time_s (experiment.h), after at least one: the first is
 * timed alone and the rest sized from it, so a 15 ms backward warms up with
 * 4 launches where a 20 us kernel makes all 10. The launches made go to
 * st->m.warmup. bufs: the configuration's (GPU variants), else NULL.
 * Returns 0, or -1 with why in err (a plugin worker's in st->message). */
static int warm_up(const ab_experiment *e, vstate *st, const ab_shape *s, ab_gpu_bufs *bufs,
                   const float *q, const float *k, const float *v, float *o, char *err,
                   size_t n)
{
    const size_t want = (size_t)e->warmup;
    double *ms = malloc(want * sizeof *ms), spent_ms = 0;
    size_t done = 0;
    int rc = ms ? 0 : -1;
    if (!ms)
        snprintf(err, n, "out of host memory for the warm-up");
    while (rc == 0 && done < want) {
        size_t more = want - done;
        if (e->warmup_time_s > 0) {
            const double left_ms = 1e3 * e->warmup_time_s - spent_ms;
            if (done == 0)
                more = 1;
            else if (left_ms <= 0)
                break;
            else if (spent_ms > 0 && left_ms / (spent_ms / (double)done) < (double)more)
                more = (size_t)ceil(left_ms / (spent_ms / (double)done));
        }
        rc = bufs ? ab_gpu_time(st->v, st->ctx, bufs, AB_TIME_HOT, 1, more, ms + done, err, n)
                  : cpu_time(st, s, q, k, v, o, more, ms + done);
        for (size_t i = done; rc == 0 && i < done + more; i++)
            spent_ms += ms[i];
        done += more;
    }
    free(ms);
    st->m.warmup = (int)done;
    return rc;
}

/* Whether the GPU-time budget (experiment.h, min_time/max_time) governs
 * st's sampling: a GPU variant (a native CUDA one, or a protocol-2 adapter
 * on a machine with a GPU whose hello did not say ipc=0, as the numpy
 * kit's does: st->gpu_timed); CPU variants keep the sample count alone. */
static int time_budgeted(const ab_experiment *e, const vstate *st)
{
    return st->gpu_timed && (e->min_time_s > 0 || e->max_time_s > 0);
}

/* st's sampling as sampling.h counts it. */
static ab_sampling_state sampling_of(const ab_experiment *e, const vstate *st)
{
    return (ab_sampling_state){st->n,       st->last_block, st->rounds,          st->timed_s,
                               st->est_ms,  st->spent_s,    time_budgeted(e, st)};
}

/* Whether sampling of st should stop; sets stop_reason. Fixed mode stops
 * at `samples` samples once a GPU variant's samples also hold min_time of
 * GPU time ("min_time" when the time was what it waited for). Adaptive
 * stopping converges when the cluster-bootstrap CI of the median over
 * rounds (stats/rounds.h: the CI the report gives) has a half-width within
 * target_rel_ci of the median, after at least min_samples samples,
 * AB_MIN_ROUNDS rounds and min_time; the check runs at 20 rounds and then
 * each time the rounds grew by a tenth, so its cost stays a small share of
 * sampling. Both stop at max_samples and, for a GPU variant, at max_time. */
static int should_stop(const ab_experiment *e, vstate *st)
{
    int may_converge = 0;
    const ab_sampling_state ss = sampling_of(e, st);
    const char *why = ab_sampling_stop(e, &ss, &may_converge);
    if (why) {
        st->m.stop_reason = why;
        return 1;
    }
    if (!may_converge || st->rounds < st->next_check)
        return 0;
    st->next_check = st->rounds + (st->rounds / 10 > 1 ? st->rounds / 10 : 1);
    double *x = malloc(st->n * sizeof *x);
    int *rd = malloc(st->n * sizeof *rd);
    if (!x || !rd) {
        free(x);
        free(rd);
        return 0;
    }
    size_t k = 0;
    for (size_t i = 0; i < st->n; i++)
        if (!st->samples[i].throttled) {
            rd[k] = st->samples[i].round;
            x[k++] = st->samples[i].ms;
        }
    int stop = 0;
    ab_summary sum;
    ab_boot_opts o;
    ab_boot_opts_default(&o);
    o.resamples = 500; /* a stopping check, not the reported CI */
    double lo, hi;
    if (k >= 5 && ab_summarize(x, k, &sum) == AB_STATS_OK &&
        ab_rounds_median_ci(x, rd, k, &o, &lo, &hi) == AB_STATS_OK && sum.median > 0 &&
        (hi - lo) / 2.0 / sum.median <= e->target_rel_ci) {
        st->m.stop_reason = "converged";
        stop = 1;
    }
    free(x);
    free(rd);
    return stop;
}

/* Takes one block of samples of st; returns 0 or -1 (st->message set). */
static int take_block(const ab_experiment *e, vstate *st, int round, ab_gpu_bufs *bufs,
                      const ab_gpu_info *gpu, const float *q, const float *k, const float *v,
                      float *o, double run_t0)
{
    const ab_sampling_state ss = sampling_of(e, st);
    const size_t count = ab_sampling_block(e, &ss);
    double *ms = malloc(count * sizeof *ms);
    if (!ms) {
        snprintf(st->message, sizeof st->message, "out of host memory");
        return -1;
    }
    ab_clock_reading before = {0}, after = {0};
    if (gpu)
        ab_nvml_read(gpu->uuid, &before);
    double t0 = ab_now_s();
    watch_plugin(st->ev, (double)count, "run");
    int rc = st->ext ? ab_ext2_take(st->ext, count, ms, st->message, sizeof st->message)
             : st->v->device == AB_DEV_CUDA
                 ? ab_gpu_time(st->v, st->ctx, bufs, st->ev->timing, e->graph_k, count, ms,
                               st->message, sizeof st->message)
                 : cpu_time(st, &st->m.shape, q, k, v, o, count, ms);
    double t1 = ab_now_s();
    ab_watch_disarm();
    if (gpu)
        ab_nvml_read(gpu->uuid, &after);
    st->spent_s += t1 - t0;
    wt.sampling_s += t1 - t0;
    if (rc) {
        if (!st->message[0])
            snprintf(st->message, sizeof st->message, "%s: run failed", st->v->name);
        free(ms);
        return -1;
    }
    double block_timed = 0;
    for (size_t i = 0; i < count; i++)
        block_timed += ms[i] * st->m.graph_k * 1e-3; /* graph samples are per launch */
    wt.timed_s += block_timed;
    st->timed_s += block_timed;
    st->last_block = count;
    {
        /* the block's median GPU time per sample sizes the next block */
        double *sorted = malloc(count * sizeof *sorted);
        if (sorted) {
            memcpy(sorted, ms, count * sizeof *sorted);
            gsl_sort(sorted, 1, count);
            st->est_ms = gsl_stats_median_from_sorted_data(sorted, 1, count) * st->m.graph_k;
            free(sorted);
        }
    }
    int throttled = before.throttled || after.throttled;
    if (before.valid || after.valid) {
        ab_clock_block b = {round, st->n, count, (int)before.sm_mhz, (int)after.sm_mhz,
                            (int)after.mem_mhz, (int)(before.temp_c > after.temp_c ? before.temp_c : after.temp_c),
                            before.power_w > after.power_w ? before.power_w : after.power_w,
                            (long long)(before.reasons | after.reasons), throttled,
                            before.power_capped || after.power_capped};
        push_block(st, b);
    }
    /* timestamps: spread the block's wall time over its samples in order */
    double t = t0 - run_t0, step = count ? (t1 - t0) / (double)count : 0;
    for (size_t i = 0; i < count; i++)
        if (push_sample(st, (ab_sample){ms[i], round, t + step * (double)i, throttled})) {
            free(ms);
            snprintf(st->message, sizeof st->message, "out of host memory");
            return -1;
        }
    free(ms);
    st->rounds++;
    return 0;
}

static int store(sqlite3 *db, vstate *st, const char *status, const char *msg)
{
    char err[AB_ERR];
    ab_id id;
    st->m.status = status;
    st->m.message = msg && *msg ? msg : NULL;
    st->stored = 1;
    /* an adapter's or plugin's words ("error \033]0;..."): stored and
     * printed with control bytes escaped (util.h) */
    if (st->m.message && ab_has_control(st->m.message)) {
        char shown[sizeof st->message];
        ab_printable(st->m.message, shown, sizeof shown);
        snprintf(st->message, sizeof st->message, "%s", shown);
        st->m.message = st->message;
    }
    if (st->ext) {
        free(st->ext_stderr);
        st->ext_stderr = ab_ext2_stderr(st->ext);
        st->m.stderr_text = st->ext_stderr;
    }
    double t0 = ab_now_s();
    int rc = ab_db_put_measurement(db, &st->m, st->samples, st->n, st->blocks, st->nblocks, &id, err);
    wt.store_s += ab_now_s() - t0;
    if (rc)
        return error("%s", err);
    if (st->m.checked && ab_db_put_check(db, id, st->check_seed, st->rows_total, err))
        return error("%s", err);
    return 0;
}

static void print_outcome(const vstate *st, const char *shape)
{
    if (strcmp(st->m.status, "ok") != 0) {
        fprintf(stderr, "  %-20s %s: %s\n", st->v->name, st->m.status,
                st->m.message ? st->m.message : "");
        return;
    }
    double *x = malloc(st->n * sizeof *x);
    ab_summary s;
    if (!x)
        return;
    for (size_t i = 0; i < st->n; i++)
        x[i] = st->samples[i].ms;
    if (ab_summarize(x, st->n, &s) == AB_STATS_OK) {
        const ab_unit u = ab_flop_unit(st->m.flops / (s.median * 1e-3));
        fprintf(stderr, "  %-20s median %10.4f ms  %8.2f %s  n=%zu (%s)  max_err %.2e\n",
                st->v->name, s.median, st->m.flops / (s.median * u.per_ms), u.name, st->n,
                st->m.stop_reason ? st->m.stop_reason : "-", st->m.max_abs_err);
    }
    (void)shape;
    free(x);
}

/* Prepares st for variant ev on shape s: setup, warm-up, correctness check.
 * Returns 1 when it is ready to sample, 0 when it was stored as failed or
 * errored, -1 on a database error. */
/* The check of a backward pass (check.h, gradients): dQ, dK, dV poisoned
 * with NaN, one pass (the forward too for fwd+bwd), each gradient against
 * the float64 reference, on the host for a CPU variant and on the device
 * for a GPU one (gpu_check.h). Fills st->m's correctness columns from the
 * gradient furthest from its tolerance and st->grads. Returns 1 (passed:
 * sample it), 0 (failed or error, stored) or -1 (database error). */
static int fill_grads(vstate *st, const ab_shape *s, const ab_grad_check *gc);

static int check_bwd(sqlite3 *db, vstate *st, const ab_shape *s, ab_gpu_bufs *bufs,
                     const float *q, const float *k, const float *v, float *o)
{
    char err[AB_ERR] = "";
    ab_grad_check gc;
    const double t_check = ab_now_s();
    int rc;
    if (bufs) {
        rc = ab_gpu_poison_grads(bufs, err, sizeof err) ||
             ab_gpu_run_once(st->v, st->ctx, bufs, err, sizeof err) ||
             ab_gpu_check_bwd(bufs, &gc, err, sizeof err);
    } else {
        const size_t nq = ab_shape_numel(s), nkv = ab_shape_kv_numel(s);
        for (size_t i = 0; i < nq; i++)
            bwd.dq[i] = NAN;
        for (size_t i = 0; i < nkv; i++)
            bwd.dk[i] = bwd.dv[i] = NAN;
        rc = cpu_pass(st, s, q, k, v, o);
        if (rc)
            snprintf(err, sizeof err, "%s: backward pass failed", st->v->name);
#ifdef _OPENMP
        const int timed_threads = omp_get_max_threads();
        omp_set_num_threads(omp_get_num_procs());
#endif
        if (!rc && ab_check_grads(s, q, k, v, bwd.dout, bwd.dq, bwd.dk, bwd.dv, &gc)) {
            snprintf(err, sizeof err, "out of memory for the gradient check");
            rc = -1;
        }
#ifdef _OPENMP
        omp_set_num_threads(timed_threads);
#endif
    }
    wt.check_s += ab_now_s() - t_check;
    if (rc)
        return store(db, st, "error", err[0] ? err : "backward check failed") ? -1 : 0;
    if (!fill_grads(st, s, &gc)) {
        snprintf(st->message, sizeof st->message, "correctness: %s: not timed", gc.why);
        return store(db, st, "failed", st->message) ? -1 : 0;
    }
    return 1;
}

/* st's correctness columns and gradient rows from the gradient check gc
 * (the main columns from the gradient furthest from its tolerance);
 * returns gc.pass. */
static int fill_grads(vstate *st, const ab_shape *s, const ab_grad_check *gc_)
{
    const ab_grad_check gc = *gc_;
    int worst = 0;
    double worst_r = -1;
    long nonfinite = 0;
    for (int i = 0; i < 3; i++) {
        const ab_check *c = &gc.g[i];
        const double r = c->tolerance > 0 ? c->max_abs_err / c->tolerance : INFINITY;
        if (!(r <= worst_r)) {
            worst_r = r;
            worst = i;
        }
        nonfinite += c->nonfinite;
        st->grads[i] = (ab_grad_row){ab_grad_name(i), c->max_abs_err, c->rel_l2_err,
                                     c->plain_max_abs_err, c->atol, c->tolerance, c->ref_absmax,
                                     c->nonfinite, c->rows_checked, c->pass};
    }
    st->m.grads = st->grads;
    st->m.ngrads = 3;
    st->m.checked = 1;
    st->m.max_abs_err = gc.g[worst].max_abs_err;
    st->m.mean_abs_err = gc.g[worst].mean_abs_err;
    st->m.rel_l2_err = gc.g[worst].rel_l2_err;
    st->m.tolerance = gc.g[worst].tolerance;
    st->m.nonfinite = nonfinite;
    st->m.rows_checked = (long)s->B * s->H * s->S;
    st->check_seed = 0; /* every element checked */
    st->rows_total = st->m.rows_checked;
    return gc.pass;
}

/* The forward check c of st's output, copied into its measurement. */
static void record_check(vstate *st, const ab_check *c)
{
    st->m.checked = 1;
    st->m.max_abs_err = c->max_abs_err;
    st->m.mean_abs_err = c->mean_abs_err;
    st->m.rel_l2_err = c->rel_l2_err;
    st->m.tolerance = c->tolerance;
    st->m.nonfinite = c->nonfinite;
    st->m.rows_checked = c->rows_checked;
    st->check_seed = c->seed;
    st->rows_total = c->rows_total;
}

/* Warns, before sampling, when e's rounds per measurement are too few for
 * any verdict of the report's family (every variant against the baseline in
 * every configuration, Holm at e->alpha; ab_rounds_needed): the run would
 * conclude nothing, whatever the kernels do. With instances (k > 1) the
 * comparison is by instance, Welch's t on the per-instance means
 * (src/analysis/instances.h), whose p has no such floor: no warning. */
static void warn_rounds(const ab_experiment *e)
{
    if (!e->baseline || e->nvariants < 2 || e->round_size < 1 || e->instances > 1)
        return;
    const int samples = e->adaptive ? e->max_samples : e->samples;
    const int rounds = (samples + e->round_size - 1) / e->round_size;
    const size_t family = (e->nvariants - 1) * e->nconfigs;
    const int need = ab_rounds_needed(family, e->alpha);
    if (need > 0 && rounds < need)
        fprintf(stderr,
                "attnbench: warning: %d rounds per measurement (samples %d / round_size %d) "
                "cannot reach a verdict in a family of %zu comparisons at alpha %g: the "
                "smallest signed-rank p of %d rounds is 2^(1-%d), times %zu under Holm; "
                "use at least %d rounds (samples >= %d)\n",
                rounds, samples, e->round_size, family, e->alpha, rounds, rounds, family, need,
                need * e->round_size);
}

static int prepare_calls(sqlite3 *db, const ab_experiment *e, vstate *st, const ab_shape *s,
                         ab_gpu_bufs *bufs, const float *q, const float *k, const float *v,
                         float *o, unsigned long check_seed);

/* Setup, warm-up and the correctness check of one (variant, configuration):
 * prepare_calls, under the watchdog when st is an in-process plugin (its
 * setup, warm-up and check calls together get the deadline of as many
 * calls, plugin_watch.h). Returns 1 when it is ready to time, 0 when its
 * outcome was stored (error or failed check), 2 when it was skipped (this
 * GPU cannot run the shape and the experiment has skip_unsupported), -1 on
 * a database error. */
static int prepare(sqlite3 *db, const ab_experiment *e, vstate *st, const ab_shape *s,
                   ab_gpu_bufs *bufs, const float *q, const float *k, const float *v, float *o,
                   unsigned long check_seed)
{
    watch_plugin(st->ev, (double)e->warmup + 3, "setup, warm-up or check");
    int rc = prepare_calls(db, e, st, s, bufs, q, k, v, o, check_seed);
    ab_watch_disarm();
    return rc;
}

static int prepare_calls(sqlite3 *db, const ab_experiment *e, vstate *st, const ab_shape *s,
                         ab_gpu_bufs *bufs, const float *q, const float *k, const float *v,
                         float *o, unsigned long check_seed)
{
    size_t ws = 0;
    char err[AB_ERR] = "";
    const ab_variant *var = st->v;
    const int gpu = var->device == AB_DEV_CUDA;

    if (gpu && !bufs)
        return store(db, st, "error", "GPU buffers unavailable for this configuration") ? -1 : 0;
    size_t used_before = gpu ? ab_gpu_mem_used() : 0;
    double t_setup = ab_now_s();
    int setup_rc = st->pw ? ab_pw_setup(st->pw, &ws, err, sizeof err)
                          : var->setup(s, &st->ctx, &ws, err, sizeof err);
    wt.setup_s += ab_now_s() - t_setup;
    if (setup_rc == AB_SETUP_UNSUPPORTED && e->skip_unsupported) {
        /* this GPU cannot run the shape (shared memory, architecture): left
         * out like a shape the variant does not declare */
        fprintf(stderr, "  %-20s skipped: %s\n", st->ev->name, err);
        return 2;
    }
    if (setup_rc) {
        return store(db, st, "error", err) ? -1 : 0;
    }
    st->have_ctx = !st->pw;
    st->m.input_sets = gpu && st->ev->timing != AB_TIME_COLD ? ab_gpu_input_sets(bufs) : 1;
    if (gpu) {
        size_t used_after = ab_gpu_mem_used();
        size_t grew = used_after > used_before ? used_after - used_before : 0;
        /* Q, K, V, O plus what setup allocated (the larger of what it
         * reported and what the allocator saw) */
        /* Q, K, V, O (and for a backward dO, dQ, dK, dV) */
        st->m.peak_bytes = (double)((s->pass == AB_FWD ? 2 : 4) *
                                    (ab_shape_numel(s) + ab_shape_kv_numel(s)) *
                                    ab_dtype_size(s->dtype)) +
                           (double)(ws > grew ? ws : grew);
    } else {
        st->m.peak_bytes =
            (double)(2 * (ab_shape_numel(s) + ab_shape_kv_numel(s)) * sizeof(float) + ws);
    }

    /* warm-up: module load, handle creation, clocks ramping up. A GPU
     * variant's first launch is made alone, outside the launch hold of
     * ab_gpu_time: loading a library's kernels on first use can wait on the
     * host (seen with cudnn_sdpa on an H100, 2026-11-25: the hold timed out
     * once per configuration, in the warm-up) */
    if (gpu && e->warmup > 0 && ab_gpu_run_once(var, st->ctx, bufs, err, sizeof err))
        return store(db, st, "error", err) ? -1 : 0;
    if (e->warmup > 0) {
        double t_warm = ab_now_s();
        int rc = warm_up(e, st, s, gpu ? bufs : NULL, q, k, v, o, err, sizeof err);
        wt.warmup_s += ab_now_s() - t_warm;
        if (rc) {
            if (!err[0] && st->message[0])
                snprintf(err, sizeof err, "%s", st->message); /* a plugin worker's reason */
            if (!err[0])
                snprintf(err, sizeof err, "%s: warm-up failed", var->name);
            return store(db, st, "error", err) ? -1 : 0;
        }
    }

    if (s->pass != AB_FWD)
        return check_bwd(db, st, s, gpu ? bufs : NULL, q, k, v, o);

    /* check: poisoned output, one run, float64 reference (check.h) */
    const size_t numel = ab_shape_numel(s);
    const double t_check = ab_now_s();
    if (gpu) {
        if (ab_gpu_poison(bufs, err, sizeof err) || ab_gpu_run_once(var, st->ctx, bufs, err, sizeof err))
            return store(db, st, "error", err) ? -1 : 0;
    } else if (st->pw) { /* O poisoned and written in the worker, copied back */
        if (ab_pw_run(st->pw, 1, NULL, o, err, sizeof err))
            return store(db, st, "error", err) ? -1 : 0;
    } else {
        for (size_t i = 0; i < numel; i++)
            o[i] = NAN;
        if (var->run(st->ctx, s, q, k, v, o, NULL))
            return store(db, st, "error", "run failed") ? -1 : 0;
    }
    ab_check c;
#ifdef _OPENMP
    /* the check is not timed: it gets every core, whatever `threads` gives
     * the CPU variants (with one thread it took 99.6% of an A/A run's wall
     * time on the GPU machine) */
    const int timed_threads = omp_get_max_threads();
    omp_set_num_threads(omp_get_num_procs());
#endif
    int check_rc = ab_check_measurement(s, gpu ? bufs : NULL, q, k, v, o, check_seed, &c, err,
                                        sizeof err);
#ifdef _OPENMP
    omp_set_num_threads(timed_threads);
#endif
    wt.check_s += ab_now_s() - t_check;
    if (check_rc)
        return store(db, st, "error", err) ? -1 : 0;
    record_check(st, &c);
    if (!c.pass) {
        snprintf(st->message, sizeof st->message, "correctness: %s: not timed", c.why);
        return store(db, st, "failed", st->message) ? -1 : 0;
    }
    return 1;
}

/* The folder (mkdtemp, made on first use, removed at the end of the run)
 * holding the files external variants may write their output O to. */
static char ext_out_dir[512];

/* The output path offered to external variant vi (ATTNBENCH_OUTPUT), in buf;
 * NULL when no private folder could be made (the adapter's figures are then
 * the only check). */
static const char *ext_output_path(size_t vi, char *buf, size_t n)
{
    if (!ext_out_dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(ext_out_dir, sizeof ext_out_dir, "%s/attnbench-out-XXXXXX",
                 tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(ext_out_dir)) {
            ext_out_dir[0] = '\0';
            return NULL;
        }
    }
    snprintf(buf, n, "%s/variant-%zu.f32", ext_out_dir, vi);
    return buf;
}

/* The device-buffer description offered to protocol-2 variant vi (`ipc=`,
 * ext_ipc.h), beside its output path; NULL without the private folder. */
static const char *ext_ipc_path(size_t vi, char *buf, size_t n)
{
    char f[600];
    if (!ext_output_path(vi, f, sizeof f))
        return NULL;
    snprintf(buf, n, "%s/variant-%zu.ipc.json", ext_out_dir, vi);
    return buf;
}

/* Offers protocol-2 variant ev (index vi, its adapter p) the configuration's
 * device buffers when its hello said ipc=1 and bufs hold the configuration
 * (a backward pass only in [B,H,S,D]): the layout (the hello's, else the entry's,
 * else [B,H,S,D]; the two disagreeing is an error), the exported tensors
 * and their description at path (ext_ipc.h). Returns the path to send as
 * `ipc=` (with *layout and *nsets), or NULL: no offer (why, if it was
 * an error rather than "not applicable", printed and kept in msg). */
static const char *ext_ipc_offer(const ab_exp_variant *ev, size_t vi, ab_ext2 *p,
                                 ab_gpu_bufs *bufs, const ab_shape *s, char *path, size_t pn,
                                 ab_layout *layout, int *nsets, char *msg, size_t mn)
{
    const ab_ext_hello *h = ab_ext2_hello(p);
    msg[0] = '\0';
    if (!h->ipc || !bufs || !ev->ipc || !ext_ipc_path(vi, path, pn))
        return NULL;
    *layout = h->has_layout ? h->layout : ev->layout_set ? ev->layout : AB_LAYOUT_BHSD;
    if (h->has_layout && ev->layout_set && h->layout != ev->layout) {
        snprintf(msg, mn, "layout: the experiment says %s, the adapter's hello %s",
                 ab_layout_name(ev->layout), ab_layout_name(h->layout));
        return NULL;
    }
    if (s->pass != AB_FWD && *layout != AB_LAYOUT_BHSD)
        return NULL; /* backward buffers in [B,H,S,D] only: the adapter's own inputs */
    char err[AB_ERR];
    const double t = ab_now_s();
    int rc = ab_ext_ipc_offer(bufs, s, *layout, path, nsets, err, sizeof err);
    wt.inputs_s += ab_now_s() - t;
    if (rc) {
        snprintf(msg, mn, "sharing the device buffers: %.400s", err);
        return NULL;
    }
    return path;
}

/* The correctness rule for external variant st on shape s, from its result
 * res: when the adapter wrote its output to the offered path (`check
 * output=PATH`), attnbench checks that output itself (ext_output.h: the
 * rule of kernels/check.h, on the device over every row when bufs holds
 * the configuration's inputs, else on the host like a CPU variant's); otherwise FlashAttention's rule on the adapter's
 * figures with atol maximised over outputs |x| <= 1 (attention outputs are
 * convex combinations of V, and |V| <= 1). Fills st->m's check fields,
 * st->check_seed and st->rows_total. Returns 1 (passed), 0 (failed: why in
 * msg) or -1 (an output that cannot be read or a path not offered: why in
 * msg). */
static int ext_check(const ab_experiment *e, vstate *st, const ab_shape *s,
                     const ab_ext_result *res, const char *offered, ab_gpu_bufs *bufs,
                     unsigned long check_seed, char *msg, size_t n)
{
    st->m.checked = 1;
    if (res->output_path) {
        char err[AB_ERR];
        ab_check c;
        if (!offered || strcmp(res->output_path, offered) != 0) {
            snprintf(msg, n, "check output=%.200s is not the path offered in ATTNBENCH_OUTPUT (%.200s)",
                     res->output_path, offered ? offered : "none");
            st->m.checked = 0;
            return -1;
        }
        if (s->pass != AB_FWD) { /* the adapter wrote dQ, dK, dV */
            ab_grad_check gc;
            const double t = ab_now_s();
            int rc = ab_ext_grads_check(s, offered, bufs, e->seed, &gc, err, sizeof err);
            wt.check_s += ab_now_s() - t;
            if (rc) {
                snprintf(msg, n, "%s", err);
                st->m.checked = 0;
                return -1;
            }
            if (!fill_grads(st, s, &gc)) {
                snprintf(msg, n, "correctness (attnbench's check of the adapter's gradients): %s",
                         gc.why);
                return 0;
            }
            return 1;
        }
        const double t = ab_now_s();
        int rc = ab_ext_output_check(s, offered, bufs, e->seed, check_seed, &c, err, sizeof err);
        wt.check_s += ab_now_s() - t;
        if (rc) {
            snprintf(msg, n, "%s", err);
            st->m.checked = 0;
            return -1;
        }
        st->m.max_abs_err = c.max_abs_err;
        st->m.mean_abs_err = c.mean_abs_err;
        st->m.rel_l2_err = c.rel_l2_err;
        st->m.tolerance = c.tolerance;
        st->m.nonfinite = c.nonfinite;
        st->m.rows_checked = c.rows_checked;
        st->check_seed = c.seed;
        st->rows_total = c.rows_total;
        if (!c.pass) {
            snprintf(msg, n, "correctness (attnbench's check of the adapter's output): %s", c.why);
            return 0;
        }
        return 1;
    }
    if (s->pass != AB_FWD) {
        snprintf(msg, n, "a backward pass must write dQ, dK, dV to ATTNBENCH_OUTPUT for "
                         "attnbench's gradient check (adapters/PROTOCOL.md); none was written");
        st->m.checked = 0;
        return -1;
    }
    const double atol = ab_check_atol_bound(s->dtype, 1.0);
    st->m.max_abs_err = res->max_abs_err;
    st->m.mean_abs_err = res->mean_abs_err;
    st->m.rel_l2_err = res->rel_l2_err;
    st->m.tolerance = 2.0 * res->plain_max_abs_err + atol;
    st->m.nonfinite = res->nonfinite;
    st->m.rows_checked = res->rows_checked;
    if (res->nonfinite || !(res->max_abs_err <= st->m.tolerance)) {
        snprintf(msg, n, "correctness: max abs error %.3e > tolerance %.3e, %ld non-finite outputs",
                 res->max_abs_err, st->m.tolerance, res->nonfinite);
        return 0;
    }
    return 1;
}

/* The check of a protocol-2 adapter that answered `check device`: its O in
 * bufs (layout l), checked like a native GPU variant's (ext_ipc.h). Fills
 * st->m's check fields; returns 1 (passed), 0 (failed: why in msg) or -1
 * (an error: why in msg). */
static int ext_device_check(const ab_experiment *e, vstate *st, const ab_shape *s,
                            ab_gpu_bufs *bufs, ab_layout l, unsigned long check_seed, char *msg,
                            size_t n)
{
    char err[AB_ERR];
    ab_check c;
    const double t = ab_now_s();
    if (s->pass != AB_FWD) { /* dQ, dK, dV in the shared buffers: the native check */
        ab_grad_check gc;
        int rc = ab_gpu_check_bwd(bufs, &gc, err, sizeof err);
        wt.check_s += ab_now_s() - t;
        if (rc) {
            snprintf(msg, n, "%s", err);
            return -1;
        }
        if (!fill_grads(st, s, &gc)) {
            snprintf(msg, n, "correctness (attnbench's check of the adapter's gradients in its "
                             "device buffers): %s", gc.why);
            return 0;
        }
        return 1;
    }
    int rc = ab_ext_ipc_check(s, bufs, l, e->seed, check_seed, &c, err, sizeof err);
    wt.check_s += ab_now_s() - t;
    if (rc) {
        snprintf(msg, n, "%s", err);
        return -1;
    }
    record_check(st, &c);
    if (!c.pass) {
        snprintf(msg, n, "correctness (attnbench's check of the adapter's output in its device "
                         "buffer): %s", c.why);
        return 0;
    }
    return 1;
}

/* Measures one external variant on shape s and stores it. */
static int run_external(sqlite3 *db, const ab_experiment *e, const ab_exp_variant *ev,
                        const ab_shape *s, ab_id run_id, double run_t0,
                        ab_gpu_bufs *bufs)
{
    ab_ext_request rq = {0};
    ab_ext_result res;
    const ab_walltime b0 = wt;
    const double c0 = ab_now_s();
    memset(&res, 0, sizeof res);
    rq.name = ev->name;
    rq.command = ev->command;
    rq.B = s->B;
    rq.H = s->H;
    rq.S = s->S;
    rq.D = s->D;
    rq.causal = s->causal;
    rq.dtype = ab_dtype_name(s->dtype);
    rq.H_kv = s->H_kv;
    rq.S_kv = s->S_kv;
    rq.pass = ab_pass_name(s->pass);
    rq.warmup = e->warmup;
    rq.samples = e->adaptive ? e->max_samples : e->samples;
    if (e->adaptive && rq.samples > 1000)
        rq.samples = 1000;
    rq.seed = e->seed;
    rq.timing_mode = ab_timing_mode_name(ev->timing);
    rq.graph_k = e->graph_k;
    rq.timeout_s = ev->timeout_s;
    rq.threads = e->threads;
    rq.workdir = NULL;
    char opath[600];
    rq.output_path = ext_output_path((size_t)(ev - e->variants), opath, sizeof opath);
    double t0 = ab_now_s() - run_t0;
    int rc = ab_ext_measure(&rq, &res);
    {
        double timed = 0;
        for (size_t i = 0; rc == 0 && i < res.n; i++)
            timed += res.ms[i] * (ev->timing == AB_TIME_GRAPH ? e->graph_k : 1) * 1e-3;
        wt.timed_s += timed;
        wt.sampling_s += timed;
        wt.adapter_s += res.wall_s > timed ? res.wall_s - timed : 0;
    }

    vstate st;
    memset(&st, 0, sizeof st);
    st.m.run_id = run_id;
    st.m.variant = ev->name;
    st.m.backend = "external";
    st.m.shape = *s;
    st.m.warmup = e->warmup;
    st.m.timing_mode = ab_timing_mode_name(ev->timing);
    st.m.graph_k = ev->timing == AB_TIME_GRAPH ? e->graph_k : 1;
    st.m.flops = ab_attention_flops(s);
    st.m.bytes = ab_attention_bytes(s);
    st.m.external = 1;
    st.m.stop_reason = "fixed";
    st.m.adapter_env = res.env_json;
    st.m.stderr_text = res.stderr_text;
    st.m.peak_bytes = res.peak_bytes; /* 0: not reported */
    const char *status = "ok";
    char msg[AB_ERR] = "";
    if (rc) {
        status = "error";
        snprintf(msg, sizeof msg, "%s", res.error);
    } else {
        int pass = ext_check(e, &st, s, &res, rq.output_path, bufs,
                             check_seed_base + 7919UL * (size_t)(ev - e->variants + 1), msg,
                             sizeof msg);
        if (pass <= 0) {
            status = pass < 0 ? "error" : "failed";
        } else {
            for (size_t i = 0; i < res.n; i++)
                push_sample(&st, (ab_sample){res.ms[i], 0, t0, 0});
        }
    }
    static ab_variant pseudo = {0};
    pseudo.name = ev->name;
    st.v = &pseudo;
    int out = store(db, &st, status, msg);
    if (!out)
        print_outcome(&st, "");
    char sh[160];
    charge(&st, &b0, c0);
    fold(&st, (size_t)(ev - e->variants), shape_str(s, sh, sizeof sh));
    free(st.samples);
    ab_ext_result_free(&res);
    return out;
}

/* Times the empty kernel in each mode and stores the medians. */
static void measure_timer_floor(sqlite3 *db, ab_id run_id, const ab_experiment *e)
{
    ab_shape tiny = {1, 1, 1, 1, 0, AB_FP32, 0, 0};
    float one = 0.5f;
    ab_gpu_bufs *b = NULL;
    char err[AB_ERR];
    enum { N = 200 };
    double ms[N];
    if (ab_gpu_bufs_create(&tiny, &one, &one, &one, &b, err, sizeof err))
        return;
    ab_gpu_time(&ab_gpu_empty_variant, NULL, b, AB_TIME_HOT, 1, 20, ms, err, sizeof err);
    for (int m = 0; m < 3; m++) {
        ab_summary s;
        if (ab_gpu_time(&ab_gpu_empty_variant, NULL, b, (ab_timing_mode)m, e->graph_k, N, ms, err,
                        sizeof err) == 0 &&
            ab_summarize(ms, N, &s) == AB_STATS_OK)
            ab_db_put_timer_floor(db, run_id, ab_timing_mode_name((ab_timing_mode)m), N, s.median,
                                  err);
    }
    ab_gpu_bufs_destroy(b);
}

/* set while `attnbench resume` completes a run: pairs already stored are
 * skipped */
static int resuming = 0;

/* The protocol-2 request of external variant ev for shape s (its timing,
 * the experiment's warm-up, seed and graph_k; no device buffers). */
static void ext2_request(const ab_experiment *e, const ab_exp_variant *ev, const ab_shape *s,
                         ab_ext_request *rq)
{
    memset(rq, 0, sizeof *rq);
    rq->name = ev->name;
    rq->B = s->B;
    rq->H = s->H;
    rq->S = s->S;
    rq->D = s->D;
    rq->causal = s->causal;
    rq->dtype = ab_dtype_name(s->dtype);
    rq->H_kv = s->H_kv;
    rq->S_kv = s->S_kv;
    rq->pass = ab_pass_name(s->pass);
    rq->warmup = e->warmup;
    rq->seed = e->seed;
    rq->timing_mode = ab_timing_mode_name(ev->timing);
    rq->graph_k = e->graph_k;
}

/* The first half of prepare_ext2: starts st's adapter (protocol-2 external
 * variant ev, index vi) at its first configuration and sends it shape s
 * (its device buffers offered, ext_ipc_offer), without waiting for the
 * answer: st->ext_pending keeps what prepare_ext2_finish needs. Returns 1
 * when the request was sent, 0 when the measurement was stored as an
 * error, 2 when the hello's capabilities leave s out (printed, nothing
 * stored), -1 on a database error. */
static int prepare_ext2_send(sqlite3 *db, const ab_experiment *e, vstate *st, size_t vi,
                        const ab_exp_variant *ev, const ab_shape *s, ab_id run_id,
                        ab_gpu_bufs *bufs)
{
    char err[AB_ERR];
    st->ev = ev;
    st->pseudo.name = ev->name;
    st->pseudo.backend = "external";
    st->pseudo.device = AB_DEV_CUDA; /* NVML is read around its blocks */
    st->v = &st->pseudo;
    st->m.run_id = run_id;
    st->m.variant = ev->name;
    st->m.backend = "external";
    st->m.shape = *s;
    st->m.warmup = e->warmup;
    st->m.timing_mode = ab_timing_mode_name(ev->timing);
    st->m.graph_k = ev->timing == AB_TIME_GRAPH ? e->graph_k : 1;
    st->m.flops = ab_attention_flops(s);
    st->m.bytes = ab_attention_bytes(s);
    st->m.external = 1;
    st->m.input_sets = 1;
    const double t0 = ab_now_s();
    char *opath = st->ext_pending.opath;
    const char *offered = ext_output_path(vi, opath, sizeof st->ext_pending.opath);
    if (!ext_procs[vi] && ab_ext2_start(ev->name, ev->command, NULL, ev->timeout_s, offered,
                                        ev->ipc && bufs, e->threads, keep_s,
                                        &ext_procs[vi], err, sizeof err)) {
        wt.adapter_s += ab_now_s() - t0;
        return store(db, st, "error", err) ? -1 : 0;
    }
    st->ext = ext_procs[vi];
    /* what its hello declares it runs (PROTOCOL.md "Capabilities"): left
     * out with the reason, like a built-in variant's unsupported shape */
    if (ab_ext_hello_admits(ab_ext2_hello(st->ext), s, err, sizeof err)) {
        fprintf(stderr, "  %-20s skipped: %s\n", ev->name, err);
        st->ext = NULL;
        return 2;
    }
    ab_ext_request rq;
    ext2_request(e, ev, s, &rq);
    ab_layout layout = AB_LAYOUT_BHSD;
    int nsets = 1;
    rq.ipc_path = ext_ipc_offer(ev, vi, st->ext, bufs, s, st->ext_pending.ipath,
                                sizeof st->ext_pending.ipath, &layout, &nsets, err, sizeof err);
    if (err[0]) /* an offer that failed: this configuration is an error */
        return store(db, st, "error", err) ? -1 : 0;
    if (rq.ipc_path && ev->timing != AB_TIME_COLD)
        st->m.input_sets = nsets; /* rotated like a native variant's (PROTOCOL.md) */
    ab_ext_result res;
    int rc = ab_ext2_config_send(st->ext, &rq, &res);
    wt.adapter_s += ab_now_s() - t0; /* its start-up, the request */
    if (rc) {
        int out = store(db, st, "error", res.error) ? -1 : 0;
        ext_procs[vi] = NULL; /* dead: killed; the next configuration starts another */
        ab_ext2_stop(st->ext);
        st->ext = NULL;
        return out;
    }
    st->ext_pending.offered = offered;
    st->ext_pending.layout = layout;
    st->ext_pending.vi = vi;
    return 1;
}

/* The second half of prepare_ext2: reads the answer of st's adapter to
 * the configuration prepare_ext2_send sent and applies the correctness rule
 * to it (O in the shared buffer, its output file or its figures). Returns
 * 1 when it is ready to sample in the rounds, 0 when it was stored as
 * failed or errored, -1 on a database error. */
static int prepare_ext2_finish(sqlite3 *db, const ab_experiment *e, vstate *st,
                               const ab_shape *s, ab_gpu_bufs *bufs)
{
    char err[AB_ERR];
    const size_t vi = st->ext_pending.vi;
    const char *offered = st->ext_pending.offered;
    const ab_layout layout = st->ext_pending.layout;
    const double t0 = ab_now_s();
    ab_ext_result res;
    int rc = ab_ext2_config_answer(st->ext, &res);
    wt.adapter_s += ab_now_s() - t0; /* what is left of its warm-up and check */
    {
        /* GPU time where the configuration has device buffers, unless its
         * hello said it cannot use them (the numpy kit: host clock) */
        const ab_ext_hello *h = ab_ext2_hello(st->ext);
        st->gpu_timed = bufs != NULL && !(h->seen && !h->ipc);
    }

    st->ext_env = res.env_json;
    res.env_json = NULL;
    st->m.adapter_env = st->ext_env;
    st->m.peak_bytes = res.peak_bytes; /* 0: not reported */
    snprintf(err, sizeof err, "%s", res.error);
    free(res.stderr_text); /* the tail is read again when the measurement is stored */
    res.stderr_text = NULL;
    if (rc != 0) {
        free(res.output_path);
        int out = store(db, st, "error", err) ? -1 : 0;
        if (rc < 0)
            ext_procs[vi] = NULL; /* dead: killed; the next configuration starts another */
        if (rc < 0)
            ab_ext2_stop(st->ext);
        st->ext = NULL;
        return out;
    }
    /* the same rule as for protocol 1 (ext_check), or O in the shared buffer */
    char why[AB_ERR];
    int pass = res.device_check
                   ? ext_device_check(e, st, s, bufs, layout,
                                      check_seed_base + 7919UL * (vi + 1), why, sizeof why)
                   : ext_check(e, st, s, &res, offered, bufs, check_seed_base + 7919UL * (vi + 1),
                               why, sizeof why);
    char *opath_res = res.output_path; /* only the path was still held */
    res.output_path = NULL;
    free(opath_res);
    if (pass <= 0) {
        snprintf(st->message, sizeof st->message, "%.900s: not timed", why);
        return store(db, st, pass < 0 ? "error" : "failed", st->message) ? -1 : 0;
    }
    return 1;
}

/* Prepares st for protocol-2 external variant ev (index vi) on shape s:
 * starts its adapter at its first configuration, tells it the
 * configuration, applies the correctness rule to its check figures
 * (prepare_ext2_send, then prepare_ext2_finish). Returns 1 when it is ready
 * to sample in the rounds, 0 when it was stored as failed or errored, 2
 * when its hello's capabilities leave s out (printed, nothing stored), -1
 * on a database error. */
static int prepare_ext2(sqlite3 *db, const ab_experiment *e, vstate *st, size_t vi,
                        const ab_exp_variant *ev, const ab_shape *s, ab_id run_id,
                        ab_gpu_bufs *bufs)
{
    int rc = prepare_ext2_send(db, e, st, vi, ev, s, run_id, bufs);
    return rc == 1 ? prepare_ext2_finish(db, e, st, s, bufs) : rc;
}

/* Shapes ahead (adapters/PROTOCOL.md): an adapter whose hello said
 * ahead=1 is told the run's configurations it admits, at most
 * AB_EXT_AHEAD_MAX of them, at its start, so that it makes its first call
 * of each (PyTorch's plan for a new shape, FA4's compile) during its own
 * start-up, before its first configuration, instead of inside each
 * configuration's measurement. Only when it runs the run's first
 * configuration (and the run is not resumed): the first configuration's
 * rounds wait for its answer, which comes after those calls, so they never
 * share the GPU with a timed sample; an adapter whose first configuration
 * comes later would make them while others are timed, and gets none. */
#define AB_EXT_AHEAD_MAX 64
static void send_ahead(const ab_experiment *e, const ab_exp_variant *ev, ab_ext2 *p)
{
    const ab_ext_hello *h = ab_ext2_hello(p);
    char why[256], err[AB_ERR];
    int sent = 0;
    if (!h->ahead || resuming || e->nconfigs == 0 ||
        ab_ext_hello_admits(h, &e->configs[0], why, sizeof why))
        return;
    for (size_t c = 0; c < e->nconfigs && sent < AB_EXT_AHEAD_MAX; c++) {
        if (ab_ext_hello_admits(h, &e->configs[c], why, sizeof why))
            continue;
        ab_ext_request rq;
        ext2_request(e, ev, &e->configs[c], &rq);
        if (ab_ext2_ahead(p, &rq, err, sizeof err)) {
            fprintf(stderr, "  (%s)\n", err); /* its first configuration says more */
            return;
        }
        sent++;
    }
    if (sent)
        fprintf(stderr, "  %s: %d shape%s sent ahead\n", ev->name, sent, sent == 1 ? "" : "s");
}

/* Sets keep_s and keep_from for run e: the command line's or
 * ATTNBENCH_KEEP_ADAPTERS's seconds (e->keep_adapters_s >= 0) as given;
 * else, for an experiment with a protocol-2 adapter, AB_KEEP_ADAPTERS_DEFAULT_S,
 * unless the GPU's compute mode is exclusive-process or prohibited
 * (ab_gpu_compute_mode), where a kept adapter's CUDA context would keep
 * every other process off the GPU: then none, and stderr says why. */
static void keep_resolve(const ab_experiment *e)
{
    keep_s = e->keep_adapters_s > 0 ? e->keep_adapters_s : 0;
    keep_from = e->keep_adapters_s > 0 ? e->keep_adapters_from : NULL;
    if (e->keep_adapters_s >= 0)
        return;
    int ext2 = 0;
    for (size_t i = 0; i < e->nvariants; i++)
        ext2 |= !e->variants[i].native && e->variants[i].protocol == 2;
    if (!ext2)
        return;
    const int mode = ab_gpu_compute_mode();
    if (mode > 0) {
        fprintf(stderr,
                "  (adapters end with this run: the GPU's compute mode is %s, where a kept "
                "adapter's CUDA context would keep other processes off it; --keep-adapters S "
                "keeps them anyway)\n",
                mode == 3 ? "exclusive-process" : mode == 2 ? "prohibited" : "exclusive");
        return;
    }
    keep_s = AB_KEEP_ADAPTERS_DEFAULT_S;
    keep_from = "default";
}

/* Starts every protocol-2 adapter of e at once, before the run's timer
 * floor and ceilings and its first configuration: their start-up (an
 * interpreter, PyTorch's import, CUDA's initialisation: 3-5 s each on an
 * H200, reports/sampling-budget/; 4.7 s to PyTorch's import on an H100,
 * reports/cost-per-answer/ round 9) then overlaps those, the first
 * configuration's inputs and reference, and each other's instead of
 * adding to them; their shapes ahead follow the ceilings
 * (send_ahead_all). Device buffers are offered when the
 * run has a GPU (any_gpu, or one visible for external variants alone, as
 * run_config makes buffers then). One that does not start is left for its
 * first configuration to start again and store why. Counted as the
 * adapters' own time of the run. */
static void start_adapters(const ab_experiment *e, int any_gpu)
{
    const double t = ab_now_s();
    int gpu = any_gpu, asked = any_gpu;
    for (size_t i = 0; i < e->nvariants; i++) {
        const ab_exp_variant *ev = &e->variants[i];
        if (ev->native || ev->protocol != 2 || ext_procs[i])
            continue;
        char opath[600], err[AB_ERR];
        if (!asked) {
            ab_gpu_info gi;
            gpu = ab_gpu_query(&gi, err, sizeof err) == 0;
            asked = 1;
        }
        if (ab_ext2_start(ev->name, ev->command, NULL, ev->timeout_s,
                          ext_output_path(i, opath, sizeof opath), ev->ipc && gpu, e->threads,
                          keep_s, &ext_procs[i], err, sizeof err))
            ext_procs[i] = NULL;
    }
    wt.adapter_s += ab_now_s() - t;
}

/* The shapes ahead of every adapter start_adapters started (send_ahead),
 * once the run's timer floor and ceilings are measured: the calls they
 * make run kernels. Counted as the adapters' own time of the run. */
static void send_ahead_all(const ab_experiment *e)
{
    const double t = ab_now_s();
    for (size_t i = 0; i < e->nvariants; i++)
        if (ext_procs[i])
            send_ahead(e, &e->variants[i], ext_procs[i]);
    wt.adapter_s += ab_now_s() - t;
}

/* `stabilise = true` (stabilise.h): one batch of load, the first active GPU
 * variant launched back to back in hot mode for at least AB_STAB_BATCH_S */
typedef struct stab_load {
    vstate *x;
    ab_gpu_bufs *bufs;
} stab_load;

static int stab_batch(void *arg)
{
    stab_load *l = arg;
    double ms[16];
    char err[AB_ERR];
    const double t0 = ab_now_s();
    do {
        if (ab_gpu_time(l->x->v, l->x->ctx, l->bufs, AB_TIME_HOT, 1, 16, ms, err, sizeof err)) {
            fprintf(stderr, "  stabilise: %s\n", err);
            return -1;
        }
    } while (ab_now_s() - t0 < AB_STAB_BATCH_S);
    return 0;
}

/* Before a configuration's rounds: load the GPU with its first active GPU
 * variant until NVML's SM clock settles (or the cap), the time counted as
 * warm-up and printed. No GPU variant, no GPU or no NVML: nothing run (said
 * once). Returns 0, or -1 when the load failed (the run stops, as on any
 * CUDA error). */
static int stabilise_config(vstate *st, size_t nv, ab_gpu_bufs *bufs, const ab_gpu_info *gpu)
{
    vstate *x = NULL;
    for (size_t i = 0; i < nv && !x; i++)
        if (st[i].active && st[i].v && st[i].have_ctx && st[i].v->device == AB_DEV_CUDA)
            x = &st[i];
    if (!x || !gpu || !bufs)
        return 0;
    stab_load l = {x, bufs};
    ab_stab_result r;
    int rc = ab_stabilise(gpu->uuid, stab_batch, &l, AB_STAB_CAP_S, &r);
    wt.warmup_s += r.settle_s;
    if (rc == 2)
        fprintf(stderr, "  stabilise: no NVML in this build or on this GPU: nothing done\n");
    else if (rc == 0)
        fprintf(stderr, "  stabilise: SM clock settled at %u MHz after %.2f s under load (%zu readings; "
                        "the last %d within %u MHz)\n",
                r.sm_mhz, r.settle_s, r.readings, AB_STAB_WINDOW, AB_STAB_TOL_MHZ);
    else if (rc == 1)
        fprintf(stderr, "  stabilise: SM clock not settled within %.0f s (last %u MHz, %zu readings); "
                        "sampling anyway\n",
                AB_STAB_CAP_S, r.sm_mhz, r.readings);
    return rc < 0 ? -1 : 0;
}

/* After a variant's preparation for shape text sh returned p (prepare,
 * prepare_ext2: 1 ready, 0 stored, 2 skipped, -1 database error): prints
 * a stored outcome, marks it active when ready and counts it in *nactive.
 * Returns -1 when p was, else 0. */
static int settle(vstate *x, int p, const char *sh, size_t *nactive)
{
    if (p < 0)
        return -1;
    if (p == 0)
        print_outcome(x, sh);
    x->active = p == 1;
    *nactive += (size_t)x->active;
    return 0;
}

/* Configurations made ahead: their device inputs and float64 reference,
 * made while the run waits on an adapter's answer (run_config), so that
 * the wait does the later configurations' untimed work; ahead[c] is taken
 * by run_config(c), the rest freed at the end of the run (ahead_free). */
static ab_gpu_bufs **ahead;
static size_t ahead_n;

static void ahead_free(void)
{
    for (size_t c = 0; ahead && c < ahead_n; c++)
        ab_gpu_bufs_destroy(ahead[c]);
    free(ahead);
    ahead = NULL;
    ahead_n = 0;
}

/* The device bytes a configuration made ahead holds: inputs and rotation
 * sets (ab_gpu_bytes_needed) and the float64 reference of O, or of the
 * gradients counted as 3 float64 copies of Q for a backward pass. */
static size_t ahead_bytes(const ab_shape *s)
{
    return ab_gpu_bytes_needed(s) + (s->pass == AB_FWD ? 1 : 3) * ab_shape_numel(s) * 8;
}

/* Makes the first configuration from index `first` on that has none
 * ahead: its inputs on the device (as run_config would) and its reference
 * (reference_now), when what it holds with what is already ahead
 * (ahead_bytes) stays within a quarter of the device memory free beside
 * them. Returns 1 when it made one, 0 when there is nothing (more) to make
 * or no room. */
static int make_ahead(const ab_experiment *e, size_t first, const ab_gpu_info *gpu)
{
    if (!gpu || interrupted)
        return 0;
    if (!ahead) {
        ahead = calloc(e->nconfigs, sizeof *ahead);
        if (!ahead)
            return 0;
        ahead_n = e->nconfigs;
    }
    size_t c = first;
    while (c < e->nconfigs && ahead[c])
        c++;
    if (c >= e->nconfigs)
        return 0;
    const ab_shape *s = &e->configs[c];
    size_t held = 0;
    for (size_t j = 0; j < e->nconfigs; j++)
        if (ahead[j])
            held += ahead_bytes(&e->configs[j]);
    const size_t need = ahead_bytes(s);
    const size_t used = ab_gpu_mem_used();
    const size_t free_now = gpu->mem_total > used ? gpu->mem_total - used : 0;
    if (need + held > (free_now + held) / 4)
        return 0;
    char err[AB_ERR];
    ab_gpu_bufs *b = NULL;
    const double t0 = ab_now_s();
    if (ab_gpu_bufs_create_seeded(s, e->seed, &b, err, sizeof err) ||
        (s->pass != AB_FWD && ab_gpu_bwd_prepare(b, NULL, err, sizeof err))) {
        ab_gpu_bufs_destroy(b);
        wt.inputs_s += ab_now_s() - t0;
        return 0; /* run_config tries again and says why */
    }
    wt.inputs_s += ab_now_s() - t0;
    reference_now(b);
    ahead[c] = b;
    return 1;
}

static int run_config(sqlite3 *db, const ab_experiment *e, size_t ci, ab_id run_id,
                      const ab_gpu_info *gpu, gsl_rng *order_rng, double run_t0)
{
    const ab_shape *s = &e->configs[ci];
    const size_t numel = ab_shape_numel(s), kv_numel = ab_shape_kv_numel(s);
    char sh[160], err[AB_ERR];
    int rc = -1, any_gpu = 0;
    int any_cpu = 0;
    for (size_t i = 0; i < e->nvariants; i++) {
        any_gpu |= e->variants[i].native && e->variants[i].native->device == AB_DEV_CUDA;
        any_cpu |= e->variants[i].native && e->variants[i].native->device == AB_DEV_CPU;
    }
    /* Q, K, V on the host only for CPU variants (and plugins): GPU variants
     * get theirs generated on the device (data.h), and a host check of a
     * GPU output copies them back (ab_check_measurement) */
    float *q = NULL, *k = NULL, *v = NULL, *o = malloc(numel * sizeof *o);
    if (any_cpu) {
        q = malloc(numel * sizeof *q);
        k = malloc(kv_numel * sizeof *k);
        v = malloc(kv_numel * sizeof *v);
    }
    vstate *st = calloc(e->nvariants, sizeof *st);
    size_t *order = calloc(e->nvariants, sizeof *order);
    ab_gpu_bufs *bufs = NULL;

    shape_str(s, sh, sizeof sh);
    fprintf(stderr, "[%zu/%zu] %s\n", ci + 1, e->nconfigs, sh);
    if ((any_cpu && (!q || !k || !v)) || !o || !st || !order) {
        error("%s: out of host memory for %zu-element tensors", sh, numel);
        goto cleanup;
    }
    double t_inputs = ab_now_s();
    if (any_cpu && ab_inputs_fill(s, e->seed, q, k, v)) {
        error("the input generator (cuRAND's host Philox) could not be made");
        goto cleanup;
    }
    if (s->pass != AB_FWD && bwd_make(s, e->seed, q, k, v, any_cpu)) {
        error("%s: out of host memory for the backward pass's data", sh);
        goto cleanup;
    }
    if (ahead && ci < ahead_n && ahead[ci]) { /* made while the run waited (make_ahead) */
        bufs = ahead[ci];
        ahead[ci] = NULL;
    } else if (any_gpu && (ab_gpu_bufs_create_seeded(s, e->seed, &bufs, err, sizeof err) ||
                    (s->pass != AB_FWD && ab_gpu_bwd_prepare(bufs, NULL, err, sizeof err)))) {
        fprintf(stderr, "  %s\n", err); /* each GPU variant is stored as an error below */
        ab_gpu_bufs_destroy(bufs);
        bufs = NULL;
    }
    if (!any_gpu && !bufs) { /* external variants alone: their outputs are checked on a GPU if there is one */
        int any_ext = 0;
        ab_gpu_info gi;
        for (size_t i = 0; i < e->nvariants; i++)
            any_ext |= !e->variants[i].native;
        if (any_ext && ab_gpu_query(&gi, err, sizeof err) == 0 &&
            (ab_gpu_bufs_create_seeded(s, e->seed, &bufs, err, sizeof err) ||
             (s->pass != AB_FWD && ab_gpu_bwd_prepare(bufs, NULL, err, sizeof err)))) {
            ab_gpu_bufs_destroy(bufs);
            bufs = NULL; /* no room: checked on the host */
        }
    }
    wt.inputs_s += ab_now_s() - t_inputs;

    /* The first protocol-2 adapter prepares the configuration (its
     * mappings, checked call and warm-up; PyTorch builds its plans for a new
     * shape there) while attnbench makes the float64 reference on the
     * device: both untimed, and nothing else writes the O the adapter
     * writes until its answer is read and checked. One adapter only: the
     * adapters of a configuration share set 0's O. */
    size_t nactive = 0, early = e->nvariants;
    for (size_t i = 0; bufs && !interrupted && i < e->nvariants; i++) {
        const ab_exp_variant *ev = &e->variants[i];
        if (ev->native || ev->protocol != 2)
            continue;
        int have = resuming ? ab_db_has_measurement(db, run_id, ev->name, s, err) : 0;
        if (have < 0) {
            error("%s", err);
            goto cleanup;
        }
        if (have)
            break;
        early = i;
        const ab_walltime b0 = wt;
        const double c0 = ab_now_s();
        int p = prepare_ext2_send(db, e, &st[i], i, ev, s, run_id, bufs);
        if (p == 1) {
            reference_now(bufs); /* the configuration's, left out of the adapter's cost */
            /* while it has not answered, the later configurations' inputs
             * and references (the run's, not the adapter's cost) */
            charge(&st[i], &b0, c0);
            while (!ab_ext2_answer_ready(st[i].ext) && make_ahead(e, ci + 1, gpu) == 1)
                ;
            const ab_walltime b1 = wt;
            const double c1 = ab_now_s();
            p = prepare_ext2_finish(db, e, &st[i], s, bufs);
            charge(&st[i], &b1, c1);
        } else
            charge(&st[i], &b0, c0);
        if (settle(&st[i], p, sh, &nactive))
            goto cleanup;
        break;
    }

    /* setup, warm-up, check */
    for (size_t i = 0; i < e->nvariants; i++) {
        const ab_exp_variant *ev = &e->variants[i];
        if (interrupted) { /* a signal during the checks: stop before the next one */
            rc = 0;
            goto cleanup;
        }
        if (i == early)
            continue; /* prepared above */
        if (!ev->native && ev->protocol == 2) {
            int have = resuming ? ab_db_has_measurement(db, run_id, ev->name, s, err) : 0;
            if (have < 0) {
                error("%s", err);
                goto cleanup;
            }
            if (have)
                continue;
            const ab_walltime b0 = wt;
            const double c0 = ab_now_s();
            const int had_ref = have_reference(bufs);
            int p = prepare_ext2(db, e, &st[i], i, ev, s, run_id, bufs);
            note_reference(bufs, had_ref, b0.check_s);
            charge(&st[i], &b0, c0);
            if (settle(&st[i], p, sh, &nactive))
                goto cleanup;
            continue;
        }
        if (!ev->native)
            continue;
        vstate *x = &st[i];
        char why[256];
        int have = resuming ? ab_db_has_measurement(db, run_id, ev->name, s, err) : 0;
        if (have < 0) {
            error("%s", err);
            goto cleanup;
        }
        if (have) {
            fprintf(stderr, "  %-20s already measured (resumed run)\n", ev->name);
            continue;
        }
        if (!ev->native->unavailable && ab_variant_supports(ev->native, s, why, sizeof why)) {
            fprintf(stderr, "  %-20s skipped: %s\n", ev->name, why); /* skip_unsupported */
            continue;
        }
        const ab_walltime b0 = wt;
        const double c0 = ab_now_s();
        const int had_ref = have_reference(bufs);
        x->ev = ev;
        x->v = ev->native;
        x->gpu_timed = x->v->device == AB_DEV_CUDA;
        x->m.run_id = run_id;
        x->m.variant = ev->name;
        x->m.backend = x->v->backend;
        x->m.shape = *s;
        x->m.warmup = e->warmup;
        x->m.timing_mode = x->v->device == AB_DEV_CUDA ? ab_timing_mode_name(ev->timing) : "host";
        x->m.graph_k = x->v->device == AB_DEV_CUDA && ev->timing == AB_TIME_GRAPH ? e->graph_k : 1;
        x->m.flops = x->v->flops(s);
        x->m.bytes = ab_attention_bytes(s);
        x->m.adapter_env = ev->plugin_record; /* plugin: library path, size, SHA-256 */
        const double t_pw = ab_now_s();
        const int no_start =
            ev->native->unavailable ||
            (ev->plugin && ev->plugin->device == AB_DEV_CPU && plugin_workers() &&
             ab_pw_start(ev->plugin, ev->library, s, q, k, v, ev->timeout_s, &x->pw, err,
                         sizeof err));
        wt.setup_s += ab_now_s() - t_pw; /* a CPU plugin's worker starting */
        if (no_start) {
            /* a plugin that did not load, or whose worker could not start */
            int bad = store(db, x, "error", ev->native->unavailable ? ev->native->unavailable : err);
            charge(x, &b0, c0);
            if (bad)
                goto cleanup;
            print_outcome(x, sh);
            continue;
        }
        int p = prepare(db, e, x, s, x->v->device == AB_DEV_CUDA ? bufs : NULL, q, k, v, o,
                        check_seed_base + 1000003UL * (ci + 1));
        note_reference(bufs, had_ref, b0.check_s);
        charge(x, &b0, c0);
        if (settle(x, p, sh, &nactive))
            goto cleanup;
    }

    if (e->stabilise && stabilise_config(st, e->nvariants, bufs, gpu) < 0)
        goto cleanup;

    /* interleaved rounds */
    for (int round = 0; nactive > 0; round++) {
        size_t n = 0;
        for (size_t i = 0; i < e->nvariants; i++)
            if (st[i].active)
                order[n++] = i;
        gsl_ran_shuffle(order_rng, order, n, sizeof *order);
        for (size_t j = 0; j < n; j++) {
            vstate *x = &st[order[j]];
            if (interrupted) {
                rc = 0; /* not an error: the caller marks the run interrupted */
                goto cleanup;
            }
            const ab_walltime b0 = wt;
            const double c0 = ab_now_s();
            int bad = 0;
            if (take_block(e, x, round, x->v->device == AB_DEV_CUDA ? bufs : NULL,
                           x->v->device == AB_DEV_CUDA ? gpu : NULL, q, k, v, o, run_t0)) {
                x->active = 0;
                nactive--;
                bad = store(db, x, "error", x->message);
                if (x->ext) { /* take failed: the adapter was killed */
                    for (size_t w = 0; w < e->nvariants; w++)
                        if (ext_procs[w] == x->ext)
                            ext_procs[w] = NULL;
                    if (!bad) {
                        ab_ext2_stop(x->ext);
                        x->ext = NULL;
                    }
                }
                if (!bad)
                    print_outcome(x, sh);
            } else if (should_stop(e, x)) {
                x->active = 0;
                nactive--;
                bad = store(db, x, "ok", NULL);
                if (!bad)
                    print_outcome(x, sh);
            }
            charge(x, &b0, c0);
            if (bad)
                goto cleanup;
        }
    }

    for (size_t i = 0; i < e->nvariants; i++) {
        if (e->variants[i].native || e->variants[i].protocol == 2 || interrupted)
            continue;
        int have = resuming ? ab_db_has_measurement(db, run_id, e->variants[i].name, s, err) : 0;
        if (have < 0) {
            error("%s", err);
            goto cleanup;
        }
        if (have)
            continue;
        if (run_external(db, e, &e->variants[i], s, run_id, run_t0, bufs))
            goto cleanup;
    }
    rc = 0;
cleanup:
    for (size_t i = 0; st && i < e->nvariants; i++) {
        const ab_walltime b0 = wt;
        const double c0 = ab_now_s();
        if (st[i].pw) {
            double t_td = ab_now_s();
            ab_pw_stop(st[i].pw);
            wt.setup_s += ab_now_s() - t_td;
        } else if (st[i].have_ctx && st[i].v->teardown) {
            double t_td = ab_now_s();
            watch_plugin(st[i].ev, 1, "teardown");
            st[i].v->teardown(st[i].ctx);
            ab_watch_disarm();
            wt.setup_s += ab_now_s() - t_td;
        }
        charge(&st[i], &b0, c0);
        fold(&st[i], i, sh);
        free(st[i].samples);
        free(st[i].blocks);
        free(st[i].ext_env);
        free(st[i].ext_stderr);
    }
    {
        double t_free = ab_now_s();
        ab_gpu_bufs_destroy(bufs);
        wt.inputs_s += ab_now_s() - t_free;
    }
    free(st);
    free(order);
    free(q);
    free(k);
    free(v);
    free(o);
    bwd_free();
    return rc;
}

/* Host threads for plans built ahead: ATTNBENCH_PREPARE_THREADS (0: none,
 * setups build their own as before), else the online CPUs, at most 16. */
static int prepare_threads(void)
{
    const char *env = getenv("ATTNBENCH_PREPARE_THREADS");
    if (env && *env) {
        char *end;
        long k = strtol(env, &end, 10);
        if (*end == '\0' && k >= 0 && k <= 64)
            return (int)k;
        fprintf(stderr, "  (ATTNBENCH_PREPARE_THREADS=%s is not 0..64: the default is used)\n",
                env);
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    return ncpu < 1 ? 1 : ncpu > 16 ? 16 : (int)ncpu;
}

/* Plans built ahead (variant.h ab_prepare_fn): each registry row with a
 * prepare among the run's native variants gets every configuration it
 * supports in one call, before the first configuration is measured
 * (nothing is timed yet; adapters are starting beside it). Instances of a
 * row share the call. Each row's seconds go to prepare_carry (the caller,
 * prepare_beside_references, charges what the run waited for them). */
static void prepare_ahead(const ab_experiment *e)
{
    const int threads = prepare_threads();
    free(prepare_carry);
    prepare_carry = calloc(e->nvariants, sizeof *prepare_carry);
    ab_shape *shapes = malloc((e->nconfigs ? e->nconfigs : 1) * sizeof *shapes);
    for (size_t i = 0; threads > 0 && prepare_carry && shapes && i < e->nvariants; i++) {
        const ab_variant *v = e->variants[i].native;
        ab_prepare_fn prep = v && !e->variants[i].plugin ? ab_variant_prepare(v) : NULL;
        int done_before = 0;
        for (size_t j = 0; j < i && !done_before; j++)
            done_before = e->variants[j].native == v;
        if (!prep || done_before)
            continue;
        size_t n = 0;
        char why[256];
        for (size_t c = 0; c < e->nconfigs; c++)
            if (!ab_variant_supports(v, &e->configs[c], why, sizeof why))
                shapes[n++] = e->configs[c];
        if (n == 0)
            continue;
        const double t0 = ab_now_s();
        const int got = prep(shapes, n, threads);
        const double dt = ab_now_s() - t0;
        prepare_carry[i] = dt;
        fprintf(stderr, "  %s: plans of %d of %zu configurations built ahead on up to %d "
                "threads in %.2f s\n", v->name, got, n, threads, dt);
    }
    free(shapes);
}

static atomic_int prepare_done;

static void *prepare_thread(void *arg)
{
    prepare_ahead(arg);
    atomic_store(&prepare_done, 1);
    return NULL;
}

/* prepare_ahead on a thread of its own while this one makes the first
 * configurations' device inputs and float64 references (make_ahead): a
 * library's plans are built on the CPU (cuDNN's heuristics and kernel
 * build: no timing, so nothing the GPU does can change which plan it
 * picks), and the GPU would otherwise idle meanwhile. Nothing is timed.
 * The inputs and references are charged as the run's (inputs, checks);
 * what the run then waited for the plans goes to its setup phase and, in
 * proportion to each row's building time, to the rows' first
 * measurements (prepare_carry). */
static void prepare_beside_references(const ab_experiment *e, const ab_gpu_info *gpu)
{
    pthread_t th;
    atomic_store(&prepare_done, 0);
    const double t0 = ab_now_s();
    if (pthread_create(&th, NULL, prepare_thread, (void *)e) != 0) {
        prepare_ahead(e); /* no thread: one after the other */
        wt.setup_s += ab_now_s() - t0;
        return;
    }
    while (!atomic_load(&prepare_done) && make_ahead(e, 0, gpu) == 1)
        ;
    const double t1 = ab_now_s();
    pthread_join(th, NULL);
    const double waited = ab_now_s() - t1;
    wt.setup_s += waited;
    double built = 0;
    for (size_t i = 0; prepare_carry && i < e->nvariants; i++)
        built += prepare_carry[i];
    for (size_t i = 0; prepare_carry && built > 0 && i < e->nvariants; i++)
        prepare_carry[i] *= waited / built;
    if (built > 0)
        fprintf(stderr, "  (plans built beside the first configurations' references: %.2f s "
                "of them waited for, charged to the variants' first measurements)\n", waited);
}

int ab_run_experiment(const ab_experiment *e, sqlite3 *db, const char *command,
                      ab_id *run_id)
{
    char err[AB_ERR], *fp_text = NULL, hash[17];
    int any_gpu = 0, rc = -1;
    ab_gpu_info gpu;
    ab_id env_id, exp_id;
    json_t *fp = NULL, *settings = NULL;
    gsl_rng *order_rng = NULL;

    resuming = *run_id != 0;
    for (size_t i = 0; i < e->nvariants; i++)
        if (e->variants[i].native && e->variants[i].native->device == AB_DEV_CUDA)
            any_gpu = 1;
    /* refuse what cannot run, before anything is stored */
    if (any_gpu) {
        if (ab_gpu_query(&gpu, err, sizeof err))
            return error("%s: needs a CUDA device for its CUDA variants: %s", e->path, err);
        for (size_t c = 0; c < e->nconfigs; c++) {
            size_t need = ab_gpu_bytes_needed(&e->configs[c]);
            if (need > gpu.mem_total) {
                char sh[128];
                return error("%s: configuration %s does not fit in GPU memory: Q, K, V, O "
                             "need %.2f GiB, the GPU has %.2f GiB",
                             e->path, shape_str(&e->configs[c], sh, sizeof sh),
                             need / 1073741824.0, gpu.mem_total / 1073741824.0);
            }
        }
    }

    /* from here until the run's status is stored, a stop signal marks it
     * interrupted instead of ending the process with the run 'running' */
    stop_handlers_install();

    /* the machine (same hash as `attnbench env`); this run's settings apart */
    fp = ab_env_fingerprint(1);
    settings = ab_runenv_apply(e, any_gpu ? ab_timing_mode_name(e->timing) : "host");
    if (settings) /* which generator made the inputs (data.h) */
        json_object_set_new(settings, "inputs", json_string(AB_INPUTS_GENERATOR));
    keep_resolve(e);
    if (settings && keep_s > 0) { /* adapters kept for later runs (ext_keep.h) */
        json_object_set_new(settings, "keep_adapters_s", json_real(keep_s));
        json_object_set_new(settings, "keep_adapters_from",
                            json_string(keep_from ? keep_from : "command line"));
    }
    if (!fp || !settings || ab_env_canonical(fp, &fp_text, hash)) {
        error("out of memory building the environment fingerprint");
        goto cleanup;
    }
    if (resuming ? ab_db_resume_run(db, *run_id, err)
                 : (ab_db_put_environment(db, hash, fp_text, &env_id, err) ||
                    ab_db_put_experiment(db, e->name, e->path, e->text, e->hash, &exp_id, err) ||
                    ab_db_begin_run(db, exp_id, env_id, command, ab_timing_mode_name(e->timing),
                                    run_id, err) ||
                    ab_runenv_store(db, *run_id, settings, err) ||
                    ab_shard_record(db, *run_id, e, err))) { /* shard.h */
        error("%s", err);
        goto cleanup;
    }
    {
        static int registered;
        if (!registered)
            registered = atexit(exit_guard) == 0;
        guard_db = db;
        guard_run = *run_id;
        int watch = 0;
        for (size_t i = 0; i < e->nvariants; i++)
            watch |= in_process_plugin(&e->variants[i]);
        if (watch)
            ab_watch_start(db, *run_id); /* an error says so; the run goes on */
    }
    fprintf(stderr, "run %lld: %s, %zu configurations x %zu variants%s\n", (long long)*run_id,
            e->name, e->nconfigs, e->nvariants, resuming ? " (resumed: what is missing)" : "");
    fprintf(stderr, "run %lld: %d instance%s per variant (%s)%s\n", (long long)*run_id,
            e->instances, e->instances == 1 ? "" : "s",
            e->instances_set ? "the experiment's `instances`" : "the default",
            e->instances_split ? ", each with its share of a measurement's budget" : "");
    if (!resuming)
        warn_rounds(e);
    ab_runenv_warn(fp, settings);
    memset(&wt, 0, sizeof wt);
    free(wt_var);
    wt_var = NULL;
    wt_nvar = 0;
    const double run_start = ab_now_s();
    ext_procs = calloc(e->nvariants, sizeof *ext_procs);
    order_rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!order_rng || !ext_procs) {
        error("out of memory");
        goto finish;
    }
    /* the adapters' start-up (an interpreter, PyTorch's import: seconds on
     * the CPU) overlaps the timer floor and the ceilings too; their shapes
     * ahead, which run kernels, are sent once those are measured */
    start_adapters(e, any_gpu);
    if (any_gpu) {
        const double t_ceil = ab_now_s();
        ab_db_set_clocks_monitored(db, *run_id, ab_nvml_available(), err);
        measure_timer_floor(db, *run_id, e);
        double gemm = 0, copy = 0;
        if (ab_gpu_measure_peaks(&gemm, &copy, err, sizeof err) == 0)
            ab_db_set_peaks(db, *run_id, gemm, copy, err);
        else
            fprintf(stderr, "  (ceilings not measured: %s)\n", err);
        wt.ceilings_s = ab_now_s() - t_ceil;
    }
    send_ahead_all(e);

    gsl_rng_set(order_rng, e->seed ^ 0x5eedUL);
    check_seed_base = ab_check_fresh_seed();
    if (any_gpu)
        prepare_beside_references(e, &gpu);

    const double t0 = ab_now_s();
    rc = 0;
    for (size_t c = 0; c < e->nconfigs && !interrupted; c++)
        if (run_config(db, e, c, *run_id, any_gpu ? &gpu : NULL, order_rng, t0)) {
            rc = -1;
            break;
        }
    if (interrupted && rc == 0)
        rc = 1;
finish:
    if (interrupted && rc == 0)
        rc = 1; /* a signal before the configurations began */
    wt.total_s = ab_now_s() - run_start;
    int wt_stored = 0;
    {
        /* a resumed run adds to what its first part spent */
        ab_walltime before;
        if (ab_walltime_load(db, *run_id, &before) == 0) {
            wt.total_s += before.total_s;
            wt.timed_s += before.timed_s;
            wt.sampling_s += before.sampling_s;
            wt.warmup_s += before.warmup_s;
            wt.check_s += before.check_s;
            wt.setup_s += before.setup_s;
            wt.inputs_s += before.inputs_s;
            wt.ceilings_s += before.ceilings_s;
            wt.adapter_s += before.adapter_s;
            wt.store_s += before.store_s;
        }
        if (ab_walltime_store(db, *run_id, &wt, err))
            error("%s", err);
        else
            wt_stored = 1;
        /* per variant, a resumed run's first part added in too */
        ab_walltime_variant *old = NULL;
        size_t nold = 0;
        if (resuming && ab_walltime_variants_load(db, *run_id, &old, &nold) == 0)
            for (size_t i = 0; i < nold; i++)
                if (ab_walltime_variant_merge(&wt_var, &wt_nvar, &old[i]))
                    break;
        free(old);
        if (wt_nvar && ab_walltime_variants_store(db, *run_id, wt_var, wt_nvar, err))
            error("%s", err);
        free(wt_var);
        wt_var = NULL;
        wt_nvar = 0;
    }
    if (ab_runenv_finish(db, *run_id, err))
        error("%s", err);
    /* a run in which nothing was measured ok is not a success */
    long n_all = 0, n_ok = 0;
    if (rc == 0 && ab_db_count_measurements(db, *run_id, &n_all, &n_ok, err) == 0 && n_ok == 0) {
        error("run %lld: no measurement succeeded (%ld failed or errored)", (long long)*run_id,
              n_all);
        rc = -1;
    }
    guard_db = NULL; /* the run's status is stored below: exit is safe again */
    if (ab_db_end_run(db, *run_id, rc == 0 ? "complete" : rc == 1 ? "interrupted" : "failed", err)) {
        /* the run stays 'running' (abandoned once this process exits): not
         * a success either way */
        error("%s; the run stays unfinished ('attnbench resume %lld' completes it)", err,
              (long long)*run_id);
        rc = rc == 1 ? 1 : -1;
    }
    stop_handlers_restore();
    /* printed only now: with the stop signals back at their defaults, a
     * closed stderr (SIGPIPE) must not end the process before its status */
    if (wt_stored)
        fprintf(stderr, "run %lld: %.1f s, %.1f%% of it timed samples\n", (long long)*run_id,
                wt.total_s, wt.total_s > 0 ? 100 * wt.timed_s / wt.total_s : 0.0);
    if (rc == 1)
        error("run %lld interrupted by signal %d: finished measurements are stored; "
              "'attnbench resume %lld' measures the rest",
              (long long)*run_id, (int)interrupted, (long long)*run_id);
    else if (rc < 0)
        error("run %lld failed: finished measurements are stored; 'attnbench resume %lld' "
              "measures what it lacks once the cause is fixed",
              (long long)*run_id, (long long)*run_id);
cleanup:
    ab_watch_stop();
    guard_db = NULL;
    stop_handlers_restore();
    for (size_t i = 0; ext_procs && i < e->nvariants; i++)
        ab_ext2_stop(ext_procs[i]);
    if (ext_out_dir[0]) { /* each output was removed once checked; a leftover too */
        char f[600];
        for (size_t i = 0; i < e->nvariants; i++) {
            unlink(ext_output_path(i, f, sizeof f));
            unlink(ext_ipc_path(i, f, sizeof f));
        }
        rmdir(ext_out_dir);
        ext_out_dir[0] = '\0';
    }
    free(ext_procs);
    ext_procs = NULL;
    free(prepare_carry);
    prepare_carry = NULL;
    ahead_free();
    gsl_rng_free(order_rng);
    free(fp_text);
    json_decref(fp);
    json_decref(settings);
    return rc;
}
