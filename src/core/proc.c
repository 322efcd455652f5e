/*
 * proc.c: running a child program under supervision (proc.h): its own
 * process group, its standard input fed from a buffer, its standard error
 * kept (the first KiB), a wall-clock limit after which the whole group is
 * killed (gnuplot: a program that hangs can no longer hang attnbench); and
 * the one fork/exec and group kill of external variants' adapters.
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

static void close_pair(int p[2])
{
    for (int i = 0; i < 2; i++)
        if (p[i] >= 0)
            close(p[i]);
    p[0] = p[1] = -1;
}

/* In the child, after fork: moves fd onto target (0, 1, 2); dup2 onto the
 * same descriptor keeps FD_CLOEXEC, so clear it then. */
static void child_fd(int fd, int target)
{
    if (fd == target)
        fcntl(fd, F_SETFD, 0);
    else
        dup2(fd, target);
}

static void child_msg(const char *m, size_t n)
{
    ssize_t w = write(2, m, n);
    (void)w;
}

int ab_proc_spawn(const ab_proc_spec *s, ab_child *c, char *err, size_t n)
{
    int p[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};
    const ab_proc_fd mode[3] = {s->in, s->out, s->err};
    c->pid = -1;
    c->in = c->out = c->err = -1;
    for (int i = 0; i < 3; i++)
        if (mode[i] == AB_PROC_PIPE && pipe2(p[i], O_CLOEXEC) != 0) {
            snprintf(err, n, "pipe: %s", strerror(errno));
            for (int j = 0; j < 3; j++)
                close_pair(p[j]);
            return -1;
        }
    /* the descriptors the child gets: pipe ends, or -1 for /dev/null */
    const int child_end[3] = {p[0][0], p[1][1], p[2][1]};
    const int has_slash = strchr(s->argv[0], '/') != NULL;
    pid_t pid = fork();
    if (pid == 0) { /* async-signal-safe calls only */
        static const char msg_cd[] = "attnbench: cannot chdir to the child's directory\n";
        static const char msg_exec[] = "attnbench: cannot execute the program\n";
        setpgid(0, 0);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        for (int i = 0; i < 3; i++) {
            if (child_end[i] >= 0) {
                child_fd(child_end[i], i);
                continue;
            }
            int dn = open("/dev/null", i == 0 ? O_RDONLY : O_WRONLY);
            if (dn >= 0 && dn != i) {
                dup2(dn, i);
                close(dn);
            }
        }
        if (s->workdir && *s->workdir && chdir(s->workdir) != 0) {
            child_msg(msg_cd, sizeof msg_cd - 1);
            _exit(126);
        }
        if (s->env && has_slash)
            execve(s->argv[0], (char *const *)s->argv, s->env);
        else if (s->env)
            execvpe(s->argv[0], (char *const *)s->argv, s->env);
        else
            execvp(s->argv[0], (char *const *)s->argv);
        child_msg(msg_exec, sizeof msg_exec - 1);
        _exit(127);
    }
    int fork_errno = errno;
    for (int i = 0; i < 3; i++)
        if (child_end[i] >= 0)
            close(child_end[i]);
    if (pid < 0) {
        close_pair(p[0]), close_pair(p[1]), close_pair(p[2]);
        snprintf(err, n, "fork: %s", strerror(fork_errno));
        return -1;
    }
    setpgid(pid, pid); /* also in the child: whichever runs first wins the race */
    c->pid = pid;
    c->in = p[0][1];
    c->out = p[1][0];
    c->err = p[2][0];
    if (c->out >= 0)
        fcntl(c->out, F_SETFL, fcntl(c->out, F_GETFL) | O_NONBLOCK);
    if (c->err >= 0)
        fcntl(c->err, F_SETFL, fcntl(c->err, F_GETFL) | O_NONBLOCK);
    return 0;
}

int ab_proc_exited(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
        return errno == ECHILD; /* already gone: nothing to wait for */
    return si.si_pid == pid;
}

int ab_proc_end(pid_t pid, double term_grace_s, double reap_s, int *status)
{
    int st = 0;
    if (pid <= 0)
        return 0;
    if (!ab_proc_exited(pid)) {
        kill(-pid, SIGTERM);
        const double t_term = now_s();
        while (!ab_proc_exited(pid) && now_s() - t_term < term_grace_s)
            usleep(10000);
    }
    /* no member of the group outlives the child; the child is a zombie or
     * still alive, so its pid (the group id) has not been reused */
    kill(-pid, SIGKILL);
    pid_t w;
    if (reap_s < 0) {
        while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
            ;
    } else {
        const double t_kill = now_s();
        while ((w = waitpid(pid, &st, WNOHANG)) == 0 && now_s() - t_kill < reap_s)
            usleep(5000);
    }
    if (w != pid)
        return 0;
    if (status)
        *status = st;
    return 1;
}

int ab_proc_run(const char *const argv[], const char *input, size_t len, double timeout_s,
                ab_proc_result *res)
{
    memset(res, 0, sizeof *res);
    res->exit_status = -1;
    ab_proc_spec spec = {argv, NULL, NULL, AB_PROC_PIPE, AB_PROC_NULL, AB_PROC_PIPE};
    ab_child ch;
    if (ab_proc_spawn(&spec, &ch, res->error, sizeof res->error))
        return -1;
    const pid_t pid = ch.pid;
    int in[2] = {-1, ch.in}, er[2] = {ch.err, -1};
    fcntl(in[1], F_SETFL, O_NONBLOCK);
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
            ab_proc_end(pid, 0, -1, &status);
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
        ab_proc_end(pid, 0, -1, &status);
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
}

double ab_proc_timeout(const char *env_name, double dflt)
{
    const char *s = getenv(env_name);
    char *end;
    double x = s && *s ? strtod(s, &end) : dflt;
    return s && *s && *end == '\0' && x > 0 && x < 1e6 ? x : dflt;
}
