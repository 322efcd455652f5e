/*
 * main.c: the attnbench command line. A table of commands {name, handler,
 * help} (git's style); `attnbench help CMD` prints a command's usage. Only
 * src/ calls exit, and only here.
 */
#include "abstats.h"
#include "calibrate.h"
#include "commands.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_stats(int argc, char **argv);
static int cmd_help(int argc, char **argv);

typedef struct command {
    const char *name;
    int (*handler)(int argc, char **argv);
    const char *help;  /* one line */
    const char *usage; /* the full usage text of `attnbench help NAME` */
} command;

static const command commands[] = {
    {"run", cmd_run, "run an experiment file and store every sample",
     "attnbench run EXPERIMENT [--db PATH]\n"
     "  Runs every (configuration, variant) of EXPERIMENT (a libconfig file, see\n"
     "  experiments/), checks each against the float64 reference, stores every raw\n"
     "  latency sample, and prints the new run's id on stdout.\n"},
    {"report", cmd_report, "write the markdown ablation report of a run",
     "attnbench report RUN [--baseline VARIANT] [--chain] [-o FILE] [--db PATH]\n"
     "  Writes the report of RUN to FILE (default reports/<experiment>-run<RUN>.md)\n"
     "  and prints its path. --chain also compares each variant with the one listed\n"
     "  before it (a ladder of optimisations). -o - writes to stdout.\n"},
    {"runs", cmd_runs, "list the runs in the database",
     "attnbench runs [--db PATH]\n"
     "  One line per run: id, experiment, start (UTC), GPU, status, measurements.\n"},
    {"variants", cmd_variants, "list the attention variants of this build",
     "attnbench variants\n"
     "  Name, backend, dtypes, head dimensions and idea of every variant; variants\n"
     "  not in this build say why.\n"},
    {"env", cmd_env, "print this machine's environment fingerprint as JSON",
     "attnbench env [--no-gpu]\n"
     "  The fingerprint stored with each run: GPU, driver, CUDA, cuBLAS, cuDNN, NVML\n"
     "  state, host, OS, compiler and build. --no-gpu skips the CUDA device.\n"},
    {"stats", cmd_stats, "compare two files of samples as a report would",
     "attnbench stats A B [--json] [--alpha 0.05] [--resamples N] [--seed N] [--ci percentile|bca]\n"
     "  A (candidate) and B (baseline) hold one latency in ms per line; blank lines\n"
     "  and # comments are ignored.\n"},
    {"calibrate", cmd_calibrate, "A/A test: measure one variant against itself, report false positives",
     "attnbench calibrate EXPERIMENT [--variant V] [--pairs K] [--db PATH]\n"
     "  Runs 2K interleaved instances of V (default: the experiment's baseline) on the\n"
     "  experiment's configurations and compares them in K pairs per configuration.\n"
     "  Every difference the verdict rule reports is a false positive; prints the run\n"
     "  id, and on stderr the observed rate against alpha. Reports of runs in the same\n"
     "  environment show the result and flag a rule that exceeded alpha.\n"},
    {"help", cmd_help, "show the commands, or one command's usage", "attnbench help [COMMAND]\n"},
};

static const size_t ncommands = sizeof commands / sizeof commands[0];

static const command *lookup(const char *name)
{
    for (size_t i = 0; i < ncommands; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static void list_commands(FILE *f)
{
    fprintf(f, "usage: attnbench COMMAND [ARGS]\n\n"
               "A statistical performance-research harness for attention kernels.\n\n"
               "commands:\n");
    for (size_t i = 0; i < ncommands; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\nThe database is --db PATH, else $ATTNBENCH_DB, else ./attnbench.db.\n"
               "attnbench help COMMAND shows a command's usage.\n");
}

static int cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        list_commands(stdout);
        return 0;
    }
    const command *c = lookup(argv[1]);
    if (!c)
        return error("help: unknown command '%s' (attnbench help lists them)", argv[1]) ? 2 : 2;
    fputs(c->usage, stdout);
    return 0;
}

int main(int argc, char **argv)
{
    ab_stats_init();
    if (argc < 2) {
        list_commands(stderr);
        exit(2);
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        exit(cmd_help(1, argv));
    const command *c = lookup(argv[1]);
    if (!c) {
        error("unknown command '%s' (attnbench help lists them)", argv[1]);
        exit(2);
    }
    exit(c->handler(argc - 1, argv + 1));
}
