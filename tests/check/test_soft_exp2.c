/*
 * test_soft_exp2.c: the software exponential of cuda_wgmma_softexp
 * (kernels/soft_exp2.h, ab_soft_exp2) against libm's exp2 in double
 * precision, the independent source. On 2,000,001 evenly spaced points of
 * [-125, 0] and 1,000,000 seeded pseudo-random ones (a fixed linear
 * congruential sequence, so the test is the same every run):
 *   - the relative error is at most 7.5e-5 (the minimax fit's bound,
 *     reports/hopper-wgskip/exp2-poly-fit.txt; under fp16's half ulp 2.4e-4);
 *   - exactly 1 at x = 0 is not required, but the result must lie in
 *     (0, 1.0001] everywhere on the interval;
 * and at x < -125: 2^-125 (within the same bound) without zero_below,
 * exactly 0 with it (also for -inf, a masked score). Exit 0 when all hold, 1 otherwise (each failure
 * named on stderr).
 */
#include "soft_exp2.h"

#include <math.h>
#include <stdio.h>

static int failures;
#define FAIL(...) (fprintf(stderr, "FAIL: " __VA_ARGS__), fputc('\n', stderr), failures++)

static double worst;

static void check_point(float x)
{
    const double ref = exp2((double)x);
    const float got = ab_soft_exp2(x, 1);
    const double rel = fabs((double)got / ref - 1.0);
    if (rel > worst)
        worst = rel;
    if (!(rel <= 7.5e-5))
        FAIL("x = %.9g: %.9g against exp2 %.9g (relative error %.3g > 7.5e-5)", x, got, ref, rel);
    if (!(got > 0.f && got <= 1.0001f))
        FAIL("x = %.9g: %.9g outside (0, 1.0001]", x, got);
    if (ab_soft_exp2(x, 0) != got)
        FAIL("x = %.9g: zero_below changes a result above -125", x);
}

int main(void)
{
    for (int i = 0; i <= 2000000; i++)
        check_point((float)(-125.0 * i / 2000000.0));
    unsigned long long s = 20261126ULL;
    for (int i = 0; i < 1000000; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        check_point((float)(-125.0 * (double)(s >> 11) / 9007199254740992.0));
    }
    const float tiny = ab_soft_exp2(-200.f, 0);
    if (!(fabs(tiny / exp2(-125.0) - 1.0) <= 7.5e-5))
        FAIL("x = -200 without zero_below: %.9g, expected 2^-125 (the clamp)", tiny);
    if (ab_soft_exp2(-125.5f, 1) != 0.f || ab_soft_exp2(-INFINITY, 1) != 0.f)
        FAIL("x < -125 with zero_below: not 0");
    printf("ab_soft_exp2: largest relative error %.3g over 3,000,001 points of [-125, 0]\n",
           worst);
    return failures ? 1 : 0;
}
