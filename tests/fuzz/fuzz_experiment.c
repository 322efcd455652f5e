/*
 * fuzz_experiment.c: libFuzzer harness for the experiment parser
 * (src/run/experiment.c, src/run/exp_schema.c): any bytes, as an experiment file's
 * text, must give 0 or -1 with a message, never a crash, an overflow or a
 * hang. The registry is replaced by a stub that knows three variant names,
 * so the harness needs no kernels.
 */
#include "experiment.h"
#include "registry.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const ab_variant stub[] = {
    {.name = "cpu_reference", .backend = "cpu"},
    {.name = "cpu_flash", .backend = "cpu"},
    {.name = "cuda_naive", .backend = "cuda", .device = AB_DEV_CUDA},
};

const ab_variant *ab_variant_find(const char *name)
{
    for (size_t i = 0; i < sizeof stub / sizeof stub[0]; i++)
        if (strcmp(stub[i].name, name) == 0)
            return &stub[i];
    return NULL;
}

int ab_variant_supports(const ab_variant *v, const ab_shape *s, char *why, size_t n)
{
    (void)v;
    (void)s;
    (void)why;
    (void)n;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), err[1024];
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0'; /* ab_experiment_load refuses NUL bytes before parsing */
    for (int resolve = 0; resolve <= 2; resolve++) {
        ab_experiment e;
        if (ab_experiment_parse("fuzz.cfg", text, resolve, &e, err, sizeof err) == 0)
            ab_experiment_validate(&e, err, sizeof err);
        ab_experiment_free(&e);
    }
    free(text);
    return 0;
}
