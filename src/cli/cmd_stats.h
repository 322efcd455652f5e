/*
 * cmd_stats.h: `attnbench stats A B`, the comparison a report makes, applied
 * to two text files of latency samples (one number in ms per line).
 */
#ifndef ATTNBENCH_CMD_STATS_H
#define ATTNBENCH_CMD_STATS_H

/* Handler of `attnbench stats A B [--json] [--alpha 0.05] [--resamples N]
 * [--seed N] [--ci percentile|bca]`; argv[0] is "stats". Files: one latency
 * (ms, finite, >= 0) per line; blank lines and text after '#' are ignored;
 * each needs >= 3 samples. Prints the comparison (A = candidate, B =
 * baseline; speedup = median(B)/median(A)) as text, or as one JSON object
 * with --json, on stdout. Returns 0 on success; 1 after one error line on
 * stderr, e.g. "attnbench: stats: a.txt:7: not a number: 'abc'". */
int cmd_stats(int argc, char **argv);

#endif
