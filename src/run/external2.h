/*
 * external2.h: external variants speaking protocol 2 (adapters/PROTOCOL.md):
 * one adapter process per variant, kept alive for the whole run, told each
 * configuration once on its stdin and then asked for samples a few at a
 * time ("take K"), so that its samples are taken inside attnbench's
 * interleaved rounds like a native variant's and its start-up (interpreter,
 * imports, CUDA context) is paid once per run instead of once per
 * configuration. Line formats, the child's environment, process group and
 * kill rules are protocol 1's (external.h) where not said otherwise.
 */
#ifndef ATTNBENCH_EXTERNAL2_H
#define ATTNBENCH_EXTERNAL2_H

#include "external.h"
#include "ext_ipc.h"

#include <stddef.h>

typedef struct ab_ext2 ab_ext2;

/* Starts `/bin/sh -c command` (own process group; stdin, stdout and stderr
 * on pipes; ATTNBENCH_PROTOCOL=2, ATTNBENCH_VARIANT=name and
 * ATTNBENCH_HELLO=1 in its environment, and ATTNBENCH_OUTPUT=output_path
 * when that is not NULL (the file the adapter may write O to,
 * ext_output.h), inherited ATTNBENCH_* removed) in workdir (NULL: the
 * current directory). timeout_s bounds each later request. offer_ipc:
 * ATTNBENCH_IPC=1 is set too. threads > 0: the variables of
 * ab_ext_thread_vars are set to it (inherited ones replaced). The
 * adapter's first line is awaited for at most AB_EXT_HELLO_WAIT_S (or
 * timeout_s): a hello is parsed (ab_ext2_hello: capabilities, device
 * buffers), any other line is kept for the first answer, silence is an
 * adapter that does not speak it. Returns 0 and *p, or -1 with "external
 * variant NAME: why" in err (n bytes; a malformed hello: the process is
 * then killed). keep_s > 0: kept adapters (ext_keep.h): the run is handed
 * to the adapter an earlier run of the same command left, if one takes it,
 * else a new process is started with ATTNBENCH_KEEP=SOCKET:keep_s, which
 * it may honour by staying when the run ends (ab_ext2_stop). */
int ab_ext2_start(const char *name, const char *command, const char *workdir, double timeout_s,
                  const char *output_path, int offer_ipc, int threads, double keep_s,
                  ab_ext2 **p, char *err, size_t n);

/* What the adapter's hello said (all zero when it sent none, or its hello
 * came after the wait: then seen is set once the first answer showed it,
 * and ipc stays 0 for the process's life). */
const ab_ext_hello *ab_ext2_hello(const ab_ext2 *p);

/* Tells the adapter a configuration (rq's B, H, S, D, causal, dtype,
 * warmup, seed, timing_mode, graph_k, and rq->ipc_path as ` ipc=PATH` when
 * its hello said ipc=1; rq->samples is ignored) and reads its answer: at
 * most one env line, exactly one check line (`check device` only when ipc=
 * was sent: out->device_check), then `ready`. Fills
 * out's correctness figures and env_json (ms stays NULL). Returns 0; 1 when
 * the adapter answered `error MESSAGE` (out->error: "adapter reported:
 * MESSAGE"; it stays alive for the next configuration); -1 on a protocol
 * violation, a timeout or the adapter's death (out->error says which; the
 * process is then killed and every later request fails). */
int ab_ext2_config(ab_ext2 *p, const ab_ext_request *rq, ab_ext_result *out);

/* Tells an adapter whose hello said ahead=1 a shape it will be asked
 * later: an `ahead` line, rq as for ab_ext2_config (ipc_path ignored), no
 * answer awaited (adapters/PROTOCOL.md "Shapes ahead"). The adapter makes
 * its first call of that shape (a library's per-shape plan, a compile)
 * before it answers its next configuration. Returns 0, or -1 with why in
 * err (n bytes) when it has no ahead=1, a configuration is unanswered, or
 * the line cannot be written (the process is then killed). */
int ab_ext2_ahead(ab_ext2 *p, const ab_ext_request *rq, char *err, size_t n);

/* ab_ext2_config in two halves, so that the adapter prepares the
 * configuration (its inputs or mappings, checked call, warm-up) while the
 * caller does other untimed work: _send writes the request and returns (0;
 * -1 as ab_ext2_config, out->error saying why, when it cannot be written or
 * an earlier one is unanswered); _answer reads the answer, within the
 * variant's timeout counted from the send, and returns as ab_ext2_config.
 * Nothing else may be asked of p in between. */
int ab_ext2_config_send(ab_ext2 *p, const ab_ext_request *rq, ab_ext_result *out);
int ab_ext2_config_answer(ab_ext2 *p, ab_ext_result *out);

/* 1 when a line of the adapter's answer is waiting to be read (or it
 * closed its stdout, or died), else 0; never blocks. Reads what is ready
 * on its stdout and stderr. For a caller with other work to do while the
 * adapter prepares a configuration sent by ab_ext2_config_send. */
int ab_ext2_answer_ready(ab_ext2 *p);

/* Asks for k >= 1 samples of the current configuration and reads them:
 * exactly k `sample X` lines (finite, > 0 ms) then `done`. Returns 0 with
 * ms[0..k) filled, or -1 with the reason in err (n bytes); after -1 the
 * process is killed. */
int ab_ext2_take(ab_ext2 *p, size_t k, double *ms, char *err, size_t n);

/* The last bytes (<= AB_EXT_STDERR_KEEP) of the adapter's stderr so far, a
 * malloc'd string ("" when none), or NULL when out of memory. */
char *ab_ext2_stderr(const ab_ext2 *p);

/* Seconds the process has existed (start-up included). */
double ab_ext2_age_s(const ab_ext2 *p);

/* Sends `quit`, closes its stdin, waits up to 2 s for it to exit, then
 * kills its process group; frees p. NULL-safe. An adapter offered keeping
 * (ab_ext2_start's keep_s) that answers `kept` within 2 s is left running
 * for the next run instead, and one line on stderr says so (how long it
 * may idle, how to list and end it). */
void ab_ext2_stop(ab_ext2 *p);

#endif
