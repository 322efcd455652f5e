/*
 * util.c: the shared helpers of util.h.
 */
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

char *ab_read_file_limit(const char *path, size_t limit, size_t *len, int *too_big)
{
    FILE *f = fopen(path, "rb");
    struct stat sb;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    *too_big = 0;
    if (!f)
        return NULL;
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(f);
        errno = EISDIR;
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
