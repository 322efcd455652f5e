/*
 * reference.h: single query rows of attention computed two ways, the
 * oracle every variant is checked against.
 *   - ab_reference_row: float64 arithmetic on the (already dtype-rounded)
 *     inputs: the exact answer up to float64 rounding.
 *   - ab_plain_row: what a plain same-precision implementation computes
 *     (PyTorch's materialised softmax in the dtype): Q pre-scaled and
 *     rounded, scores QK^T accumulated in fp32 and rounded to the dtype,
 *     softmax in fp32 rounded to the dtype, PV accumulated in fp32 and
 *     rounded. This is the `out_pt` of FlashAttention's tests
 *     (tests/test_flash_attn.py, attention_ref(upcast=False)), whose error
 *     sets the tolerance of the variants (see check.h); its error is
 *     measured against its own float64 shadow, never against
 *     ab_reference_row.
 */
#ifndef ATTNBENCH_REFERENCE_H
#define ATTNBENCH_REFERENCE_H

#include "variant.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Row i of O in slice bh (= b*H + h), q/k/v [B,H,S,D] floats. out: D
 * doubles; scratch: S_kv doubles. Query slice bh reads K/V slice
 * ab_kv_offset(s, bh) and ab_row_keys(s, i) keys; a row that sees none is 0. */
void ab_reference_row(const ab_shape *s, const float *q, const float *k, const float *v,
                      size_t bh, int i, double *out, double *scratch);

/* Same row, plain same-precision arithmetic of s->dtype (see above), and
 * its shadow: the very same operations (same scale, same mask, same order)
 * carried out in float64 with every rounding left out. |plain - shadow| is
 * the rounding error of a plain implementation alone: a wrong scale or mask
 * in this code moves plain and shadow together and cancels, and nothing of
 * ab_reference_row enters it, so the tolerance built on it (check.h) cannot
 * be widened by a bug in the reference it is compared with. out (dtype
 * values) and shadow: D doubles each; scratch: S_kv doubles. */
void ab_plain_row(const ab_shape *s, const float *q, const float *k, const float *v,
                  size_t bh, int i, double *out, double *shadow, double *scratch);

/* The forward state a backward pass is given (variant.h, ab_bwd_fn), in
 * float64 on every row: o [B,H,S,D] = the attention output rounded to the
 * dtype, lse [B,H,S] = max_j + log sum_j exp(scale q.k_j - max_j) over the
 * keys the row sees (-inf for none). OpenMP over (b, h) slices. Returns 0,
 * or -1 when out of memory. */
int ab_reference_fwd_lse(const ab_shape *s, const float *q, const float *k, const float *v,
                         float *o, float *lse);

/* The plain same-precision backward whose error sets the gradients'
 * tolerance (check.h): what PyTorch's autograd does through attention
 * written out in the dtype (FlashAttention's tests/test_flash_attn.py,
 * attention_ref(upcast=False) backward: dq_pt, dk_pt, dv_pt): Q * scale
 * rounded to the dtype; scores QK^T accumulated in fp32 and rounded;
 * softmax in fp32 rounded; dP = dO V^T rounded; Di = rowsum(P * dP) in
 * fp32; dS = P * (dP - Di) rounded; dQ = (dS K rounded) * scale rounded,
 * dK = dS^T (Q * scale), dV = P^T dO accumulated in fp32 and rounded.
 * round = 0 gives its shadow: the same operations in float64, nothing
 * rounded. Outputs in double: dq [B,H,S,D], dk, dv [B,H_kv,S_kv,D]
 * (dtype values when round = 1). Serial. Returns 0, or -1 when out of
 * memory. */
int ab_plain_bwd(const ab_shape *s, const float *q, const float *k, const float *v,
                 const float *dO, int round, double *dq, double *dk, double *dv);

#ifdef __cplusplus
}
#endif

/* The float64 backward of attention (kernels/reference_bwd.c): given
 * inputs q [B,H,S,D], k and v [B,H_kv,S_kv,D] (floats holding the dtype's
 * values) and the output gradient dO [B,H,S,D], writes dq [B,H,S,D] and
 * dk, dv [B,H_kv,S_kv,D] in double, under the shape's GQA head map and
 * bottom-right causal mask. dK and dV sum over the query heads of a K/V
 * head. Source: FlashAttention-2 (Dao 2023), Algorithm 2, in exact
 * arithmetic. Returns 0, or -1 when out of memory. */
int ab_reference_bwd(const ab_shape *s, const float *q, const float *k, const float *v,
                     const float *dO, double *dq, double *dk, double *dv);

#endif
