/*
 * exp_include.h: libconfig's @include directives expanded into one text
 * (exp_include.c), so that a run stores the experiment as it ran, not a
 * reference to files that may change before it is resumed or reported.
 */
#ifndef ATTNBENCH_EXP_INCLUDE_H
#define ATTNBENCH_EXP_INCLUDE_H

#include <stddef.h>

/* text (the file at path) with every `@include "FILE"` line replaced by
 * FILE's text, expanded in turn (at most 10 deep, as libconfig allows). The
 * directive is libconfig's: at the start of a line (after blanks), outside
 * block comments (hyperrealm.github.io/libconfig, "Include Directives").
 * FILE, when relative, is looked up beside the file that includes it, then
 * in the working directory (where libconfig itself looks). The result is
 * malloc'd, at most `limit` bytes; text itself (a copy) when it includes
 * nothing. NULL with one line in err naming the file and line on error
 * (missing file, too deep, too long, a NUL byte). */
char *ab_exp_expand_includes(const char *path, const char *text, size_t limit, char *err,
                             size_t n);

#endif
