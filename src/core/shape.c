/*
 * shape.c: facts about a configuration that every part of attnbench shares:
 * dtype names and sizes, element counts, FLOP and byte counts. Sizes that
 * are allocated or stored go through ab_shape_check first: checked
 * multiplication (__builtin_mul_overflow), so a shape whose product does not
 * fit is an error naming its fields instead of a wrapped, too-small buffer.
 */
#include "variant.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const dtype_names[AB_NDTYPES] = {"fp16", "bf16", "fp32"};

size_t ab_dtype_size(ab_dtype t) { return t == AB_FP32 ? 4 : 2; }

const char *ab_pass_name(ab_pass p)
{
    switch (p) {
    case AB_FWD:
        return "fwd";
    case AB_BWD:
        return "bwd";
    case AB_FWDBWD:
        return "fwd+bwd";
    }
    return NULL;
}

int ab_pass_parse(const char *name, ab_pass *p)
{
    for (int i = 0; i < AB_NPASSES; i++)
        if (name && strcmp(name, ab_pass_name((ab_pass)i)) == 0) {
            *p = (ab_pass)i;
            return 0;
        }
    return -1;
}

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

size_t ab_shape_kv_numel(const ab_shape *s)
{
    return (size_t)s->B * (size_t)ab_shape_hkv(s) * (size_t)ab_shape_skv(s) * (size_t)s->D;
}

/* Visible (query, key) pairs of the bottom-right causal mask: query row i
 * (0 <= i < S) sees keys 0 .. i + S_kv - S, i.e. max(0, i + S_kv - S + 1)
 * of them (never more than S_kv: the last row sees exactly S_kv). Summed:
 * S_kv >= S: S (2 S_kv - S + 1) / 2; S_kv < S: the first S - S_kv rows see
 * nothing and the rest 1 .. S_kv keys, S_kv (S_kv + 1) / 2. */
static double causal_pairs(double S, double Skv)
{
    return Skv >= S ? S * (2.0 * Skv - S + 1.0) / 2.0 : Skv * (Skv + 1.0) / 2.0;
}

/* FLOPs of the pass relative to the forward's (FlashAttention's benchmark
 * convention: the backward is 2.5 forwards, five GEMMs against two). */
static double pass_factor(ab_pass p) { return p == AB_BWD ? 2.5 : p == AB_FWDBWD ? 3.5 : 1.0; }

double ab_attention_flops(const ab_shape *s)
{
    const double skv = ab_shape_skv(s);
    const double f = 4.0 * s->B * s->H * (double)s->S * skv * s->D;
    double fwd;
    if (!s->causal)
        fwd = f;
    else if (skv == (double)s->S)
        fwd = f / 2.0; /* FlashAttention's convention: S^2/2 pairs */
    else
        fwd = 4.0 * s->B * s->H * (double)s->D * causal_pairs(s->S, skv);
    return fwd * pass_factor(s->pass);
}

double ab_attention_bytes(const ab_shape *s)
{
    /* tensors of the query side (Q, O, dO, dQ) and of the K/V side (K, V,
     * dK, dV) each pass moves once: forward Q, O + K, V; backward Q, O, dO,
     * dQ + K, V, dK, dV (logsumexp and Delta, B*H*S floats, left out) */
    const double nq = s->pass == AB_BWD ? 4.0 : s->pass == AB_FWDBWD ? 6.0 : 2.0;
    return nq * ((double)ab_shape_numel(s) + (double)ab_shape_kv_numel(s)) *
           (double)ab_dtype_size(s->dtype);
}

int ab_l2_rotation_sets(const ab_shape *s, long long l2_bytes)
{
    const double per_set = ab_attention_bytes(s);
    if (l2_bytes <= 0 || per_set >= 2.0 * (double)l2_bytes)
        return 1;
    double sets = 2.0 * (double)l2_bytes / per_set;
    return sets >= 256.0 ? 256 : (int)sets + 1;
}

/* a*b into *r, refusing anything at or above 2^62 */
static int mul_ok(size_t a, size_t b, size_t *r)
{
    return !__builtin_mul_overflow(a, b, r) && *r < ((size_t)1 << 62);
}

int ab_shape_check(const ab_shape *s, ab_shape_sizes *out, char *err, size_t errlen)
{
    const int ax[6] = {s->B, s->H, s->S, s->D, ab_shape_hkv(s), ab_shape_skv(s)};
    static const char *const names[6] = {"B", "H", "S", "D", "H_kv", "S_kv"};
    for (int i = 0; i < 6; i++)
        if (ax[i] < 1 || ax[i] > (1 << 24)) {
            snprintf(err, errlen, "%s = %d is outside [1, 16777216]", names[i], ax[i]);
            return -1;
        }
    if (s->H % ab_shape_hkv(s) != 0) {
        snprintf(err, errlen, "H_kv = %d does not divide H = %d (each K/V head serves H/H_kv query heads)",
                 ab_shape_hkv(s), s->H);
        return -1;
    }
    if (!ab_dtype_name(s->dtype)) {
        snprintf(err, errlen, "dtype %d is not a dtype", (int)s->dtype);
        return -1;
    }
    if (!ab_pass_name(s->pass)) {
        snprintf(err, errlen, "pass %d is not a pass", (int)s->pass);
        return -1;
    }
    ab_shape_sizes z;
    size_t bh, bhs;
    if (!mul_ok((size_t)s->B, (size_t)s->H, &bh) || !mul_ok(bh, (size_t)s->S, &bhs) ||
        !mul_ok(bhs, (size_t)s->D, &z.numel)) {
        snprintf(err, errlen, "B*H*S*D = %d*%d*%d*%d overflows 64-bit sizes", s->B, s->H, s->S,
                 s->D);
        return -1;
    }
    size_t bhkv, bhskv;
    if (!mul_ok((size_t)s->B, (size_t)ab_shape_hkv(s), &bhkv) ||
        !mul_ok(bhkv, (size_t)ab_shape_skv(s), &bhskv) ||
        !mul_ok(bhskv, (size_t)s->D, &z.kv_numel)) {
        snprintf(err, errlen, "B*H_kv*S_kv*D = %d*%d*%d*%d overflows 64-bit sizes", s->B,
                 ab_shape_hkv(s), ab_shape_skv(s), s->D);
        return -1;
    }
    size_t four, all_el = z.numel + z.kv_numel; /* each < 2^62: no wrap */
    if (!mul_ok(z.numel, ab_dtype_size(s->dtype), &z.tensor_bytes) ||
        !mul_ok(all_el, 2 * sizeof(float), &z.host_bytes) ||
        !mul_ok(all_el, 2 * ab_dtype_size(s->dtype), &four)) {
        snprintf(err, errlen,
                 "B*H*S*D = %d*%d*%d*%d = %zu elements: the bytes of Q, K, V, O overflow "
                 "64-bit sizes",
                 s->B, s->H, s->S, s->D, z.numel);
        return -1;
    }
    z.device_bytes = four;
    z.flops = ab_attention_flops(s);
    if (!isfinite(z.flops)) {
        snprintf(err, errlen, "4*B*H*S^2*D FLOPs of B=%d H=%d S=%d D=%d is not finite", s->B,
                 s->H, s->S, s->D);
        return -1;
    }
    if (out)
        *out = z;
    return 0;
}
