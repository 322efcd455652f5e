/*
 * exp_canon.h: the identity of an experiment's text (exp_canon.c). Two
 * experiment files that differ only in comments and whitespace describe the
 * same experiment, so they get the same hash: the hash is taken over a
 * canonical form of the libconfig text, not over its bytes.
 */
#ifndef ATTNBENCH_EXP_CANON_H
#define ATTNBENCH_EXP_CANON_H

/* The canonical form of libconfig text, malloc'd (NULL when out of memory):
 * comments (# and // to the end of the line, and block comments) removed,
 * every run of whitespace and comments outside strings removed, except that
 * one space is kept between two word characters (letters, digits, _ . + -)
 * it separates; strings ("...", backslash escapes) kept byte for byte. The
 * lexical rules are libconfig's (hyperrealm.github.io/libconfig, "Comments",
 * "String Values"). An unterminated string or comment ends the text. */
char *ab_exp_canonical(const char *text);

/* FNV-1a 64 (ab_hash_hex) of ab_exp_canonical(text) into out[17]: the
 * experiment's hash. Returns 0, or -1 when out of memory (out is then the
 * hash of the text's bytes, the definition older runs were stored with). */
int ab_exp_hash(const char *text, char out[17]);

#endif
