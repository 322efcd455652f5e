/*
 * external.h: external variants, i.e. variants that are programs. An
 * experiment names a shell command (e.g. `python3 adapters/torch_sdpa.py
 * --backend flash`); attnbench runs it once per configuration, passes the
 * configuration in ATTNBENCH_* environment variables, and reads the latency
 * samples, the correctness figures and the adapter's environment back from
 * its stdout in the line format of adapters/PROTOCOL.md (protocol 1). This
 * module runs the program (its own process group, stdin /dev/null, a
 * per-configuration timeout after which the whole group is killed), parses
 * and validates what it printed, and keeps the tail of its stderr whatever
 * happens. The correctness verdict is the caller's (kernels/check.h's rule
 * applied to the reported figures); this module only checks that the
 * figures are well-formed.
 */
#ifndef ATTNBENCH_EXTERNAL_H
#define ATTNBENCH_EXTERNAL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Protocol version passed as ATTNBENCH_PROTOCOL. */
#define AB_EXT_PROTOCOL 1
/* At most this many bytes of the adapter's stderr are kept (the last ones). */
#define AB_EXT_STDERR_KEEP 8192
/* An adapter printing more than this on stdout is failed (runaway output). */
#define AB_EXT_STDOUT_MAX (64u << 20)

typedef struct ab_ext_request {
    const char *name;         /* variant name for messages ("torch_sdpa_flash"); NULL: the command */
    const char *command;      /* shell command line from the experiment file, run by /bin/sh -c */
    int B, H, S, D, causal;
    const char *dtype;        /* "fp16" | "bf16" | "fp32" */
    int warmup, samples;      /* samples >= 1: exactly this many sample lines are required */
    unsigned long seed;
    const char *timing_mode;  /* "cold" | "hot" | "graph" */
    int graph_k;              /* launches per graph replay in graph mode */
    double timeout_s;         /* per configuration, > 0; the process group is killed after it */
    const char *workdir;      /* where to run (the experiment's repository root), may be NULL */
    const char *output_path;  /* offered as ATTNBENCH_OUTPUT (where the adapter may write O); NULL: none */
    int H_kv, S_kv;           /* K/V heads and length; 0: equal to H, S */
    const char *pass;         /* "fwd", "bwd", "fwd+bwd"; NULL: fwd */
    const char *ipc_path;     /* protocol 2: the device-buffer description offered as `ipc=PATH`
                                 (ext_ipc.h); NULL: none */
    int threads;              /* the experiment's `threads` (> 0): the adapter's OMP_NUM_THREADS,
                                 MKL_NUM_THREADS, OPENBLAS_NUM_THREADS and ATTNBENCH_THREADS
                                 (ab_ext_thread_vars); 0: its inherited environment */
} ab_ext_request;

typedef struct ab_ext_result {
    double *ms; size_t n;              /* samples, milliseconds, malloc'd; n == samples on success */
    double max_abs_err, mean_abs_err, rel_l2_err, plain_max_abs_err;  /* vs the adapter's float64 reference */
    long nonfinite;
    double atol;                       /* the adapter's atol, NaN when it reported none */
    long rows_checked;                 /* query rows compared, -1 when not reported */
    double peak_bytes;                 /* `peak_bytes=N`: device memory the pass needed, 0 when not reported */
    char *env_json;                    /* adapter's environment, compact JSON object text, malloc'd ("{}" when none) */
    char *stderr_text;                 /* last <= AB_EXT_STDERR_KEEP bytes of the adapter's stderr, malloc'd ("" when none) */
    char error[512];                   /* why it failed, empty on success */
    int exit_status;                   /* exit code; 128 + signal when killed by one; -1 when not reaped */
    int timed_out;                     /* 1 when killed for exceeding timeout_s */
    double wall_s;                     /* seconds from start to exit */
    char *output_path;                 /* `check output=PATH`: the adapter's O, float32 [B,H,S,D], malloc'd; NULL when not given */
    int device_check;                  /* `check device`: O is in attnbench's shared device buffer (ext_ipc.h) */
} ab_ext_result;

/* Runs rq->command once for the configuration in *rq and fills *out (which
 * the caller later releases with ab_ext_result_free, whatever the outcome).
 * Returns 0 when the adapter exited 0 and printed exactly rq->samples finite
 * positive samples, one well-formed check line, at most one env line with a
 * JSON object and no error line; otherwise -1 with out->error set to
 * "external variant NAME: <why>" (timeout, signal, exit status with the last
 * stderr line, the adapter's own `error` message, or the first offending
 * stdout line by number) and out->stderr_text kept. Never aborts the
 * caller; only this one measurement fails. */
int ab_ext_measure(const ab_ext_request *rq, ab_ext_result *out);

/* Parses the figures of a `check` line (the text after "check "; rest is
 * modified) into out's max_abs_err, mean_abs_err, rel_l2_err,
 * plain_max_abs_err, nonfinite, atol, rows_checked and output_path, with the
 * rules of adapters/PROTOCOL.md (with `output=PATH` the figures are
 * optional: attnbench checks the output itself, ext_output.h). Returns 0, or -1 with the reason in why (wn bytes).
 * Shared with protocol 2 (external2.c). */
int ab_ext_parse_check(char *rest, ab_ext_result *out, char *why, size_t wn);

/* Parses the text of an `env` line (after "env ") as protocol 1 and 2 both
 * require: one JSON object. Returns 0 with *json_out its compact form
 * (malloc'd, keys sorted), or -1 with the reason in why. */
int ab_ext_parse_env(const char *rest, char **json_out, char *why, size_t wn);

/* Parses the number of a `sample` line (the whole token: finite, > 0 ms).
 * 0 with *ms, or -1. */
int ab_ext_parse_sample(const char *rest, double *ms);

/* The variables that carry the experiment's `threads` to an adapter
 * (OpenMP, MKL, OpenBLAS and ATTNBENCH_THREADS), NULL-terminated. */
extern const char *const ab_ext_thread_vars[];

/* 1 when the environment entry e ("NAME=value") is one of
 * ab_ext_thread_vars (replaced when the experiment sets `threads`). */
int ab_ext_is_thread_var(const char *e);

/* Frees what ab_ext_measure allocated; *r is zeroed. NULL-safe. */
void ab_ext_result_free(ab_ext_result *r);

#ifdef __cplusplus
}
#endif

#endif
