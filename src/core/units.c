/*
 * units.c: rate units chosen from the largest value of a table (units.h).
 */
#include "units.h"

#include <math.h>

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
