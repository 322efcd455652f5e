/*
 * util.c: the shared helpers of util.h.
 */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

void ab_verror(const char *fmt, va_list ap)
{
    fputs("attnbench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ab_verror(fmt, ap);
    va_end(ap);
    return -1;
}

/* "a FIFO", "a character device", ... for a file type that is not regular */
static const char *file_kind(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO (named pipe)"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

FILE *ab_open_regular(const char *path, size_t limit, char *why, size_t n)
{
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
     * writer, forever if none comes */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat sb;
    if (fd < 0) {
        snprintf(why, n, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &sb) != 0) {
        snprintf(why, n, "%s: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(sb.st_mode)) {
        if (S_ISDIR(sb.st_mode))
            snprintf(why, n, "%s: is a directory", path);
        else
            snprintf(why, n, "%s: is %s, not a regular file (attnbench reads only files that "
                     "end)", path, file_kind(sb.st_mode));
        close(fd);
        errno = S_ISDIR(sb.st_mode) ? EISDIR : EINVAL;
        return NULL;
    }
    if ((unsigned long long)sb.st_size > (unsigned long long)limit) {
        snprintf(why, n, "%s: larger than %zu bytes (%lld)", path, limit, (long long)sb.st_size);
        close(fd);
        errno = EFBIG;
        return NULL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        snprintf(why, n, "%s: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

char *ab_read_file_limit(const char *path, size_t limit, size_t *len, int *too_big)
{
    char why[512];
    char *buf = NULL;
    size_t cap = 0, n = 0;
    *too_big = 0;
    FILE *f = ab_open_regular(path, limit, why, sizeof why);
    if (!f) {
        if (errno == EFBIG)
            *too_big = 1;
        else if (errno == EINVAL)
            *too_big = 2;
        return NULL;
    }
    for (;;) {
        if (n + 4096 + 1 > cap) {
            size_t nc = cap ? 2 * cap : 8192;
            char *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            buf = nb;
            cap = nc;
        }
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (n > limit) {
            free(buf);
            fclose(f);
            *too_big = 1;
            errno = EFBIG;
            return NULL;
        }
        if (r == 0)
            break;
    }
    int bad = ferror(f);
    int saved = errno;
    fclose(f);
    if (bad) {
        free(buf);
        errno = saved ? saved : EIO;
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

void ab_hash_hex(const void *data, size_t n, char out[17])
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a 64 offset basis */
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL; /* FNV 64 prime */
    }
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

const char *ab_db_path(const char *flag_value)
{
    if (flag_value)
        return flag_value; /* even "": ab_db_open refuses it rather than guess */
    const char *env = getenv("ATTNBENCH_DB");
    return env && *env ? env : "attnbench.db";
}

double ab_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Escaped length of the control sequence at c (0: not a control): C0 and
 * DEL one byte, the two-byte UTF-8 C1 controls two. */
static size_t control_len(const unsigned char *c)
{
    if (*c < 0x20 || *c == 0x7f)
        return 1;
    if (*c == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f)
        return 2;
    return 0;
}

const char *ab_printable(const char *s, char *buf, size_t n)
{
    size_t k = 0;
    if (n == 0)
        return buf;
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c;) {
        size_t cl = control_len(c);
        if (cl) {
            if (k + 4 * cl >= n)
                break;
            for (size_t j = 0; j < cl; j++, k += 4)
                snprintf(buf + k, 5, "\\x%02x", c[j]);
            c += cl;
        } else {
            if (k + 1 >= n)
                break;
            buf[k++] = (char)*c++;
        }
    }
    buf[k] = '\0';
    return buf;
}

char *ab_printable_dup(const char *s)
{
    size_t n = 4 * strlen(s ? s : "") + 1;
    char *out = malloc(n);
    return out ? (char *)ab_printable(s, out, n) : NULL;
}

int ab_has_control(const char *s)
{
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++)
        if (control_len(c))
            return 1;
    return 0;
}
