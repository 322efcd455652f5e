/*
 * util.h: small helpers every command shares: git-style error reporting,
 * file reading, the FNV-1a hash used as an identity key, and the database
 * path rule.
 */
#ifndef ATTNBENCH_UTIL_H
#define ATTNBENCH_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Prints "attnbench: <message>" on stderr and returns -1 (git's error()). */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* error()'s printing alone, for callers with their own return value (the
 * CLI's usage error, ab_usage). */
void ab_verror(const char *fmt, va_list ap);

/* Opens path for reading when it is a regular file of at most `limit`
 * bytes: the open does not block (a FIFO nobody writes to, a terminal) and
 * a directory, FIFO, device or socket is refused, as is a larger file.
 * Returns the stream, or NULL with errno (EISDIR, EINVAL for another kind
 * of file, EFBIG for a larger one, or open's) and one line in why naming
 * path, e.g. "p: is a FIFO (named pipe), not a regular file (...)". */
FILE *ab_open_regular(const char *path, size_t limit, char *why, size_t n);

/* Reads a whole regular file (ab_open_regular), at most `limit` bytes,
 * into a NUL-terminated malloc'd buffer; *len (if non-NULL) gets the byte
 * count. NULL with errno set on failure: a longer file with *too_big = 1,
 * a FIFO, device or socket with *too_big = 2 (errno EINVAL), a directory
 * with errno EISDIR. */
char *ab_read_file_limit(const char *path, size_t limit, size_t *len, int *too_big);

/* FNV-1a 64-bit hash of n bytes (Fowler, Noll, Vo; the IETF draft
 * draft-eastlake-fnv), written as 16 lowercase hex digits into out[17].
 * An identity key for fingerprints and experiment texts, not a security
 * hash. */
void ab_hash_hex(const void *data, size_t n, char out[17]);

/* The database path: --db if given (an empty --db '' is returned as it is,
 * for ab_db_open to refuse), else $ATTNBENCH_DB, else "attnbench.db" in the
 * working directory (the embedded default). */
const char *ab_db_path(const char *flag_value);

/* s made safe to print on a terminal: every control byte (C0 including
 * newline and tab, DEL, and the UTF-8 C1 controls U+0080..U+009F) written
 * as \xNN, so that a stored name cannot move the cursor, change colours or
 * set the window title (terminal escape injection); other bytes as they
 * are. ab_printable writes into buf (n bytes, truncated at a whole escape)
 * and returns buf; ab_printable_dup returns a malloc'd copy (NULL when out
 * of memory). Every command that prints a stored name goes through these. */
const char *ab_printable(const char *s, char *buf, size_t n);
char *ab_printable_dup(const char *s);

/* 1 when s holds a byte ab_printable would escape, else 0. */
int ab_has_control(const char *s);

/* Monotonic clock in seconds (CLOCK_MONOTONIC). */
double ab_now_s(void);

#endif
