/*
 * external.c: running an external variant (external.h) and reading back its
 * protocol-1 output (adapters/PROTOCOL.md).
 *
 * The adapter runs as `/bin/sh -c COMMAND` in a new process group, with the
 * caller's environment minus any inherited ATTNBENCH_* variables plus the
 * configuration's, stdin from /dev/null and stdout/stderr on two pipes read
 * with poll() until both reach end-of-file and the child has exited, or the
 * timeout passes (then SIGTERM to the group, SIGKILL half a second later).
 * Leftover members of the group are killed once the child has exited, so no
 * adapter outlives its measurement. The child is started and killed by
 * src/core/proc.c (ab_proc_spawn, ab_proc_end); this file builds its
 * environment and speaks the protocol. Parsing is strict: every stdout
 * line must be a protocol line, a comment (#...) or blank.
 */
#include "external.h"
#include "variant.h"

#include "proc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- small helpers -------------------------------------------------------------- */

typedef struct gbuf {
    char *p;
    size_t n, cap;
} gbuf;

static int gbuf_add(gbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p)
            return -1;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
    return 0;
}

/* stderr: keep only the tail, trimming whenever the buffer passes 8x the keep. */
static void tail_add(gbuf *b, const char *s, size_t n)
{
    if (n > AB_EXT_STDERR_KEEP) {
        s += n - AB_EXT_STDERR_KEEP;
        n = AB_EXT_STDERR_KEEP;
    }
    if (gbuf_add(b, s, n) != 0)
        return;
    if (b->n > 8 * AB_EXT_STDERR_KEEP) {
        memmove(b->p, b->p + b->n - AB_EXT_STDERR_KEEP, AB_EXT_STDERR_KEEP);
        b->n = AB_EXT_STDERR_KEEP;
        b->p[b->n] = '\0';
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

static const char *vname(const ab_ext_request *rq)
{
    return rq->name && *rq->name ? rq->name : (rq->command ? rq->command : "(null)");
}

static void set_error(ab_ext_result *out, const ab_ext_request *rq, const char *fmt, ...)
{
    int k = snprintf(out->error, sizeof out->error, "external variant %s: ", vname(rq));
    if (k < 0 || (size_t)k >= sizeof out->error)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->error + k, sizeof out->error - (size_t)k, fmt, ap);
    va_end(ap);
}

/* Appends "; stderr: 'LAST LINE'" (the last non-blank stderr line) to the error. */
static void append_stderr_hint(ab_ext_result *out)
{
    const char *t = out->stderr_text;
    if (!t)
        return;
    size_t end = strlen(t);
    while (end > 0 && isspace((unsigned char)t[end - 1]))
        end--;
    if (end == 0)
        return;
    size_t start = end;
    while (start > 0 && t[start - 1] != '\n')
        start--;
    size_t len = end - start, used = strlen(out->error);
    if (len > 200)
        len = 200;
    if (used + 16 < sizeof out->error)
        snprintf(out->error + used, sizeof out->error - used, "; stderr: '%.*s'", (int)len,
                 t + start);
}

/* ---- the child process --------------------------------------------------------- */

const char *const ab_ext_thread_vars[] = {"OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                          "OPENBLAS_NUM_THREADS", "ATTNBENCH_THREADS", NULL};

int ab_ext_is_thread_var(const char *e)
{
    for (const char *const *v = ab_ext_thread_vars; *v; v++) {
        size_t n = strlen(*v);
        if (strncmp(e, *v, n) == 0 && e[n] == '=')
            return 1;
    }
    return 0;
}

/* The child's environment: the caller's minus ATTNBENCH_* (and, when the
 * experiment sets threads, minus the thread variables), plus the
 * configuration. Returns a NULL-terminated array whose strings are all
 * malloc'd, or NULL. */
static char **build_env(const ab_ext_request *rq)
{
    size_t n_env = 0;
    for (char **e = environ; e && *e; e++)
        n_env++;
    enum { N_OURS = 28 }; /* the variables below: 20, and 4 thread variables */
    char **env = calloc(n_env + N_OURS + 1, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    int fail = 0;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "ATTNBENCH_", 10) == 0 || (rq->threads > 0 && ab_ext_is_thread_var(*e)))
            continue;
        if (!(env[k++] = xstrdup(*e)))
            fail = 1;
    }
    char tmp[64];
    const struct {
        const char *key;
        const char *val;
    } kv[] = {
        {"ATTNBENCH_PROTOCOL", "1"},
        {"ATTNBENCH_VARIANT", vname(rq)},
        {"ATTNBENCH_DTYPE", rq->dtype},
        {"ATTNBENCH_TIMING", rq->timing_mode},
    };
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) {
        size_t len = strlen(kv[i].key) + strlen(kv[i].val) + 2;
        char *s = malloc(len);
        if (!s) {
            fail = 1;
            continue;
        }
        snprintf(s, len, "%s=%s", kv[i].key, kv[i].val);
        env[k++] = s;
    }
    const struct {
        const char *key;
        long val;
    } iv[] = {
        {"ATTNBENCH_B", rq->B},           {"ATTNBENCH_H", rq->H},
        {"ATTNBENCH_S", rq->S},           {"ATTNBENCH_D", rq->D},
        {"ATTNBENCH_CAUSAL", rq->causal ? 1 : 0},
        {"ATTNBENCH_WARMUP", rq->warmup}, {"ATTNBENCH_SAMPLES", rq->samples},
        {"ATTNBENCH_GRAPH_K", rq->graph_k},
        {"ATTNBENCH_H_KV", rq->H_kv > 0 ? rq->H_kv : rq->H},
        {"ATTNBENCH_S_KV", rq->S_kv > 0 ? rq->S_kv : rq->S},
    };
    for (size_t i = 0; i < sizeof iv / sizeof iv[0]; i++) {
        snprintf(tmp, sizeof tmp, "%s=%ld", iv[i].key, iv[i].val);
        if (!(env[k++] = xstrdup(tmp)))
            fail = 1;
    }
    snprintf(tmp, sizeof tmp, "ATTNBENCH_PASS=%s", rq->pass ? rq->pass : "fwd");
    if (!(env[k++] = xstrdup(tmp)))
        fail = 1;
    snprintf(tmp, sizeof tmp, "ATTNBENCH_SEED=%lu", rq->seed);
    if (!(env[k++] = xstrdup(tmp)))
        fail = 1;
    snprintf(tmp, sizeof tmp, "ATTNBENCH_TIMEOUT_S=%g", rq->timeout_s);
    if (!(env[k++] = xstrdup(tmp)))
        fail = 1;
    for (const char *const *t = ab_ext_thread_vars; rq->threads > 0 && *t; t++) {
        snprintf(tmp, sizeof tmp, "%s=%d", *t, rq->threads);
        if (!(env[k++] = xstrdup(tmp)))
            fail = 1;
    }
    if (rq->output_path) {
        size_t len = strlen(rq->output_path) + sizeof "ATTNBENCH_OUTPUT=";
        char *o = malloc(len);
        if (o)
            snprintf(o, len, "ATTNBENCH_OUTPUT=%s", rq->output_path);
        else
            fail = 1;
        env[k++] = o;
    }
    env[k] = NULL;
    if (fail) {
        for (size_t i = 0; i < k; i++)
            free(env[i]);
        free(env);
        return NULL;
    }
    return env;
}

