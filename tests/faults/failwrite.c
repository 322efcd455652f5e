/*
 * failwrite.c: an LD_PRELOAD shim that makes writes to regular files fail,
 * for the fault-injection tests (faults_test.sh). It wraps write, pwrite,
 * pwrite64, writev, fsync and fdatasync; standard input, output and error
 * are never touched, nor are files that are not regular (pipes, ttys).
 *
 *   FAILWRITE_AFTER=N   the Nth write to a regular file (1-based) and, with
 *                       FAILWRITE_ONCE unset, every later one fail (a disk
 *                       that stays full); with FAILWRITE_ONCE=1 only the Nth
 *                       (one I/O error)
 *   FAILWRITE_ERRNO     ENOSPC (default) or EIO
 *   FAILWRITE_COUNT=F   no failures: the number of writes is written to file
 *                       F at exit (to choose the points to fail at)
 *
 * fsync and fdatasync fail once writes have started failing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
/* pwrite and pwrite64 are wrapped separately: no 64-bit redirection here */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long calls = 0, after = -1;
static int once = 0, err_value = ENOSPC, failing = 0;
static const char *count_file = NULL;

static void report_count(void)
{
    if (!count_file)
        return;
    FILE *f = fopen(count_file, "w");
    if (f) {
        fprintf(f, "%ld\n", calls);
        fclose(f);
    }
}

__attribute__((constructor)) static void init(void)
{
    const char *a = getenv("FAILWRITE_AFTER"), *e = getenv("FAILWRITE_ERRNO");
    after = a ? atol(a) : -1;
    once = getenv("FAILWRITE_ONCE") != NULL;
    err_value = e && strcmp(e, "EIO") == 0 ? EIO : ENOSPC;
    count_file = getenv("FAILWRITE_COUNT");
    if (count_file)
        atexit(report_count);
}

/* 1 when this write to fd must fail */
static int fail_now(int fd)
{
    struct stat sb;
    if (fd <= 2 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0;
    calls++;
    if (after < 1)
        return 0;
    if (calls == after || (!once && calls > after)) {
        failing = 1;
        errno = err_value;
        return 1;
    }
    return 0;
}

#define REAL(name, ret, ...)                                                                   \
    static ret (*real_##name)(__VA_ARGS__);                                                    \
    if (!real_##name)                                                                          \
        *(void **)&real_##name = dlsym(RTLD_NEXT, #name);

ssize_t write(int fd, const void *buf, size_t n)
{
    REAL(write, ssize_t, int, const void *, size_t)
    return fail_now(fd) ? -1 : real_write(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    REAL(pwrite, ssize_t, int, const void *, size_t, off_t)
    return fail_now(fd) ? -1 : real_pwrite(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    REAL(pwrite64, ssize_t, int, const void *, size_t, off_t)
    return fail_now(fd) ? -1 : real_pwrite64(fd, buf, n, off);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    REAL(writev, ssize_t, int, const struct iovec *, int)
    return fail_now(fd) ? -1 : real_writev(fd, iov, cnt);
}

int fsync(int fd)
{
    REAL(fsync, int, int)
    if (failing && !once && fd > 2) {
        errno = EIO;
        return -1;
    }
    return real_fsync(fd);
}

int fdatasync(int fd)
{
    REAL(fdatasync, int, int)
    if (failing && !once && fd > 2) {
        errno = EIO;
        return -1;
    }
    return real_fdatasync(fd);
}
