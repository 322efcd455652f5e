/*
 * opt.c: the one option parser the command handlers share (commands.h).
 */
#include "commands.h"

#include <string.h>

const char *ab_opt(int argc, char **argv, int *i, const char *name, int *missing)
{
    size_t len = strlen(name);
    const char *a = argv[*i];
    *missing = 0;
    if (strncmp(a, name, len) != 0)
        return NULL;
    if (a[len] == '=')
        return a + len + 1;
    if (a[len] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}
