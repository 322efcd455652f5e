/*
 * plugin_worker.c: CPU plugin calls in a forked worker process
 * (plugin_worker.h). Requests and replies are fixed-size structs on two
 * pipes, followed by the samples (doubles) and, when asked for, O (floats).
 * The parent reads every reply with poll() under the request's deadline;
 * end-of-file means the worker is gone, and its wait status says how.
 */
#include "plugin_worker.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { OP_SETUP = 1, OP_RUN = 2, OP_TEARDOWN = 3 };

typedef struct request {
    int op;
    int want_o;
    size_t count;
} request;

typedef struct reply {
    int rc;          /* 0; 1: the plugin's own failure; 2: wrote past O */
    size_t ws;       /* setup: workspace bytes */
    char err[256];
} reply;

struct ab_plugin_worker {
    pid_t pid;
    int req_w, rep_r; /* -1 when closed */
    double deadline_s;
    size_t numel;
    char who[600];    /* "LIBRARY: variant 'NAME'" */
    int dead;
};

static int in_worker;

int ab_pw_in_worker(void) { return in_worker; }

/* ---- the worker process --------------------------------------------------------- */

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* the canary past O: a NaN with a payload no computation produces */
static const unsigned canary_bits = 0x7fc0dea1u;

static int guard_intact(const float *guard)
{
    for (size_t i = 0; i < AB_PW_GUARD_FLOATS; i++) {
        unsigned b;
        memcpy(&b, &guard[i], sizeof b);
        if (b != canary_bits)
            return 0;
    }
    return 1;
}

static void worker_main(const ab_variant *v, const ab_shape *s, const float *q, const float *k,
                        const float *vv, int req_r, int rep_w)
{
    const size_t numel = ab_shape_numel(s);
    float *o = malloc((numel + AB_PW_GUARD_FLOATS) * sizeof *o);
    double *ms = NULL;
    void *ctx = NULL;
    if (!o)
        _exit(71);
    for (size_t i = 0; i < AB_PW_GUARD_FLOATS; i++)
        memcpy(&o[numel + i], &canary_bits, sizeof canary_bits);
    request rq;
    while (read_all(req_r, &rq, sizeof rq) == 0) {
        reply rp;
        memset(&rp, 0, sizeof rp);
        if (rq.op == OP_SETUP) {
            if (v->setup(s, &ctx, &rp.ws, rp.err, sizeof rp.err)) {
                rp.rc = 1;
                if (!rp.err[0])
                    snprintf(rp.err, sizeof rp.err, "setup failed");
                ctx = NULL;
            }
            if (write_all(rep_w, &rp, sizeof rp))
                break;
        } else if (rq.op == OP_RUN) {
            double *m = realloc(ms, (rq.count ? rq.count : 1) * sizeof *m);
            if (!m)
                _exit(71);
            ms = m;
            if (rq.want_o)
                for (size_t i = 0; i < numel; i++)
                    o[i] = NAN;
            for (size_t i = 0; i < rq.count && rp.rc == 0; i++) {
                double t0 = ab_now_s();
                if (v->run(ctx, s, q, k, vv, o, NULL)) {
                    rp.rc = 1;
                    snprintf(rp.err, sizeof rp.err, "run failed");
                }
                ms[i] = (ab_now_s() - t0) * 1e3;
                if (!guard_intact(o + numel)) {
                    rp.rc = 2;
                    snprintf(rp.err, sizeof rp.err, "plugin wrote past the end of O (into the "
                             "%d floats after B*H*S*D) in run", AB_PW_GUARD_FLOATS);
                }
            }
            if (write_all(rep_w, &rp, sizeof rp) ||
                (rp.rc == 0 && write_all(rep_w, ms, rq.count * sizeof *ms)) ||
                (rp.rc == 0 && rq.want_o && write_all(rep_w, o, numel * sizeof *o)))
                break;
        } else {
            v->teardown(ctx);
            ctx = NULL;
            write_all(rep_w, &rp, sizeof rp);
            break;
        }
    }
    _exit(0);
}

