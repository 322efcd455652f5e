/*
 * calibration_run.c: the experiment of an A/A calibration (Kohavi et al.,
 * "Trustworthy Online Controlled Experiments", 2020, ch. 19): one built-in
 * variant of an experiment measured against itself, 2K instances per
 * configuration, with the experiment's settings. `attnbench calibrate`
 * (cli/cmd_calibrate.c) parses and runs it; src/analysis/calibration.c analyses the
 * stored run.
 */
#include "calibration_run.h"

#include <stdio.h>
#include <stdlib.h>

/* The calibration experiment's text: the original settings with the variant
 * replaced by 2k instances and the configurations listed explicitly. */
char *ab_calibration_text(const ab_experiment *e, const char *variant, int k)
{
    size_t cap = 4096 + e->nconfigs * 160 + (size_t)k * 160;
    char *t = malloc(cap);
    if (!t)
        return NULL;
    size_t n = 0;
#define PUT(...) n += (size_t)snprintf(t + n, n < cap ? cap - n : 0, __VA_ARGS__)
    PUT("# A/A calibration of %s, derived from %s by attnbench calibrate\n", variant, e->path);
    PUT("name = \"%s-calibration\";\n", e->name);
    PUT("hypothesis = \"A/A test: %d instances of %s measured against each other in interleaved "
        "rounds; every difference the verdict rule reports is a false positive, so the rule "
        "should call at most alpha = %g of the %d x %zu pairs different.\";\n",
        2 * k, variant, e->alpha, k, e->nconfigs);
    PUT("variants = (");
    for (int i = 1; i <= 2 * k; i++)
        PUT("%s{ name = \"%s#%d\"; variant = \"%s\"; }", i > 1 ? ", " : "", variant, i, variant);
    PUT(");\nbaseline = \"%s#2\";\nconfigs = (\n", variant);
    for (size_t c = 0; c < e->nconfigs; c++) {
        const ab_shape *s = &e->configs[c];
        PUT("  { B = %d; H = %d; S = %d; D = %d; causal = %s; dtype = \"%s\"; }%s\n", s->B, s->H,
            s->S, s->D, s->causal ? "true" : "false", ab_dtype_name(s->dtype),
            c + 1 < e->nconfigs ? "," : "");
    }
    /* the instances are listed: no default instances on top of them, and
     * each takes the samples the file gives a variant */
    PUT(");\ninstances = 1;\nwarmup = %d;\nsamples = %d;\nround_size = %d;\ntiming = \"%s\";\n"
        "graph_k = %d;\nseed = %lu;\nalpha = %g;\npractical = %g;\n",
        e->warmup, e->file_samples ? e->file_samples : e->samples, e->round_size, ab_timing_mode_name(e->timing), e->graph_k,
        e->seed, e->alpha, e->practical);
    if (e->threads_set)
        PUT("threads = %d;\n", e->threads);
#undef PUT
    if (n >= cap) {
        free(t);
        return NULL;
    }
    return t;
}
