/*
 * runner.h: running an experiment: every (configuration, variant) measured,
 * checked against the float64 reference and stored with its raw samples.
 */
#ifndef ATTNBENCH_RUNNER_H
#define ATTNBENCH_RUNNER_H

#include <sqlite3.h>

#include "ab_id.h"

#include "experiment.h"

/* Runs experiment e into db. `command` is the command line that reproduces
 * the run (stored with it). Before anything is stored, refuses experiments
 * that cannot run here: a CUDA variant without a CUDA device, a
 * configuration that does not fit in GPU memory. Each measurement is
 * committed as soon as it finishes; Ctrl-C (SIGINT), SIGTERM, SIGHUP,
 * SIGQUIT or SIGPIPE stops at the next block of samples and marks the run
 * 'interrupted' (ab_run_signal says which). A run in which no measurement
 * succeeded is 'failed' (-1).
 *
 * *run_id: 0 starts a new run; the id of an existing run resumes it (its
 * stored experiment): the run is marked running by this process again and
 * only the (variant, configuration) pairs it lacks are measured.
 *
 * Returns 0 when the run completed (measurements may still have failed
 * correctness: they are stored as failed), 1 when interrupted, -1 on an
 * error (message printed; the run, if started, is marked 'failed').
 * *run_id is set as soon as the run exists (0 before). */
int ab_run_experiment(const ab_experiment *e, sqlite3 *db, const char *command,
                      ab_id *run_id);

/* The signal that interrupted the last run, or 0. */
int ab_run_signal(void);

#endif
