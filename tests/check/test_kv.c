/*
 * test_kv.c: grouped-query attention and S_kv != S on the CPU.
 * Independent sources, written here and not shared with kernels/:
 *   - FLOPs: the visible (query, key) pairs of the bottom-right causal mask
 *     counted by brute force (key j visible to query i iff j <= i + S_kv - S,
 *     the rule of FlashAttention >= 2.1 and PyTorch's causal_lower_right)
 *     against ab_attention_flops / (4 B H D), for S, S_kv in 1..40;
 *   - outputs: a naive float64 attention (scores, softmax, weighted sum in
 *     three loops over explicitly expanded K/V heads, kv head = h / (H/H_kv),
 *     a row that sees no key giving 0) against the float64 reference
 *     (ab_reference_row) and against cpu_flash through the correctness check;
 *   - a wrong variant (K/V head h % H_kv instead of h / (H / H_kv)) must
 *     fail the check, as must one that masks top-left (j <= i) when S != S_kv
 *     (the same naive rows with the mask shift set to 0);
 *   - H_kv not dividing H is refused by ab_shape_check naming H_kv.
 * Shapes: GQA (H = 4, H_kv = 2), MQA (H_kv = 1), S = 1 with S_kv = 37,
 * S = 5 with S_kv = 19, S = 19 with S_kv = 5, causal and not, fp32 and bf16.
 */
#include "check.h"
#include "data.h"
#include "entry_points.h"
#include "reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define FAIL(...) (fprintf(stderr, "FAIL: " __VA_ARGS__), fputc('\n', stderr), failures++)

/* naive float64 attention of one query row, K/V heads expanded by index;
 * when causal, key j is visible iff j <= i + shift (the bottom-right mask
 * is shift = S_kv - S; 0 gives the top-left mask a wrong variant uses) */
static void naive_row_mask(const ab_shape *s, const float *q, const float *k, const float *v,
                           int b, int h, int i, int kvh_of_h, int shift, double *out)
{
    const int H = s->H, S = s->S, D = s->D, HK = ab_shape_hkv(s), SK = ab_shape_skv(s);
    const float *qi = q + (((size_t)b * H + h) * S + i) * D;
    double *sc = malloc(sizeof(double) * (size_t)SK);
    double mx = -INFINITY, sum = 0;
    int seen = 0;
    for (int j = 0; j < SK; j++) {
        sc[j] = -INFINITY;
        if (s->causal && !(j <= i + shift))
            continue;
        const float *kj = k + (((size_t)b * HK + kvh_of_h) * SK + j) * D;
        double a = 0;
        for (int d = 0; d < D; d++)
            a += (double)qi[d] * kj[d];
        sc[j] = a / sqrt((double)D);
        mx = sc[j] > mx ? sc[j] : mx;
        seen++;
    }
    for (int d = 0; d < D; d++)
        out[d] = 0;
    if (seen) {
        for (int j = 0; j < SK; j++)
            sum += sc[j] == -INFINITY ? 0 : exp(sc[j] - mx);
        for (int j = 0; j < SK; j++) {
            if (sc[j] == -INFINITY)
                continue;
            const double p = exp(sc[j] - mx) / sum;
            const float *vj = v + (((size_t)b * HK + kvh_of_h) * SK + j) * D;
            for (int d = 0; d < D; d++)
                out[d] += p * vj[d];
        }
    }
    free(sc);
}

static void naive_row(const ab_shape *s, const float *q, const float *k, const float *v, int b,
                      int h, int i, int kvh_of_h, double *out)
{
    naive_row_mask(s, q, k, v, b, h, i, kvh_of_h, ab_shape_skv(s) - s->S, out);
}

/* a wrong variant: O from the naive rows with K/V head h % H_kv
 * (interleaved) instead of h / (H / H_kv) (grouped) */
static void wrong_heads(const ab_shape *s, const float *q, const float *k, const float *v,
                        float *o)
{
    double *row = malloc(sizeof(double) * (size_t)s->D);
    for (int b = 0; b < s->B; b++)
        for (int h = 0; h < s->H; h++)
            for (int i = 0; i < s->S; i++) {
                naive_row(s, q, k, v, b, h, i, h % ab_shape_hkv(s), row);
                for (int d = 0; d < s->D; d++)
                    o[(((size_t)b * s->H + h) * s->S + i) * s->D + d] = (float)row[d];
            }
    free(row);
}

