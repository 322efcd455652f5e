/*
 * commands.h: the handlers of attnbench's command table (main.c). Each takes
 * argv with argv[0] the command's name and returns the process exit status:
 * 0 on success, non-zero after printing one message on stderr.
 */
#ifndef ATTNBENCH_COMMANDS_H
#define ATTNBENCH_COMMANDS_H

#include <sqlite3.h>

int cmd_run(int argc, char **argv);
int cmd_variants(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_env(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_resume(int argc, char **argv);
int cmd_adapters(int argc, char **argv);
/* `attnbench stats A B [--json] [--alpha 0.05] [--resamples N] [--seed N]
 * [--ci percentile|bca]`, the comparison a report makes, applied to two text
 * files of latency samples. Files: one latency (ms, finite, >= 0) per line;
 * blank lines and text after '#' are ignored; each needs >= 3 samples.
 * Prints the comparison (A = candidate, B = baseline; speedup =
 * median(B)/median(A)) as text, or as one JSON object with --json, on
 * stdout. Returns 0 on success; 1 after one error line on stderr, e.g.
 * "attnbench: stats: a.txt:7: not a number: 'abc'". */
int cmd_stats(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_status(int argc, char **argv); /* scale-out: the parts of a split run */

/* Option parsing shared by the handlers: returns the value of --name VALUE
 * or --name=VALUE at argv[*i] (advancing *i past it), or NULL when argv[*i]
 * is not that option. Sets *missing when the value is absent: at the end of
 * argv, or when the next argument is itself an option ("--db", "-o"; "-"
 * alone and "-5" are values), so a missing value never swallows the next
 * option. *missing is only written when argv[*i] is this option: the
 * caller sets it to 0 once, before the loop. */
const char *ab_opt(int argc, char **argv, int *i, const char *name, int *missing);

/* Parses a whole decimal integer argument (run id, count) in [lo, hi]:
 * digits only, no sign, no trailing text, no overflow. 0 and *out, or -1. */
int ab_parse_count(const char *s, long long lo, long long hi, long long *out);

/* A usage error: prints "attnbench: <message>" on stderr (util.h error())
 * and returns 2, the exit status of a command given wrong arguments. */
int ab_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Opens the database at path (ab_db_open: created and migrated unless
 * readonly); returns the handle, or NULL after printing the reason. */
sqlite3 *ab_cmd_open_db(const char *path, int readonly);

#endif
