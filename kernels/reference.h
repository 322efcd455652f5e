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
 *     sets the tolerance of the variants (see check.h).
 */
#ifndef ATTNBENCH_REFERENCE_H
#define ATTNBENCH_REFERENCE_H

#include "variant.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Row i of O in slice bh (= b*H + h), q/k/v [B,H,S,D] floats. out: D
 * doubles; scratch: S doubles. */
void ab_reference_row(const ab_shape *s, const float *q, const float *k, const float *v,
                      size_t bh, int i, double *out, double *scratch);

/* Same row, plain same-precision arithmetic of s->dtype (see above).
 * out: D floats (dtype-rounded); scratch: S floats. */
void ab_plain_row(const ab_shape *s, const float *q, const float *k, const float *v,
                  size_t bh, int i, float *out, float *scratch);

#ifdef __cplusplus
}
#endif

#endif
