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

/* Loads `library` (a path, as dlopen takes it) and finds its variant `name`.
 * On success returns 0, *out gets a heap copy of the variant adapted to
 * ab_variant (backend "plugin"; free with ab_plugin_variant_free) and
 * *record a heap JSON object {"plugin": {"library", "size", "sha256"}}
 * (SHA-256 of the file's bytes through OpenSSL's libcrypto when attnbench
 * was built with it, else null with "hash": "unavailable: ..."). On
 * failure (dlopen, missing symbol attnbench_plugin_variants, wrong ABI
 * version, no such variant, a malformed row) returns -1 with one line in err
 * naming the library, e.g. "libbad.so: ABI version 99, attnbench expects 1".
 * The library stays loaded for the life of the process. */
int ab_plugin_load(const char *library, const char *name, ab_variant **out, char **record,
                   char *err, size_t n);

/* A variant that stands for a plugin that could not be loaded: `unavailable`
 * holds `why` and the entry points are NULL; the experiment validator lets
 * it through and the runner stores every (variant, configuration) pair of
 * it as an error with that message, while the rest of the run goes on.
 * Heap; NULL when out of memory. */
ab_variant *ab_plugin_failed_variant(const char *name, const char *why);

/* Runs setup, one forward pass and teardown of CPU plugin variant v on
 * shape s and host inputs q, k, v (output into a scratch copy) in a forked
 * child, so that a plugin that crashes is caught before attnbench calls it
 * in its own process. Returns 0 when the child exited normally (whatever
 * the plugin returned: setup and run errors are reported later by the
 * runner as for any variant), or -1 with one line in err naming `library`
 * and the signal. CUDA plugins are not probed (a CUDA context does not
 * survive fork); the probe's output is discarded, so it adds one untimed
 * call and changes no measurement. */
int ab_plugin_probe(const ab_variant *v, const char *library, const ab_shape *s,
                    const float *q, const float *k, const float *vv, char *err, size_t n);

/* Frees a variant of ab_plugin_load or ab_plugin_failed_variant (NULL ok). */
void ab_plugin_variant_free(ab_variant *v);

#endif
