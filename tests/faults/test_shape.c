/*
 * test_shape.c: ab_shape_check against 128-bit arithmetic. For axes drawn
 * from the boundary values (1, 2, powers of two near 2^24, 2^24 itself and
 * values just outside [1, 2^24]) and every dtype, the shape must be refused
 * exactly when an axis is out of range or when B*H*S*D * 16 bytes (the
 * largest size it derives: four float tensors on the host) reaches 2^62,
 * computed here independently in unsigned __int128; accepted shapes must
 * report the exact element and byte counts.
 */
#include "variant.h"

#include <stdio.h>

int main(void)
{
    const int vals[] = {0, 1, 2, 3, 1000, 65536, 1 << 20, (1 << 24) - 1, 1 << 24, (1 << 24) + 1, -5};
    const int nv = (int)(sizeof vals / sizeof vals[0]);
    long checked = 0, refused = 0, bad = 0;
    char err[256];
    for (int b = 0; b < nv; b++)
        for (int h = 0; h < nv; h++)
            for (int s = 0; s < nv; s++)
                for (int d = 0; d < nv; d++)
                    for (int t = 0; t < AB_NDTYPES; t++) {
                        ab_shape x = {vals[b], vals[h], vals[s], vals[d], t == 1, (ab_dtype)t, 0, 0};
                        int in_range = 1;
                        for (int k = 0; k < 4; k++) {
                            int a = k == 0 ? x.B : k == 1 ? x.H : k == 2 ? x.S : x.D;
                            in_range &= a >= 1 && a <= (1 << 24);
                        }
                        unsigned __int128 n = (unsigned __int128)(unsigned)x.B * (unsigned)x.H *
                                              (unsigned)x.S * (unsigned)x.D;
                        const unsigned __int128 lim = (unsigned __int128)1 << 62;
                        int fits = in_range && n * 16 < lim;
                        ab_shape_sizes z;
                        int rc = ab_shape_check(&x, &z, err, sizeof err);
                        checked++;
                        refused += rc != 0;
                        if ((rc == 0) != fits) {
                            bad++;
                            fprintf(stderr, "B=%d H=%d S=%d D=%d %s: check %d, expected %s (%s)\n",
                                    x.B, x.H, x.S, x.D, ab_dtype_name(x.dtype), rc,
                                    fits ? "accepted" : "refused", rc ? err : "");
                        } else if (rc == 0 &&
                                   ((unsigned __int128)z.numel != n ||
                                    (unsigned __int128)z.host_bytes != n * 16 ||
                                    (unsigned __int128)z.device_bytes !=
                                        n * 4 * ab_dtype_size(x.dtype))) {
                            bad++;
                            fprintf(stderr, "B=%d H=%d S=%d D=%d: wrong sizes\n", x.B, x.H, x.S,
                                    x.D);
                        }
                    }
    printf("%ld shapes, %ld refused, %ld wrong\n", checked, refused, bad);
    return bad != 0 || refused == 0 || refused == checked;
}