/* ---- the parent ----------------------------------------------------------------- */

static const char *signal_name(int sig, char *buf, size_t n)
{
    static const struct { int sig; const char *name; } names[] = {
        {SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"}, {SIGABRT, "SIGABRT"}, {SIGFPE, "SIGFPE"},
        {SIGILL, "SIGILL"},   {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGTRAP, "SIGTRAP"},
        {SIGSYS, "SIGSYS"},   {SIGPIPE, "SIGPIPE"}, {SIGINT, "SIGINT"}, {SIGHUP, "SIGHUP"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig)
            return names[i].name;
    snprintf(buf, n, "signal %d", sig);
    return buf;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Kills the worker's group and reaps it; *status its wait status (0 when
 * it could not be reaped). */
static void end_worker(ab_plugin_worker *w, int *status)
{
    int st = 0;
    close_fd(&w->req_w);
    close_fd(&w->rep_r);
    if (w->pid > 0) {
        kill(-w->pid, SIGKILL);
        kill(w->pid, SIGKILL);
        while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    w->pid = -1;
    w->dead = 1;
    if (status)
        *status = st;
}

/* The worker stopped answering `call`: how (wait status, or the deadline),
 * into err; the worker is ended. Returns -1. */
static int worker_failed(ab_plugin_worker *w, const char *call, int timed_out, char *err,
                         size_t n)
{
    int st = 0;
    if (timed_out) {
        end_worker(w, NULL);
        snprintf(err, n, "%s: plugin exceeded its %g s deadline in %s (killed)", w->who,
                 w->deadline_s, call);
        return -1;
    }
    /* end of file: it exited or was killed; give it a moment to be reaped */
    for (int i = 0; i < 200 && w->pid > 0 && waitpid(w->pid, &st, WNOHANG) == 0; i++) {
        struct timespec ts = {0, 5000000L};
        nanosleep(&ts, NULL);
    }
    int reaped = w->pid > 0 && (WIFEXITED(st) || WIFSIGNALED(st));
    if (reaped)
        w->pid = -1;
    end_worker(w, reaped ? NULL : &st);
    char buf[32];
    if (WIFSIGNALED(st))
        snprintf(err, n, "%s: plugin killed by %s in %s", w->who,
                 signal_name(WTERMSIG(st), buf, sizeof buf), call);
    else if (WIFEXITED(st))
        snprintf(err, n, "%s: plugin called exit(%d) in %s", w->who, WEXITSTATUS(st), call);
    else
        snprintf(err, n, "%s: the plugin's worker process ended in %s", w->who, call);
    return -1;
}

/* Reads n bytes of a reply before the deadline. 0; -1 at end of file; -2
 * when the deadline passed. */
static int read_reply(ab_plugin_worker *w, void *buf, size_t len, double deadline)
{
    char *p = buf;
    while (len > 0) {
        double left = deadline - ab_now_s();
        if (left <= 0)
            return -2;
        struct pollfd pfd = {w->rep_r, POLLIN, 0};
        int r = poll(&pfd, 1, left > 1e6 ? -1 : (int)(left * 1000) + 1);
        if (r < 0 && errno != EINTR)
            return -1;
        if (r <= 0)
            continue;
        ssize_t got = read(w->rep_r, p, len);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got <= 0)
            return -1;
        p += got;
        len -= (size_t)got;
    }
    return 0;
}

/* Sends rq and reads the reply head; 0, or -1 after worker_failed. */
static int transact(ab_plugin_worker *w, const request *rq, reply *rp, const char *call,
                    double deadline, char *err, size_t n)
{
    if (w->dead) {
        snprintf(err, n, "%s: the plugin's worker died earlier", w->who);
        return -1;
    }
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    int wr = write_all(w->req_w, rq, sizeof *rq);
    struct timespec zero = {0, 0};
    while (sigtimedwait(&pipe_set, NULL, &zero) == SIGPIPE) {
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (wr)
        return worker_failed(w, call, 0, err, n);
    int r = read_reply(w, rp, sizeof *rp, deadline);
    if (r)
        return worker_failed(w, call, r == -2, err, n);
    rp->err[sizeof rp->err - 1] = '\0';
    return 0;
}

int ab_pw_start(const ab_variant *v, const char *library, const ab_shape *s, const float *q,
                const float *k, const float *vv, double deadline_s, ab_plugin_worker **out,
                char *err, size_t n)
{
    *out = NULL;
    ab_plugin_worker *w = calloc(1, sizeof *w);
    int req[2] = {-1, -1}, rep[2] = {-1, -1};
    if (!w || pipe2(req, O_CLOEXEC) || pipe2(rep, O_CLOEXEC)) {
        snprintf(err, n, "%s: variant '%s': cannot start its worker: %s", library, v->name,
                 strerror(errno));
        free(w);
        for (int i = 0; i < 2; i++) {
            if (req[i] >= 0)
                close(req[i]);
            if (rep[i] >= 0)
                close(rep[i]);
        }
        return -1;
    }
    snprintf(w->who, sizeof w->who, "%s: variant '%s'", library, v->name);
    w->deadline_s = deadline_s;
    w->numel = ab_shape_numel(s);
    const pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        in_worker = 1;
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* dies with attnbench ... */
        if (getppid() != parent)          /* ... even if that was already */
            _exit(70);
        close(req[1]);
        close(rep[0]);
        worker_main(v, s, q, k, vv, req[0], rep[1]);
    }
    int fork_errno = errno;
    close(req[0]);
    close(rep[1]);
    if (pid < 0) {
        close(req[1]);
        close(rep[0]);
        free(w);
        snprintf(err, n, "%s: variant '%s': cannot start its worker: fork: %s", library, v->name,
                 strerror(fork_errno));
        return -1;
    }
    setpgid(pid, pid);
    w->pid = pid;
    w->req_w = req[1];
    w->rep_r = rep[0];
    *out = w;
    return 0;
}

int ab_pw_setup(ab_plugin_worker *w, size_t *ws, char *err, size_t n)
{
    request rq = {OP_SETUP, 0, 0};
    reply rp;
    if (transact(w, &rq, &rp, "setup", ab_now_s() + w->deadline_s, err, n))
        return -1;
    *ws = rp.ws;
    if (rp.rc) {
        snprintf(err, n, "%s", rp.err);
        return rp.rc == AB_SETUP_UNSUPPORTED ? AB_SETUP_UNSUPPORTED : 1;
    }
    return 0;
}

int ab_pw_run(ab_plugin_worker *w, size_t count, double *ms, float *o, char *err, size_t n)
{
    request rq = {OP_RUN, o != NULL, count};
    reply rp;
    /* the deadline is per call: count calls get count times as long */
    const double deadline = ab_now_s() + w->deadline_s * (double)(count ? count : 1);
    if (transact(w, &rq, &rp, "run", deadline, err, n))
        return -1;
    if (rp.rc == 2) {
        snprintf(err, n, "%s: %s", w->who, rp.err);
        end_worker(w, NULL);
        return -1;
    }
    if (rp.rc) {
        snprintf(err, n, "%s: %s", w->who, rp.err);
        return 1;
    }
    double *tmp = ms ? ms : malloc(count * sizeof *tmp);
    int r = tmp ? read_reply(w, tmp, count * sizeof *tmp, deadline) : -1;
    if (tmp != ms)
        free(tmp);
    if (r == 0 && o)
        r = read_reply(w, o, w->numel * sizeof *o, deadline);
    if (r)
        return worker_failed(w, "run", r == -2, err, n);
    return 0;
}

void ab_pw_stop(ab_plugin_worker *w)
{
    if (!w)
        return;
    if (!w->dead) {
        request rq = {OP_TEARDOWN, 0, 0};
        reply rp;
        char err[64];
        transact(w, &rq, &rp, "teardown", ab_now_s() + w->deadline_s, err, sizeof err);
    }
    end_worker(w, NULL);
    free(w);
}
