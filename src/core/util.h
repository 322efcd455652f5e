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

/* Prints "attnbench: <message>" on stderr and returns -1 (git's error()). */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* error()'s printing alone, for callers with their own return value (the
 * CLI's usage error, ab_usage). */
void ab_verror(const char *fmt, va_list ap);

/* Reads a whole file, at most `limit` bytes, into a NUL-terminated malloc'd
 * buffer; *len (if non-NULL) gets the byte count. NULL with errno set on
 * failure: a longer file (or /dev/zero) with *too_big = 1, a directory with
 * errno EISDIR. */
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

/* Monotonic clock in seconds (CLOCK_MONOTONIC). */
double ab_now_s(void);

#endif
