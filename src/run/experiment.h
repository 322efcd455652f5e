/*
 * experiment.h: experiment files (libconfig syntax, in experiments/): which
 * variants run on which configurations, how they are sampled and how they
 * are compared. docs/experiments.md documents the format;
 * the files in experiments/ are examples.
 */
#ifndef ATTNBENCH_EXPERIMENT_H
#define ATTNBENCH_EXPERIMENT_H

#include <stddef.h>

#include "gpu_ipc.h"
#include "timing_mode.h"
#include "variant.h"

/* Longest experiment name a new experiment may have, in bytes: the name
 * names its report file (reports/<name>-run<N>.json) and a file name holds
 * at most 255 bytes. */
#define AB_EXP_NAME_MAX 200

typedef struct ab_exp_variant {
    char *name;
    const ab_variant *native; /* NULL for an external variant */
    char *command;            /* external: shell command line */
    double timeout_s;         /* external: per configuration (protocol 1), per request (2);
                                 CPU plugin: per call (plugin_worker.h), default 60 s */
    int protocol;             /* external: adapters/PROTOCOL.md version, 1 (one process per
                                 configuration) or 2 (one persistent process, samples on
                                 request, inside the rounds) */
    ab_timing_mode timing;    /* this variant's timing mode (the experiment's unless
                                 the entry sets its own) */
    int ipc;                  /* external, protocol 2: offer attnbench's device buffers
                                 (`ipc`, default true; src/run/ext_ipc.h) */
    ab_layout layout;         /* external, protocol 2: the layout its inputs are shared in
                                 (`layout`), when layout_set and its hello names none */
    int layout_set;
    char *library;            /* plugin: the `library` field, or NULL */
    char *plugin_record;      /* plugin: JSON {"plugin": {library, size, sha256}} */
    ab_variant *plugin;       /* plugin: the adapted row `native` points to (owned) */
} ab_exp_variant;

typedef struct ab_experiment {
    char *path;        /* as given */
    char *text;        /* the file's text, @include directives expanded (exp_include.h):
                          what a run stores */
    char hash[17];     /* FNV-1a 64 of text's canonical form: comments and
                          whitespace aside (exp_canon.h) */
    char *name, *hypothesis, *baseline;
    ab_exp_variant *variants;
    size_t nvariants;
    ab_shape *configs; /* cross products of the sweep (and of each configs group) */
    size_t nconfigs;
    int warmup;        /* launches before sampling, per variant and configuration */
    double warmup_time_s; /* the warm-up stops once its launches add up to this much
                             GPU time (host time for CPU variants), after at least
                             one; 0: `warmup` launches whatever they take (runner.c
                             warm_up) */
    int samples;       /* fixed mode: samples per measurement; adaptive: ignored */
    unsigned long seed;
    ab_timing_mode timing;
    int graph_k;       /* launches per graph replay */
    int round_size;    /* samples per variant per interleaving round */
    int instances;     /* instances per variant (`instances`; when not set, ab_exp_default_instances):
                          with k > 1 every
                          listed variant V became k variants V#1..V#k (separate setups:
                          fresh allocations, graphs, adapter processes), interleaved in
                          the rounds like any variants; baseline names the variant (V),
                          and the report compares variants over their instances
                          (src/analysis/instances.h) */
    int instances_set; /* the text sets `instances` */
    int instances_split; /* instances came from the default (k > 1): the measurement's
                            budget (samples, max_samples, min_time, max_time, the
                            stopping group) was split among the k instances
                            (split_budget in experiment.c) */
    int file_samples;  /* `samples` as the text gives it, before any split */
    int threads;       /* OpenMP threads of the CPU variants (`threads`, default 1;
                          0: OpenMP's default, every CPU the process may use) */
    int threads_set;   /* the file sets `threads` */
    /* adaptive stopping (on when adaptive != 0) */
    int adaptive;
    double target_rel_ci; /* stop when the CI half-width / median <= this */
    int min_samples, max_samples;
    double budget_s;      /* per variant and configuration */
    /* GPU-time budget of a GPU variant's measurement (nvbench's min_time;
     * docs/measurement.md "Sampling in GPU time"): sampling goes on until its samples
     * add up to min_time_s seconds of GPU time as well as reaching
     * `samples` (fixed) or converging (adaptive), each block sized so that
     * the budget is spread over the rounds; max_time_s (0: none) stops a
     * measurement whose samples reached it; max_samples caps the count in
     * both modes. CPU variants keep the count alone. */
    double min_time_s, max_time_s;
    const char *sampling_from; /* where min_time/max_time came from: "default",
                                  "experiment" or "command line" (static) */
    /* `run --keep-adapters SECONDS` or ATTNBENCH_KEEP_ADAPTERS (src/run/ext_keep.h):
     * protocol-2 adapters may stay for the next run, idle at most this
     * long; 0: each ends with the run; < 0: not said, the run decides
     * (runner.c keep_resolve: AB_KEEP_ADAPTERS_DEFAULT_S unless the GPU is
     * exclusive). Load leaves 0 (resume, calibrate keep none); `run` sets
     * it. Not part of the experiment's text. */
    double keep_adapters_s;
    const char *keep_adapters_from; /* "command line" or "ATTNBENCH_KEEP_ADAPTERS"
                                       when set there (static), else NULL */
    /* comparison */
    double alpha, practical;
    int resolve;          /* variants were resolved against the registry */
    int skip_unsupported; /* leave out (variant, configuration) pairs the variant
                             cannot run instead of refusing the experiment */
    int shard_k, shard_n; /* configs holds part shard_k of shard_n (src/shard.h);
                             0, 0: the whole experiment */
    const char *worker;   /* --devices worker label stored with the run, or NULL (not owned) */
    int stabilise;        /* run until the SM clock settles before each
                             configuration's rounds (src/run/stabilise.h) */
} ab_experiment;

