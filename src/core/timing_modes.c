/*
 * timing_modes.c: names of the timing modes of timing_mode.h, shared by
 * CUDA and non-CUDA builds (experiment files name the mode either way).
 */
#include "timing_mode.h"

#include <string.h>

static const char *const mode_names[] = {"cold", "hot", "graph"};

const char *ab_timing_mode_name(ab_timing_mode m)
{
    return (unsigned)m < 3 ? mode_names[m] : "?";
}

int ab_timing_mode_parse(const char *s, ab_timing_mode *m)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(s, mode_names[i]) == 0) {
            *m = (ab_timing_mode)i;
            return 0;
        }
    return -1;
}