static void free_env(char **env)
{
    if (!env)
        return;
    for (char **e = env; *e; e++)
        free(*e);
    free(env);
}

/* Reads what is available on fd into b (stdout) or the stderr tail.
 * Returns 1 at end-of-file or a hard error, 0 otherwise. */
static int drain(int fd, gbuf *b, int is_err, int *overflow)
{
    char chunk[65536];
    for (;;) {
        ssize_t r = read(fd, chunk, sizeof chunk);
        if (r > 0) {
            if (is_err)
                tail_add(b, chunk, (size_t)r);
            else if (b->n + (size_t)r > AB_EXT_STDOUT_MAX || gbuf_add(b, chunk, (size_t)r) != 0)
                *overflow = 1; /* keep draining so the child never blocks */
            continue;
        }
        if (r == 0)
            return 1;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        return 1;
    }
}

/* ---- parsing the protocol ------------------------------------------------------- */

/* Whole-token double. */
static int parse_double(const char *s, double *v)
{
    if (!*s)
        return -1;
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return *end == '\0' && end != s ? 0 : -1;
}

static int parse_long(const char *s, long *v)
{
    if (!*s)
        return -1;
    char *end;
    errno = 0;
    *v = strtol(s, &end, 10);
    return *end == '\0' && errno == 0 ? 0 : -1;
}

