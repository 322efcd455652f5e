/*
 * proc.c: running a child program under supervision (proc.h): its own
 * process group, its standard input fed from a buffer, its standard error
 * kept (the first KiB), a wall-clock limit after which the whole group is
 * killed. Used for gnuplot; a program that hangs can no longer hang
 * attnbench.
 */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int ab_proc_run(const char *const argv[], const char *input, size_t len, double timeout_s,
                ab_proc_result *res)
{
    int in[2] = {-1, -1}, er[2] = {-1, -1};
    memset(res, 0, sizeof *res);
    res->exit_status = -1;
    if (pipe2(in, O_CLOEXEC) || pipe2(er, O_CLOEXEC)) {
        snprintf(res->error, sizeof res->error, "pipe: %s", strerror(errno));
        goto fail_pipes;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(res->error, sizeof res->error, "fork: %s", strerror(errno));
        goto fail_pipes;
    }
    if (pid == 0) {
        /* child: async-signal-safe calls only */
        setpgid(0, 0);
        signal(SIGPIPE, SIG_DFL);
        dup2(in[0], 0);
        dup2(er[1], 2);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 1);
        execvp(argv[0], (char *const *)argv);
        static const char msg[] = "cannot execute the program\n";
        ssize_t w = write(2, msg, sizeof msg - 1);
        (void)w;
        _exit(127);
    }
    setpgid(pid, pid); /* also here: no race with the child's own call */
    close(in[0]);
    close(er[1]);
    in[0] = er[1] = -1;
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    fcntl(er[0], F_SETFL, O_NONBLOCK);
    /* SIGPIPE if the child exits before reading everything: ignored here,
     * write() then fails with EPIPE */
    struct sigaction ign, old;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old);

    size_t off = 0, elen = 0;
    const double deadline = now_s() + timeout_s;
    int status = 0, done = 0;
    while (!done) {
        struct pollfd p[2];
        int np = 0;
        if (er[0] >= 0)
            p[np++] = (struct pollfd){er[0], POLLIN, 0};
        if (in[1] >= 0)
            p[np++] = (struct pollfd){in[1], POLLOUT, 0};
        double left = deadline - now_s();
        if (left <= 0) {
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            res->timed_out = 1;
            snprintf(res->error, sizeof res->error, "%s did not finish within %.0f s (killed)",
                     argv[0], timeout_s);
            break;
        }
        int wait_ms = left > 0.05 ? 50 : (int)(left * 1000) + 1;
        if (np > 0 && poll(p, (nfds_t)np, wait_ms) < 0 && errno != EINTR)
            break;
        if (np == 0)
            usleep(10000);
        for (int i = 0; i < np; i++) {
            if (p[i].fd == er[0] && (p[i].revents & (POLLIN | POLLHUP | POLLERR))) {
                char buf[512];
                ssize_t r = read(er[0], buf, sizeof buf);
                if (r > 0) {
                    size_t keep = sizeof res->stderr_text - 1 - elen;
                    keep = (size_t)r < keep ? (size_t)r : keep;
                    memcpy(res->stderr_text + elen, buf, keep);
                    elen += keep;
                } else if (r == 0 || errno != EAGAIN) {
                    close(er[0]);
                    er[0] = -1;
                }
            } else if (p[i].fd == in[1] && (p[i].revents & (POLLOUT | POLLERR | POLLHUP))) {
                ssize_t w = off < len ? write(in[1], input + off, len - off) : 0;
                if (w > 0)
                    off += (size_t)w;
                if (off >= len || (w < 0 && errno != EAGAIN)) {
                    close(in[1]);
                    in[1] = -1;
                }
            }
        }
        if (er[0] < 0 && in[1] < 0) {
            /* both pipes done: wait for the exit, still under the deadline */
            pid_t w = waitpid(pid, &status, WNOHANG);
            if (w == pid)
                done = 1;
            else
                usleep(5000);
        }
    }
    sigaction(SIGPIPE, &old, NULL);
    if (in[1] >= 0)
        close(in[1]);
    if (er[0] >= 0)
        close(er[0]);
    res->stderr_text[elen] = '\0';
    if (res->timed_out)
        return -1;
    if (!done) {
        kill(-pid, SIGKILL);
        waitpid(pid, &status, 0);
        snprintf(res->error, sizeof res->error, "waiting for %s: %s", argv[0], strerror(errno));
        return -1;
    }
    if (WIFEXITED(status)) {
        res->exit_status = WEXITSTATUS(status);
        if (res->exit_status == 0)
            return 0;
        snprintf(res->error, sizeof res->error, "%s exited with status %d", argv[0],
                 res->exit_status);
    } else {
        snprintf(res->error, sizeof res->error, "%s was killed by signal %d", argv[0],
                 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    }
    return -1;
fail_pipes:
    for (int i = 0; i < 2; i++) {
        if (in[i] >= 0)
            close(in[i]);
        if (er[i] >= 0)
            close(er[i]);
    }
    return -1;
}

double ab_proc_timeout(const char *env_name, double dflt)
{
    const char *s = getenv(env_name);
    char *end;
    double x = s && *s ? strtod(s, &end) : dflt;
    return s && *s && *end == '\0' && x > 0 && x < 1e6 ? x : dflt;
}
