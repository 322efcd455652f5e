/*
 * commands.h: the handlers of attnbench's command table (main.c). Each takes
 * argv with argv[0] the command's name and returns the process exit status:
 * 0 on success, non-zero after printing one message on stderr.
 */
#ifndef ATTNBENCH_COMMANDS_H
#define ATTNBENCH_COMMANDS_H

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

/* Option parsing shared by the handlers: returns the value of --name VALUE
 * or --name=VALUE at argv[*i] (advancing *i past it), or NULL when argv[*i]
 * is not that option. Sets *missing when the value is absent. */
const char *ab_opt(int argc, char **argv, int *i, const char *name, int *missing);

#endif
