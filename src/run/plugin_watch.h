/*
 * plugin_watch.h: a deadline for the plugin calls attnbench makes in its own
 * process (CUDA plugins, whose CUDA context cannot live in a forked worker;
 * CPU plugins when ATTNBENCH_PLUGIN_WORKER=0, e.g. under a debugger). Such a
 * call cannot be abandoned, so a watchdog thread ends the whole process
 * when one misses its deadline: the run is marked failed in the database,
 * one line says which plugin call hung, and attnbench exits with status 1
 * (the finished measurements stay stored; `attnbench resume` measures the
 * rest). CPU plugins in workers have their own deadline (plugin_worker.h).
 */
#ifndef ATTNBENCH_PLUGIN_WATCH_H
#define ATTNBENCH_PLUGIN_WATCH_H

#include <sqlite3.h>

#include "ab_id.h"

/* Starts the watchdog for run run_id stored in db. 0, or -1 when the
 * thread cannot be started (calls are then unguarded; said on stderr). */
int ab_watch_start(sqlite3 *db, ab_id run_id);

/* The next `calls` in-process plugin calls must return within per_call
 * seconds each, calls * per_call together: `who` ("LIB: variant 'x'") and
 * `call` ("setup", "run", "teardown") name them in the message.
 * ab_watch_disarm once they returned. No-ops when the watchdog is not
 * running. */
void ab_watch_arm(double per_call, double calls, const char *who, const char *call);
void ab_watch_disarm(void);

/* Stops the watchdog thread (NULL-safe to call when none runs). */
void ab_watch_stop(void);

#endif
