/*
 * reference_bwd.c: the float64 oracle of attention's backward pass (issue
 * 18's gradient check rests on it), the plain same-precision backward whose
 * error sets the gradients' tolerance, and the forward state (O, logsumexp)
 * a backward pass is given.
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
#include "data.h"

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

int ab_reference_fwd_lse(const ab_shape *s, const float *q, const float *k, const float *v,
                         float *o, float *lse)
{
    const int S = s->S, D = s->D, SK = ab_shape_skv(s);
    const size_t slices = (size_t)s->B * (size_t)s->H;
    const double scale = 1.0 / sqrt((double)D);
    int rc = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(| : rc)
    for (size_t bh = 0; bh < slices; bh++) {
        double *p = malloc(sizeof(double) * (size_t)SK), *acc = malloc(sizeof(double) * (size_t)D);
        if (!p || !acc) {
            rc |= 1;
            free(p);
            free(acc);
            continue;
        }
        const size_t qb = bh * (size_t)S * D, kb = ab_kv_offset(s, bh);
        for (int i = 0; i < S; i++) {
            const int L = ab_row_keys(s, i);
            const float *qi = q + qb + (size_t)i * D;
            double mx = -INFINITY, sum = 0.0;
            for (int j = 0; j < L; j++) {
                double a = 0.0;
                for (int d = 0; d < D; d++)
                    a += (double)qi[d] * k[kb + (size_t)j * D + d];
                p[j] = a * scale;
                mx = p[j] > mx ? p[j] : mx;
            }
            for (int d = 0; d < D; d++)
                acc[d] = 0.0;
            for (int j = 0; j < L; j++) {
                p[j] = exp(p[j] - mx);
                sum += p[j];
                for (int d = 0; d < D; d++)
                    acc[d] += p[j] * v[kb + (size_t)j * D + d];
            }
            for (int d = 0; d < D; d++)
                o[qb + (size_t)i * D + d] = L ? ab_round_to((float)(acc[d] / sum), s->dtype) : 0.0f;
            lse[bh * (size_t)S + (size_t)i] = L ? (float)(mx + log(sum)) : -INFINITY;
        }
        free(p);
        free(acc);
    }
    return rc ? -1 : 0;
}

/* the plain backward's roundings: to the dtype (R16), and of an fp32
 * accumulator (R32); identities in the shadow */
#define R16(x) (round ? (double)ab_round_to((float)(x), s->dtype) : (x))
#define R32(x) (round ? (double)(float)(x) : (x))

int ab_plain_bwd(const ab_shape *s, const float *q, const float *k, const float *v,
                 const float *dO, int round, double *dq, double *dk, double *dv)
{
    const int S = s->S, D = s->D, SK = ab_shape_skv(s);
    const size_t slices = (size_t)s->B * (size_t)s->H;
    const double scale = round ? (double)(float)(1.0 / sqrt((double)D)) : 1.0 / sqrt((double)D);
    const size_t nkv = ab_shape_kv_numel(s);
    int rc = 0;
    memset(dq, 0, sizeof(double) * ab_shape_numel(s));
    memset(dk, 0, sizeof(double) * nkv);
    memset(dv, 0, sizeof(double) * nkv);
    double *P = malloc(sizeof(double) * (size_t)SK), *dS = malloc(sizeof(double) * (size_t)SK);
    double *qs = malloc(sizeof(double) * (size_t)D), *acc = malloc(sizeof(double) * (size_t)D);
    if (!P || !dS || !qs || !acc) {
        rc = -1;
        goto cleanup;
    }
    /* serial over slices: dK, dV of a K/V head sum its group's heads in
     * order (fp32 accumulators kept in dk, dv, rounded at the end) */
    for (size_t bh = 0; bh < slices; bh++) {
        const size_t qb = bh * (size_t)S * D, kb = ab_kv_offset(s, bh);
        for (int i = 0; i < S; i++) {
            const int L = ab_row_keys(s, i);
            const float *qi = q + qb + (size_t)i * D, *gi = dO + qb + (size_t)i * D;
            for (int d = 0; d < D; d++)
                qs[d] = R16(qi[d] * scale); /* q / sqrt(D), a tensor of the dtype */
            double mx = -INFINITY;
            for (int j = 0; j < L; j++) {
                double a = 0.0;
                for (int d = 0; d < D; d++)
                    a = R32(a + qs[d] * k[kb + (size_t)j * D + d]);
                P[j] = R16(a); /* scores in the dtype */
                mx = P[j] > mx ? P[j] : mx;
            }
            double sum = 0.0;
            for (int j = 0; j < L; j++) {
                P[j] = R32(exp(P[j] - mx));
                sum = R32(sum + P[j]);
            }
            double Di = 0.0;
            for (int j = 0; j < L; j++) {
                P[j] = R16(P[j] / sum); /* softmax in fp32, stored in the dtype */
                double a = 0.0;
                for (int d = 0; d < D; d++)
                    a = R32(a + (double)gi[d] * v[kb + (size_t)j * D + d]);
                dS[j] = R16(a); /* dP = dO V^T in the dtype */
                Di = R32(Di + P[j] * dS[j]);
            }
            for (int d = 0; d < D; d++)
                acc[d] = 0.0;
            for (int j = 0; j < L; j++) {
                dS[j] = R16(P[j] * (dS[j] - Di)); /* softmax backward, in the dtype */
                for (int d = 0; d < D; d++) {
                    acc[d] = R32(acc[d] + dS[j] * k[kb + (size_t)j * D + d]);
                    dk[kb + (size_t)j * D + d] = R32(dk[kb + (size_t)j * D + d] + dS[j] * qs[d]);
                    dv[kb + (size_t)j * D + d] = R32(dv[kb + (size_t)j * D + d] + P[j] * gi[d]);
                }
            }
            for (int d = 0; d < D; d++)
                dq[qb + (size_t)i * D + d] = R16(R16(acc[d]) * scale);
        }
    }
    for (size_t x = 0; x < nkv; x++) {
        dk[x] = R16(dk[x]);
        dv[x] = R16(dv[x]);
    }
cleanup:
    free(P);
    free(dS);
    free(qs);
    free(acc);
    return rc;
}
