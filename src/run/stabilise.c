/*
 * stabilise.c: run a kernel until the SM clock settles under load
 * (stabilise.h; an experiment's `stabilise = true`).
 */
#include "stabilise.h"
#include "nvml_monitor.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

int ab_clock_settled(const unsigned *mhz, size_t n, size_t k, unsigned tol)
{
    if (k == 0 || n < k || mhz == NULL)
        return 0;
    unsigned lo = mhz[n - k], hi = mhz[n - k];
    for (size_t i = n - k; i < n; i++) {
        lo = mhz[i] < lo ? mhz[i] : lo;
        hi = mhz[i] > hi ? mhz[i] : hi;
    }
    return hi - lo <= tol;
}

int ab_stabilise(const char *uuid, ab_stab_load_fn load, void *arg, double cap_s,
                 ab_stab_result *out)
{
    memset(out, 0, sizeof *out);
    ab_clock_reading r;
    if (!ab_nvml_available() || ab_nvml_read(uuid, &r) != 0 || !r.valid)
        return 2;
    size_t cap = 64, n = 0;
    unsigned *mhz = malloc(cap * sizeof *mhz);
    if (!mhz)
        return -1;
    const double t0 = ab_now_s();
    int rc = 1;
    for (;;) {
        if (load(arg)) {
            rc = -1;
            break;
        }
        if (ab_nvml_read(uuid, &r) != 0 || !r.valid) {
            rc = 2;
            break;
        }
        if (n == cap) {
            unsigned *m2 = realloc(mhz, 2 * cap * sizeof *mhz);
            if (!m2) {
                rc = -1;
                break;
            }
            mhz = m2;
            cap *= 2;
        }
        mhz[n++] = r.sm_mhz;
        out->sm_mhz = r.sm_mhz;
        out->readings = n;
        if (ab_clock_settled(mhz, n, AB_STAB_WINDOW, AB_STAB_TOL_MHZ)) {
            rc = 0;
            break;
        }
        if (ab_now_s() - t0 >= cap_s)
            break;
    }
    out->settle_s = ab_now_s() - t0;
    free(mhz);
    return rc;
}
