/*
 * check.h: correctness of one output O against the float64 reference, under
 * a tolerance that nothing being checked can widen.
 *
 * Three computations per checked row (reference.h):
 *   O_ref    float64 attention on the dtype-rounded inputs (the oracle);
 *   O_plain  a plain same-precision implementation (PyTorch's materialised
 *            softmax in the dtype, FlashAttention's `out_pt`);
 *   O_shadow the plain computation's own operations in float64, no rounding.
 *
 * Rule (FlashAttention's, tests/test_flash_attn.py and
 * hopper/test_flash_attn.py: "error vs a higher-precision reference <= 2 x
 * the error of a plain same-precision implementation + atol"), with the
 * plain error measured against its shadow instead of against O_ref, and a
 * second, L2 form of the same rule. A variant passes when all of:
 *   (1) no NaN or infinity anywhere in O (O is poisoned with NaN first, so
 *       an unwritten element fails);
 *   (2) max|O - O_ref| <= 2 max|O_plain - O_shadow| + atol,
 *       atol = 2 max_x |fl(fl(x + m) - m) - x| over x = fl(O_ref), m =
 *       max|O_ref|: FlashAttention's fwd_atol (which adds and subtracts 0.3,
 *       the size of its outputs) at the size m of this output, i.e. about
 *       one ulp of the largest output; for fp32 at least 1e-5 (the floor
 *       the check always had: fp32 reassociation and fast exponentials
 *       alone exceed a few ulps over long rows);
 *   (3) ||O - O_ref||_2 <= (2 ||O_plain - O_shadow||_2 + u_l2 ||O_ref||_2),
 *       u_l2 = 2^-p/2 for the dtype's p-bit significand (fp16 2^-12, bf16
 *       2^-9), 1e-5 for fp32: catches a small error spread over the whole
 *       output (a 1% scale error at bf16 is only 2.6 units of rounding, inside
 *       (2)'s allowance, but 4 times (3)'s);
 *   (4) max|O_shadow - O_ref| <= 1e-9 (1 + m): the two float64 computations,
 *       written independently (reference.c's oracle and the plain's shadow;
 *       on the GPU, gpu_reference.cu's), agree. A bug in either makes every
 *       check fail instead of passing wrong kernels.
 * Why the shadow: FlashAttention measures the plain error against its own
 * reference; if that reference is wrong (a 1/D scale, say) the plain error
 * and with it the tolerance grow with the bug, and wrong kernels pass. The
 * shadow shares the plain's semantics, so only rounding is measured.
 *
 * Rows: every row when the check's cost allows (ab_check_rows_for), else a
 * sample per (b, h) slice drawn fresh (the caller's seed, recorded with the
 * measurement) that always holds rows 0 and S-1 and the tile boundaries
 * (multiples of 64 and of 128, and each +-1); a single wrong row then escapes
 * with probability 1 - rows_checked / rows_total (ab_check_escape). GPU
 * variants are checked on the device over every row (gpu_check.h).
 */
#ifndef ATTNBENCH_CHECK_H
#define ATTNBENCH_CHECK_H

#include "variant.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sums over the checked elements, filled by the host check below or by the
 * device check (gpu_check.h), turned into a verdict by ab_check_decide. */
typedef struct ab_check_sums {
    double max_err;      /* max |O - O_ref| (infinity when some compared O is NaN) */
    double sum_err;      /* sum |O - O_ref| over finite errors */
    double sq_err;       /* sum (O - O_ref)^2 over finite errors */
    double sq_ref;       /* sum O_ref^2 */
    double plain_max;    /* max |O_plain - O_shadow| */
    double plain_sq;     /* sum (O_plain - O_shadow)^2 */
    double ref_absmax;   /* max |O_ref| */
    double ref_atol;     /* max |fl(fl(x + ref_absmax) - ref_absmax) - x|, x = O_ref */
    double disagree;     /* max |O_shadow - O_ref| */
    long nonfinite;      /* NaN/Inf elements in all of O */
    long rows_checked, rows_total;
    long elems;          /* elements compared */
} ab_check_sums;

typedef struct ab_check {
    double max_abs_err;       /* max |O - O_ref| over checked rows */
    double mean_abs_err;      /* mean |O - O_ref| over checked elements */
    double rel_l2_err;        /* ||O - O_ref||_2 / ||O_ref||_2 over checked rows */
    double plain_max_abs_err; /* max |O_plain - O_shadow| */
    double plain_rel_l2_err;  /* ||O_plain - O_shadow||_2 / ||O_ref||_2 */
    double ref_absmax;        /* m = max |O_ref| */
    double atol;              /* rule (2) */
    double tolerance;         /* rule (2): 2 * plain_max_abs_err + atol */
    double l2_tolerance;      /* rule (3), relative: 2 * plain_rel_l2_err + u_l2 */
    double disagreement;      /* rule (4): max |O_shadow - O_ref| */
    long nonfinite;           /* NaN/Inf elements in all of O */
    long rows_checked;        /* query rows compared */
    long rows_total;          /* B * H * S */
    unsigned long seed;       /* seed of the row sample (0 when every row was checked) */
    int pass;
    char why[160];            /* the first rule that failed, or "" */
} ab_check;

