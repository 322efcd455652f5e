/*
 * shape.c: facts about a configuration that every part of attnbench shares:
 * dtype names and sizes, element counts, FLOP and byte counts.
 */
#include "variant.h"

#include <string.h>

static const char *const dtype_names[AB_NDTYPES] = {"fp16", "bf16", "fp32"};

size_t ab_dtype_size(ab_dtype t) { return t == AB_FP32 ? 4 : 2; }

const char *ab_dtype_name(ab_dtype t)
{
    return (unsigned)t < AB_NDTYPES ? dtype_names[t] : NULL;
}

int ab_dtype_parse(const char *name, ab_dtype *t)
{
    for (int i = 0; i < AB_NDTYPES; i++)
        if (strcmp(name, dtype_names[i]) == 0) {
            *t = (ab_dtype)i;
            return 0;
        }
    return -1;
}

size_t ab_shape_numel(const ab_shape *s)
{
    return (size_t)s->B * (size_t)s->H * (size_t)s->S * (size_t)s->D;
}

double ab_attention_flops(const ab_shape *s)
{
    double f = 4.0 * s->B * s->H * (double)s->S * s->S * s->D;
    return s->causal ? f / 2.0 : f;
}

double ab_attention_bytes(const ab_shape *s)
{
    return 4.0 * (double)ab_shape_numel(s) * (double)ab_dtype_size(s->dtype);
}

int ab_l2_rotation_sets(const ab_shape *s, long long l2_bytes)
{
    const double per_set = ab_attention_bytes(s);
    if (l2_bytes <= 0 || per_set >= 2.0 * (double)l2_bytes)
        return 1;
    double sets = 2.0 * (double)l2_bytes / per_set;
    return sets >= 256.0 ? 256 : (int)sets + 1;
}
