/*
 * check.h: correctness of one output O against the float64 reference.
 *
 * Tolerance rule (FlashAttention's, tests/test_flash_attn.py and
 * hopper/test_flash_attn.py): a variant passes when
 *     max|O - O_ref| <= 2 * max|O_plain - O_ref| + atol,
 * where O_ref is float64 attention on the same dtype-rounded inputs, O_plain
 * the plain same-precision computation (reference.h), and
 *     atol = 2 * max|fl(fl(fl(x + 0.3) - 0.3) - x)|, x = fl(O_ref)
 * (FlashAttention's fwd_atol: twice the dtype's rounding error near 0.3),
 * floored at 1e-5 for fp32, where float reassociation alone can exceed a
 * few ulps. Any NaN or infinity anywhere in O fails (the harness poisons O
 * with NaN before every run, so an unwritten element is caught).
 */
#ifndef ATTNBENCH_CHECK_H
#define ATTNBENCH_CHECK_H

#include "variant.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ab_check {
    double max_abs_err;    /* max |O - O_ref| over checked rows */
    double mean_abs_err;   /* mean |O - O_ref| over checked elements */
    double rel_l2_err;     /* ||O - O_ref||_2 / ||O_ref||_2 over checked rows */
    double plain_max_abs_err; /* max |O_plain - O_ref| */
    double atol;
    double tolerance;      /* 2 * plain_max_abs_err + atol */
    long nonfinite;        /* NaN/Inf elements in all of O */
    long rows_checked;     /* query rows compared (all, or a sample per slice) */
    int pass;
} ab_check;

/* Default rows compared per (b, h) slice when S is larger (issue: >= 64). */
#define AB_CHECK_ROWS_PER_SLICE 64

/* Compares o (host floats, [B,H,S,D]) with the reference for inputs q, k, v.
 * When S <= rows_per_slice every row is checked; otherwise rows_per_slice
 * distinct rows per slice drawn with gsl_ran_choose from MT19937 seeded with
 * `seed` (the last row, the one causal masking stresses most, is always
 * included). Fills *out; returns 0, or -1 on allocation failure. */
int ab_check_output(const ab_shape *s, const float *q, const float *k, const float *v,
                    const float *o, unsigned long seed, size_t rows_per_slice,
                    ab_check *out);

/* FlashAttention's atol term maximised over outputs x in [-xmax, xmax]
 * (a grid of 2^16 points), floored like ab_check_output's: for checks
 * whose outputs are not at hand (external variants). */
double ab_check_atol_bound(ab_dtype t, double xmax);

#ifdef __cplusplus
}
#endif

#endif
