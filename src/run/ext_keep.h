/*
 * ext_keep.h: kept adapters (adapters/PROTOCOL.md "Kept adapters"). With
 * `attnbench run --keep-adapters SECONDS`, a protocol-2 adapter that
 * supports it stays alive after the run, idle for at most SECONDS, and
 * the next run of the same command, in the same directory and environment,
 * talks to it instead of starting a new process: its start-up (an
 * interpreter, PyTorch's import, FlashAttention-4's compiles: seconds) is
 * paid once per working session instead of once per run.
 *
 * Where it waits: a Unix socket in a directory of the user's own (mode
 * 0700; $XDG_RUNTIME_DIR/attnbench, else /tmp/attnbench-UID), named by a
 * 64-bit FNV-1a hash of the user id, the working directory, the command
 * and the adapter's environment less the variables of one run
 * (ab_ext_keep_run_var). The handover (ab_ext_keep_connect): attnbench
 * connects, checks that the peer is the same user (SO_PEERCRED) and sends
 * the adapter's ends of three fresh pipes (its stdin, stdout, stderr) with
 * SCM_RIGHTS, and the run's variables as NAME=VALUE strings each ended by
 * a NUL; the adapter puts the pipes on its descriptors 0, 1 and 2 and
 * answers one byte, then speaks protocol 2 from its hello as a new process
 * would. An adapter busy with another run is not listening; one whose own
 * files changed since it started leaves without answering: either way the
 * run starts a new process.
 */
#ifndef ATTNBENCH_EXT_KEEP_H
#define ATTNBENCH_EXT_KEEP_H

#include "proc.h"

#include <stddef.h>
#include <sys/types.h>

/* Seconds a protocol-2 adapter may stay idle after a run when neither
 * `run --keep-adapters` nor ATTNBENCH_KEEP_ADAPTERS says (runner.c
 * keep_resolve): long enough for an edit, a rebuild and the next run of a
 * researcher's loop; on H200s the runs handed a kept PyTorch or
 * FlashAttention-4 were 1.14-3.06x sooner than with none kept
 * (reports/cost-per-answer/, rounds 13 and 14). Not applied where the GPU's compute mode is exclusive or
 * prohibited: a kept adapter's CUDA context would lock other processes
 * out. */
#define AB_KEEP_ADAPTERS_DEFAULT_S 300.0

/* Longest wait for a kept adapter's answer to the handover, seconds (it
 * checks its files first: a few thousand stat calls for PyTorch). */
#define AB_EXT_KEEP_WAIT_S 3.0

/* 1 when env entry e ("NAME=VALUE") is one of a run's own variables,
 * which differ from run to run and are sent at the handover instead of
 * naming the adapter: ATTNBENCH_OUTPUT, ATTNBENCH_VARIANT, ATTNBENCH_KEEP. */
int ab_ext_keep_run_var(const char *e);

/* The directory of the kept adapters' sockets into dir (n bytes), made
 * (0700) when missing. Returns 0, or -1 with why (wn bytes) when it is not
 * a directory of this user's alone. */
int ab_ext_keep_dir(char *dir, size_t n, char *why, size_t wn);

/* Connects to the socket at path and closes again, without handing it a
 * run (the adapter goes on listening): 1 with *pid the listening
 * adapter's, 0 when nothing listens there (a stale socket) or the peer is
 * another user. */
int ab_ext_keep_probe(const char *path, pid_t *pid);

/* The socket of the kept adapter for `command` run in workdir (NULL or "":
 * the current directory) with environment env (NULL-terminated; its run
 * variables left out of the name), into path (n bytes), its directory made
 * (0700) when missing. Returns 0, or -1 with why (wn bytes) when there is
 * no private directory to put it in (not the user's, open to others) or
 * the path does not fit a socket address. */
int ab_ext_keep_path(const char *command, const char *workdir, char *const *env, char *path,
                     size_t n, char *why, size_t wn);

/* Hands the kept adapter listening at path three new pipes and run_env
 * (NULL-terminated "NAME=VALUE" strings), waiting at most wait_s seconds
 * for its answer. Returns 1 with *c (as ab_proc_spawn's: this side's pipe
 * ends, out and err non-blocking, all close-on-exec; c->pid the adapter's
 * pid, which is not a child of this process); 0 when no adapter took them
 * (nothing listening, a stale socket, another user's, no answer in time);
 * -1 with why (wn bytes) when the pipes could not be made. */
int ab_ext_keep_connect(const char *path, char *const *run_env, double wait_s, ab_child *c,
                        char *why, size_t wn);

#endif
