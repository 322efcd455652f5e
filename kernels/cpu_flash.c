/*
 * cpu_flash.c: the `cpu_flash` variant, FlashAttention's algorithm in float
 * on the CPU, so a real ablation (against cpu_reference) runs on any machine.
 *
 * Idea: never materialise the S x S score matrix. Queries are processed in
 * tiles of BR rows; for each tile, K and V are streamed in tiles of BC rows
 * and the softmax is computed online: a running row max m, running sum l and
 * an unnormalised accumulator acc are rescaled by exp(m_old - m_new) when a
 * new tile raises the max; O = acc / l at the end.
 * Source: Dao et al., "FlashAttention" (NeurIPS 2022), Algorithm 1; the
 * online softmax of Milakov & Gimelshein (2018).
 * Grouped-query attention and S_kv != S: query slice bh streams the K/V
 * slice of its K/V head (ab_kv_offset), the causal mask bottom-right.
 * Step: the CPU counterpart of cuda_fa1_rowwise.
 * Measured: see reports/ (the quickstart experiment compares it with
 * cpu_reference on the same machine).
 */
#include "entry_points.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { BR = 32, BC = 64 };

int cpu_flash_setup(const ab_shape *s, void **ctx, size_t *ws, char *err, size_t n)
{
    *ctx = NULL;
    *ws = 0;
    return 0;
}

/* One query tile [i0, i0+nr) of slice bh. */
static void flash_tile(const ab_shape *s, const float *q, const float *k, const float *v,
                       float *o, size_t bh, int i0, int nr, float *acc, float *sc)
{
    const int S = s->S, D = s->D, SKV = ab_shape_skv(s);
    const size_t base = bh * (size_t)S * (size_t)D, kvb = ab_kv_offset(s, bh);
    const int shift = SKV - S; /* bottom-right causal mask: key j <= i + shift */
    const float scale = 1.0f / sqrtf((float)D);
    float m[BR], l[BR];
    for (int r = 0; r < nr; r++) {
        m[r] = -INFINITY;
        l[r] = 0.0f;
    }
    memset(acc, 0, sizeof(float) * (size_t)nr * D);
    int kv_end = s->causal ? i0 + nr + shift : SKV;
    kv_end = kv_end > SKV ? SKV : kv_end;
    for (int j0 = 0; j0 < kv_end; j0 += BC) {
        const int nc = j0 + BC <= SKV ? BC : SKV - j0;
        for (int r = 0; r < nr; r++) {
            const int i = i0 + r;
            const float *qi = q + base + (size_t)i * D;
            float tile_max = -INFINITY;
            for (int c = 0; c < nc; c++) {
                const int j = j0 + c;
                float x = -INFINITY;
                if (!s->causal || j <= i + shift) {
                    const float *kj = k + kvb + (size_t)j * D;
                    float dot = 0.0f;
                    for (int d = 0; d < D; d++)
                        dot += qi[d] * kj[d];
                    x = dot * scale;
                }
                sc[c] = x;
                if (x > tile_max)
                    tile_max = x;
            }
            if (tile_max == -INFINITY)
                continue; /* the whole tile is masked for this row */
            const float m_new = m[r] > tile_max ? m[r] : tile_max;
            const float alpha = expf(m[r] - m_new);
            float *ar = acc + (size_t)r * D;
            float rowsum = 0.0f;
            for (int d = 0; d < D; d++)
                ar[d] *= alpha;
            for (int c = 0; c < nc; c++) {
                const float p = expf(sc[c] - m_new); /* exp(-inf) = 0 for masked */
                rowsum += p;
                if (p != 0.0f) {
                    const float *vj = v + kvb + (size_t)(j0 + c) * D;
                    for (int d = 0; d < D; d++)
                        ar[d] += p * vj[d];
                }
            }
            l[r] = l[r] * alpha + rowsum;
            m[r] = m_new;
        }
    }
    for (int r = 0; r < nr; r++) {
        float *oi = o + base + (size_t)(i0 + r) * D;
        for (int d = 0; d < D; d++) /* l = 0: the row saw no key (causal, S > S_kv): O = 0 */
            oi[d] = l[r] > 0.0f ? acc[(size_t)r * D + d] / l[r] : 0.0f;
    }
}

int cpu_flash_run(void *ctx, const ab_shape *s, const void *q, const void *k, const void *v,
                  void *o, void *stream)
{
    const long tiles_per_slice = (s->S + BR - 1) / BR;
    const long tiles = (long)s->B * s->H * tiles_per_slice;
    int rc = 0;
#pragma omp parallel
    {
        float *acc = malloc(sizeof(float) * ((size_t)BR * s->D + BC));
        if (!acc) {
#pragma omp atomic write
            rc = -1;
        } else {
#pragma omp for schedule(dynamic, 1)
            for (long t = 0; t < tiles; t++) {
                const size_t bh = (size_t)(t / tiles_per_slice);
                const int i0 = (int)(t % tiles_per_slice) * BR;
                const int nr = i0 + BR <= s->S ? BR : s->S - i0;
                flash_tile(s, q, k, v, o, bh, i0, nr, acc, acc + (size_t)BR * s->D);
            }
            free(acc);
        }
    }
    return rc;
}