static void one_shape(int B, int H, int HK, int S, int SK, int D, int causal, ab_dtype t)
{
    ab_shape s = {B, H, S, D, causal, t, HK, SK};
    char err[256], name[128];
    snprintf(name, sizeof name, "B=%d H=%d H_kv=%d S=%d S_kv=%d D=%d %s %s", B, H, HK, S, SK, D,
             causal ? "causal" : "non-causal", ab_dtype_name(t));
    ab_shape_sizes z;
    if (ab_shape_check(&s, &z, err, sizeof err)) {
        FAIL("%s: refused: %s", name, err);
        return;
    }
    const size_t nq = ab_shape_numel(&s), nkv = ab_shape_kv_numel(&s);
    if (z.kv_numel != nkv || nkv != (size_t)B * HK * SK * D)
        FAIL("%s: kv_numel %zu", name, nkv);
    float *q = malloc(nq * 4), *k = malloc(nkv * 4), *v = malloc(nkv * 4), *o = malloc(nq * 4);
    double *ref = malloc(sizeof(double) * D), *nv = malloc(sizeof(double) * D);
    double *scratch = malloc(sizeof(double) * (SK + D));
    ab_inputs_fill(&s, 1234, q, k, v);
    /* the reference against the naive rows */
    double worst = 0;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < S; i++) {
                ab_reference_row(&s, q, k, v, (size_t)b * H + h, i, ref, scratch);
                naive_row(&s, q, k, v, b, h, i, h / (H / HK), nv);
                for (int d = 0; d < D; d++) {
                    double e = fabs(ref[d] - nv[d]);
                    worst = e > worst ? e : worst;
                }
            }
    if (!(worst <= 1e-12))
        FAIL("%s: reference differs from the naive rows by %.3e", name, worst);
    /* cpu_reference and cpu_flash pass the check (cpu_flash runs fp32 only) */
    for (int vi = 0; vi < 2; vi++) {
        if (vi == 1 && t != AB_FP32)
            continue;
        void *ctx = NULL;
        size_t ws = 0;
        int rc = vi == 0 ? cpu_reference_setup(&s, &ctx, &ws, err, sizeof err)
                         : cpu_flash_setup(&s, &ctx, &ws, err, sizeof err);
        for (size_t x = 0; x < nq; x++)
            o[x] = NAN;
        rc |= vi == 0 ? cpu_reference_run(ctx, &s, q, k, v, o, NULL)
                      : cpu_flash_run(ctx, &s, q, k, v, o, NULL);
        ab_check c;
        if (rc || ab_check_output(&s, q, k, v, o, 99, 0, &c) || !c.pass)
            FAIL("%s: %s does not pass the check (%s)", name, vi ? "cpu_flash" : "cpu_reference",
                 rc ? "run failed" : c.why);
    }
    /* wrong head map: must fail wherever it differs (H_kv < H with more than one K/V head) */
    if (HK > 1 && HK < H) {
        wrong_heads(&s, q, k, v, o);
        ab_check c;
        if (ab_check_output(&s, q, k, v, o, 99, 0, &c) || c.pass)
            FAIL("%s: K/V head h %% H_kv passed the check", name);
    }
    /* top-left mask where S != S_kv: must fail (the rows differ) */
    if (causal && S != SK) {
        for (int b = 0; b < B; b++)
            for (int h = 0; h < H; h++)
                for (int i = 0; i < S; i++) {
                    naive_row_mask(&s, q, k, v, b, h, i, h / (H / HK), 0, nv); /* j <= i */
                    for (int d = 0; d < D; d++)
                        o[(((size_t)b * H + h) * S + i) * D + d] = (float)nv[d];
                }
        ab_check c;
        if (ab_check_output(&s, q, k, v, o, 99, 0, &c) || c.pass)
            FAIL("%s: the top-left causal mask passed the check", name);
    }
    free(q), free(k), free(v), free(o), free(ref), free(nv), free(scratch);
}

int main(void)
{
    /* FLOPs: brute-force pair counts */
    for (int S = 1; S <= 40; S++)
        for (int SK = 1; SK <= 40; SK++) {
            long pairs = 0;
            for (int i = 0; i < S; i++)
                for (int j = 0; j < SK; j++)
                    pairs += j <= i + SK - S;
            ab_shape s = {2, 4, S, 8, 1, AB_FP32, 2, SK};
            const double want = S == SK ? 4.0 * 2 * 4 * 8 * (double)S * S / 2.0
                                        : 4.0 * 2 * 4 * 8 * (double)pairs;
            if (ab_attention_flops(&s) != want)
                FAIL("causal FLOPs S=%d S_kv=%d: %.0f, brute force %.0f", S, SK,
                     ab_attention_flops(&s), want);
            s.causal = 0;
            if (ab_attention_flops(&s) != 4.0 * 2 * 4 * 8 * (double)S * SK)
                FAIL("FLOPs S=%d S_kv=%d", S, SK);
            for (int i = 0; i < S; i++) { /* ab_row_keys against the count per row */
                int n = 0;
                for (int j = 0; j < SK; j++)
                    n += j <= i + SK - S;
                s.causal = 1;
                if (ab_row_keys(&s, i) != n)
                    FAIL("row keys S=%d S_kv=%d i=%d: %d, brute force %d", S, SK, i,
                         ab_row_keys(&s, i), n);
            }
        }
    /* bytes: Q, O once; K, V once per K/V head */
    ab_shape bs = {2, 32, 1, 128, 1, AB_BF16, 8, 4096};
    if (ab_attention_bytes(&bs) != 2.0 * (2.0 * 2 * 32 * 1 * 128 + 2.0 * 2 * 8 * 4096 * 128))
        FAIL("decode bytes %.0f", ab_attention_bytes(&bs));
    /* H_kv not dividing H */
    char err[256];
    ab_shape bad = {1, 4, 8, 8, 0, AB_FP32, 3, 0};
    if (ab_shape_check(&bad, NULL, err, sizeof err) == 0 || !strstr(err, "H_kv"))
        FAIL("H=4 H_kv=3 not refused naming H_kv (%s)", err);
    static const int sk[][2] = {{1, 37}, {5, 19}, {19, 5}, {13, 13}};
    for (int c = 0; c < 2; c++)
        for (int x = 0; x < 4; x++)
            for (int hk = 1; hk <= 2; hk++)
                for (int t = 0; t < 2; t++)
                    one_shape(2, 4, hk, sk[x][0], sk[x][1], 16, c, t ? AB_BF16 : AB_FP32);
    printf("%s (%d failures)\n", failures ? "FAIL" : "ok", failures);
    return failures != 0;
}
