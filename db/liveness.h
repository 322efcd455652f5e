/*
 * liveness.h: the identity of the process running a run, and whether a
 * 'running' run's process is still there (liveness.c). A run whose process
 * is gone (SIGKILL, a crash, a reboot) is shown as `abandoned`; `attnbench
 * resume` measures what it lacks.
 */
#ifndef ATTNBENCH_LIVENESS_H
#define ATTNBENCH_LIVENESS_H

typedef struct ab_proc_identity {
    char host[256];   /* gethostname */
    long pid;
    char start[32];   /* /proc/PID/stat starttime, clock ticks since boot ("" if unknown) */
    char boot_id[64]; /* /proc/sys/kernel/random/boot_id ("" if unknown) */
} ab_proc_identity;

typedef enum ab_liveness { AB_LIVE_ALIVE, AB_LIVE_GONE, AB_LIVE_UNKNOWN } ab_liveness;

/* This process's identity. */
void ab_self_identity(ab_proc_identity *id);

/* Whether the process (host, pid, start, boot_id) recorded with a run is
 * alive: GONE only when it is certain (same host, and another boot, no such
 * PID, or a PID reused by a process started at another time); UNKNOWN on
 * another host or without a record. */
ab_liveness ab_process_liveness(const char *host, long pid, const char *start,
                                const char *boot_id);

/* The status to show for a run: "abandoned" for a 'running' run whose
 * process is GONE, else the stored status. */
const char *ab_run_status_shown(const char *status, const char *host, long pid,
                                const char *start, const char *boot_id);

#endif