/* Cost budget of a host check: rows checked x keys x D (x 3 computations),
 * about a second on one core. */
#define AB_CHECK_HOST_BUDGET 3.0e8
/* Smallest sample per slice when the budget forces sampling. */
#define AB_CHECK_MIN_ROWS 64

/* Rows per (b, h) slice the host check compares for shape s: 0 (meaning all
 * S rows) when B*H*S*keys*D fits AB_CHECK_HOST_BUDGET, otherwise the number
 * that fits, at least AB_CHECK_MIN_ROWS plus the always-checked rows. */
size_t ab_check_rows_for(const ab_shape *s);

/* Row indices of one slice: all of 0..S-1 when per == 0 or per >= S;
 * otherwise the always-checked rows (0, S-1, every multiple of 64 and of
 * 128 below S and its neighbours +-1) then distinct random rows from the
 * rest (gsl_ran_choose, uniform) until `per` rows, drawn from r. rows: room
 * for S ints. Returns the count, or 0 on allocation failure. */
size_t ab_check_rows_select(int S, size_t per, void *gsl_rng_r, int *rows);

/* Compares o (host floats, [B,H,S,D]) with the reference for inputs q, k, v
 * on the rows of ab_check_rows_select (per = rows_per_slice; 0: all), with
 * MT19937 seeded with `seed` (a fresh value per run; stored). Fills *out;
 * returns 0, or -1 on allocation failure. */
int ab_check_output(const ab_shape *s, const float *q, const float *k, const float *v,
                    const float *o, unsigned long seed, size_t rows_per_slice,
                    ab_check *out);

/* Turns sums into a verdict under the rule above, for dtype t. */
void ab_check_decide(const ab_check_sums *x, ab_dtype t, ab_check *out);

/* rule (2)'s atol from x's ref_atol (outputs of size m; fp32 floored). */
double ab_check_atol(ab_dtype t, double ref_atol, double m);

/* Probability that one wrong row, anywhere in the output, is not among the
 * rows checked: 1 - rows_checked / rows_total (the sample is uniform outside
 * the always-checked rows, which only raises the chance at boundaries). */
double ab_check_escape(long rows_checked, long rows_total);

/* A seed for the row sample that differs from run to run (8 bytes of
 * /dev/urandom, else the time and process id mixed); never 0. */
unsigned long ab_check_fresh_seed(void);

/* FlashAttention's atol term maximised over outputs x in [-xmax, xmax]
 * (a grid of 2^16 points), floored like ab_check_output's: for checks
 * whose outputs are not at hand (external variants). */
double ab_check_atol_bound(ab_dtype t, double xmax);

/* ---- gradients ------------------------------------------------
 * A backward pass is checked gradient by gradient with the rule above
 * (FlashAttention's tests check dQ, dK and dV each against a float64-like
 * reference with 2x the error of a same-precision implementation): for g in
 * dQ, dK, dV, g_ref = ab_reference_bwd (float64), g_plain = ab_plain_bwd
 * with rounding (PyTorch's autograd through attention in the dtype),
 * g_shadow = ab_plain_bwd without rounding; sums as for O over every
 * element, then ab_check_decide per gradient; the atol's size is
 * max(max|g_ref|, AB_GRAD_ATOL_FLOOR), FlashAttention's dq_atol with its
 * 0.3 as a floor. The pass fails when any
 * gradient fails; why names the first. */
typedef struct ab_grad_check {
    ab_check g[3]; /* dQ, dK, dV */
    int pass;
    char why[200];
} ab_grad_check;

/* The floor of a gradient's atol size (FlashAttention's tests' 0.3). */
#define AB_GRAD_ATOL_FLOOR 0.3

/* "dQ", "dK", "dV" for i = 0, 1, 2. */
const char *ab_grad_name(int i);

/* FlashAttention's atol term for one value x at output size m
 * (|fl(fl(x + m) - m) - x| in dtype t, x rounded first). */
double ab_check_rounding_near(double x, double m, ab_dtype t);

/* Fills sums x for one gradient: g (numel floats, the variant's, NaN
 * poisoned before it ran), ref, plain and shadow (doubles). */
void ab_grad_sums(const float *g, const double *ref, const double *plain, const double *shadow,
                  size_t numel, ab_dtype t, ab_check_sums *x);

/* Host check of a backward pass: dq [B,H,S,D], dk, dv [B,H_kv,S_kv,D] (host
 * floats of the dtype) against the float64 reference for inputs q, k, v and
 * output gradient dO. Every element (a CPU check: O(B H S S_kv D) three
 * times, serial; for test-sized shapes). Returns 0 and fills *out, or -1
 * when out of memory. */
int ab_check_grads(const ab_shape *s, const float *q, const float *k, const float *v,
                   const float *dO, const float *dq, const float *dk, const float *dv,
                   ab_grad_check *out);

/* The verdict of the three gradients' sums (x[0..3): dQ, dK, dV). */
void ab_grad_check_decide(const ab_check_sums x[3], ab_dtype t, ab_grad_check *out);

#ifdef __cplusplus
}
#endif

#endif
