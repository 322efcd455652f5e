/*
 * exp_include.c: @include expansion of experiment text (exp_include.h). The
 * text is scanned line by line, tracking block comments and strings as
 * libconfig's scanner does, and each directive line is replaced by the
 * included file's expanded text followed by a newline.
 */
#include "exp_include.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 10 /* libconfig's own limit on nested includes */

typedef struct buf {
    char *s;
    size_t len, cap, limit;
} buf;

static int put(buf *b, const char *p, size_t n)
{
    if (b->len + n > b->limit)
        return -1;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s)
            return -1;
        b->s = s;
        b->cap = cap;
    }
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

/* the included file's path: beside `from` when relative and present there,
 * else as written (relative to the working directory) */
static char *resolve(const char *from, const char *file)
{
    const char *slash = strrchr(from, '/');
    if (file[0] != '/' && slash) {
        size_t need = (size_t)(slash - from) + 1 + strlen(file) + 1;
        char *p = malloc(need);
        if (!p)
            return NULL;
        snprintf(p, need, "%.*s/%s", (int)(slash - from), from, file);
        FILE *f = fopen(p, "r");
        if (f) {
            fclose(f);
            return p;
        }
        free(p);
    }
    return strdup(file);
}

static int expand(const char *path, const char *text, int depth, buf *out, char *err, size_t n)
{
    int in_comment = 0, line = 1;
    const char *p = text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) + 1 : strlen(p);
        const char *q = p;
        while (!in_comment && (*q == ' ' || *q == '\t'))
            q++;
        if (!in_comment && strncmp(q, "@include", 8) == 0 && (q[8] == ' ' || q[8] == '\t')) {
            q += 8;
            while (*q == ' ' || *q == '\t')
                q++;
            const char *end = *q == '"' ? strchr(q + 1, '"') : NULL;
            if (!end || (eol && end > eol)) {
                snprintf(err, n, "%s:%d: @include needs a file name in double quotes", path, line);
                return -1;
            }
            if (depth >= MAX_DEPTH) {
                snprintf(err, n, "%s:%d: @include nested more than %d deep", path, line,
                         MAX_DEPTH);
                return -1;
            }
            char *name = strndup(q + 1, (size_t)(end - q - 1));
            char *file = name ? resolve(path, name) : NULL;
            size_t flen = 0;
            int too_big = 0;
            char *inc = file ? ab_read_file_limit(file, out->limit, &flen, &too_big) : NULL;
            int rc = 0;
            if (!name || !file)
                rc = -1, snprintf(err, n, "out of memory");
            else if (!inc)
                rc = -1, snprintf(err, n, "%s:%d: cannot include '%s': %s", path, line, name,
                                  too_big ? "file too large" : strerror(errno));
            else if (strlen(inc) != flen)
                rc = -1, snprintf(err, n, "%s: NUL byte at offset %zu: not a text file", file,
                                  strlen(inc));
            else if (expand(file, inc, depth + 1, out, err, n) ||
                     (out->len && out->s[out->len - 1] != '\n' && put(out, "\n", 1)))
                rc = -1;
            free(inc);
            free(file);
            free(name);
            if (rc)
                return -1;
        } else {
            /* track block comments and strings through the line */
            int in_string = 0;
            for (const char *c = p; c < p + len; c++) {
                if (in_comment) {
                    if (c[0] == '*' && c[1] == '/')
                        in_comment = 0, c++;
                } else if (in_string) {
                    if (*c == '\\' && c[1])
                        c++;
                    else if (*c == '"')
                        in_string = 0;
                } else if (*c == '"') {
                    in_string = 1;
                } else if (*c == '#' || (c[0] == '/' && c[1] == '/')) {
                    break;
                } else if (c[0] == '/' && c[1] == '*') {
                    in_comment = 1, c++;
                }
            }
            if (put(out, p, len))
                return -1;
        }
        p += len;
        line++;
    }
    return 0;
}

char *ab_exp_expand_includes(const char *path, const char *text, size_t limit, char *err,
                             size_t n)
{
    buf out = {NULL, 0, 0, limit};
    err[0] = '\0';
    if (put(&out, "", 0) || expand(path, text, 0, &out, err, n)) {
        if (!err[0]) /* put() failed: past the limit, or out of memory */
            snprintf(err, n, "%s: the experiment with its @include files is larger than %zu "
                     "bytes (or out of memory)", path, limit);
        free(out.s);
        return NULL;
    }
    return out.s;
}
