/*
 * liveness.c: whether the process that started a run is still alive
 * (liveness.h). A run records its host name, PID, the process's start time
 * (field 22 of /proc/PID/stat, clock ticks since boot) and the kernel's boot
 * id (/proc/sys/kernel/random/boot_id). On the same host, the run's process
 * is gone when the machine rebooted since (another boot id), when no process
 * has that PID, or when the process with that PID started at another time
 * (the PID was reused). On another host nothing can be said.
 */
#include "liveness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int read_line(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(buf, (int)n, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* field 22 (starttime) of /proc/PID/stat; the command name (field 2) may
 * hold spaces and parentheses, so fields are counted after the last ')' */
static int proc_start(long pid, char *out, size_t n)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if (read_line(path, buf, sizeof buf))
        return -1;
    const char *p = strrchr(buf, ')');
    if (!p)
        return -1;
    p++;
    for (int field = 3; field < 22; field++) {
        p = strchr(p + 1, ' ');
        if (!p)
            return -1;
    }
    unsigned long long t;
    if (sscanf(p, " %llu", &t) != 1)
        return -1;
    snprintf(out, n, "%llu", t);
    return 0;
}

void ab_self_identity(ab_proc_identity *id)
{
    memset(id, 0, sizeof *id);
    if (gethostname(id->host, sizeof id->host) != 0)
        snprintf(id->host, sizeof id->host, "unknown");
    id->host[sizeof id->host - 1] = '\0';
    id->pid = (long)getpid();
    if (proc_start(id->pid, id->start, sizeof id->start))
        id->start[0] = '\0';
    if (read_line("/proc/sys/kernel/random/boot_id", id->boot_id, sizeof id->boot_id))
        id->boot_id[0] = '\0';
}

ab_liveness ab_process_liveness(const char *host, long pid, const char *start,
                                const char *boot_id)
{
    ab_proc_identity self;
    if (!host || !*host || pid <= 0)
        return AB_LIVE_UNKNOWN; /* a run from before liveness was recorded */
    ab_self_identity(&self);
    if (strcmp(host, self.host) != 0)
        return AB_LIVE_UNKNOWN;
    if (boot_id && *boot_id && self.boot_id[0] && strcmp(boot_id, self.boot_id) != 0)
        return AB_LIVE_GONE;
    char now[32];
    if (proc_start(pid, now, sizeof now))
        return AB_LIVE_GONE;
    if (start && *start && strcmp(start, now) != 0)
        return AB_LIVE_GONE;
    return AB_LIVE_ALIVE;
}

const char *ab_run_status_shown(const char *status, const char *host, long pid,
                                const char *start, const char *boot_id)
{
    if (status && strcmp(status, "running") == 0 &&
        ab_process_liveness(host, pid, start, boot_id) == AB_LIVE_GONE)
        return "abandoned";
    return status;
}
