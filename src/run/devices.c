/*
 * devices.c: one worker process per GPU of this host, each an
 * `attnbench run --shard K/N --worker LABEL` of its own part of the
 * experiment into the shared database. See devices.h.
 */
#include "devices.h"

#include "shard.h"
#include "store.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define AB_MAX_DEVICES 64

/* the entries of CUDA_VISIBLE_DEVICES (indices or UUIDs), when set */
static int visible_entries(char entries[][80], int *n)
{
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    *n = 0;
    if (!cvd)
        return 0;
    const char *p = cvd;
    while (*p && *n < AB_MAX_DEVICES) {
        size_t len = strcspn(p, ",");
        if (len > 0 && len < 80) {
            memcpy(entries[*n], p, len);
            entries[(*n)++][len] = 0;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return 1;
}

/* GPUs this process may open: /dev/nvidiaN nodes (a container or cgroup
 * exposes only its own), else the driver's list (one directory per GPU) */
static int proc_gpus(void)
{
    DIR *dev = opendir("/dev");
    int nodes = 0;
    if (dev) {
        struct dirent *de;
        while ((de = readdir(dev))) {
            const char *d = de->d_name;
            if (strncmp(d, "nvidia", 6) != 0 || !d[6] || strspn(d + 6, "0123456789") != strlen(d + 6))
                continue;
            char path[300];
            snprintf(path, sizeof path, "/dev/%s", d);
            int fd = open(path, O_RDWR | O_CLOEXEC);
            if (fd >= 0) {
                nodes++;
                close(fd);
            }
        }
        closedir(dev);
    }
    if (nodes > 0)
        return nodes;

    DIR *d = opendir("/proc/driver/nvidia/gpus");
    int n = 0;
    if (!d)
        return 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

int ab_devices_parse(const char *list, int cuda_needed, int *device, int *ndev, char *err,
                     size_t errn)
{
    static char entries[AB_MAX_DEVICES][80];
    int nvis = 0;
    *ndev = 0;
    if (strcmp(list, "all") == 0) {
        int n = visible_entries(entries, &nvis) ? nvis : proc_gpus();
        if (n == 0 && cuda_needed) {
            snprintf(err, errn, "--devices all: no CUDA device visible (CUDA_VISIBLE_DEVICES, "
                                "no /dev/nvidiaN to open, none in /proc/driver/nvidia/gpus)");
            return -1;
        }
        if (n == 0)
            n = 1; /* CPU variants only, no GPU: one CPU worker */
        for (int i = 0; i < n && i < AB_MAX_DEVICES; i++)
            device[(*ndev)++] = i;
        return 0;
    }
    const char *p = list;
    while (*p) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (!isdigit((unsigned char)*p) || end == p || errno || v < 0 || v >= AB_MAX_DEVICES ||
            (*end && *end != ',') ||
            *ndev >= AB_MAX_DEVICES) {
            snprintf(err, errn, "--devices must be 'all' or CUDA device indices like 0,1 "
                                "(0..%d), not '%s'", AB_MAX_DEVICES - 1, list);
            return -1;
        }
        device[(*ndev)++] = (int)v;
        p = *end ? end + 1 : end;
        if (*end == ',' && !*p) {
            snprintf(err, errn, "--devices '%s' ends with a comma", list);
            return -1;
        }
    }
    if (*ndev == 0) {
        snprintf(err, errn, "--devices needs 'all' or a list of device indices");
        return -1;
    }
    if (visible_entries(entries, &nvis))
        for (int i = 0; i < *ndev; i++)
            if (device[i] >= nvis) {
                snprintf(err, errn, "--devices: device %d is not among the %d that "
                                    "CUDA_VISIBLE_DEVICES lists", device[i], nvis);
                return -1;
            }
    return 0;
}

static volatile sig_atomic_t pass_on;
static void on_signal(int sig) { pass_on = sig; }

int ab_devices_run(const ab_experiment *e, const char *path, const char *db_path,
                   const int *device, int ndev)
{
    static char entries[AB_MAX_DEVICES][80];
    int nvis = 0, has_vis = visible_entries(entries, &nvis), cuda = 0;
    for (size_t i = 0; i < e->nvariants; i++)
        if (e->variants[i].native && e->variants[i].native->device == AB_DEV_CUDA)
            cuda = 1;
    if ((size_t)ndev > e->nconfigs)
        return error("%s: %d workers but only %zu configurations; list at most %zu devices",
                     path, ndev, e->nconfigs, e->nconfigs) ? 1 : 1;
    /* the schema is migrated once here, not by the workers at the same time */
    char err[AB_ERR];
    sqlite3 *db = NULL;
    if (ab_db_open(db_path, 0, &db, err))
        return error("%s", err) ? 1 : 1;
    ab_db_close(db);

    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return error("--devices: cannot find this program (/proc/self/exe): %s",
                     strerror(errno)) ? 1 : 1;
    self[len] = 0;

    pid_t pid[AB_MAX_DEVICES] = {0};
    int out_fd[AB_MAX_DEVICES], status[AB_MAX_DEVICES];
    char label[AB_MAX_DEVICES][128];
    struct sigaction sa, old[3];
    const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* the stop signals are blocked while a worker is forked and recorded, so
     * one that comes meanwhile is seen below, never lost between the two */
    sigset_t stop_set, unblocked;
    sigemptyset(&stop_set);
    for (int s = 0; s < 3; s++)
        sigaddset(&stop_set, sigs[s]);
    pass_on = 0;
    for (int s = 0; s < 3; s++)
        sigaction(sigs[s], &sa, &old[s]);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int started = 0, rc = 0;
    for (int i = 0; i < ndev && !pass_on; i++) {
        int shared = 0;
        for (int j = 0; j < ndev; j++)
            shared |= j != i && device[j] == device[i];
        const char *vis = has_vis ? entries[device[i]] : NULL;
        char visbuf[16];
        if (!vis) {
            snprintf(visbuf, sizeof visbuf, "%d", device[i]);
            vis = visbuf;
        }
        if (cuda)
            snprintf(label[i], sizeof label[i], "cuda:%s%s", vis,
                     shared ? " (shared, testing)" : "");
        else
            snprintf(label[i], sizeof label[i], "cpu (slot %d%s)", device[i],
                     shared ? ", shared, testing" : "");
        char shard[32];
        snprintf(shard, sizeof shard, "%d/%d", i + 1, ndev);
        int fds[2];
        if (pipe(fds)) {
            rc = error("--devices: pipe: %s", strerror(errno)) ? 1 : 1;
            break;
        }
        fflush(stdout);
        fflush(stderr);
        sigprocmask(SIG_BLOCK, &stop_set, &unblocked);
        pid_t p = fork();
        if (p < 0) {
            sigprocmask(SIG_SETMASK, &unblocked, NULL);
            close(fds[0]);
            close(fds[1]);
            rc = error("--devices: fork: %s", strerror(errno)) ? 1 : 1;
            break;
        }
        if (p == 0) {
            for (int s = 0; s < 3; s++)
                sigaction(sigs[s], &old[s], NULL);
            sigprocmask(SIG_SETMASK, &unblocked, NULL);
            dup2(fds[1], STDOUT_FILENO);
            close(fds[0]);
            close(fds[1]);
            setenv("CUDA_VISIBLE_DEVICES", vis, 1);
            /* a command line's GPU-time budget goes to every worker */
            char lo[40], hi[40];
            snprintf(lo, sizeof lo, "%.17g", e->min_time_s);
            snprintf(hi, sizeof hi, "%.17g", e->max_time_s);
            const int budget = e->sampling_from && strcmp(e->sampling_from, "command line") == 0;
            /* and --keep-adapters (each worker's adapters are its own: their
             * environment holds its CUDA_VISIBLE_DEVICES); ATTNBENCH_KEEP_ADAPTERS
             * reaches each worker in its environment, and without either each
             * worker decides the default for its own GPU */
            const int keep_given = e->keep_adapters_from &&
                                   strcmp(e->keep_adapters_from, "command line") == 0;
            char keep[40];
            snprintf(keep, sizeof keep, "%.17g", e->keep_adapters_s);
            char *argv[16] = {self, "run", (char *)path, "--shard", shard, "--db", (char *)db_path,
                              "--worker", label[i]};
            int a = 9;
            if (budget) {
                argv[a++] = "--min-time";
                argv[a++] = lo;
                argv[a++] = "--max-time";
                argv[a++] = hi;
            }
            if (keep_given) {
                argv[a++] = "--keep-adapters";
                argv[a++] = keep;
            }
            argv[a] = NULL;
            execv(self, argv);
            fprintf(stderr, "attnbench: --devices: exec %s: %s\n", self, strerror(errno));
            _exit(127);
        }
        close(fds[1]);
        pid[i] = p;
        out_fd[i] = fds[0];
        started++;
        sigprocmask(SIG_SETMASK, &unblocked, NULL); /* a pending stop signal lands here */
        fprintf(stderr, "worker %d/%d: %s, process %ld\n", i + 1, ndev, label[i], (long)p);
    }
    /* wait for every worker; a stop signal (also one that came while they
     * were being started) is passed on and the waiting goes on. Polled, so
     * a signal between the check and the wait cannot be missed. */
    int left = started, forwarded = 0;
    const int stopped_by = (int)pass_on;
    while (left > 0) {
        int st;
        if (pass_on && !forwarded) {
            for (int i = 0; i < started; i++)
                kill(pid[i], (int)pass_on);
            forwarded = (int)pass_on;
        }
        pid_t w = waitpid(-1, &st, WNOHANG);
        if (w == 0 || (w < 0 && errno == EINTR)) {
            struct timespec nap = {0, 20000000L};
            nanosleep(&nap, NULL);
            continue;
        }
        if (w < 0)
            break;
        for (int i = 0; i < started; i++)
            if (pid[i] == w) {
                status[i] = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
                left--;
            }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    for (int s = 0; s < 3; s++)
        sigaction(sigs[s], &old[s], NULL);
    for (int i = 0; i < started; i++) {
        char buf[64] = "";
        ssize_t got = read(out_fd[i], buf, sizeof buf - 1);
        close(out_fd[i]);
        buf[got > 0 ? got : 0] = 0;
        buf[strcspn(buf, "\n")] = 0;
        if (*buf)
            printf("%s\n", buf);
        fprintf(stderr, "worker %d/%d: %s: run %s, exit %d\n", i + 1, ndev, label[i],
                *buf ? buf : "(none)", status[i]);
        if (status[i] && !rc)
            rc = status[i];
    }
    if (pass_on && !rc)
        rc = 128 + (int)pass_on; /* the shell's convention, as a run stopped by it */
    if (stopped_by && started < ndev)
        fprintf(stderr, "attnbench: --devices: signal %d while starting workers: %d of %d "
                        "started, each stopped\n", stopped_by, started, ndev);
    fprintf(stderr, "--devices: %d workers, wall time %.1f s\n", started,
            (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    if (rc)
        fprintf(stderr, "attnbench: a worker did not finish; `attnbench status %s --db %s` "
                        "shows what is missing and the command that completes it\n",
                path, db_path);
    return rc;
}
