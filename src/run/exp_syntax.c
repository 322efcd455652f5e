/*
 * exp_syntax.c: what was expected where libconfig says only "syntax error"
 * (exp_syntax.h). One pass over the text with libconfig's lexical rules
 * (strings in double quotes with backslash escapes; comments '#', '//' and
 * slash-star) finds, in order of precedence, a string not closed on its
 * line, a ',' directly before ']' or ')', and a bracket still open at the
 * end of the file; a setting name followed by something other than '=' or
 * ':' is looked for on the line libconfig reported.
 */
#include "exp_syntax.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* A copy of line `want` (1-based) of text, blanks trimmed, at most n-1
 * bytes, control bytes as '?'; "" when there is no such line. */
static void line_text(const char *text, int want, char *buf, size_t n)
{
    const char *p = text;
    for (int l = 1; l < want && p; l++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    buf[0] = '\0';
    if (!p || n == 0)
        return;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t k = 0;
    while (p[k] && p[k] != '\n' && k + 1 < n) {
        buf[k] = (unsigned char)p[k] < 0x20 ? '?' : p[k];
        k++;
    }
    while (k > 0 && isspace((unsigned char)buf[k - 1]))
        k--;
    buf[k] = '\0';
}

/* On line `want`: a setting name followed by neither '=' nor ':' (and not
 * a bracket or the end of the line); the name into name (n bytes). */
static int missing_equals(const char *text, int want, char *name, size_t n)
{
    char l[256];
    line_text(text, want, l, sizeof l);
    const char *p = l;
    if (!(isalpha((unsigned char)*p) || *p == '*'))
        return 0;
    size_t k = 0;
    while (isalnum((unsigned char)p[k]) || p[k] == '_' || p[k] == '-' || p[k] == '*')
        k++;
    const char *q = p + k;
    while (*q == ' ' || *q == '\t')
        q++;
    if (*q == '\0' || *q == '=' || *q == ':' || *q == ';' || *q == ',' || *q == '{' ||
        *q == '}' || *q == ')' || *q == ']' || *q == '#' || (q[0] == '/' && q[1] == '/'))
        return 0;
    snprintf(name, n, "%.*s", (int)(k < 60 ? k : 60), p);
    return 1;
}

void ab_exp_syntax_message(const char *path, const char *text, int line, const char *why,
                           char *err, size_t n)
{
    enum { MAXDEPTH = 64 };
    char open_ch[MAXDEPTH];
    int open_line[MAXDEPTH], depth = 0;
    int l = 1, col = 0, in_block = 0;
    int str_line = 0, str_col = 0;   /* an open string: where its quote is */
    int comma_line = 0;              /* the last significant character was ',' on this line */
    for (const char *p = text; *p; p++) {
        const char c = *p;
        if (c == '\n') {
            if (str_line) {
                snprintf(err, n, "%s:%d: syntax error: unterminated string (the '\"' at column "
                         "%d is not closed on this line)", path, str_line, str_col);
                return;
            }
            l++;
            col = 0;
            continue;
        }
        col++;
        if (in_block) {
            if (c == '*' && p[1] == '/') {
                in_block = 0;
                p++;
                col++;
            }
            continue;
        }
        if (str_line) {
            if (c == '\\' && p[1] && p[1] != '\n') {
                p++;
                col++;
            } else if (c == '"') {
                str_line = 0;
            }
            continue;
        }
        if (c == '#' || (c == '/' && p[1] == '/')) { /* to the end of the line */
            while (p[1] && p[1] != '\n')
                p++;
            continue;
        }
        if (c == '/' && p[1] == '*') {
            in_block = 1;
            p++;
            col++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r')
            continue;
        if ((c == ']' || c == ')') && comma_line && l <= line + 1) {
            snprintf(err, n, "%s:%d: syntax error: trailing comma before '%c' (remove the ',')",
                     path, comma_line, c);
            return;
        }
        comma_line = c == ',' ? l : 0;
        if (c == '"') {
            str_line = l;
            str_col = col;
        } else if (c == '{' || c == '[' || c == '(') {
            if (depth < MAXDEPTH) {
                open_ch[depth] = c;
                open_line[depth] = l;
            }
            depth++;
        } else if ((c == '}' || c == ']' || c == ')') && depth > 0) {
            depth--;
        }
    }
    if (str_line) {
        snprintf(err, n, "%s:%d: syntax error: unterminated string (the '\"' at column %d is "
                 "not closed)", path, str_line, str_col);
        return;
    }
    char name[64];
    if (missing_equals(text, line, name, sizeof name)) {
        snprintf(err, n, "%s:%d: syntax error: expected '=' after '%s' (a setting is "
                 "`name = value;`)", path, line, name);
        return;
    }
    if (depth > 0 && depth <= MAXDEPTH && line >= l) {
        const char c = open_ch[depth - 1];
        snprintf(err, n, "%s:%d: syntax error: the file ends inside the '%c' opened at line %d "
                 "(a '%c' is missing)", path, line, c, open_line[depth - 1],
                 c == '{' ? '}' : c == '[' ? ']' : ')');
        return;
    }
    char t[100];
    line_text(text, line, t, sizeof t);
    if (why && strcmp(why, "syntax error") != 0)
        snprintf(err, n, "%s:%d: syntax error: %s, in '%s'", path, line, why, t);
    else if (t[0])
        snprintf(err, n, "%s:%d: syntax error in '%s' (expected `name = value;` settings, "
                 "\"strings\", [lists], (lists) or { groups })", path, line, t);
    else
        snprintf(err, n, "%s:%d: syntax error (libconfig: %s)", path, line, why ? why : "?");
}
