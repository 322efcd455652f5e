/*
 * exp_canon.c: the canonical text and hash of an experiment (exp_canon.h).
 * A small scanner of libconfig's lexical structure: it knows strings,
 * comments and whitespace, and nothing of the grammar, so the canonical form
 * of any text, valid or not, is defined and cheap (one pass).
 */
#include "exp_canon.h"
#include "util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int word_char(int c)
{
    return isalnum(c) || c == '_' || c == '.' || c == '+' || c == '-';
}

char *ab_exp_canonical(const char *text)
{
    size_t n = strlen(text);
    char *out = malloc(n + 1), *o = out;
    if (!out)
        return NULL;
    const char *p = text;
    int gap = 0; /* whitespace or a comment since the last byte written */
    while (*p) {
        if (isspace((unsigned char)*p)) {
            gap = 1;
            p++;
        } else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
            while (*p && *p != '\n')
                p++;
            gap = 1;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *end = strstr(p + 2, "*/");
            p = end ? end + 2 : p + strlen(p);
            gap = 1;
        } else {
            if (gap && o > out && word_char((unsigned char)o[-1]) && word_char((unsigned char)*p))
                *o++ = ' ';
            gap = 0;
            if (*p == '"') { /* a string, escapes and all, as written */
                *o++ = *p++;
                while (*p && *p != '"') {
                    if (*p == '\\' && p[1])
                        *o++ = *p++;
                    *o++ = *p++;
                }
                if (*p)
                    *o++ = *p++;
            } else {
                *o++ = *p++;
            }
        }
    }
    *o = '\0';
    return out;
}

int ab_exp_hash(const char *text, char out[17])
{
    char *c = ab_exp_canonical(text);
    if (!c) {
        ab_hash_hex(text, strlen(text), out);
        return -1;
    }
    ab_hash_hex(c, strlen(c), out);
    free(c);
    return 0;
}
