/*
 * proc.h: a child program run under a time limit (proc.c).
 */
#ifndef ATTNBENCH_PROC_H
#define ATTNBENCH_PROC_H

#include <stddef.h>

typedef struct ab_proc_result {
    int exit_status;         /* exit code, -1 when killed or not started */
    int timed_out;           /* killed (with its process group) at the limit */
    char stderr_text[1024];  /* the first KiB of its standard error */
    char error[256];         /* why it failed, one line */
} ab_proc_result;

/* Runs argv (argv[0] found on PATH) in a process group of its own, with
 * `input` (len bytes) on its standard input, standard output to /dev/null
 * and standard error kept in res. After timeout_s seconds of wall time the
 * whole group is killed with SIGKILL. Returns 0 when it exited with status
 * 0, else -1 with res->error set. */
int ab_proc_run(const char *const argv[], const char *input, size_t len, double timeout_s,
                ab_proc_result *res);

/* A timeout in seconds from environment variable env_name (a positive
 * number), else dflt. */
double ab_proc_timeout(const char *env_name, double dflt);

#endif
