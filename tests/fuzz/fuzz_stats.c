/*
 * fuzz_stats.c: libFuzzer harness for the sample reader of `attnbench
 * stats` (read_samples in src/cli/cmd_stats.c, included here to reach the static
 * function): any bytes, as a file of latencies (with or without a round
 * column, and an instance column), must give samples that are all finite
 * and >= 0 with rounds and instances >= 0,
 * or an error, never a crash; when two files were read
 * the comparison runs on them (200 resamples) without crashing.
 */
#include "../../src/cli/cmd_stats.c"

#include <math.h>
#include <stdint.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0]) {
        freopen("/dev/null", "w", stderr);
        freopen("/dev/null", "w", stdout);
        snprintf(path, sizeof path, "/tmp/ab-fuzz-stats-%ld.txt", (long)getpid());
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    double *x = NULL;
    int *round = NULL, rounds = 0, *inst = NULL;
    size_t n = 0;
    if (read_samples(path, &x, &n, &round, &rounds, &inst) == 0) {
        for (size_t i = 0; i < n; i++)
            if (!isfinite(x[i]) || x[i] < 0 || (round && round[i] < 0) || (inst && inst[i] < 0))
                abort();
        if ((round == NULL) != (rounds == 0) || (inst && !round))
            abort();
        if (n >= 3 && n <= 2000) {
            char *argv[] = {"stats", path, path, "--resamples", "200", "--json", NULL};
            cmd_stats(6, argv);
        }
    }
    free(x);
    free(round);
    free(inst);
    unlink(path);
    return 0;
}
