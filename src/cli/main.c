/*
 * main.c: the attnbench command line. A table of commands {name, handler,
 * help} (git's style); `attnbench help CMD` prints a command's usage. Only
 * src/ calls exit, and only here.
 */
#include "abstats.h"
#include "commands.h"
#include "store.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmd_help(int argc, char **argv);

typedef struct command {
    const char *name;
    int (*handler)(int argc, char **argv);
    const char *help;  /* one line */
    const char *usage; /* the full usage text of `attnbench help NAME` */
} command;

static const command commands[] = {
    {"run", cmd_run, "run an experiment file and store every sample",
     "attnbench run EXPERIMENT [--shard K/N | --devices all|0,1,...] [--db PATH]\n"
     "              [--min-time S] [--max-time S] [--keep-adapters S]\n"
     "  Runs every (configuration, variant) of EXPERIMENT (a libconfig file, see\n"
     "  experiments/), checks each against the float64 reference, stores every raw\n"
     "  latency sample, and prints the new run's id on stdout.\n"
     "  --min-time S: each GPU measurement samples until its samples hold S seconds of\n"
     "  GPU time (nvbench's min_time) besides its count or convergence; --max-time S\n"
     "  stops one at S seconds of GPU time (0: no cap). They override the experiment's\n"
     "  min_time / max_time; the run stores and reports the budget it used.\n"
     "  --keep-adapters S: protocol-2 adapters that can (the adapter kit's) stay after\n"
     "  the run, idle for at most S seconds, and the next run of the same command in\n"
     "  the same directory and environment uses them instead of starting new ones (no\n"
     "  interpreter, import or compile to wait for); one whose files changed since it\n"
     "  started is not used (adapters/PROTOCOL.md \"Kept adapters\"). Without it,\n"
     "  ATTNBENCH_KEEP_ADAPTERS=S says the same; without either they stay 300 s, except\n"
     "  on a GPU in an exclusive or prohibited compute mode. 0 keeps none;\n"
     "  attnbench adapters lists the kept ones, --stop ends them.\n"
     "  --shard K/N runs part K of the configurations split into N parts of about equal\n"
     "  cost (forward FLOPs x variants, longest first to the least-loaded part); in a\n"
     "  Slurm job array, SLURM_ARRAY_TASK_ID/MIN/MAX (or COUNT) pick the part instead.\n"
     "  --devices starts one worker per listed CUDA device (all: every visible GPU;\n"
     "  a repeated index shares a GPU, for testing only), each running one part as its\n"
     "  own run into the same database; prints the runs' ids, one per line.\n"
     "  (--worker LABEL is what --devices passes each worker: the label stored as the\n"
     "  run's worker, e.g. 'cuda:1'; not for use by hand.)\n"
     "  attnbench status EXPERIMENT shows which parts a database holds.\n"
     "  Exit status 0 when every measurement passed its check, 3 when the run completed\n"
     "  but some measurement failed its check or could not run (stored, with the reason),\n"
     "  1 on an error, 128 + N when signal N stopped it.\n"},
    {"status", cmd_status, "which parts of a split experiment the database holds",
     "attnbench status EXPERIMENT [--plan N] [--db PATH]\n"
     "  For each split of EXPERIMENT (by the hash of its file) found in the database:\n"
     "  every part's configurations, measurements stored and expected, and state\n"
     "  (complete, running, interrupted, abandoned, failed, missing), then the command\n"
     "  that completes each part that is not complete (run --shard K/N, or resume).\n"
     "  Exit status 0 when some split (or a whole run) is complete, 3 when none is.\n"
     "  --plan N prints the split into N parts (configurations, predicted cost) only.\n"},
    {"resume", cmd_resume, "measure what an unfinished run lacks",
     "attnbench resume RUN [--force] [--db PATH]\n"
     "  Completes RUN (abandoned: its process is gone; interrupted; or failed) with the\n"
     "  experiment stored with it, measuring only the (variant, configuration) pairs it\n"
     "  lacks, and marks it complete. A run still running on this host is refused, also\n"
     "  with --force and when another resume took it first; one 'running' on another\n"
     "  host needs --force. Prints the run id.\n"},
    {"report", cmd_report, "write the markdown ablation report of a run",
     "attnbench report RUN [--baseline VARIANT] [--chain] [--by-clock] [--json] [--no-plots]\n"
     "                 [-o FILE] [--db PATH]\n"
     "  Writes the report of RUN to FILE (default reports/<experiment>-run<RUN>.md)\n"
     "  and prints its path. --chain also compares each variant with the one listed\n"
     "  before it (a ladder of optimisations). --by-clock adds each median scaled to\n"
     "  the run's highest SM clock. --json writes every comparison and per-variant\n"
     "  summary as JSON instead (default reports/<experiment>-run<RUN>.json; the same\n"
     "  numbers). -o - writes to stdout. Figures (gnuplot, SVG) go beside the report\n"
     "  as <report name>-K.svg unless --no-plots or --json.\n"},
    {"runs", cmd_runs, "list the runs in the database",
     "attnbench runs [--experiment NAME] [--variant NAME] [--gpu SUBSTRING]\n"
     "               [--since YYYY-MM-DD] [--commit PREFIX] [--json] [--db PATH]\n"
     "  One line per run: id, experiment, start (UTC), GPU, status, measurements.\n"
     "  Filters: the experiment's name; runs that measured VARIANT; GPU name containing\n"
     "  SUBSTRING (any case; CPU-only runs are 'CPU only'); started on or after the\n"
     "  date (UTC); build commit (fingerprint build.commit) starting with PREFIX.\n"
     "  --json prints an array of objects (id, uuid, experiment, started_at,\n"
     "  finished_at, status, gpu, commit, env_hash, measurements, not_ok).\n"},
    {"show", cmd_show, "show one run: configurations, medians with CIs, fingerprint",
     "attnbench show RUN [--db PATH]\n"
     "  RUN is a run id or a uuid prefix (4+ characters). Per configuration, every\n"
     "  variant's status, sample count, median with its 95% BCa bootstrap CI\n"
     "  (10,000 resamples, seed 42; throttled samples left out), TFLOP/s and stop\n"
     "  reason; then the environment fingerprint.\n"},
    {"compare", cmd_compare, "compare two runs measurement by measurement",
     "attnbench compare RUN_A RUN_B [--fail-on-regression] [--within-run] [--practical 0.01]\n"
     "                  [--alpha 0.05] [--db PATH]\n"
     "  For every (variant, configuration) measured ok in both runs: median of A\n"
     "  (before) and B (after), the change, the speedup of B over A with its CI and\n"
     "  Mann-Whitney p Holm-adjusted over all the pairs: two runs' rounds are not\n"
     "  paired in time, so where both were sampled in rounds each run's per-round\n"
     "  medians are one sample (Mann-Whitney U, two-sample Hodges-Lehmann speedup\n"
     "  and interval, marked u), else the samples (median(A) / median(B),\n"
     "  bootstrap CI); Cliff's delta, and the verdict of the one rule `stats` and `report`\n"
     "  use: improved or regressed when p (Holm) < alpha, the speedup CI excludes\n"
     "  1 +/- practical and the shift is at least its noise (the minimum detectable\n"
     "  effect), else unchanged.\n"
     "  Where the database holds 3 or more other runs of the same variant and\n"
     "  configuration in A's environment (A and B left out), the pair is judged by\n"
     "  the spread of those runs' medians (between-run variance: CI and t-test,\n"
     "  marked b); compare says for how many pairs it did, or that it did not.\n"
     "  --within-run judges every pair by the two runs' own variance only.\n"
     "  The environment fields that differ are listed first; every pair of A that\n"
     "  could not be compared is listed with the reason.\n"
     "  Exit status: 0; with --fail-on-regression 3 when anything regressed, else 4\n"
     "  when a pair of A could not be compared or nothing was; 1 on errors, 2 on\n"
     "  usage errors.\n"},
    {"history", cmd_history, "one measurement across all runs, with change points",
     "attnbench history VARIANT --config B,H,S,D[,causal|noncausal][,dtype]\n"
     "                  [--plot FILE.svg|FILE.png] [--practical 0.01] [--db PATH]\n"
     "  Median and 95% CI of VARIANT at that configuration in every run, in time\n"
     "  order, with run id, date, build commit, GPU and environment hash; then the\n"
     "  change points found by airspeed velocity's step detection (an L1 piecewise-\n"
     "  constant fit, Friedrich et al. 2008, penalty chosen by asv's information\n"
     "  criterion), each with the size of the move and any environment change at\n"
     "  the same run. --plot draws the series and the fitted steps with gnuplot.\n"},
    {"export", cmd_export, "write runs with all their samples as JSON or CSV",
     "attnbench export RUN... [--format json|csv] [-o FILE] [--db PATH]\n"
     "  JSON (default): {\"attnbench_export\": 1, \"runs\": [...]}, per run its\n"
     "  columns, experiment (with its text), environment fingerprint, timer floor,\n"
     "  wall-time account and measurements with every sample, clock block and\n"
     "  gradient check; no database ids (runs are\n"
     "  their uuids). CSV: one row per sample with run_uuid, experiment, variant,\n"
     "  B, H, S, D, causal, dtype, status, idx, ms, round, t_s, throttled.\n"
     "  Default output: stdout.\n"},
    {"import", cmd_import, "add the runs of a JSON export to the database",
     "attnbench import FILE [--db PATH]\n"
     "  Adds each run of FILE (attnbench export --format json; - reads stdin) unless\n"
     "  a run with its uuid is already there, so importing twice changes nothing.\n"
     "  Every field is checked as a run would store it first; environments and\n"
     "  experiments are shared by hash; the file is added in one transaction, whole\n"
     "  or not at all.\n"},
    {"merge", cmd_merge, "add the runs of another attnbench database",
     "attnbench merge OTHER.db [--db PATH]\n"
     "  Copies every finished run of OTHER.db (SQLite ATTACH) that this database\n"
     "  lacks (by uuid), with its experiment, environment, measurements, samples,\n"
     "  clock blocks, gradient checks, timer floor and wall-time account, ids\n"
     "  remapped, one transaction per run. Merging\n"
     "  twice is a no-op; runs still running in OTHER.db are skipped (abandoned ones,\n"
     "  whose process is gone, are merged).\n"},
    {"query", cmd_query, "run one read-only SQL query and print a table",
     "attnbench query \"SQL\" [--db PATH]\n"
     "  Runs one SQL statement on a read-only connection and prints the rows as\n"
     "  aligned columns. Statements that could write (INSERT, UPDATE, DELETE, DROP,\n"
     "  ATTACH, writing PRAGMAs, ...) are refused. Views: measurement_summary (one\n"
     "  row per measurement: run, variant, B, H, S, D, causal, dtype, status, n,\n"
     "  median_ms, min_ms, max_ms, tflops) and latest_runs (latest run per\n"
     "  experiment name).\n"},
    {"adapters", cmd_adapters, "list (or stop) the adapters kept after runs",
     "attnbench adapters [--stop]\n"
     "  Lists this user's kept adapters (300 s after a run unless run --keep-adapters\n"
     "  or ATTNBENCH_KEEP_ADAPTERS says otherwise; adapters/PROTOCOL.md\n"
     "  \"Kept adapters\"): for each socket, the pid, command line and directory of\n"
     "  the adapter waiting there for the next run, or \"stale\" when none is.\n"
     "  --stop ends each one (SIGTERM) and removes the sockets.\n"},
    {"variants", cmd_variants, "list the attention variants of this build",
     "attnbench variants\n"
     "  Name, backend, dtypes, head dimensions and idea of every variant; variants\n"
     "  not in this build say why.\n"},
    {"env", cmd_env, "print this machine's environment fingerprint as JSON",
     "attnbench env [--no-gpu] [--measure-peaks]\n"
     "  The fingerprint stored with each run: GPU, driver, CUDA, cuBLAS, cuDNN, NVML\n"
     "  state, host, OS, compiler and build. --no-gpu skips the CUDA device.\n"
     "  --measure-peaks adds the two ceilings (cuBLAS bf16 GEMM TFLOP/s, device copy\n"
     "  GB/s); every GPU run measures and stores them too, for its roofline.\n"},
    {"stats", cmd_stats, "compare two files of samples as a report would",
     "attnbench stats A B [--json] [--alpha 0.05] [--practical 0.01] [--min-shift MS]\n"
     "                [--resamples N] [--seed N] [--ci percentile|bca]\n"
     "  A (candidate) and B (baseline) hold one latency in ms per line, or a latency\n"
     "  and its round (\"MS ROUND\", in the order taken); blank lines and # comments\n"
     "  are ignored. With rounds in both files the comparison is paired over the\n"
     "  shared rounds, as report pairs a run's rounds; without, i.i.d. The verdict is\n"
     "  report's and compare's rule for a family of one; --min-shift MS vetoes a\n"
     "  shift smaller than MS (the A/A resolution report and compare apply).\n"},
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
        return ab_usage("help: unknown command '%s' (attnbench help lists them)", argv[1]);
    fputs(c->usage, stdout);
    return 0;
}

