/*
 * test_env.c: the environment fingerprint's hash. The same machine gives the
 * same fingerprint text and hash twice (no field that changes from minute to
 * minute); changing any one field, nested or not, changes the hash; key
 * order does not (canonical JSON: sorted keys, compact); ab_env_diff names
 * exactly the field that differs; run settings (timing mode, threads, load)
 * are not in it. Expected values: the fingerprint itself,
 * modified here.
 */
#include "env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define CHECK(c, ...)                                           \
    do {                                                        \
        if (!(c)) {                                             \
            fprintf(stderr, "FAIL line %d: ", __LINE__);        \
            fprintf(stderr, __VA_ARGS__);                       \
            fputc('\n', stderr);                                \
            failures++;                                         \
        }                                                       \
    } while (0)

int main(void)
{
    char *t1, *t2, *t3, h1[17], h2[17], h3[17], diff[512];
    json_t *a = ab_env_fingerprint(1), *b = ab_env_fingerprint(1);
    CHECK(a && b, "fingerprint");
    CHECK(ab_env_canonical(a, &t1, h1) == 0 && ab_env_canonical(b, &t2, h2) == 0, "canonical");
    CHECK(strcmp(t1, t2) == 0, "same machine, different text:\n%s\n%s", t1, t2);
    CHECK(strcmp(h1, h2) == 0, "same machine, different hash %s %s", h1, h2);
    ab_env_diff(a, b, diff, sizeof diff);
    CHECK(diff[0] == '\0', "diff of identical fingerprints: %s", diff);

    /* one nested field changed */
    json_t *c = json_deep_copy(a);
    json_object_set_new(json_object_get(c, "host"), "kernel", json_string("0.0.0-test"));
    CHECK(ab_env_canonical(c, &t3, h3) == 0, "canonical");
    CHECK(strcmp(h1, h3) != 0, "changed host.kernel, same hash %s", h1);
    ab_env_diff(a, c, diff, sizeof diff);
    CHECK(strcmp(diff, "host.kernel") == 0, "diff names '%s', expected host.kernel", diff);
    free(t3);
    json_decref(c);

    /* the machine only: no run setting (timing mode, threads, load) in it,
     * so `attnbench env` and every run share the hash (the CLI
     * test env-run-hash checks the stored one) */
    CHECK(!json_object_get(json_object_get(a, "settings"), "timing_mode"), "timing mode in the fingerprint");
    CHECK(!json_object_get(a, "threads") && !json_object_get(json_object_get(a, "host"), "load_avg"),
          "a run setting in the fingerprint");
    CHECK(json_is_integer(json_object_get(json_object_get(a, "host"), "memory_bytes")), "no host memory");

    /* the GPU's driver is its release from NVML (nvmlSystemGetDriverVersion,
     * e.g. "580.82.07": a major of 3 digits, a dot), not the CUDA driver API
     * version ("13.0", now cuda_driver_api), or says why it is unknown.
     * Checked where a GPU answers (the GPU machine); "gpu": null elsewhere. */
    json_t *gpu = json_object_get(a, "gpu");
    if (json_is_object(gpu)) {
        const char *drv = json_string_value(json_object_get(gpu, "driver"));
        unsigned major = 0;
        char dot = 0;
        CHECK(drv && (strncmp(drv, "unknown", 7) == 0 ||
                      (sscanf(drv, "%u%c", &major, &dot) == 2 && major >= 100 && dot == '.')),
              "gpu.driver '%s' is not a driver release", drv ? drv : "(absent)");
        CHECK(json_is_string(json_object_get(gpu, "cuda_driver_api")), "no gpu.cuda_driver_api");
        printf("gpu.driver %s, cuda_driver_api %s\n", drv ? drv : "?",
               json_string_value(json_object_get(gpu, "cuda_driver_api")));
    } else {
        CHECK(json_is_null(gpu), "gpu is neither an object nor null");
    }

    /* key order does not matter */
    c = json_object();
    const char *key;
    json_t *val;
    const char *keys[16];
    size_t nk = 0;
    json_object_foreach(a, key, val) keys[nk++] = key;
    for (size_t i = nk; i-- > 0;)
        json_object_set(c, keys[i], json_object_get(a, keys[i]));
    CHECK(ab_env_canonical(c, &t3, h3) == 0 && strcmp(h1, h3) == 0, "key order changed the hash");
    free(t3);
    json_decref(c);

    printf("fingerprint hash %s: %s\n", h1, failures ? "FAILED" : "ok");
    free(t1);
    free(t2);
    json_decref(a);
    json_decref(b);
    return failures ? 1 : 0;
}
