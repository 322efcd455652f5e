/*
 * reference_bwd.c: the float64 oracle of attention's backward pass (issue
 * 18's gradient check rests on it; the pass axis and the backward variants
 * are not built yet).
 *
 * Idea: for one (b, h) slice, recompute P = softmax(Q K^T * scale [mask])
 * in double, then the standard backward of softmax attention:
 *     dV = P^T dO                          (over the group's query heads)
 *     dP = dO V^T,  Di = rowsum(dO * O) = rowsum(P * dP)
 *     dS = P * (dP - Di)
 *     dQ = scale * dS K,   dK = scale * dS^T Q   (over the group's heads)
 * with grouped-query heads (query head h reads K/V head h / (H / H_kv), so
 * dK and dV sum over the group) and the bottom-right causal mask of
 * src/core/variant.h (a row that sees no key contributes nothing).
 * Source: the chain rule through softmax; FlashAttention-2 (Dao 2023),
 * Algorithm 2 (the same equations, tiled, with Di = rowsum(dO * O)).
 * Row by row (P and dP of one query row in memory, 2 S_kv doubles),
 * serial: an oracle for test shapes and sampled checks, not a variant; it
 * exists to be right, not fast (O(B H S S_kv D) operations, one core).
 */
#include "reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ab_reference_bwd(const ab_shape *s, const float *q, const float *k, const float *v,
                     const float *dO, double *dq, double *dk, double *dv)
{
    const int S = s->S, D = s->D, SK = ab_shape_skv(s);
    const size_t slices = (size_t)s->B * (size_t)s->H;
    const double scale = 1.0 / sqrt((double)D);
    int rc = 0;
    memset(dq, 0, sizeof(double) * ab_shape_numel(s));
    memset(dk, 0, sizeof(double) * ab_shape_kv_numel(s));
    memset(dv, 0, sizeof(double) * ab_shape_kv_numel(s));
    double *P = malloc(sizeof(double) * (size_t)SK); /* one row of P and of dP */
    double *dP = malloc(sizeof(double) * (size_t)SK);
    if (!P || !dP) {
        rc = -1;
        goto cleanup;
    }
    /* slices one after another: the K/V slice of a group is shared, so the
     * dK, dV sums of its query heads are accumulated in order (no races) */
    for (size_t bh = 0; bh < slices; bh++) {
        const size_t qb = bh * (size_t)S * D, kb = ab_kv_offset(s, bh);
        const float *Q = q + qb, *K = k + kb, *V = v + kb, *G = dO + qb;
        double *dQ = dq + qb, *dK = dk + kb, *dV = dv + kb;
        for (int i = 0; i < S; i++) {
            const int L = ab_row_keys(s, i);
            double *p = P, *dp = dP;
            double mx = -INFINITY, sum = 0.0;
            for (int j = 0; j < SK; j++) {
                p[j] = 0.0;
                if (j >= L)
                    continue;
                double a = 0.0;
                for (int d = 0; d < D; d++)
                    a += (double)Q[(size_t)i * D + d] * K[(size_t)j * D + d];
                p[j] = a * scale;
                mx = p[j] > mx ? p[j] : mx;
            }
            for (int j = 0; j < L; j++) {
                p[j] = exp(p[j] - mx);
                sum += p[j];
            }
            for (int j = 0; j < L; j++)
                p[j] /= sum;
            /* dP = dO V^T and Di = rowsum(P * dP) */
            double Di = 0.0;
            for (int j = 0; j < SK; j++) {
                dp[j] = 0.0;
                if (j >= L)
                    continue;
                double a = 0.0;
                for (int d = 0; d < D; d++)
                    a += (double)G[(size_t)i * D + d] * V[(size_t)j * D + d];
                dp[j] = a;
                Di += p[j] * a;
            }
            for (int j = 0; j < L; j++) {
                const double ds = p[j] * (dp[j] - Di); /* dS */
                for (int d = 0; d < D; d++) {
                    dQ[(size_t)i * D + d] += scale * ds * K[(size_t)j * D + d];
                    dK[(size_t)j * D + d] += scale * ds * Q[(size_t)i * D + d];
                    dV[(size_t)j * D + d] += p[j] * G[(size_t)i * D + d];
                }
            }
        }
    }
cleanup:
    free(P);
    free(dP);
    return rc;
}
