#!/usr/bin/env python3
"""work_model.py: the work cuda_wgmma_wgskip saves on FlashAttention-3's grid
(B*S = 16K tokens, H = 16, S = 1024..16384), counted in warpgroup x key-tile
products (each 4 x 64 x 128 x D FLOPs of wgmma and 64 x 128 exponentials),
per (b, h) slice: before, every consumer warpgroup of a query tile runs the
tile's key-tile count; after, its own (kernels/key_tiles.h's ab_key_tiles on
its 64 rows, 0 when every row is >= S). D = 64: 192-row tiles (3 warpgroups),
D = 128: 128-row tiles (2); 128-key tiles. The numbers quoted in
kernels/cuda_wgmma_wgskip.cu's header. No GPU, no database."""


def key_tiles(causal, q0, rows, S, Skv, bc=128):
    """kernels/key_tiles.h ab_key_tiles, transcribed."""
    nkv = (Skv + bc - 1) // bc
    if not causal:
        return nkv
    last = min(q0 + rows, S) - 1 + (Skv - S)
    if last < 0:
        return 1
    return min(last // bc + 1, nkv)


for D in (64, 128):
    nwg = 3 if D == 64 else 2
    BR = 64 * nwg
    for causal in (1, 0):
        for S in (1024, 2048, 4096, 8192, 16384):
            nqt = (S + BR - 1) // BR
            before = after = 0
            for qt in range(nqt):
                q0 = qt * BR
                before += nwg * key_tiles(causal, q0, BR, S, S)
                for c in range(nwg):
                    w = q0 + 64 * c
                    after += 0 if w >= S else key_tiles(causal, w, 64, S, S)
            print("D=%d %s S=%d: %d query tiles, warpgroup x key-tile products %d -> %d"
                  " (%.1f%% fewer)" % (D, "causal" if causal else "non-causal", S, nqt, before,
                                        after, 100.0 * (before - after) / before))
