/*
 * cmd_info.c: the commands that describe rather than measure:
 * `attnbench variants`, `attnbench env` (`runs` is in cmd_runs.c).
 */
#include "ab_build.h"
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

/* What this GPU does with variant v of this build: "" when every declared
 * (dtype, D, pass) sets up here, else the first reason it does not, from the
 * variant's own setup on a small shape (AB_SETUP_UNSUPPORTED: shared memory
 * per block, architecture). Writes a summary into why; returns the number
 * of (dtype, D, pass) combinations that do not set up. */
static int gpu_probe(const ab_variant *v, char *why, size_t n)
{
    static const int any_dims[] = {64, 128, 0};
    const int *dims = v->head_dims[0] ? v->head_dims : any_dims;
    int refused = 0, tried = 0;
    why[0] = '\0';
    for (int t = 0; t < AB_NDTYPES; t++) {
        if (!(v->dtypes & AB_DT(t)))
            continue;
        for (int di = 0; di < 8 && dims[di]; di++)
            for (int p = 0; p < 2; p++) {
                ab_shape s = {1, 1, 128, dims[di], 0, (ab_dtype)t, 0, 0, p ? AB_BWD : AB_FWD};
                if ((ab_variant_caps(v) & AB_CAP_DECODE))
                    s.S = 1, s.S_kv = 128;
                char r[256];
                if (ab_variant_supports(v, &s, r, sizeof r))
                    continue; /* not declared: not this GPU's business */
                void *ctx = NULL;
                size_t ws = 0;
                tried++;
                int rc = v->setup(&s, &ctx, &ws, r, sizeof r);
                if (rc == 0) {
                    if (v->teardown)
                        v->teardown(ctx);
                    continue;
                }
                if (!refused++)
                    snprintf(why, n, "%s %s: %s", ab_dtype_name(s.dtype),
                             ab_pass_name(s.pass), r);
            }
    }
    if (refused && refused < tried) {
        size_t len = strlen(why);
        snprintf(why + len, len < n ? n - len : 0, " (%d of %d dtype/D/pass combinations)",
                 refused, tried);
    }
    return refused;
}

int cmd_variants(int argc, char **argv)
{
    if (argc > 1)
        return ab_usage("variants: takes no arguments");
    ab_gpu_info g;
    char gerr[256];
    const int have_gpu = ab_gpu_query(&g, gerr, sizeof gerr) == 0;
    const int covered = have_gpu && g.image_binary_cc > 0;
    if (have_gpu) {
        const int dev_cc = g.cc_major * 10 + g.cc_minor;
        const char *cap = getenv("ATTNBENCH_SMEM_LIMIT");
        printf("GPU: %s (sm_%d), %.0f KiB of shared memory per block%s%s%s; this build's code "
               "for it: ",
               g.name, dev_cc, g.smem_optin / 1024.0, cap && *cap ? " (limited to " : "",
               cap && *cap ? cap : "", cap && *cap ? " bytes by ATTNBENCH_SMEM_LIMIT)" : "");
        if (!covered)
            printf("none (built with %s)\n", AB_CUDA_FLAGS);
        else if (g.image_binary_cc == dev_cc && g.image_ptx_cc < dev_cc)
            printf("none ahead of time: compute_%d PTX, compiled for sm_%d when first loaded\n",
                   g.image_ptx_cc, dev_cc);
        else if (g.image_binary_cc == dev_cc)
            printf("sm_%d SASS\n", dev_cc);
        else
            printf("sm_%d SASS (binary compatible with sm_%d)\n", g.image_binary_cc, dev_cc);
    } else {
        printf("GPU: none here (%s); what each CUDA variant runs depends on the GPU: "
               "run `attnbench variants` there\n", gerr);
    }
    printf("%-20s %-8s %-15s %-8s %s\n", "name", "backend", "dtypes", "D", "idea");
    int absent = 0, partial = 0;
    for (size_t i = 0; i < ab_variant_count(); i++) {
        const ab_variant *v = ab_variant_at(i);
        char dt[32], dims[64], why[512];
        printf("%-20s %-8s %-15s %-8s %s\n", v->name, v->backend,
               ab_variant_dtypes_str(v, dt, sizeof dt), ab_variant_dims_str(v, dims, sizeof dims),
               v->idea);
        if (v->unavailable) {
            printf("%-20s   (absent: %s)\n", "", v->unavailable);
            absent++;
        } else if (have_gpu && v->device == AB_DEV_CUDA && !covered) {
            printf("%-20s   (absent: not compiled for sm_%d%d; reconfigure with "
                   "-Dgpu_targets=%d%d)\n",
                   "", g.cc_major, g.cc_minor, g.cc_major, g.cc_minor);
            absent++;
        } else if (have_gpu && v->device == AB_DEV_CUDA) {
            int refused = gpu_probe(v, why, sizeof why);
            if (refused && strstr(why, "combinations")) {
                printf("%-20s   (partly on this GPU: %s)\n", "", why);
                partial++;
            } else if (refused) {
                printf("%-20s   (absent on this GPU: %s)\n", "", why);
                absent++;
            }
        }
    }
    if (have_gpu)
        printf("%zu variants: %zu run here, %d of them only in part, %d absent\n",
               ab_variant_count(), ab_variant_count() - (size_t)absent, partial, absent);
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
