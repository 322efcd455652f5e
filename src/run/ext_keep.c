/*
 * ext_keep.c: where a kept adapter waits and how a run is handed to it
 * (ext_keep.h, adapters/PROTOCOL.md "Kept adapters"). The adapter's side
 * (listening, the check of its own files, the idle limit) is the kit's:
 * adapters/attnbench_adapter.py.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* struct ucred, SO_PEERCRED */
#endif
#include "ext_keep.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

int ab_ext_keep_run_var(const char *e)
{
    static const char *const run_vars[] = {"ATTNBENCH_OUTPUT=", "ATTNBENCH_VARIANT=",
                                           "ATTNBENCH_KEEP="};
    for (size_t i = 0; i < sizeof run_vars / sizeof run_vars[0]; i++)
        if (strncmp(e, run_vars[i], strlen(run_vars[i])) == 0)
            return 1;
    return 0;
}

/* FNV-1a, 64 bits (Fowler, Noll, Vo): s and its terminating NUL, so that
 * the fields fed one after the other cannot run into each other */
static uint64_t fnv1a(uint64_t h, const char *s)
{
    do {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    } while (*s++);
    return h;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int ab_ext_keep_dir(char *dir, size_t n, char *why, size_t wn)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg && *xdg)
        snprintf(dir, n, "%s/attnbench", xdg);
    else
        snprintf(dir, n, "/tmp/attnbench-%u", (unsigned)getuid());
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(why, wn, "%s: %s", dir, strerror(errno));
        return -1;
    }
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
        (st.st_mode & 077)) {
        snprintf(why, wn, "%s is not a directory of this user's alone (mode 0700)", dir);
        return -1;
    }
    return 0;
}

/* A connected Unix socket to path and the peer's credentials, else -1. */
static int connect_peer(const char *path, struct ucred *cred)
{
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sa.sun_path)
        return -1;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    socklen_t cl = sizeof *cred;
    if (sock < 0 || connect(sock, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        getsockopt(sock, SOL_SOCKET, SO_PEERCRED, cred, &cl) != 0 || cred->uid != getuid() ||
        cred->pid <= 0) {
        if (sock >= 0)
            close(sock);
        return -1;
    }
    return sock;
}

int ab_ext_keep_probe(const char *path, pid_t *pid)
{
    struct ucred cred;
    int sock = connect_peer(path, &cred);
    if (sock < 0)
        return 0;
    close(sock);
    *pid = cred.pid;
    return 1;
}

int ab_ext_keep_path(const char *command, const char *workdir, char *const *env, char *path,
                     size_t n, char *why, size_t wn)
{
    char dir[512], cwd[4096], uid[32];
    if (ab_ext_keep_dir(dir, sizeof dir, why, wn))
        return -1;
    if (workdir && *workdir)
        snprintf(cwd, sizeof cwd, "%s", workdir);
    else if (!getcwd(cwd, sizeof cwd)) {
        snprintf(why, wn, "the current directory: %s", strerror(errno));
        return -1;
    }
    size_t ne = 0;
    for (char *const *e = env; e && *e; e++)
        ne++;
    const char **sorted = calloc(ne + 1, sizeof *sorted);
    if (!sorted) {
        snprintf(why, wn, "out of memory");
        return -1;
    }
    size_t k = 0;
    for (char *const *e = env; e && *e; e++)
        if (!ab_ext_keep_run_var(*e))
            sorted[k++] = *e;
    qsort(sorted, k, sizeof *sorted, cmp_str);
    snprintf(uid, sizeof uid, "%u", (unsigned)getuid());
    uint64_t h = 14695981039346656037ULL;
    h = fnv1a(fnv1a(fnv1a(h, uid), cwd), command);
    for (size_t i = 0; i < k; i++)
        h = fnv1a(h, sorted[i]);
    free(sorted);
    struct sockaddr_un sa;
    int len = snprintf(path, n, "%s/adapter-%016llx.sock", dir, (unsigned long long)h);
    if (len < 0 || (size_t)len >= n || (size_t)len >= sizeof sa.sun_path) {
        snprintf(why, wn, "%s: too long for a socket address", dir);
        return -1;
    }
    return 0;
}

static void close_all(int *fds, int nf)
{
    for (int i = 0; i < nf; i++)
        if (fds[i] >= 0) {
            close(fds[i]);
            fds[i] = -1;
        }
}

int ab_ext_keep_connect(const char *path, char *const *run_env, double wait_s, ab_child *c,
                        char *why, size_t wn)
{
    int rc = 0;
    int p[6] = {-1, -1, -1, -1, -1, -1}; /* stdin r/w, stdout r/w, stderr r/w */
    char *payload = NULL;
    struct ucred cred;
    int sock = connect_peer(path, &cred);
    if (sock < 0)
        goto cleanup; /* nothing listening (or not this user's): a new process */
    if (pipe2(p, O_CLOEXEC) || pipe2(p + 2, O_CLOEXEC) || pipe2(p + 4, O_CLOEXEC)) {
        snprintf(why, wn, "pipe: %s", strerror(errno));
        rc = -1;
        goto cleanup;
    }
    size_t plen = 0;
    for (char *const *e = run_env; e && *e; e++)
        plen += strlen(*e) + 1;
    payload = malloc(plen + 1);
    if (!payload) {
        snprintf(why, wn, "out of memory");
        rc = -1;
        goto cleanup;
    }
    size_t off = 0;
    for (char *const *e = run_env; e && *e; e++) {
        memcpy(payload + off, *e, strlen(*e) + 1);
        off += strlen(*e) + 1;
    }
    if (off == 0)
        payload[off++] = '\0'; /* at least one byte carries the descriptors */
    const int theirs[3] = {p[0], p[3], p[5]};
    union {
        char buf[CMSG_SPACE(sizeof theirs)];
        struct cmsghdr align;
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = {payload, off};
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = ctl.buf;
    msg.msg_controllen = sizeof ctl.buf;
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof theirs);
    memcpy(CMSG_DATA(cm), theirs, sizeof theirs);
    if (sendmsg(sock, &msg, MSG_NOSIGNAL) != (ssize_t)off)
        goto cleanup;
    /* theirs now travel in the message (or with the socket, if never taken) */
    close(p[0]);
    close(p[3]);
    close(p[5]);
    p[0] = p[3] = p[5] = -1;
    struct pollfd pf = {sock, POLLIN, 0};
    char ack = 0;
    if (poll(&pf, 1, (int)(wait_s * 1000)) != 1 || read(sock, &ack, 1) != 1)
        goto cleanup; /* busy, or it found its files changed and left */
    fcntl(p[2], F_SETFL, fcntl(p[2], F_GETFL) | O_NONBLOCK);
    fcntl(p[4], F_SETFL, fcntl(p[4], F_GETFL) | O_NONBLOCK);
    c->pid = cred.pid;
    c->in = p[1];
    c->out = p[2];
    c->err = p[4];
    p[1] = p[2] = p[4] = -1;
    rc = 1;
cleanup:
    close_all(p, 6);
    if (sock >= 0)
        close(sock);
    free(payload);
    return rc;
}
