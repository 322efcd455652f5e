/*
 * outfile.h: output files written atomically (outfile.c): a temporary file
 * beside the target, renamed over it on success, removed on failure; the
 * database and any SQLite file refused as targets.
 */
#ifndef ATTNBENCH_OUTFILE_H
#define ATTNBENCH_OUTFILE_H

#include <stdio.h>

typedef struct ab_outfile {
    FILE *f;          /* write here; stdout for "-" */
    const char *path; /* the target, as given */
    char *tmp;        /* the temporary file beside it (NULL for stdout) */
    char *real;       /* the file a symbolic link target points to, or NULL */
    int device;       /* an existing non-regular file, written in place */
} ab_outfile;

/* 1 when path is a regular file starting with SQLite's 16-byte header. */
int ab_is_sqlite_file(const char *path);

/* Records the database the command opened (NULL or "": none), which
 * ab_out_check_target refuses as a target besides its db_path argument. */
void ab_out_set_database(const char *db_path);

/* 0 when path may be written: "-", a new file, or an existing file that is
 * not a directory; else -1 after printing one line why. Refused: the
 * database at db_path (may be NULL) or the one set by ab_out_set_database
 * (same device and inode, or the same name with directories resolved), its
 * -journal, -wal and -shm files whether they exist or not, the -journal,
 * -wal or -shm name of any SQLite database, and any existing SQLite
 * database, write-ahead log or rollback journal (by their first bytes). */
int ab_out_check_target(const char *path, const char *db_path);

/* Checks the target (ab_out_check_target) and opens a temporary file
 * beside it (mode 0666 less the umask); through a symbolic link, beside the
 * file it points to. An existing target that is not a regular file (a
 * device such as /dev/null, a FIFO) is opened and written in place. Returns 0, or -1 after printing an
 * error; nothing is created on error. */
int ab_out_open(ab_outfile *o, const char *path, const char *db_path);

/* Flushes, fsyncs and closes the temporary file and renames it over the
 * target; for stdout, flushes and checks for write errors. Returns 0, or -1
 * after printing an error naming the target (the temporary file removed,
 * the target untouched). */
int ab_out_commit(ab_outfile *o);

/* Discards the temporary file; the target is untouched. Safe after a failed
 * open or a commit. */
void ab_out_abort(ab_outfile *o);

#endif
