/*
 * check.h: the few assertion helpers the stats tests share (header-only).
 * Every CHECK prints what failed and counts it; a test returns non-zero when
 * any check failed.
 */
#ifndef ATTNBENCH_TESTS_STATS_CHECK_H
#define ATTNBENCH_TESTS_STATS_CHECK_H

#include <math.h>
#include <stdio.h>

static int check_failures = 0;
static int check_count = 0;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        check_count++;                                                          \
        if (!(cond)) {                                                          \
            check_failures++;                                                   \
            fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond);   \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
        }                                                                       \
    } while (0)

/* |got - want| <= rtol |want| + atol; NaN only matches NaN. */
static inline int close_to(double got, double want, double rtol, double atol)
{
    if (isnan(want) || isnan(got))
        return isnan(want) && isnan(got);
    return fabs(got - want) <= rtol * fabs(want) + atol;
}

#define CHECK_CLOSE(what, got, want, rtol, atol)                                \
    CHECK(close_to((got), (want), (rtol), (atol)), "%s: got %.17g, want %.17g", \
          (what), (double)(got), (double)(want))

#define CHECK_RC(call, want)                                                    \
    do {                                                                        \
        int rc_ = (call);                                                       \
        CHECK(rc_ == (want), "%s returned %d, want %d", #call, rc_, (want));    \
    } while (0)

static int check_report(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#endif /* ATTNBENCH_TESTS_STATS_CHECK_H */