/* Parses the figures after "check ". Returns 0, or -1 with the reason in why. */
static int parse_check(char *rest, ab_ext_result *out, char *why, size_t wn)
{
    enum { K_MAX, K_MEAN, K_REL, K_PLAIN, K_NONF, K_ATOL, K_ROWS, K_OUT, K_PEAK, K_N };
    static const char *const keys[K_N] = {"max_abs_err", "mean_abs_err", "rel_l2_err",
                                          "plain_max_abs_err", "nonfinite", "atol",
                                          "rows_checked", "output", "peak_bytes"};
    int seen[K_N] = {0};
    char *save = NULL;
    for (char *tok = strtok_r(rest, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            snprintf(why, wn, "'%.60s' is not key=value", tok);
            return -1;
        }
        *eq = '\0';
        const char *val = eq + 1;
        int k = 0;
        while (k < K_N && strcmp(tok, keys[k]) != 0)
            k++;
        if (k == K_N) {
            snprintf(why, wn, "unknown key '%.60s'", tok);
            return -1;
        }
        if (seen[k]++) {
            snprintf(why, wn, "key '%s' given twice", keys[k]);
            return -1;
        }
        if (k == K_OUT) { /* the adapter's O for attnbench's own check (ext_output.h) */
            if (val[0] != '/' || strlen(val) >= 4096) {
                snprintf(why, wn, "output='%.60s' is not an absolute path", val);
                return -1;
            }
            free(out->output_path);
            out->output_path = strdup(val);
            if (!out->output_path) {
                snprintf(why, wn, "out of memory");
                return -1;
            }
            continue;
        }
        if (k == K_PEAK) { /* optional: device bytes the pass needed */
            double d;
            if (parse_double(val, &d) != 0 || !isfinite(d) || d < 0) {
                snprintf(why, wn, "peak_bytes='%.60s' is not a finite non-negative number", val);
                return -1;
            }
            out->peak_bytes = d;
            continue;
        }
        if (k == K_NONF || k == K_ROWS) {
            long l;
            if (parse_long(val, &l) != 0 || l < 0) {
                snprintf(why, wn, "%s='%.60s' is not a non-negative integer", keys[k], val);
                return -1;
            }
            if (k == K_NONF)
                out->nonfinite = l;
            else
                out->rows_checked = l;
            continue;
        }
        double d;
        /* errors of the variant may be inf or NaN (bad output: the verdict
         * fails it); the reference's own error and atol must be finite */
        int ok = parse_double(val, &d) == 0 && !(d < 0);
        if (ok && (k == K_PLAIN || k == K_ATOL))
            ok = isfinite(d);
        if (!ok) {
            snprintf(why, wn, "%s='%.60s' is not a %s number", keys[k], val,
                     (k == K_PLAIN || k == K_ATOL) ? "finite non-negative" : "non-negative");
            return -1;
        }
        switch (k) {
        case K_MAX: out->max_abs_err = d; break;
        case K_MEAN: out->mean_abs_err = d; break;
        case K_REL: out->rel_l2_err = d; break;
        case K_PLAIN: out->plain_max_abs_err = d; break;
        default: out->atol = d; break;
        }
    }
    for (int k = 0; k <= K_NONF && !seen[K_OUT]; k++)
        if (!seen[k]) {
            snprintf(why, wn, "missing %s", keys[k]);
            return -1;
        }
    return 0;
}

