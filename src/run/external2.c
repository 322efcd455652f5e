/*
 * external2.c: the protocol-2 conversation with a persistent adapter
 * (external2.h, adapters/PROTOCOL.md "Protocol 2").
 *
 * The child runs as in protocol 1 (src/run/external.c), started and killed
 * by src/core/proc.c: /bin/sh -c COMMAND in a process group of its own, the caller's environment minus ATTNBENCH_*,
 * but with its stdin on a pipe. Requests are single lines written to that
 * pipe; answers are read line by line from stdout with poll(), stderr
 * drained at the same time into a bounded tail so the child never blocks on
 * it. Every request has a deadline (timeout_s); on a timeout, a protocol
 * violation or an early exit the whole group is killed (SIGTERM, then
 * SIGKILL half a second later) and the handle is dead.
 */
#include "external2.h"

#include "ext_ipc.h"
#include "ext_keep.h"
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct ab_ext2 {
    char name[128];
    pid_t pid;
    int in_w, out_r, err_r; /* -1 when closed */
    double timeout_s, t_start;
    int dead;
    char *line;             /* stdout bytes not yet consumed */
    char *handed;           /* the last line next_line returned */
    size_t nline, capline;
    char errtail[AB_EXT_STDERR_KEEP + 1];
    size_t nerr;
    /* device buffers (ext_ipc.h): offered ATTNBENCH_IPC=1, what its hello
     * said, and whether the line read while waiting for the hello was
     * something else, left in `handed` for the first answer */
    int offer_ipc;
    ab_ext_hello hello;
    int replay;
    /* a config request sent and not yet answered (ab_ext2_config_send):
     * its deadline and whether it carried ipc= */
    int pending, pending_ipc;
    double pending_deadline;
    /* kept adapters (ext_keep.h): offered (keep_s > 0), and this one
     * handed the run instead of started (foreign: pid is not a child) */
    double keep_s;
    int foreign;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void err_tail_add(ab_ext2 *p, const char *s, size_t n)
{
    if (n >= AB_EXT_STDERR_KEEP) {
        memcpy(p->errtail, s + n - AB_EXT_STDERR_KEEP, AB_EXT_STDERR_KEEP);
        p->nerr = AB_EXT_STDERR_KEEP;
    } else {
        if (p->nerr + n > AB_EXT_STDERR_KEEP) {
            size_t drop = p->nerr + n - AB_EXT_STDERR_KEEP;
            memmove(p->errtail, p->errtail + drop, p->nerr - drop);
            p->nerr -= drop;
        }
        memcpy(p->errtail + p->nerr, s, n);
        p->nerr += n;
    }
    p->errtail[p->nerr] = '\0';
}

/* SIGTERM to the group, SIGKILL half a second later (proc.h) */
static void kill_group(ab_ext2 *p)
{
    if (p->pid <= 0)
        return;
    if (p->foreign) { /* a kept adapter: not a child, nothing to reap */
        const pid_t g = getpgid(p->pid);
        if (g > 1 && g != getpgrp())
            kill(-g, SIGKILL);
        kill(p->pid, SIGKILL);
    } else
        ab_proc_end(p->pid, 0.5, -1, NULL);
    p->pid = -1;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static void die(ab_ext2 *p)
{
    close_fd(&p->in_w);
    kill_group(p);
    close_fd(&p->out_r);
    close_fd(&p->err_r);
    p->dead = 1;
}

/* Sets err to "external variant NAME: WHY[; stderr: 'LAST LINE']" and kills p. */
static int fail(ab_ext2 *p, char *err, size_t n, const char *why)
{
    char last[200] = "";
    const char *e = p->errtail + p->nerr;
    while (e > p->errtail && (e[-1] == '\n' || e[-1] == ' '))
        e--;
    const char *b = e;
    while (b > p->errtail && b[-1] != '\n')
        b--;
    if (e > b)
        snprintf(last, sizeof last, "; stderr: '%.*s'", (int)(e - b > 150 ? 150 : e - b), b);
    snprintf(err, n, "external variant %s: %s%s", p->name, why, last);
    die(p);
    return -1;
}

/* Reads what poll found ready on the adapter's stdout (into the line
 * buffer) and stderr (into the tail); fds as set up by the callers: [0]
 * stdout, [1] stderr when nf == 2. Returns 0, or -1 with why. */
static int pump(ab_ext2 *p, const struct pollfd *fds, int nf, char *why, size_t wn)
{
    char chunk[65536];
    if (nf == 2 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
        ssize_t k = read(p->err_r, chunk, sizeof chunk);
        if (k > 0)
            err_tail_add(p, chunk, (size_t)k);
        else if (k == 0 || (errno != EINTR && errno != EAGAIN))
            close_fd(&p->err_r);
    }
    if (p->out_r >= 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
        ssize_t k = read(p->out_r, chunk, sizeof chunk);
        if (k > 0) {
            if (p->nline + (size_t)k > AB_EXT_STDOUT_MAX) {
                snprintf(why, wn, "more than %u bytes on stdout without a newline",
                         AB_EXT_STDOUT_MAX);
                return -1;
            }
            if (p->nline + (size_t)k > p->capline) {
                size_t cap = p->capline ? p->capline : 4096;
                while (cap < p->nline + (size_t)k)
                    cap *= 2;
                char *q = realloc(p->line, cap);
                if (!q) {
                    snprintf(why, wn, "out of memory");
                    return -1;
                }
                p->line = q;
                p->capline = cap;
            }
            memcpy(p->line + p->nline, chunk, (size_t)k);
            p->nline += (size_t)k;
        } else if (k == 0 || (errno != EINTR && errno != EAGAIN)) {
            close_fd(&p->out_r);
        }
    }
    return 0;
}

/* Reads the next stdout line (without its newline and trailing blanks)
 * into *line (valid until the next call), draining stderr meanwhile.
 * Returns 0, or -1 with why (end of output, timeout, a NUL byte in the
 * line: the protocol is text, as in protocol 1). */
/* The end of the first complete line waiting in p's stdout buffer, or NULL. */
static char *buffered_line(const ab_ext2 *p)
{
    return p->nline ? memchr(p->line, '\n', p->nline) : NULL;
}

static int next_line(ab_ext2 *p, double deadline, char **line, char *why, size_t wn)
{
    for (;;) {
        char *nl = buffered_line(p);
        if (nl) {
            /* hand out the line (valid until the next call) */
            size_t len = (size_t)(nl - p->line);
            free(p->handed);
            p->handed = malloc(len + 1);
            if (!p->handed) {
                snprintf(why, wn, "out of memory");
                return -1;
            }
            memcpy(p->handed, p->line, len);
            p->handed[len] = '\0';
            memmove(p->line, nl + 1, p->nline - len - 1);
            p->nline -= len + 1;
            if (strlen(p->handed) != len) {
                snprintf(why, wn, "a stdout line holds a NUL byte at column %zu (the protocol "
                         "is text lines)", strlen(p->handed) + 1);
                return -1;
            }
            while (len > 0 && (p->handed[len - 1] == '\r' || p->handed[len - 1] == ' ' ||
                               p->handed[len - 1] == '\t'))
                p->handed[--len] = '\0';
            *line = p->handed;
            return 0;
        }
        if (p->out_r < 0) {
            snprintf(why, wn, "the adapter closed its stdout (exited?)");
            return -1;
        }
        double left = deadline - now_s();
        if (left <= 0) {
            snprintf(why, wn, "timed out after %g s; process group killed", p->timeout_s);
            return -1;
        }
        struct pollfd fds[2] = {{p->out_r, POLLIN, 0}, {p->err_r, POLLIN, 0}};
        int nf = p->err_r >= 0 ? 2 : 1;
        int r = poll(fds, (nfds_t)nf, (int)(left * 1000) + 1);
        if (r < 0 && errno != EINTR) {
            snprintf(why, wn, "poll: %s", strerror(errno));
            return -1;
        }
        if (r > 0 && pump(p, fds, nf, why, wn))
            return -1;
    }
}

/* Writes a request line before `deadline` (its stdin is non-blocking:
 * an adapter that stops reading fails this request when the deadline
 * passes instead of blocking attnbench in write() forever; its stdout and
 * stderr are read meanwhile, so one that is itself blocked writing cannot
 * deadlock with us). SIGPIPE is blocked around the write (a dead adapter
 * must fail its measurement with EPIPE, not stop the run the way a closed
 * terminal does) and a SIGPIPE it raised is consumed. */
static int send_line(ab_ext2 *p, const char *text, double deadline, char *why, size_t wn)
{
    size_t n = strlen(text), off = 0;
    int rc = 0;
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    while (off < n && p->in_w >= 0) {
        ssize_t w = write(p->in_w, text + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            double left = deadline - now_s();
            if (left <= 0) {
                snprintf(why, wn, "timed out after %g s writing a request (the adapter stopped "
                         "reading its stdin); process group killed", p->timeout_s);
                rc = -1;
                break;
            }
            struct pollfd fds[3] = {{p->out_r, POLLIN, 0}, {p->err_r, POLLIN, 0},
                                    {p->in_w, POLLOUT, 0}};
            int r = poll(fds, 3, (int)(left * 1000) + 1); /* fd -1 is skipped by poll */
            if (r < 0 && errno != EINTR) {
                snprintf(why, wn, "poll: %s", strerror(errno));
                rc = -1;
                break;
            }
            if (r > 0 && pump(p, fds, p->err_r >= 0 ? 2 : 1, why, wn)) {
                rc = -1;
                break;
            }
            continue;
        }
        if (w <= 0) {
            snprintf(why, wn, "cannot write to the adapter's stdin: %s",
                     w < 0 ? strerror(errno) : "closed");
            rc = -1;
            break;
        }
        off += (size_t)w;
    }
    if (p->in_w < 0 && off < n) {
        snprintf(why, wn, "the adapter's stdin is closed");
        rc = -1;
    }
    struct timespec zero = {0, 0};
    while (sigtimedwait(&pipe_set, NULL, &zero) == SIGPIPE) {
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int ab_ext2_start(const char *name, const char *command, const char *workdir, double timeout_s,
                  const char *output_path, int offer_ipc, int threads, double keep_s,
                  ab_ext2 **out, char *err, size_t n)
{
    *out = NULL;
    ab_ext2 *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, n, "external variant %s: out of memory", name);
        return -1;
    }
    snprintf(p->name, sizeof p->name, "%s", name);
    p->timeout_s = timeout_s;
    p->in_w = p->out_r = p->err_r = -1;
    /* environment: the caller's minus ATTNBENCH_*, plus the protocol */
    size_t ne = 0;
    for (char **e = environ; e && *e; e++)
        ne++;
    char **env = calloc(ne + 12, sizeof *env), vbuf[160], *obuf = NULL, tbuf[4][64];
    char kpath[256] = "", kbuf[320];
    size_t k = 0;
    for (char **e = environ; env && e && *e; e++)
        if (strncmp(*e, "ATTNBENCH_", 10) != 0 && !(threads > 0 && ab_ext_is_thread_var(*e)))
            env[k++] = *e;
    snprintf(vbuf, sizeof vbuf, "ATTNBENCH_VARIANT=%s", name);
    if (env) {
        env[k++] = "ATTNBENCH_PROTOCOL=2";
        env[k++] = vbuf;
        env[k++] = "ATTNBENCH_HELLO=1"; /* capabilities (ext_ipc.h), offered to every adapter */
        if (offer_ipc)
            env[k++] = "ATTNBENCH_IPC=1";
        for (int t = 0; threads > 0 && t < 4 && ab_ext_thread_vars[t]; t++) {
            snprintf(tbuf[t], sizeof tbuf[t], "%s=%d", ab_ext_thread_vars[t], threads);
            env[k++] = tbuf[t];
        }
        if (output_path) {
            size_t len = strlen(output_path) + sizeof "ATTNBENCH_OUTPUT=";
            if ((obuf = malloc(len)) != NULL) {
                snprintf(obuf, len, "ATTNBENCH_OUTPUT=%s", output_path);
                env[k++] = obuf;
            }
        }
        env[k] = NULL;
    }
    if (!env) {
        snprintf(err, n, "external variant %s: out of memory", name);
        free(obuf);
        free(p);
        return -1;
    }
    ab_child ch;
    char why[200];
    int spawned = 0, handed = 0;
    if (keep_s > 0) { /* a kept adapter of an earlier run, else one that may stay (ext_keep.h) */
        if (ab_ext_keep_path(command, workdir, env, kpath, sizeof kpath, why, sizeof why) == 0) {
            snprintf(kbuf, sizeof kbuf, "ATTNBENCH_KEEP=%s:%g", kpath, keep_s);
            env[k++] = kbuf;
            env[k] = NULL;
            /* the run's own variables, as ab_ext_keep_run_var names them */
            char *run_env[4];
            size_t r = 0;
            for (size_t i = 0; i < k && r < 3; i++)
                if (ab_ext_keep_run_var(env[i]))
                    run_env[r++] = env[i];
            run_env[r] = NULL;
            handed = ab_ext_keep_connect(kpath, run_env, AB_EXT_KEEP_WAIT_S, &ch, why,
                                         sizeof why);
            if (handed < 0)
                fprintf(stderr, "  (%s: no kept adapter: %s)\n", name, why);
            p->keep_s = keep_s;
        } else
            fprintf(stderr, "  (%s: the adapter is not kept: %s)\n", name, why);
    }
    if (handed == 1)
        p->foreign = 1;
    else {
        const char *const argv[] = {"/bin/sh", "-c", command, NULL};
        ab_proc_spec spec = {argv, env, workdir, AB_PROC_PIPE, AB_PROC_PIPE, AB_PROC_PIPE};
        spawned = ab_proc_spawn(&spec, &ch, why, sizeof why);
    }
    free(env);
    free(obuf);
    if (spawned) {
        snprintf(err, n, "external variant %s: %s", name, why);
        free(p);
        return -1;
    }
    p->pid = ch.pid;
    p->in_w = ch.in;
    fcntl(p->in_w, F_SETFL, fcntl(p->in_w, F_GETFL) | O_NONBLOCK); /* send_line's deadline */
    p->out_r = ch.out;
    p->err_r = ch.err;
    p->t_start = now_s();
    p->offer_ipc = offer_ipc;
    *out = p;
    /* ---- wait a moment for the hello: capabilities, device buffers (ext_ipc.h) ---- */
    {
        char *line;
        const double wait = timeout_s < AB_EXT_HELLO_WAIT_S ? timeout_s : AB_EXT_HELLO_WAIT_S;
        if (next_line(p, now_s() + wait, &line, why, sizeof why) == 0) {
            if (!ab_ext_is_hello(line))
                p->replay = 1; /* an older adapter's first line: part of its first answer */
            else if (ab_ext_parse_hello(line + 5, &p->hello, why, sizeof why)) {
                char msg[300];
                snprintf(msg, sizeof msg, "hello line: %s", why);
                fail(p, err, n, msg);
                ab_ext2_stop(p);
                *out = NULL;
                return -1;
            } else if (!offer_ipc)
                p->hello.ipc = 0; /* buffers are shared only with an adapter offered them */
        } /* nothing yet (or it exited): the first request finds out */
    }
    return 0;
}

const ab_ext_hello *ab_ext2_hello(const ab_ext2 *p) { return &p->hello; }

static void set_err(ab_ext_result *out, const char *name, const char *fmt, const char *what)
{
    char buf[360]; /* with the name (< 128 bytes) within out->error's 512 */
    snprintf(buf, sizeof buf, fmt, what);
    snprintf(out->error, sizeof out->error, "external variant %.127s: %s", name, buf);
}

static void result_init(ab_ext_result *out)
{
    memset(out, 0, sizeof *out);
    out->atol = NAN;
    out->rows_checked = -1;
    out->exit_status = -1;
}

/* The request line `KEYWORD B=... graph_k=...` for rq (adapters/PROTOCOL.md,
 * Protocol 2), newline included, in req (n bytes): H_kv and S_kv only
 * when they differ from H and S, pass= only for a backward pass, ipc= only
 * to an adapter whose hello said ipc=1, so that older adapters see the
 * lines they always saw. */
static void format_request(const ab_ext2 *p, const char *keyword, const ab_ext_request *rq,
                           char *req, size_t n)
{
    char kv[64] = "";
    if ((rq->H_kv > 0 && rq->H_kv != rq->H) || (rq->S_kv > 0 && rq->S_kv != rq->S))
        snprintf(kv, sizeof kv, " H_kv=%d S_kv=%d", rq->H_kv > 0 ? rq->H_kv : rq->H,
                 rq->S_kv > 0 ? rq->S_kv : rq->S);
    char ps[24] = "";
    if (rq->pass && strcmp(rq->pass, "fwd") != 0)
        snprintf(ps, sizeof ps, " pass=%s", rq->pass);
    char ipc[700] = "";
    if (rq->ipc_path && p->hello.ipc)
        snprintf(ipc, sizeof ipc, " ipc=%.600s", rq->ipc_path);
    snprintf(req, n,
             "%s B=%d H=%d S=%d D=%d causal=%d dtype=%s warmup=%d seed=%lu timing=%s "
             "graph_k=%d%s%s%s\n",
             keyword, rq->B, rq->H, rq->S, rq->D, rq->causal ? 1 : 0, rq->dtype, rq->warmup,
             rq->seed, rq->timing_mode, rq->graph_k, kv, ps, ipc);
}

int ab_ext2_ahead(ab_ext2 *p, const ab_ext_request *rq, char *err, size_t n)
{
    char why[300], req[1100];
    if (p->dead || !p->hello.ahead || p->pending) {
        snprintf(err, n, "external variant %s: %s", p->name,
                 p->dead ? "the adapter process died earlier in this run"
                 : !p->hello.ahead ? "its hello did not say ahead=1"
                                   : "a configuration is unanswered");
        return -1;
    }
    ab_ext_request r = *rq;
    r.ipc_path = NULL; /* the shape only: no buffers exist for it yet */
    format_request(p, "ahead", &r, req, sizeof req);
    if (send_line(p, req, now_s() + p->timeout_s, why, sizeof why))
        return fail(p, err, n, why);
    return 0;
}

int ab_ext2_config_send(ab_ext2 *p, const ab_ext_request *rq, ab_ext_result *out)
{
    char why[400], req[1100];
    result_init(out);
    if (p->dead) {
        set_err(out, p->name, "%s", "the adapter process died earlier in this run");
        return -1;
    }
    if (p->pending) {
        set_err(out, p->name, "%s", "a configuration sent before this one was not answered");
        return -1;
    }
    format_request(p, "config", rq, req, sizeof req);
    const int ipc_sent = strstr(req, " ipc=") != NULL;
    const double deadline = now_s() + p->timeout_s;
    if (send_line(p, req, deadline, why, sizeof why)) {
        fail(p, out->error, sizeof out->error, why);
        return -1;
    }
    p->pending = 1;
    p->pending_ipc = ipc_sent;
    p->pending_deadline = deadline;
    return 0;
}

int ab_ext2_answer_ready(ab_ext2 *p)
{
    if (p->dead || p->replay || p->out_r < 0 || buffered_line(p))
        return 1;
    struct pollfd fds[2] = {{p->out_r, POLLIN, 0}, {p->err_r, POLLIN, 0}};
    const int nf = p->err_r >= 0 ? 2 : 1;
    char why[200];
    if (poll(fds, (nfds_t)nf, 0) > 0 && pump(p, fds, nf, why, sizeof why))
        return 1; /* the answer's reading will meet the same fault and say it */
    return p->out_r < 0 || buffered_line(p) != NULL;
}

int ab_ext2_config_answer(ab_ext2 *p, ab_ext_result *out)
{
    char why[400], *line;
    result_init(out);
    if (p->dead) {
        set_err(out, p->name, "%s", "the adapter process died earlier in this run");
        return -1;
    }
    if (!p->pending) {
        set_err(out, p->name, "%s", "no configuration was sent to answer");
        return -1;
    }
    p->pending = 0;
    const double deadline = p->pending_deadline;
    int checks = 0, envs = 0;
    for (int lineno = 1;; lineno++) {
        if (p->replay) { /* the line read while waiting for a hello */
            p->replay = 0;
            line = p->handed;
        } else if (next_line(p, deadline, &line, why, sizeof why)) {
            fail(p, out->error, sizeof out->error, why);
            return -1;
        }
        if (line[0] == '#' || line[0] == '\0')
            continue;
        /* ---- device buffers (ext_ipc.h) ---- */
        if (ab_ext_is_hello(line) && !p->hello.seen) {
            p->hello.seen = 1; /* came after the wait: this process works without IPC or
                                  declared capabilities */
            continue;
        }
        if (ab_ext_is_check_device(line) && checks++ == 0) {
            if (!p->pending_ipc) {
                fail(p, out->error, sizeof out->error,
                     "check device, but this configuration's request offered no ipc= buffers");
                return -1;
            }
            char cw[200];
            if (ab_ext_parse_check_device(line + 12, out, cw, sizeof cw)) {
                snprintf(why, sizeof why, "check line: %s", cw);
                fail(p, out->error, sizeof out->error, why);
                return -1;
            }
            continue;
        }
        if (strcmp(line, "ready") == 0)
            break;
        if (strncmp(line, "error ", 6) == 0) {
            snprintf(out->error, sizeof out->error, "external variant %s: adapter reported: %.300s",
                     p->name, line + 6);
            free(out->env_json);
            out->env_json = NULL;
            return 1;
        }
        if (strncmp(line, "check ", 6) == 0 && checks++ == 0) {
            char cw[200];
            if (ab_ext_parse_check(line + 6, out, cw, sizeof cw)) {
                snprintf(why, sizeof why, "check line: %s", cw);
                fail(p, out->error, sizeof out->error, why);
                return -1;
            }
            continue;
        }
        if (strncmp(line, "env ", 4) == 0 && envs++ == 0) {
            char ew[200];
            if (ab_ext_parse_env(line + 4, &out->env_json, ew, sizeof ew)) {
                snprintf(why, sizeof why, "env line: %s", ew);
                fail(p, out->error, sizeof out->error, why);
                return -1;
            }
            continue;
        }
        snprintf(why, sizeof why, "answer to config, line %d: unexpected '%.80s'", lineno, line);
        fail(p, out->error, sizeof out->error, why);
        return -1;
    }
    if (checks != 1) {
        fail(p, out->error, sizeof out->error, "no check line before ready");
        return -1;
    }
    if (!out->env_json)
        out->env_json = strdup("{}");
    out->stderr_text = ab_ext2_stderr(p);
    return 0;
}

int ab_ext2_config(ab_ext2 *p, const ab_ext_request *rq, ab_ext_result *out)
{
    int rc = ab_ext2_config_send(p, rq, out);
    return rc ? rc : ab_ext2_config_answer(p, out);
}

int ab_ext2_take(ab_ext2 *p, size_t k, double *ms, char *err, size_t n)
{
    char why[300], req[64], *line;
    if (p->dead) {
        snprintf(err, n, "external variant %s: the adapter process died earlier in this run",
                 p->name);
        return -1;
    }
    if (p->pending) {
        snprintf(err, n, "external variant %s: take before its configuration was answered",
                 p->name);
        return -1;
    }
    snprintf(req, sizeof req, "take %zu\n", k);
    const double deadline = now_s() + p->timeout_s;
    if (send_line(p, req, deadline, why, sizeof why))
        return fail(p, err, n, why);
    size_t got = 0;
    for (;;) {
        if (next_line(p, deadline, &line, why, sizeof why))
            return fail(p, err, n, why);
        if (line[0] == '#' || line[0] == '\0')
            continue;
        if (strcmp(line, "done") == 0)
            break;
        if (strncmp(line, "sample ", 7) == 0 && got < k) {
            double v;
            if (ab_ext_parse_sample(line + 7, &v)) {
                snprintf(why, sizeof why, "sample '%.60s' is not a latency in ms (> 0, at most a day)",
                         line + 7);
                return fail(p, err, n, why);
            }
            ms[got++] = v;
            continue;
        }
        snprintf(why, sizeof why, "answer to take %zu: unexpected '%.80s'", k, line);
        return fail(p, err, n, why);
    }
    if (got != k) {
        snprintf(why, sizeof why, "%zu sample lines, expected %zu", got, k);
        return fail(p, err, n, why);
    }
    return 0;
}

char *ab_ext2_stderr(const ab_ext2 *p) { return strdup(p->errtail); }

double ab_ext2_age_s(const ab_ext2 *p) { return now_s() - p->t_start; }

void ab_ext2_stop(ab_ext2 *p)
{
    if (!p)
        return;
    if (!p->dead) {
        char why[100];
        int kept = 0;
        send_line(p, "quit\n", now_s() + 2.0, why, sizeof why);
        if (p->keep_s > 0) { /* `kept`: it stays for the next run (ext_keep.h) */
            char *line;
            kept = next_line(p, now_s() + 2.0, &line, why, sizeof why) == 0 &&
                   strcmp(line, "kept") == 0;
        }
        close_fd(&p->in_w);
        if (kept) { /* left running, not reaped: init's once this process ends */
            fprintf(stderr,
                    "  %s: its adapter stays for the next run of this command, idle at most "
                    "%g s (attnbench adapters lists it, --stop ends it; --keep-adapters 0 keeps "
                    "none)\n",
                    p->name, p->keep_s);
            close_fd(&p->out_r);
            close_fd(&p->err_r);
            p->pid = -1;
            p->dead = 1;
        } else {
            /* up to 2 s to leave on its own; then (or at once) the group ends */
            for (int i = 0; i < 200 && p->pid > 0 && !ab_proc_exited(p->pid); i++) {
                struct timespec ts = {0, 10000000L};
                nanosleep(&ts, NULL);
            }
            die(p);
        }
    }
    free(p->line);
    free(p->handed);
    free(p);
}
