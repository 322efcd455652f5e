/*
 * outfile.c: output files that never clobber (outfile.h). Every file a
 * command writes (reports, exports, figures) is written to a temporary file
 * beside its target and renamed over it only when everything was written
 * and closed without error, so a failed command leaves the old file (or
 * none) in place and never a half-written one. A target that is the
 * database itself (same device and inode), or any SQLite database, is
 * refused before anything is opened.
 */
#include "outfile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ab_is_sqlite_file(const char *path)
{
    static const char magic[16] = "SQLite format 3"; /* with its NUL: 16 bytes */
    char head[16];
    int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return 0;
    struct stat sb;
    int yes = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
              read(fd, head, sizeof head) == (ssize_t)sizeof head &&
              memcmp(head, magic, sizeof magic) == 0;
    close(fd);
    return yes;
}

int ab_out_check_target(const char *path, const char *db_path)
{
    struct stat t, d;
    if (!path || !*path)
        return error("an empty output path");
    if (strcmp(path, "-") == 0)
        return 0;
    if (stat(path, &t) != 0)
        return 0; /* new file */
    if (S_ISDIR(t.st_mode))
        return error("%s is a directory, not an output file", path);
    if (db_path && stat(db_path, &d) == 0 && d.st_dev == t.st_dev && d.st_ino == t.st_ino)
        return error("refusing to write over the database %s (-o names the database itself)",
                     path);
    if (ab_is_sqlite_file(path))
        return error("refusing to write over %s: it is an SQLite database", path);
    return 0;
}

int ab_out_open(ab_outfile *o, const char *path, const char *db_path)
{
    memset(o, 0, sizeof *o);
    if (ab_out_check_target(path, db_path))
        return -1;
    o->path = path;
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return 0;
    }
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        /* a device, FIFO or socket (/dev/stdout, /dev/null, a pipe): written
         * in place, never replaced by a regular file */
        o->f = fopen(path, "w");
        if (!o->f)
            return error("cannot write %s: %s", path, strerror(errno));
        o->device = 1;
        return 0;
    }
    /* a symbolic link: the file it points to is replaced, not the link */
    o->real = realpath(path, NULL);
    if (o->real)
        path = o->real;
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    size_t need = strlen(path) + 16;
    o->tmp = malloc(need);
    if (!o->tmp)
        return error("out of memory");
    snprintf(o->tmp, need, "%.*s.%s.XXXXXX", (int)dirlen, path, slash ? slash + 1 : path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        return error("cannot write %s: %s (creating a temporary file beside it)", path,
                     strerror(e));
    }
    /* the mode an ordinary fopen(path, "w") would give */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    o->f = fdopen(fd, "w");
    if (!o->f) {
        int e = errno;
        close(fd);
        unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
        return error("cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

int ab_out_commit(ab_outfile *o)
{
    if (!o->f)
        return -1;
    if (o->f == stdout) {
        o->f = NULL;
        if (fflush(stdout) != 0 || ferror(stdout))
            return error("writing to standard output failed: %s", strerror(errno));
        return 0;
    }
    if (o->device) {
        int bad = fflush(o->f) != 0 || ferror(o->f);
        int e = errno;
        bad |= fclose(o->f) != 0;
        o->f = NULL;
        return bad ? error("writing %s failed: %s", o->path, strerror(e ? e : errno)) : 0;
    }
    int bad = fflush(o->f) != 0 || ferror(o->f);
    int e = errno;
    if (!bad && fsync(fileno(o->f)) != 0 && errno != EINVAL) {
        bad = 1;
        e = errno;
    }
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    o->f = NULL;
    if (!bad && rename(o->tmp, o->real ? o->real : o->path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad)
        unlink(o->tmp);
    free(o->tmp);
    free(o->real);
    o->tmp = o->real = NULL;
    return bad ? error("writing %s failed: %s (the file is unchanged)", o->path, strerror(e)) : 0;
}

void ab_out_abort(ab_outfile *o)
{
    if (o->f && o->f != stdout)
        fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    free(o->tmp);
    free(o->real);
    memset(o, 0, sizeof *o);
}