/* The message of the first `error` line of stdout (malloc'd), or NULL. */
static char *find_adapter_error(const char *text)
{
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        while (len > 0 && (*p == ' ' || *p == '\t')) {
            p++;
            len--;
        }
        if (len >= 5 && strncmp(p, "error", 5) == 0 && (len == 5 || p[5] == ' ' || p[5] == '\t')) {
            const char *m = p + 5;
            size_t ml = len - 5;
            while (ml > 0 && (*m == ' ' || *m == '\t')) {
                m++;
                ml--;
            }
            while (ml > 0 && isspace((unsigned char)m[ml - 1]))
                ml--;
            if (ml == 0) {
                m = "(no message)";
                ml = strlen(m);
            }
            if (ml > 300)
                ml = 300;
            char *r = malloc(ml + 1);
            if (r) {
                memcpy(r, m, ml);
                r[ml] = '\0';
            }
            return r;
        }
        p = nl ? nl + 1 : NULL;
    }
    return NULL;
}

/* Parses the adapter's stdout (find_adapter_error found no error line).
 * Returns 0, or -1 with out->error set naming the first offending line. */
static int parse_stdout(const ab_ext_request *rq, char *text, ab_ext_result *out)
{
    size_t nsamp = 0;
    int have_check = 0, have_env = 0, lineno = 0;
    char why[256];
    char *p = text;
    while (p && *p) {
        char *line = p;
        char *nl = strchr(p, '\n');
        if (nl) {
            *nl = '\0';
            p = nl + 1;
        } else {
            p = NULL;
        }
        lineno++;
        size_t len = strlen(line);
        while (len > 0 && isspace((unsigned char)line[len - 1]))
            line[--len] = '\0';
        while (*line == ' ' || *line == '\t')
            line++;
        if (*line == '\0' || *line == '#')
            continue;
        char *rest = line;
        while (*rest && !isspace((unsigned char)*rest))
            rest++;
        if (*rest) {
            *rest++ = '\0';
            while (*rest == ' ' || *rest == '\t')
                rest++;
        }
        if (strcmp(line, "sample") == 0) {
            double v;
            if (ab_ext_parse_sample(rest, &v)) {
                set_error(out, rq, "sample line %d: '%.60s' is not a latency in ms (> 0, at most a day)",
                          lineno, rest);
                return -1;
            }
            if (nsamp < (size_t)rq->samples)
                out->ms[nsamp] = v;
            nsamp++;
        } else if (strcmp(line, "check") == 0) {
            if (have_check++) {
                set_error(out, rq, "check line %d: a second check line", lineno);
                return -1;
            }
            if (parse_check(rest, out, why, sizeof why) != 0) {
                set_error(out, rq, "check line %d: %s", lineno, why);
                return -1;
            }
        } else if (strcmp(line, "env") == 0) {
            if (have_env++) {
                set_error(out, rq, "env line %d: a second env line", lineno);
                return -1;
            }
            char *s = NULL;
            if (ab_ext_parse_env(rest, &s, why, sizeof why)) {
                set_error(out, rq, "env line %d: %s", lineno, why);
                return -1;
            }
            free(out->env_json);
            out->env_json = s;
        } else {
            set_error(out, rq,
                      "stdout line %d: unrecognised line '%.60s%s%.40s' (protocol %d knows "
                      "sample, check, env, error and # comments; diagnostics belong on stderr)",
                      lineno, line, *rest ? " " : "", rest, AB_EXT_PROTOCOL);
            return -1;
        }
    }
    if (nsamp != (size_t)rq->samples) {
        set_error(out, rq, "%zu sample lines, expected %d", nsamp, rq->samples);
        return -1;
    }
    if (!have_check) {
        set_error(out, rq, "no check line (correctness figures are required)");
        return -1;
    }
    out->n = nsamp;
    return 0;
}

/* ---- the public entry points ---------------------------------------------------- */

int ab_ext_parse_check(char *rest, ab_ext_result *out, char *why, size_t wn)
{
    return parse_check(rest, out, why, wn);
}