void cpu_flash_teardown(void *ctx) { (void)ctx; }

/* ---- backward pass ---------------------------------------------
 * FlashAttention-2's backward (Dao 2023, Algorithm 2) in float, split the
 * way its paper suggests for no atomics: dK and dV per tile of BC keys (a
 * task owns a K/V tile and loops over its group's query heads and rows,
 * recomputing P_ij = exp(scale q_i.k_j - lse_i) from the forward's
 * logsumexp), then dQ per query row in a second pass over the keys;
 * Delta_i = rowsum(dO_i * O_i) first. OpenMP over tasks. Same masks and
 * head map as the forward (src/core/variant.h). */
int cpu_flash_run_bwd(void *ctx, const ab_shape *s, const void *q_, const void *k_,
                      const void *v_, const void *o_, const void *dout_, const float *lse,
                      void *dq_, void *dk_, void *dv_, void *stream)
{
    (void)ctx;
    (void)stream;
    const float *q = q_, *k = k_, *v = v_, *o = o_, *g = dout_;
    float *dq = dq_, *dk = dk_, *dv = dv_;
    const int S = s->S, D = s->D, SK = ab_shape_skv(s), H = s->H, HK = ab_shape_hkv(s);
    const int G = H / HK;
    const float scale = 1.0f / sqrtf((float)D);
    const long rows = (long)s->B * H * S;
    float *Di = malloc(sizeof(float) * (size_t)(rows ? rows : 1));
    if (!Di)
        return -1;
#pragma omp parallel for schedule(static)
    for (long r = 0; r < rows; r++) {
        float a = 0.0f;
        for (int d = 0; d < D; d++)
            a += g[(size_t)r * D + d] * o[(size_t)r * D + d];
        Di[r] = a;
    }
    /* dK, dV: one task per (b, K/V head, tile of BC keys) */
    const long ktiles = (SK + BC - 1) / BC, tasks = (long)s->B * HK * ktiles;
#pragma omp parallel for schedule(dynamic, 1)
    for (long t = 0; t < tasks; t++) {
        const long bk = t / ktiles; /* b * HK + hk */
        const int j0 = (int)(t % ktiles) * BC, nj = j0 + BC <= SK ? BC : SK - j0;
        const size_t kb = ((size_t)bk * SK + (size_t)j0) * D;
        memset(dk + kb, 0, sizeof(float) * (size_t)nj * D);
        memset(dv + kb, 0, sizeof(float) * (size_t)nj * D);
        const long b = bk / HK, hk = bk % HK;
        for (int gi = 0; gi < G; gi++) {
            const size_t bh = (size_t)b * H + (size_t)hk * G + gi;
            for (int i = 0; i < S; i++) {
                const int L = ab_row_keys(s, i);
                if (L <= j0)
                    continue;
                const size_t qr = (bh * S + (size_t)i) * D;
                const float li = lse[bh * S + (size_t)i], di = Di[bh * S + (size_t)i];
                for (int jj = 0; jj < nj && j0 + jj < L; jj++) {
                    const float *kj = k + kb + (size_t)jj * D, *vj = v + kb + (size_t)jj * D;
                    float sc = 0.0f, dp = 0.0f;
                    for (int d = 0; d < D; d++) {
                        sc += q[qr + d] * kj[d];
                        dp += g[qr + d] * vj[d];
                    }
                    const float p = expf(scale * sc - li), ds = p * (dp - di);
                    float *dkj = dk + kb + (size_t)jj * D, *dvj = dv + kb + (size_t)jj * D;
                    for (int d = 0; d < D; d++) {
                        dvj[d] += p * g[qr + d];
                        dkj[d] += scale * ds * q[qr + d];
                    }
                }
            }
        }
    }
    /* dQ: one task per query row */
#pragma omp parallel for schedule(dynamic, 64)
    for (long r = 0; r < rows; r++) {
        const size_t bh = (size_t)(r / S);
        const int i = (int)(r % S), L = ab_row_keys(s, i);
        const size_t qr = (size_t)r * D, kb = ab_kv_offset(s, bh);
        float *dqi = dq + qr;
        for (int d = 0; d < D; d++)
            dqi[d] = 0.0f;
        for (int j = 0; j < L; j++) {
            const float *kj = k + kb + (size_t)j * D, *vj = v + kb + (size_t)j * D;
            float sc = 0.0f, dp = 0.0f;
            for (int d = 0; d < D; d++) {
                sc += q[qr + d] * kj[d];
                dp += g[qr + d] * vj[d];
            }
            const float ds = expf(scale * sc - lse[r]) * (dp - Di[r]);
            for (int d = 0; d < D; d++)
                dqi[d] += scale * ds * kj[d];
        }
    }
    free(Di);
    return 0;
}
