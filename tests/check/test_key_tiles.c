/*
 * test_key_tiles.c: the key-tile range and the masked-path choice of the
 * Hopper rungs (kernels/key_tiles.h, used by cuda_wgmma_pingpong and
 * cuda_wgmma_persistent) against a brute-force count of the keys each query
 * row sees. Independent source, written here: key j < S_kv is visible to
 * query row i when the mask is off, or when j <= i + S_kv - S (the
 * bottom-right causal mask of src/core/variant.h, FlashAttention >= 2.1's
 * and PyTorch's causal_lower_right), counted key by key. For every query
 * tile of the kernels' geometries (BR = 128 and 192 query rows, 64 per
 * consumer warpgroup, BC = 128 keys; and BR = BC = 64) and every (S, S_kv)
 * of a list of tile-edge lengths, causal and not:
 *   - the tile visits exactly the key tiles up to the one holding the
 *     last key any of its rows below S sees, all ceil(S_kv / BC) without
 *     the mask, and exactly one when none of its rows sees a key;
 *   - a key tile a warpgroup runs without the mask has every key visible
 *     to every one of the warpgroup's rows below S (a tile that needs the
 *     mask is never run without it);
 * and the K/V slice ab_kv_slice(bh, H / H_kv) against ab_kv_offset (the
 * contract's element offset of the slice) for every query slice of B in
 * 1..3, H in 1..12, every H_kv dividing H.
 * Exit 0 when all hold, 1 otherwise (each failure named on stderr).
 */
#include "key_tiles.h"
#include "variant.h"

#include <stdio.h>
#include <stdlib.h>

static int failures;
#define FAIL(...) (fprintf(stderr, "FAIL: " __VA_ARGS__), fputc('\n', stderr), failures++)

/* keys row i sees, counted one by one; the visible keys must be a prefix */
static int seen_keys(int causal, int i, int S, int Skv)
{
    int n = 0, last = -1;
    for (int j = 0; j < Skv; j++)
        if (!causal || j <= i + Skv - S) {
            n++;
            last = j;
        }
    if (last != n - 1)
        FAIL("visible keys of row %d (S=%d S_kv=%d) are not a prefix", i, S, Skv);
    return n;
}

/* one geometry: query tiles of br rows, warpgroups of wg rows, key tiles of bc */
static void check_geometry(int causal, int S, int Skv, int br, int wg, int bc, const int *seen)
{
    const int nkv = (Skv + bc - 1) / bc;
    for (int q0 = 0; q0 < S; q0 += br) {
        const int jend = ab_key_tiles(causal, q0, br, S, Skv, bc);
        int most = 0; /* the most keys any row of the tile below S sees */
        for (int i = q0; i < q0 + br && i < S; i++)
            most = seen[i] > most ? seen[i] : most;
        const int want = most > 0 ? (most - 1) / bc + 1 : 1;
        if (jend != want || jend < 1 || jend > nkv) {
            FAIL("%s S=%d S_kv=%d BR=%d BC=%d tile q0=%d: %d key tiles, want %d (of %d)",
                 causal ? "causal" : "full", S, Skv, br, bc, q0, jend, want, nkv);
            continue;
        }
        for (int first = q0; first < q0 + br; first += wg)
            for (int j = 0; j < jend; j++) {
                if (ab_key_tile_masked(causal, j * bc, bc, first, S, Skv))
                    continue;
                for (int i = first; i < first + wg && i < S; i++)
                    if (seen[i] < j * bc + bc)
                        FAIL("%s S=%d S_kv=%d BR=%d BC=%d: key tile %d unmasked for rows "
                             "%d.. but row %d sees only %d keys",
                             causal ? "causal" : "full", S, Skv, br, bc, j, first, i, seen[i]);
            }
    }
}

int main(void)
{
    /* tile edges of 64, 128 and 192, the gpu_check lengths, and beyond */
    static const int lens[] = {1,   2,   17,  63,  64,  65,  97,  113, 127,  128,  129,
                               191, 192, 193, 200, 255, 256, 257, 300, 383,  384,  385,
                               520, 571, 700, 1000, 1023, 1024, 1025, 2049};
    static const int geo[][3] = {/* BR, warpgroup rows, BC */
                                 {128, 64, 128}, {192, 64, 128}, {64, 64, 64}};
    const int nl = (int)(sizeof lens / sizeof lens[0]), ng = (int)(sizeof geo / sizeof geo[0]);
    int *seen = malloc(sizeof(int) * 2049);
    long tiles = 0;
    if (!seen) {
        fprintf(stderr, "test_key_tiles: out of memory\n");
        return 1;
    }
    for (int causal = 0; causal <= 1; causal++)
        for (int a = 0; a < nl; a++)
            for (int b = 0; b < nl; b++) {
                const int S = lens[a], Skv = lens[b];
                for (int i = 0; i < S; i++)
                    seen[i] = seen_keys(causal, i, S, Skv);
                for (int g = 0; g < ng; g++) {
                    check_geometry(causal, S, Skv, geo[g][0], geo[g][1], geo[g][2], seen);
                    tiles += (S + geo[g][0] - 1) / geo[g][0];
                }
            }
    free(seen);
    int slices = 0;
    for (int B = 1; B <= 3; B++)
        for (int H = 1; H <= 12; H++)
            for (int hkv = 1; hkv <= H; hkv++) {
                if (H % hkv)
                    continue;
                const ab_shape s = {B, H, 5, 8, 1, AB_BF16, hkv, 7, AB_FWD};
                for (int bh = 0; bh < B * H; bh++, slices++)
                    if ((size_t)ab_kv_slice(bh, H / hkv) * 7 * 8 != ab_kv_offset(&s, (size_t)bh))
                        FAIL("B=%d H=%d H_kv=%d: query slice %d reads K/V slice %d, the contract "
                             "offset %zu is slice %zu",
                             B, H, hkv, bh, ab_kv_slice(bh, H / hkv), ab_kv_offset(&s, (size_t)bh),
                             ab_kv_offset(&s, (size_t)bh) / (7 * 8));
            }
    printf("%ld query tiles and %d query slices checked, %d failures\n", tiles, slices, failures);
    return failures ? 1 : 0;
}