/* The exit status that tells the truth about the output: a command whose
 * standard output or error could not be written (a full disk, a closed pipe,
 * > /dev/full) fails, even if its work succeeded; its printed run id or table
 * would otherwise be lost silently. */
static int finish(int rc)
{
    char err[AB_ERR];
    int damage = ab_db_damage(err);
    if (damage == -1)
        error("%s", err);
    if (damage)
        rc = rc ? rc : 1;
    errno = 0;
    int out_bad = fflush(stdout) != 0 || ferror(stdout);
    int e = errno; /* 0 when an earlier implicit flush failed: its errno is gone */
    out_bad |= fclose(stdout) != 0;
    if (out_bad) {
        if (e)
            error("writing standard output failed: %s", strerror(e));
        else
            error("writing standard output failed");
        rc = rc ? rc : 1;
    }
    if (fflush(stderr) != 0 || ferror(stderr))
        rc = rc ? rc : 1;
    return rc;
}

int main(int argc, char **argv)
{
    /* a parent that ignored SIGCHLD (SIG_IGN survives exec) would make the
     * kernel reap our children itself: waitpid then fails with ECHILD, the
     * plugin probe and the adapters could never be waited for */
    signal(SIGCHLD, SIG_DFL);
    ab_db_init();
    ab_stats_init();
    if (argc < 2) {
        list_commands(stderr);
        exit(2);
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        exit(finish(cmd_help(1, argv)));
    const command *c = lookup(argv[1]);
    if (!c) {
        error("unknown command '%s' (attnbench help lists them)", argv[1]);
        exit(2);
    }
    /* an empty $ATTNBENCH_DB is a mistake to name, not a reason to fall
     * back silently to ./attnbench.db (--db on the command line wins) */
    const char *env_db = getenv("ATTNBENCH_DB");
    int db_flag = 0;
    for (int i = 2; i < argc; i++)
        db_flag |= strcmp(argv[i], "--db") == 0 || strncmp(argv[i], "--db=", 5) == 0;
    if (env_db && !*env_db && !db_flag && c->handler != cmd_help && c->handler != cmd_stats &&
        c->handler != cmd_variants && c->handler != cmd_env) {
        error("ATTNBENCH_DB is set but empty: unset it, or set it (or --db) to the database's "
              "file name");
        exit(2);
    }
    /* A command that does not fork (all but run, resume and calibrate) keeps up to
     * 1 MiB of its output in stdout's buffer when stdout is not a terminal,
     * so a failing output (a full disk, > /dev/full) fails at finish()'s
     * flush with its own errno instead of at an implicit flush whose errno
     * later calls overwrite. run, resume and calibrate keep the default buffering:
     * their forked children must not inherit unwritten output. */
    static char out_buffer[1 << 20]; /* glibc ignores setvbuf's size without a buffer */
    if (c->handler != cmd_run && c->handler != cmd_resume && c->handler != cmd_calibrate &&
        !isatty(STDOUT_FILENO))
        setvbuf(stdout, out_buffer, _IOFBF, sizeof out_buffer);
    exit(finish(c->handler(argc - 1, argv + 1)));
}
