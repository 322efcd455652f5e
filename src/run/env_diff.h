/*
 * env_diff.h: printing the environment fields that differ between two
 * fingerprints (env_diff.c).
 */
#ifndef ATTNBENCH_ENV_DIFF_H
#define ATTNBENCH_ENV_DIFF_H

#include <jansson.h>
#include <stdio.h>

/* Prints the fields that differ between fingerprints fa and fb (JSON
 * objects of ab_env_fingerprint, either may be NULL: then one line says a
 * fingerprint is unreadable), one "<indent>field: A -> B" line per field
 * with both values as compact JSON, or "<indent>identical environments". */
void ab_print_env_diff(FILE *out, json_t *fa, json_t *fb, const char *indent);

#endif
