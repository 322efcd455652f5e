/*
 * cmd_info.c: the commands that describe rather than measure:
 * `attnbench variants`, `attnbench env` (`runs` is in cmd_runs.c).
 */
#include "commands.h"
#include "env.h"
#include "gpu.h"
#include "registry.h"
#include "store.h"
#include "util.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_variants(int argc, char **argv)
{
    if (argc > 1)
        return ab_usage("variants: takes no arguments");
    printf("%-20s %-8s %-15s %-8s %s\n", "name", "backend", "dtypes", "D", "idea");
    for (size_t i = 0; i < ab_variant_count(); i++) {
        const ab_variant *v = ab_variant_at(i);
        char dt[32], dims[64];
        printf("%-20s %-8s %-15s %-8s %s\n", v->name, v->backend,
               ab_variant_dtypes_str(v, dt, sizeof dt), ab_variant_dims_str(v, dims, sizeof dims),
               v->idea);
        if (v->unavailable)
            printf("%-20s   (%s)\n", "", v->unavailable);
    }
    return 0;
}

int cmd_env(int argc, char **argv)
{
    int gpu = 1, peaks = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-gpu") == 0)
            gpu = 0;
        else if (strcmp(argv[i], "--measure-peaks") == 0)
            peaks = 1;
        else
            return ab_usage("env: unknown argument '%s' (attnbench help env)", argv[i]);
    }
    json_t *fp = ab_env_fingerprint(gpu);
    char *text = NULL, hash[17];
    if (!fp || ab_env_canonical(fp, &text, hash)) {
        json_decref(fp);
        return error("env: out of memory") ? 1 : 1;
    }
    json_object_set_new(fp, "hash", json_string(hash));
    if (peaks && gpu) {
        /* measured, not part of the fingerprint (they vary run to run) */
        double gemm = 0, copy = 0;
        char err[256];
        json_t *p = json_object();
        if (ab_gpu_measure_peaks(&gemm, &copy, err, sizeof err) == 0) {
            json_object_set_new(p, "gemm_bf16_tflops", json_real(gemm));
            json_object_set_new(p, "copy_gbs", json_real(copy));
            json_object_set_new(p, "ridge_flop_per_byte", json_real(gemm * 1e3 / copy));
        } else {
            json_object_set_new(p, "error", json_string(err));
        }
        json_object_set_new(fp, "measured_peaks", p);
    }
    char *pretty = json_dumps(fp, JSON_SORT_KEYS | JSON_INDENT(2));
    printf("%s\n", pretty ? pretty : text);
    free(pretty);
    free(text);
    json_decref(fp);
    return 0;
}
