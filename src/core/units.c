/*
 * units.c: rate units chosen from the largest value of a table (units.h).
 */
#include "units.h"

#include <math.h>
#include <stdio.h>

ab_unit ab_flop_unit(double max_flop_s)
{
    if (!isfinite(max_flop_s) || max_flop_s <= 0 || max_flop_s >= 1e12)
        return (ab_unit){1e9, "TFLOP/s"};
    if (max_flop_s >= 1e9)
        return (ab_unit){1e6, "GFLOP/s"};
    return (ab_unit){1e3, "MFLOP/s"};
}

ab_unit ab_byte_unit(double max_byte_s)
{
    if (!isfinite(max_byte_s) || max_byte_s <= 0 || max_byte_s >= 1e10)
        return (ab_unit){1e6, "GB/s"};
    return (ab_unit){1e3, "MB/s"};
}

const char *ab_fmt_ms(double ms, int sign, char *buf, size_t n)
{
    if (!isfinite(ms)) {
        snprintf(buf, n, "%s", isnan(ms) ? "nan" : ms > 0 ? "inf" : "-inf");
        return buf;
    }
    int dec = 4;
    if (ms != 0) {
        dec = 3 - (int)floor(log10(fabs(ms)));
        dec = dec < 4 ? 4 : dec > 9 ? 9 : dec;
    }
    snprintf(buf, n, sign ? "%+.*f" : "%.*f", dec, ms);
    return buf;
}
