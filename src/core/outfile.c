/*
 * outfile.c: output files that never clobber (outfile.h). Every file a
 * command writes (reports, exports, figures) is written to a temporary file
 * beside its target and renamed over it only when everything was written
 * and closed without error, so a failed command leaves the old file (or
 * none) in place and never a half-written one. A target that is the
 * database itself (same device and inode, or the same resolved name), its
 * -journal, -wal or -shm file (existing or not), any SQLite database, or
 * any SQLite journal or write-ahead log is refused before anything is
 * opened.
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

/* The database the command opened (ab_out_set_database), checked with the
 * db_path each caller passes, so that figures named after a report are
 * checked too. */
static char database_in_use[4096];

void ab_out_set_database(const char *db_path)
{
    snprintf(database_in_use, sizeof database_in_use, "%s", db_path ? db_path : "");
}

/* path with its directory resolved (realpath) and its last component kept
 * as given, in out (size n): the name a file that does not exist yet will
 * have. 0, or -1 when the directory cannot be resolved. */
static int resolved_name(const char *path, char *out, size_t n)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    char *real = realpath(dir, NULL);
    if (!real)
        return -1;
    int len = snprintf(out, n, "%s/%s", strcmp(real, "/") == 0 ? "" : real, base);
    free(real);
    return len < 0 || (size_t)len >= n ? -1 : 0;
}

/* SQLite's files beside a database FILE: the rollback journal, the
 * write-ahead log and its shared-memory index (sqlite.org/tempfiles.html). */
static const char *const companion_suffix[] = {"-journal", "-wal", "-shm"};
static const char *const companion_what[] = {"rollback journal", "write-ahead log",
                                             "shared-memory index"};

/* Whether path names db (same file, or the same name once directories are
 * resolved) or one of its companion files: -1 not at all, 0 the database
 * itself, 1 + k its companion_suffix[k]. */
static int names_database(const char *path, const char *db)
{
    struct stat t, d;
    if (!db || !*db)
        return -1;
    if (stat(path, &t) == 0 && stat(db, &d) == 0 && d.st_dev == t.st_dev && d.st_ino == t.st_ino)
        return 0;
    char p[4096], q[4096], dbname[4096];
    char *db_real = realpath(db, NULL); /* through a link to the database */
    int have_db = db_real ? snprintf(dbname, sizeof dbname, "%s", db_real) < (int)sizeof dbname
                          : resolved_name(db, dbname, sizeof dbname) == 0;
    free(db_real);
    char *path_real = realpath(path, NULL); /* an existing file or link */
    int have_path = path_real ? snprintf(p, sizeof p, "%s", path_real) < (int)sizeof p
                              : resolved_name(path, p, sizeof p) == 0;
    free(path_real);
    if (!have_db || !have_path) { /* unresolvable: compare the names as given */
        snprintf(dbname, sizeof dbname, "%s", db);
        snprintf(p, sizeof p, "%s", path);
    }
    if (strcmp(p, dbname) == 0)
        return 0;
    for (int k = 0; k < 3; k++) {
        snprintf(q, sizeof q, "%s%s", dbname, companion_suffix[k]);
        if (strcmp(p, q) == 0)
            return 1 + k;
    }
    return -1;
}

/* What an existing file is to SQLite by its first bytes: a write-ahead log
 * (magic 0x377f0682 or 0x377f0683, big-endian) or a rollback journal (the
 * 8 bytes d9 d5 05 f9 20 a1 63 d7), sqlite.org/fileformat2.html; NULL for
 * anything else. */
static const char *sqlite_side_file(const char *path)
{
    static const unsigned char journal[8] = {0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7};
    unsigned char head[8];
    int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return NULL;
    struct stat sb;
    const char *what = NULL;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && read(fd, head, 8) == 8) {
        if (head[0] == 0x37 && head[1] == 0x7f && head[2] == 0x06 &&
            (head[3] == 0x82 || head[3] == 0x83))
            what = "an SQLite write-ahead log";
        else if (memcmp(head, journal, 8) == 0)
            what = "an SQLite rollback journal";
    }
    close(fd);
    return what;
}

int ab_out_check_target(const char *path, const char *db_path)
{
    struct stat t;
    if (!path || !*path)
        return error("an empty output path");
    if (strcmp(path, "-") == 0)
        return 0;
    const char *dbs[2] = {db_path, database_in_use};
    for (int i = 0; i < 2; i++) {
        int k = names_database(path, dbs[i]);
        if (k == 0)
            return error("refusing to write over the database %s (-o names the database itself)",
                         path);
        if (k > 0)
            return error("refusing to write %s: it is the %s of the database %s", path,
                         companion_what[k - 1], dbs[i]);
    }
    /* the companion name of any SQLite database, whether or not that
     * companion exists now: SQLite would take the file for its own */
    size_t len = strlen(path);
    for (int k = 0; k < 3; k++) {
        size_t sl = strlen(companion_suffix[k]);
        if (len > sl && strcmp(path + len - sl, companion_suffix[k]) == 0) {
            char *stem = strndup(path, len - sl);
            int is_db = stem && ab_is_sqlite_file(stem);
            free(stem);
            if (is_db)
                return error("refusing to write %s: it is the %s of the SQLite database %.*s",
                             path, companion_what[k], (int)(len - sl), path);
        }
    }
    if (stat(path, &t) != 0)
        return 0; /* new file */
    if (S_ISDIR(t.st_mode))
        return error("%s is a directory, not an output file", path);
    if (ab_is_sqlite_file(path))
        return error("refusing to write over %s: it is an SQLite database", path);
    const char *side = sqlite_side_file(path);
    if (side)
        return error("refusing to write over %s: it is %s", path, side);
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
