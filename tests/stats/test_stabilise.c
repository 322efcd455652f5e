/*
 * test_stabilise.c: the settle rule of `stabilise = true`
 * (src/run/stabilise.h): settled when the last k SM clock readings span at
 * most tol MHz. Expected values by hand next to each case, and the driver
 * against a fake load (no NVML on this machine: it must do nothing and say
 * so, return 2, never calling the load).
 */
#include "check.h"
#include "nvml_monitor.h"
#include "stabilise.h"

#include <stddef.h>

static int calls;
static int fake_load(void *arg)
{
    (void)arg;
    calls++;
    return 0;
}

int main(void)
{
    /* a ramp 1980 -> 1710 then flat at 1710 +- 7: the last 5 span 14 <= 15 */
    const unsigned ramp[] = {1980, 1950, 1890, 1800, 1740, 1710, 1717, 1710, 1703, 1710, 1715};
    const size_t n = sizeof ramp / sizeof ramp[0];
    CHECK(ab_clock_settled(ramp, n, 5, 15), "flat tail of 5 within 15 MHz");
    /* the last 6 include 1710..1717 and 1703 (span 14): settled too */
    CHECK(ab_clock_settled(ramp, n, 6, 15), "last 6 span 14");
    /* the last 7 reach back to 1740: span 37 > 15 */
    CHECK(!ab_clock_settled(ramp, n, 7, 15), "last 7 span 37");
    /* a tolerance of 13 rejects the span of 14 */
    CHECK(!ab_clock_settled(ramp, n, 5, 13), "tol 13 < span 14");
    /* still ramping after 5 readings: 1980 .. 1740 span 240 */
    CHECK(!ab_clock_settled(ramp, 5, 5, 15), "ramp not settled");
    /* fewer readings than the window, k = 0, NULL: never settled */
    CHECK(!ab_clock_settled(ramp, 4, 5, 15) && !ab_clock_settled(ramp, n, 0, 15) &&
              !ab_clock_settled(NULL, 5, 5, 15),
          "too few readings");
    /* constant clock: settled at tol 0 */
    const unsigned flat[] = {1980, 1980, 1980, 1980, 1980};
    CHECK(ab_clock_settled(flat, 5, 5, 0), "constant at tol 0");

    /* the driver without NVML: a no-op that says so */
    if (!ab_nvml_available()) {
        ab_stab_result r;
        int rc = ab_stabilise("GPU-none", fake_load, NULL, 1.0, &r);
        CHECK(rc == 2 && calls == 0 && r.readings == 0 && r.settle_s == 0,
              "no NVML: rc %d, %d load calls", rc, calls);
    }
    return check_report("test_stabilise");
}
