/*
 * proc.h: child processes, all started and ended here (proc.c): a program
 * run to completion under a time limit (gnuplot), and the spawning and
 * killing of the external variants' adapters, whose protocols
 * (src/run/external.c, external2.c) only read and write the pipes. Every
 * child runs in a process group of its own, so killing the group kills
 * whatever it started.
 */
#ifndef ATTNBENCH_PROC_H
#define ATTNBENCH_PROC_H

#include <stddef.h>
#include <sys/types.h>

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

/* How ab_proc_spawn connects one of the child's standard streams. */
typedef enum ab_proc_fd { AB_PROC_NULL, AB_PROC_PIPE } ab_proc_fd;

/* What to start. */
typedef struct ab_proc_spec {
    const char *const *argv; /* argv[0]: a path with '/' (run as is) or a name found on PATH */
    char *const *env;        /* the child's environment (NULL-terminated); NULL: the caller's */
    const char *workdir;     /* directory to run in; NULL or "": the caller's */
    ab_proc_fd in, out, err; /* each stream from/to /dev/null or a pipe */
} ab_proc_spec;

/* A started child: its pid (also its process group id) and the parent's
 * ends of its pipes, -1 for a stream on /dev/null. out and err are
 * non-blocking; in is blocking. Every end is close-on-exec. */
typedef struct ab_child {
    pid_t pid;
    int in, out, err;
} ab_child;

/* Starts s->argv in a process group of its own, with an empty signal mask
 * and SIGPIPE, SIGTERM, SIGINT at their defaults (the caller may ignore or
 * block them), its streams as s says. Everything the child needs is built
 * before fork and only async-signal-safe calls run between fork and exec,
 * so the caller may be multithreaded. A child that cannot chdir exits with
 * 126, one that cannot exec with 127 (a one-line message on its standard
 * error). Returns 0 with *c set, or -1 with err (n bytes: "pipe: ...",
 * "fork: ...") and no child. */
int ab_proc_spawn(const ab_proc_spec *s, ab_child *c, char *err, size_t n);

/* 1 when child pid has exited (or is already reaped), 0 while it runs. The
 * child stays a zombie (WNOWAIT), so its pid, hence its process group id,
 * cannot be reused before ab_proc_end kills the group. */
int ab_proc_exited(pid_t pid);

/* Ends child pid and its process group: unless it has exited, SIGTERM to
 * the group and up to term_grace_s seconds for it to exit; then SIGKILL to
 * the group (leftovers included) and the child reaped, waiting at most
 * reap_s seconds (< 0: without limit). Returns 1 with *status (may be NULL)
 * its wait status when reaped, 0 when it could not be reaped in time. */
int ab_proc_end(pid_t pid, double term_grace_s, double reap_s, int *status);

/* A timeout in seconds from environment variable env_name (a positive
 * number), else dflt. */
double ab_proc_timeout(const char *env_name, double dflt);

#endif
