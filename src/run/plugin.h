/*
 * plugin.h: the loader of out-of-tree plugins (include/attnbench/plugin.h):
 * dlopen()s a shared library named by an experiment's `library` field,
 * checks its ABI version and adapts one of its variants into the built-in
 * variant struct (src/core/variant.h), so that the runner times, interleaves,
 * checks and stores it like any built-in variant.
 */
#ifndef ATTNBENCH_RUN_PLUGIN_H
#define ATTNBENCH_RUN_PLUGIN_H

#include <stddef.h>

#include "variant.h"

/* The most variants one plugin table may declare, and the longest name
 * (with its NUL) attnbench reads from it. */
#define AB_PLUGIN_MAX_VARIANTS 1024
#define AB_PLUGIN_NAME_MAX 256

/* Loads `library` (a path, as dlopen takes it) and finds its variant `name`.
 * On success returns 0, *out gets a heap copy of the variant adapted to
 * ab_variant (backend "plugin"; free with ab_plugin_variant_free) and
 * *record a heap JSON object {"plugin": {"library", "size", "sha256"}}
 * (SHA-256 of the file's bytes through OpenSSL's libcrypto when attnbench
 * was built with it, else null with "hash": "unavailable: ..."). On
 * failure (dlopen, missing symbol attnbench_plugin_variants, wrong ABI
 * version, a table that claims more rows than AB_PLUGIN_MAX_VARIANTS or
 * than its memory holds, a row that is not a variant (no readable name,
 * unknown device, reserved fields set), no such variant, a malformed row)
 * returns -1 with one line in err naming the library, e.g. "libbad.so: ABI
 * version 99, attnbench expects 1". The table is read through checked
 * copies (process_vm_readv), so a wrong count cannot crash attnbench.
 * The library stays loaded for the life of the process. */
int ab_plugin_load(const char *library, const char *name, ab_variant **out, char **record,
                   char *err, size_t n);

/* A variant that stands for a plugin that could not be loaded: `unavailable`
 * holds `why` and the entry points are NULL; the experiment validator lets
 * it through and the runner stores every (variant, configuration) pair of
 * it as an error with that message, while the rest of the run goes on.
 * Heap; NULL when out of memory. */
ab_variant *ab_plugin_failed_variant(const char *name, const char *why);

/* Frees a variant of ab_plugin_load or ab_plugin_failed_variant (NULL ok). */
void ab_plugin_variant_free(ab_variant *v);

#endif
