/*
 * philox.c: cuRAND's Philox4x32-10 stream on the host without cuRAND
 * (philox.h gives the generator, its stream layout and how it was checked).
 */
#include "philox.h"

#ifdef _OPENMP
#include <omp.h>
#endif

void ab_philox4x32_10(const uint32_t ctr[4], uint32_t k0, uint32_t k1, uint32_t out[4])
{
    /* the multipliers and Weyl key increments of Philox4x32 (Salmon et al.
     * 2011, Table 2; curand_philox4x32_x.h PHILOX_M4x32_*, PHILOX_W32_*) */
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    for (int r = 0; r < 10; r++) {
        if (r) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        const uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
        c0 = n0;
        c2 = n2;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

/* The block holding stream element 4 b .. 4 b + 3 (philox.h's layout). */
static void block_of(uint64_t b, uint32_t k0, uint32_t k1, uint32_t out[4])
{
    const uint64_t pos = b >> 16;
    const uint32_t ctr[4] = {(uint32_t)pos, (uint32_t)(pos >> 32), (uint32_t)(b & 0xFFFFu), 0u};
    ab_philox4x32_10(ctr, k0, k1, out);
}

void ab_philox_stream(uint64_t seed, uint64_t offset, size_t n, uint32_t *out)
{
    if (n == 0)
        return;
    const uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    const uint64_t first = offset / 4, last = (offset + n - 1) / 4;
    const long long nb = (long long)(last - first + 1);
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (long long j = 0; j < nb; j++) {
        const uint64_t b = first + (uint64_t)j;
        uint32_t o[4];
        block_of(b, k0, k1, o);
        for (int l = 0; l < 4; l++) {
            const uint64_t e = 4 * b + (uint64_t)l; /* stream element */
            if (e >= offset && e < offset + n)
                out[e - offset] = o[l];
        }
    }
}
