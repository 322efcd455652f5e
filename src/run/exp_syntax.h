/*
 * exp_syntax.h: a message that says what was expected when libconfig
 * refuses an experiment file. libconfig's parser (bison) reports only
 * "syntax error" and a line, often the line after the mistake; this module
 * looks at the text itself for the usual mistakes (an unterminated string,
 * a trailing comma in a list, a setting without '=', a bracket left open at
 * the end of the file) and names the line where each one is.
 */
#ifndef ATTNBENCH_EXP_SYNTAX_H
#define ATTNBENCH_EXP_SYNTAX_H

#include <stddef.h>

/* Writes "PATH:LINE: syntax error: WHAT" into err (n bytes) for experiment
 * text `text` that libconfig refused at line `line` with message `why`
 * (config_error_text). WHAT names the mistake found in the text at or
 * before that line (its own line number then), e.g.
 *   "e.cfg:2: syntax error: unterminated string (the '\"' at column 8 is not
 *    closed on this line)",
 *   "e.cfg:2: syntax error: trailing comma before ']' (remove the ',')",
 *   "e.cfg:3: syntax error: expected '=' after 'samples' (a setting is
 *    `name = value;`)";
 * otherwise libconfig's own message and the offending line's text. */
void ab_exp_syntax_message(const char *path, const char *text, int line, const char *why,
                           char *err, size_t n);

#endif
