/*
 * key_tiles.h: which K/V slice and which key tiles a query tile of a tiled
 * attention kernel visits, and which of them need the element-wise mask,
 * under the forward contract of src/core/variant.h (query head h reads K/V
 * head h / (H / H_kv); keys 0 .. S_kv - 1; causal: key j visible to query
 * row i when j <= i + S_kv - S, the mask aligned to the bottom-right
 * corner of the S x S_kv scores). Plain C, callable from host
 * and device code (the Hopper rungs kernels/cuda_wgmma_pingpong.cu and
 * kernels/cuda_wgmma_persistent.cu) so that a CPU test
 * (tests/check/test_key_tiles.c) holds them against the contract: the
 * tile ranges against a count of the keys each row sees, the K/V slice
 * against ab_kv_offset (src/core/variant.h).
 */
#ifndef ATTNBENCH_KEY_TILES_H
#define ATTNBENCH_KEY_TILES_H

#ifdef __CUDACC__
#define AB_KT_FN static inline __host__ __device__
#else
#define AB_KT_FN static inline
#endif

/* Key tiles of bc keys (tile j: keys j bc .. j bc + bc - 1) that the query
 * tile of rows q0 .. q0 + rows - 1 visits, from tile 0 on, for a query
 * length S >= 1 and key length Skv >= 1 (q0 < S, rows, bc >= 1). Without
 * the causal mask every tile, ceil(Skv / bc); with it, through the tile
 * holding the last key that the tile's last row below S sees
 * (min(q0 + rows, S) - 1 + Skv - S), and at least 1: a query tile none of
 * whose rows sees a key (S > Skv) still visits tile 0, fully masked, so the
 * kernel's pipeline runs once and its rows store O = 0 (l = 0). */
AB_KT_FN int ab_key_tiles(int causal, int q0, int rows, int S, int Skv, int bc)
{
    const int nkv = (Skv + bc - 1) / bc;
    if (!causal)
        return nkv;
    const int last = (q0 + rows < S ? q0 + rows : S) - 1 + (Skv - S);
    if (last < 0)
        return 1;
    return last / bc + 1 < nkv ? last / bc + 1 : nkv;
}

/* 1 when key tile k0 .. k0 + bc - 1 needs the element-wise mask for the
 * query rows first .. (any later row): it reaches past Skv, or (causal)
 * past the first row's last visible key first + Skv - S. 0 means every
 * key of the tile is visible to every one of those rows. */
AB_KT_FN int ab_key_tile_masked(int causal, int k0, int bc, int first, int S, int Skv)
{
    return k0 + bc > Skv || (causal && k0 + bc - 1 > first + (Skv - S));
}

/* The K/V slice (index into [B H_kv, S_kv, D]) that query slice bh = b H + h
 * (index into [B H, S, D]) reads, for group = H / H_kv query heads per K/V
 * head: b H_kv + h / group, which is bh / group because H = group H_kv. */
AB_KT_FN int ab_kv_slice(int bh, int group) { return bh / group; }

#undef AB_KT_FN

#endif