/* Loads and checks an experiment file, its @include files expanded into
 * e->text. On error returns -1 with one line in
 * err naming the file, the line and the field ("experiments/x.cfg:12: S must
 * be a list of positive integers"; after an @include the line is that of
 * the expanded text). Variants are resolved against the
 * registry; unknown names are refused here. */
int ab_experiment_load(const char *path, ab_experiment *e, char *err, size_t n);

/* Parses experiment text (the file's bytes, e.g. as stored in the database)
 * as if read from `path`. resolve = 1 (a new run): variants resolved against
 * the registry and unknown keys refused (exp_schema.h); resolve = 2 (resuming
 * a stored run): variants resolved, keys read as they were accepted when the
 * run started; resolve = 0 accepts variant names the registry no longer has
 * (for reports of old runs; their `native` is then NULL). */
int ab_experiment_parse(const char *path, const char *text, int resolve, ab_experiment *e,
                        char *err, size_t n);

/* ab_experiment_parse with what a text without `instances` means:
 * missing_k = 0 decides as a new run does (ab_exp_default_instances, the
 * budget split when it gives k > 1); missing_k >= 1 gives missing_k
 * instances, split as the default splits them when missing_k > 1 (a stored
 * run that got the default: ab_exp_stored_instances). ab_experiment_parse
 * is this with missing_k = 0 for resolve = 1 and 1 otherwise (runs stored
 * before the default keep the one instance they ran with). */
int ab_experiment_parse_k(const char *path, const char *text, int resolve, int missing_k,
                          ab_experiment *e, char *err, size_t n);

/* Instances per variant when an experiment does not set `instances`:
 * AB_INSTANCES_DEFAULT when every variant is a built-in GPU variant (a CUDA
 * kernel or a cuBLAS/cuDNN baseline: native, device AB_DEV_CUDA), else 1
 * (CPU variants, external adapters and plugins: the instances study
 * measured GPU variants only, and a plugin cannot be copied). Chosen by A/A
 * and power runs on an H200 (reports/instances-default/README.md). */
#define AB_INSTANCES_DEFAULT 4
int ab_exp_default_instances(const ab_experiment *e);

/* What a stored run's text without `instances` meant, from its stored run
 * settings (JSON text, runs.run_settings; NULL for runs before them): the
 * recorded "instances" when "instances_from" is "default", else 1 (runs
 * stored before the default ran one instance). For ab_experiment_parse_k. */
int ab_exp_stored_instances(const char *settings_json);

/* Refuses (variant, configuration) pairs the variant cannot run (dtype, D,
 * not built), before anything runs. Returns 0 or -1 with the first refusal
 * in err. */
int ab_experiment_validate(const ab_experiment *e, char *err, size_t n);

void ab_experiment_free(ab_experiment *e);

/* The default GPU-time budget per measurement, seconds (min_time), chosen
 * by measurement (reports/sampling-budget/README.md), and the default cap
 * on a fixed-mode measurement's samples that the budget may grow to. */
#define AB_MIN_TIME_DEFAULT_S 0.02
#define AB_FIXED_MAX_SAMPLES 5000
/* The default bound on a warm-up's time (warmup_time), seconds: of the
 * default 10 launches, a kernel of 5 ms or more makes fewer (a 15 ms
 * backward 4 instead of 10: reports/cost-per-answer/README.md); shorter
 * kernels make all 10. */
#define AB_WARMUP_TIME_DEFAULT_S 0.05

/* Sets e's GPU-time budget from the command line (`--min-time S`,
 * `--max-time S`; NULL: leave it; per measurement, split among the
 * instances as the file's budget is when they came from the default,
 * experiment.h instances_split): each a number of seconds in [0, 3600]
 * (max_time 0: no cap), max_time >= min_time unless 0. Returns 0, or -1
 * with "--min-time: ..." naming the option in err. */
int ab_experiment_set_budget(ab_experiment *e, const char *min_time, const char *max_time,
                             char *err, size_t n);

/* 1 when name is an instance "variant#k" (k decimal digits) of variant,
 * else 0 (`instances`, experiment.h). */
int ab_exp_instance_of(const char *name, const char *variant);

#endif
