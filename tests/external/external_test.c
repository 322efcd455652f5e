/*
 * external_test.c: tests of src/run/external.c (external variants, protocol 1 of
 * adapters/PROTOCOL.md) against fake_adapter.sh, a plain-sh adapter whose
 * first argument picks a behaviour. Table-driven: each case names a mode,
 * whether the measurement must succeed, the exact error message expected
 * (after the "external variant NAME: " prefix, as a prefix match) and text
 * its kept stderr must contain. The success case checks every parsed figure
 * exactly and the configuration the adapter received; the hang cases check
 * the process group is killed within timeout + 1 s, the sleeping grandchild
 * included.
 * Usage: external_test PATH/TO/fake_adapter.sh
 */
#include "external.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int failures;

#define EXPECT(cond, ...)                                                                   \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            failures++;                                                                     \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                 \
            fprintf(stderr, __VA_ARGS__);                                                   \
            fputc('\n', stderr);                                                            \
        }                                                                                   \
    } while (0)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *adapter;
static char workdir[256];

static ab_ext_request request(const char *mode, char *cmd, size_t n, char *name, size_t nn)
{
    snprintf(cmd, n, "sh '%s' %s", adapter, mode);
    snprintf(name, nn, "fake_%s", mode);
    return (ab_ext_request){
        .name = name, .command = cmd, .B = 2, .H = 3, .S = 97, .D = 64, .causal = 1,
        .dtype = "bf16", .warmup = 5, .samples = 20, .seed = 42, .timing_mode = "graph",
        .graph_k = 10, .timeout_s = 10.0, .workdir = workdir,
    };
}

