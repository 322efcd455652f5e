/*
 * plugin_worker.h: a CPU plugin variant run in a worker process, so that a
 * plugin that crashes, calls exit(), writes past its output or never
 * returns cannot take attnbench down, fake its success or hang it. The
 * worker is a fork of attnbench made once the configuration's inputs exist
 * (it inherits Q, K, V); every plugin call (setup, the timed calls with
 * their clock readings, teardown) runs there on request over a pipe, each
 * request under a deadline. A worker that dies, exits or misses its
 * deadline is killed (SIGKILL to its process group) and the request fails
 * with one line saying what happened and in which call, e.g.
 *   "libx.so: variant 'x': plugin killed by SIGSEGV in run",
 *   "libx.so: variant 'x': plugin called exit(0) in setup",
 *   "libx.so: variant 'x': plugin exceeded its 60 s deadline in run".
 * The worker dies with attnbench (PR_SET_PDEATHSIG). CUDA plugins are not
 * run this way (a CUDA context does not survive fork): see docs/own-kernel.md.
 */
#ifndef ATTNBENCH_PLUGIN_WORKER_H
#define ATTNBENCH_PLUGIN_WORKER_H

#include <stddef.h>

#include "variant.h"

typedef struct ab_plugin_worker ab_plugin_worker;

/* Floats past the end of O the worker fills with a canary and checks
 * after every call: a plugin that writes there fails the call. */
#define AB_PW_GUARD_FLOATS 1024

/* Forks the worker for CPU variant v of `library` on shape s with host
 * inputs q, k, vv (copied by the fork); deadline_s bounds each later
 * request. Returns 0 and *w, or -1 with err (n bytes). */
int ab_pw_start(const ab_variant *v, const char *library, const ab_shape *s, const float *q,
                const float *k, const float *vv, double deadline_s, ab_plugin_worker **w,
                char *err, size_t n);

/* Calls setup in the worker. 0 with *ws its workspace bytes;
 * AB_SETUP_UNSUPPORTED when setup returned it (this machine cannot run the
 * shape), 1 when it returned another non-zero (its message in err either
 * way; the worker lives on); -1 when the
 * worker died, exited or missed the deadline (why in err; it is killed). */
int ab_pw_setup(ab_plugin_worker *w, size_t *ws, char *err, size_t n);

/* Makes `count` >= 1 forward calls in the worker, each timed with the
 * monotonic clock there (ms[0..count), may be NULL); with o non-NULL, O is
 * poisoned with NaN before the calls and the last call's O (B*H*S*D host
 * floats) is copied into o. 0; 1 when run returned non-zero (err says so);
 * -1 as for ab_pw_setup, or when the plugin wrote past O. */
int ab_pw_run(ab_plugin_worker *w, size_t count, double *ms, float *o, char *err, size_t n);

/* Calls teardown in the worker (under the deadline), then ends it: SIGKILL
 * to its process group, reaped. NULL-safe; frees w. */
void ab_pw_stop(ab_plugin_worker *w);

/* 1 in a worker process (so that exit guards of attnbench stand aside). */
int ab_pw_in_worker(void);

#endif
