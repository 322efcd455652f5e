/*
 * args.c: the one option parser of the command handlers (commands.h) and
 * the check of whole-number arguments; no database, so the stats reader's
 * fuzz harness links it alone.
 */
#include "commands.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *ab_opt(int argc, char **argv, int *i, const char *name, int *missing)
{
    size_t len = strlen(name);
    const char *a = argv[*i];
    /* *missing is left as it is unless argv[*i] is this option, so one flag
     * serves a chain of calls */
    if (strncmp(a, name, len) != 0)
        return NULL;
    if (a[len] == '=') {
        *missing = 0;
        return a + len + 1;
    }
    if (a[len] != '\0')
        return NULL;
    *missing = 0;
    /* the next argument is this option's value unless it is another option
     * ("--db", "-o"): `--baseline --db x` must not take "--db" as the
     * baseline. "-" alone (stdout, stdin) and negative numbers are values;
     * --name=VALUE gives any value. */
    const char *next = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (!next || (next[0] == '-' && (next[1] == '-' || isalpha((unsigned char)next[1])))) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

int ab_parse_count(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    if (!s || !isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}