/* A process is gone when it no longer exists or is a zombie awaiting init. */
static int process_gone(long pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
    size_t r = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[r] = '\0';
    const char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

static void test_good(void)
{
    char cmd[512], name[64];
    ab_ext_request rq = request("good", cmd, sizeof cmd, name, sizeof name);
    ab_ext_result r;
    int rc = ab_ext_measure(&rq, &r);
    EXPECT(rc == 0, "good: rc %d, error '%s', stderr '%s'", rc, r.error, r.stderr_text);
    EXPECT(r.error[0] == '\0', "good: error '%s'", r.error);
    EXPECT(r.n == 20 && r.ms, "good: n = %zu", r.n);
    for (size_t k = 0; r.ms && k < r.n; k++)
        EXPECT(r.ms[k] == (double)k + 1.25, "good: sample %zu = %.17g", k, r.ms[k]);
    EXPECT(r.max_abs_err == 0.000244140625, "%.17g", r.max_abs_err);
    EXPECT(r.mean_abs_err == 3.0517578125e-05, "%.17g", r.mean_abs_err);
    EXPECT(r.rel_l2_err == 0.0009765625, "%.17g", r.rel_l2_err);
    EXPECT(r.plain_max_abs_err == 0.00048828125, "%.17g", r.plain_max_abs_err);
    EXPECT(r.atol == 0.0001220703125, "%.17g", r.atol);
    EXPECT(r.nonfinite == 0 && r.rows_checked == 4096, "%ld %ld", r.nonfinite, r.rows_checked);
    char want[512];
    /* the configuration as the adapter saw it; ATTNBENCH_STALE (set in our
     * environment) must not reach it; keys come back sorted and compact */
    snprintf(want, sizeof want,
             "{\"cfg\":\"1 2 3 97 64 1 bf16 5 20 42 graph 10 unset\",\"cwd\":\"%s\",\"fake\":true}",
             workdir);
    EXPECT(r.env_json && strcmp(r.env_json, want) == 0, "good: env '%s', want '%s'", r.env_json,
           want);
    EXPECT(r.stderr_text && strcmp(r.stderr_text, "a note for stderr\n") == 0, "stderr '%s'",
           r.stderr_text);
    EXPECT(r.exit_status == 0 && !r.timed_out, "exit %d timed_out %d", r.exit_status, r.timed_out);
    ab_ext_result_free(&r);
    EXPECT(r.ms == NULL && r.env_json == NULL && r.stderr_text == NULL, "free did not zero");
}

typedef struct fail_case {
    const char *mode;
    const char *error;        /* expected message after "external variant fake_MODE: " (prefix) */
    const char *stderr_has;   /* NULL: no requirement */
    int exit_status;          /* -2: don't care */
} fail_case;

static const fail_case fails[] = {
    {"malformed", "stdout line 22: unrecognised line 'Using backend flash' (protocol 1", NULL, 0},
    {"nonfinite", "sample line 17: 'nan' is not a latency in ms (> 0, at most a day)", NULL, 0},
    {"negative", "sample line 1: '-1' is not a latency in ms (> 0, at most a day)", NULL, 0},
    {"fewer", "19 sample lines, expected 20", NULL, 0},
    {"nocheck", "no check line", NULL, 0},
    {"badjson", "env line 22: invalid JSON: ", NULL, 0},
    {"badcheck", "check line 21: missing plain_max_abs_err", NULL, 0},
    {"crash",
     "exited with status 3; stderr: 'RuntimeError: CUDA error: an illegal memory access was "
     "encountered'",
     "traceback filler line 199", 3},
    {"adaptererr", "adapter reported: backend flash does not support D=512 (exit status 1)",
     "details on stderr", 1},
    /* the shell between us and the script reports the signal as 128 + N */
    {"signal", "exited with status 139 (signal 11: ", "about to fault", 128 + 11},
    {"nosuchmode", "exited with status 2; stderr: 'unknown mode 'nosuchmode''", NULL, 2},
};

static void test_fail(const fail_case *c)
{
    char cmd[512], name[64], want[512];
    ab_ext_request rq = request(c->mode, cmd, sizeof cmd, name, sizeof name);
    ab_ext_result r;
    int rc = ab_ext_measure(&rq, &r);
    snprintf(want, sizeof want, "external variant fake_%s: %s", c->mode, c->error);
    EXPECT(rc == -1, "%s: rc %d", c->mode, rc);
    EXPECT(strncmp(r.error, want, strlen(want)) == 0, "%s: error\n  '%s'\nwant prefix\n  '%s'",
           c->mode, r.error, want);
    EXPECT(r.n == 0 && r.ms == NULL, "%s: samples kept on failure", c->mode);
    EXPECT(r.stderr_text != NULL, "%s: stderr lost", c->mode);
    if (c->stderr_has)
        EXPECT(r.stderr_text && strstr(r.stderr_text, c->stderr_has), "%s: stderr '%s'", c->mode,
               r.stderr_text);
    if (c->exit_status != -2)
        EXPECT(r.exit_status == c->exit_status, "%s: exit %d", c->mode, r.exit_status);
    EXPECT(!r.timed_out, "%s: timed out", c->mode);
    if (strcmp(c->mode, "crash") == 0) {
        size_t len = r.stderr_text ? strlen(r.stderr_text) : 0;
        /* 200 filler lines (> 20 KiB) then the last line: only the tail is kept */
        EXPECT(len <= AB_EXT_STDERR_KEEP && len > AB_EXT_STDERR_KEEP - 200, "crash: %zu bytes kept",
               len);
        EXPECT(len > 12 && strcmp(r.stderr_text + len - 12, "encountered\n") == 0,
               "crash: stderr does not end with the last line");
    }
    ab_ext_result_free(&r);
}

static void test_hang(const char *mode)
{
    char cmd[512], name[64];
    ab_ext_request rq = request(mode, cmd, sizeof cmd, name, sizeof name);
    rq.timeout_s = 1.5;
    ab_ext_result r;
    double t0 = now_s();
    int rc = ab_ext_measure(&rq, &r);
    double took = now_s() - t0;
    EXPECT(rc == -1 && r.timed_out, "%s: rc %d timed_out %d", mode, rc, r.timed_out);
    EXPECT(took >= 1.5 && took < 2.5, "%s: returned after %.3f s (timeout 1.5 s)", mode, took);
    char want[128];
    snprintf(want, sizeof want, "external variant fake_%s: timed out after 1.5 s", mode);
    EXPECT(strncmp(r.error, want, strlen(want)) == 0, "%s: error '%s'", mode, r.error);
    long sleeper = 0;
    const char *s = r.stderr_text ? strstr(r.stderr_text, "sleeper ") : NULL;
    EXPECT(s && sscanf(s, "sleeper %ld", &sleeper) == 1 && sleeper > 1,
           "%s: stderr before the kill lost: '%s'", mode, r.stderr_text);
    if (sleeper > 1) {
        /* the grandchild was in the process group: it must be gone too */
        int gone = 0;
        for (int i = 0; i < 100 && !(gone = process_gone(sleeper)); i++)
            usleep(10000);
        EXPECT(gone, "%s: the adapter's child %ld survived the timeout", mode, sleeper);
    }
    EXPECT(r.n == 0, "%s: samples kept", mode);
    ab_ext_result_free(&r);
}

static void test_bad_requests(void)
{
    ab_ext_result r;
    ab_ext_request rq = {.name = "x", .command = "true", .B = 1, .H = 1, .S = 1, .D = 1,
                         .dtype = "fp16", .samples = 1, .timing_mode = "hot", .timeout_s = 5,
                         .workdir = "/nonexistent/dir"};
    EXPECT(ab_ext_measure(&rq, &r) == -1 && strstr(r.error, "is not a directory"), "'%s'",
           r.error);
    ab_ext_result_free(&r);
    rq.workdir = NULL;
    rq.command = "/nonexistent/adapter --backend flash";
    EXPECT(ab_ext_measure(&rq, &r) == -1 &&
               strstr(r.error, "external variant x: exited with status 127 (command not found?)"),
           "'%s'", r.error);
    EXPECT(r.stderr_text && strstr(r.stderr_text, "/nonexistent/adapter"), "stderr '%s'",
           r.stderr_text);
    ab_ext_result_free(&r);
    rq.command = "true"; /* exits 0 having said nothing */
    EXPECT(ab_ext_measure(&rq, &r) == -1 && strstr(r.error, "0 sample lines, expected 1"), "'%s'",
           r.error);
    ab_ext_result_free(&r);
    rq.command = "echo about to fault >&2; kill -SEGV $$"; /* the shell itself dies */
    EXPECT(ab_ext_measure(&rq, &r) == -1 &&
               strstr(r.error, "external variant x: killed by signal 11 (") &&
               r.exit_status == 128 + 11,
           "'%s' exit %d", r.error, r.exit_status);
    EXPECT(r.stderr_text && strcmp(r.stderr_text, "about to fault\n") == 0, "stderr '%s'",
           r.stderr_text);
    ab_ext_result_free(&r);
    rq.samples = 0;
    EXPECT(ab_ext_measure(&rq, &r) == -1 && strstr(r.error, "invalid request"), "'%s'", r.error);
    ab_ext_result_free(&r);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH/TO/fake_adapter.sh\n", argv[0]);
        return 2;
    }
    adapter = argv[1];
    snprintf(workdir, sizeof workdir, "/tmp/attnbench-external-XXXXXX");
    if (!mkdtemp(workdir)) {
        perror("mkdtemp");
        return 2;
    }
    setenv("ATTNBENCH_STALE", "leaked", 1);
    test_good();
    for (size_t i = 0; i < sizeof fails / sizeof fails[0]; i++)
        test_fail(&fails[i]);
    test_hang("hang");
    test_hang("hangterm");
    test_bad_requests();
    rmdir(workdir);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("external: all checks passed\n");
    return 0;
}
