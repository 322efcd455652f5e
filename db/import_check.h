/*
 * import_check.h: every field of a JSON export checked with the rules a run
 * obeys, before `attnbench import` writes anything (import_check.c).
 */
#ifndef ATTNBENCH_IMPORT_CHECK_H
#define ATTNBENCH_IMPORT_CHECK_H

#include <jansson.h>
#include <stddef.h>

#include "transfer.h"

/* 0 when doc is a valid export (AB_EXPORT_VERSION): each run's uuid,
 * status, experiment and environment; each measurement's shape (axes in
 * [1, 2^24], sizes that fit, ab_shape_check), dtype, status, non-negative
 * finite figures; each sample's idx (0, 1, ... in order), ms (finite, > 0,
 * at most a day), round and flags; timer floors and clock blocks; times as
 * runs store them (YYYY-MM-DDTHH:MM:SSZ); no configuration measured twice in
 * one run; no uuid shared by two runs with different contents (json_equal;
 * the same run twice passes). Linear in the document's size. Else -1
 * with "runs[0].measurements[3].samples[5].ms: must be a number, not
 * \"abc\"" in err. Members this build does not know are left to the
 * importer (which refuses non-columns). */
int ab_import_check(const json_t *doc, char *err, size_t n);

#endif
