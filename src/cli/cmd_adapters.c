/*
 * cmd_adapters.c: `attnbench adapters [--stop]`: the kept adapters
 * (src/run/ext_keep.h, `run --keep-adapters`) of this user: each socket
 * in the keep directory, the adapter listening there (pid, working
 * directory, command line from /proc), or "stale" when none listens;
 * --stop ends each (SIGTERM) and removes the sockets.
 */
#include "commands.h"
#include "ext_keep.h"
#include "util.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* /proc/PID/cmdline with its NULs as spaces, into out (n bytes) */
static void cmdline_of(pid_t pid, char *out, size_t n)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    out[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    size_t got = fread(out, 1, n - 1, f);
    fclose(f);
    for (size_t i = 0; i < got; i++)
        if (out[i] == '\0')
            out[i] = ' ';
    while (got > 0 && out[got - 1] == ' ')
        got--;
    out[got] = '\0';
}

int cmd_adapters(int argc, char **argv)
{
    int stop = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--stop") == 0)
            stop = 1;
        else
            return ab_usage("adapters: unknown argument '%s' (attnbench help adapters)", argv[i]);
    }
    char dir[512], why[600];
    if (ab_ext_keep_dir(dir, sizeof dir, why, sizeof why)) {
        error("adapters: %s", why);
        return 1;
    }
    DIR *d = opendir(dir);
    if (!d) {
        error("adapters: %s: cannot be read", dir);
        return 1;
    }
    int found = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "adapter-", 8) != 0 || !strstr(de->d_name, ".sock"))
            continue;
        char path[1024], cmd[512], cwdlink[64], cwd[512] = "?";
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        pid_t pid = 0;
        found++;
        if (!ab_ext_keep_probe(path, &pid)) {
            printf("stale    %s%s\n", path, stop ? " (removed)" : "");
            if (stop)
                unlink(path);
            continue;
        }
        cmdline_of(pid, cmd, sizeof cmd);
        snprintf(cwdlink, sizeof cwdlink, "/proc/%d/cwd", (int)pid);
        ssize_t len = readlink(cwdlink, cwd, sizeof cwd - 1);
        if (len > 0)
            cwd[len] = '\0';
        printf("pid %-6d %s\n         in %s\n         %s%s\n", (int)pid, cmd, cwd, path,
               stop ? " (stopped)" : "");
        if (stop) {
            kill(pid, SIGTERM);
            unlink(path);
        }
    }
    closedir(d);
    if (!found)
        printf("no kept adapters (%s)\n", dir);
    return 0;
}