int ab_ext_parse_env(const char *rest, char **json_out, char *why, size_t wn)
{
    json_error_t je;
    *json_out = NULL;
    json_t *j = json_loads(rest, 0, &je);
    if (!j) {
        snprintf(why, wn, "invalid JSON: %s (column %d)", je.text, je.column);
        return -1;
    }
    if (!json_is_object(j)) {
        json_decref(j);
        snprintf(why, wn, "not a JSON object");
        return -1;
    }
    *json_out = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(j);
    if (!*json_out) {
        snprintf(why, wn, "out of memory");
        return -1;
    }
    return 0;
}

int ab_ext_parse_sample(const char *rest, double *ms)
{
    return parse_double(rest, ms) == 0 && isfinite(*ms) && *ms > 0 && *ms <= AB_SAMPLE_MAX_MS
               ? 0
               : -1;
}

void ab_ext_result_free(ab_ext_result *r)
{
    if (!r)
        return;
    free(r->ms);
    free(r->env_json);
    free(r->stderr_text);
    free(r->output_path);
    memset(r, 0, sizeof *r);
}

int ab_ext_measure(const ab_ext_request *rq, ab_ext_result *out)
{
    memset(out, 0, sizeof *out);
    out->exit_status = -1;
    out->atol = NAN;
    out->rows_checked = -1;
    out->env_json = xstrdup("{}");
    out->stderr_text = xstrdup("");
    if (!out->env_json || !out->stderr_text) {
        set_error(out, rq, "out of memory");
        return -1;
    }
    if (!rq->command || !*rq->command) {
        set_error(out, rq, "empty command");
        return -1;
    }
    if (rq->samples < 1 || rq->B < 1 || rq->H < 1 || rq->S < 1 || rq->D < 1 ||
        !(rq->timeout_s > 0) || !rq->dtype || !rq->timing_mode) {
        set_error(out, rq, "invalid request (samples, B, H, S, D >= 1, timeout > 0, dtype and "
                           "timing mode required)");
        return -1;
    }
    if (rq->workdir && *rq->workdir) {
        struct stat st;
        if (stat(rq->workdir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            set_error(out, rq, "workdir '%s' is not a directory", rq->workdir);
            return -1;
        }
    }
    out->ms = malloc(sizeof(double) * (size_t)rq->samples);
    char **env = build_env(rq);
    if (!out->ms || !env) {
        free_env(env);
        set_error(out, rq, "out of memory");
        return -1;
    }

    const double t0 = now_s(), deadline = t0 + rq->timeout_s;
    const char *const argv[] = {"/bin/sh", "-c", rq->command, NULL};
    ab_proc_spec spec = {argv, env, rq->workdir, AB_PROC_NULL, AB_PROC_PIPE, AB_PROC_PIPE};
    ab_child ch;
    char why[200];
    int spawned = ab_proc_spawn(&spec, &ch, why, sizeof why);
    free_env(env);
    if (spawned) {
        set_error(out, rq, "cannot start /bin/sh: %s", why);
        return -1;
    }
    const pid_t pid = ch.pid;
    int po[2] = {ch.out, -1}, pe[2] = {ch.err, -1};

    gbuf sout = {0}, serr = {0};
    int out_open = 1, err_open = 1, overflow = 0, exited = 0;
    double exited_at = 0;
    for (;;) {
        if (!exited && ab_proc_exited(pid)) {
            exited = 1;
            exited_at = now_s();
        }
        if (exited && !out_open && !err_open)
            break;
        double t = now_s();
        if (t >= deadline) {
            if (!exited)
                out->timed_out = 1;
            break;
        }
        /* the child is gone but something it started still holds the pipes:
         * give it 2 s, then stop reading (the group is killed below) */
        if (exited && t - exited_at > 2.0)
            break;
        struct pollfd fds[2];
        nfds_t nf = 0;
        if (out_open)
            fds[nf++] = (struct pollfd){.fd = po[0], .events = POLLIN};
        if (err_open)
            fds[nf++] = (struct pollfd){.fd = pe[0], .events = POLLIN};
        int wait_ms = (int)((deadline - t) * 1000.0) + 1;
        if (wait_ms > 50)
            wait_ms = 50; /* also notice the child's exit while pipes stay open */
        if (nf == 0) {
            sleep_ms(wait_ms < 5 ? wait_ms : 5);
            continue;
        }
        int r = poll(fds, nf, wait_ms);
        if (r < 0 && errno != EINTR) {
            set_error(out, rq, "poll: %s", strerror(errno));
            out->timed_out = 0;
            break;
        }
        if (out_open && drain(po[0], &sout, 0, &overflow))
            out_open = 0;
        if (err_open && drain(pe[0], &serr, 1, &overflow))
            err_open = 0;
    }

    /* timed out (or poll failed): SIGTERM the group, SIGKILL after 0.5 s; in
     * any case no member of the group outlives the measurement */
    int status = 0;
    const int reaped = ab_proc_end(pid, 0.5, 2.0, &status);
    out->wall_s = now_s() - t0;
    if (out_open)
        drain(po[0], &sout, 0, &overflow);
    if (err_open)
        drain(pe[0], &serr, 1, &overflow);
    close(po[0]);
    close(pe[0]);

    /* the stderr tail, starting at a line or at least a UTF-8 character */
    if (serr.n) {
        const char *s = serr.p;
        size_t n = serr.n;
        if (n > AB_EXT_STDERR_KEEP) {
            s += n - AB_EXT_STDERR_KEEP;
            n = AB_EXT_STDERR_KEEP;
            while (n > 0 && ((unsigned char)*s & 0xC0) == 0x80) {
                s++;
                n--;
            }
        }
        char *t = malloc(n + 1);
        if (t) {
            memcpy(t, s, n);
            t[n] = '\0';
            free(out->stderr_text);
            out->stderr_text = t;
        }
    }
    free(serr.p);

    if (reaped) {
        if (WIFEXITED(status))
            out->exit_status = WEXITSTATUS(status);
        else if (WIFSIGNALED(status))
            out->exit_status = 128 + WTERMSIG(status);
    }

    int rc = -1;
    char *adapter_error = NULL;
    if (out->error[0]) {
        /* poll failure, already described */
    } else if (out->timed_out) {
        set_error(out, rq, "timed out after %.1f s; process group killed", rq->timeout_s);
        append_stderr_hint(out);
    } else if (!reaped) {
        set_error(out, rq, "could not reap the adapter process %ld", (long)pid);
    } else if (overflow) {
        set_error(out, rq, "more than %u MiB on stdout", AB_EXT_STDOUT_MAX >> 20);
    } else if ((adapter_error = find_adapter_error(sout.p))) {
        if (out->exit_status != 0)
            set_error(out, rq, "adapter reported: %s (exit status %d)", adapter_error,
                      out->exit_status);
        else
            set_error(out, rq, "adapter reported: %s", adapter_error);
    } else if (WIFSIGNALED(status)) {
        set_error(out, rq, "killed by signal %d (%s)", WTERMSIG(status),
                  strsignal(WTERMSIG(status)));
        append_stderr_hint(out);
    } else if (out->exit_status > 128 && out->exit_status < 128 + 65) {
        /* /bin/sh -c reports a command killed by signal N as status 128 + N */
        set_error(out, rq, "exited with status %d (signal %d: %s)", out->exit_status,
                  out->exit_status - 128, strsignal(out->exit_status - 128));
        append_stderr_hint(out);
    } else if (out->exit_status != 0) {
        set_error(out, rq, "exited with status %d%s", out->exit_status,
                  out->exit_status == 127   ? " (command not found?)"
                  : out->exit_status == 126 ? " (cannot execute?)"
                                            : "");
        append_stderr_hint(out);
    } else if (sout.p && strlen(sout.p) != sout.n) {
        set_error(out, rq, "stdout holds a NUL byte at offset %zu (the protocol is text lines)",
                  strlen(sout.p));
    } else if (parse_stdout(rq, sout.p ? sout.p : (char *)"", out) == 0) {
        rc = 0;
    }
    free(adapter_error);
    free(sout.p);
    if (rc != 0) {
        free(out->ms); /* partial samples are never stored */
        out->ms = NULL;
        out->n = 0;
    }
    return rc;
}
