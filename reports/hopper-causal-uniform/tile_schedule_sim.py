#!/usr/bin/env python3
"""tile_schedule_sim.py: the causal tile list of the persistent Hopper forward
rungs (kernels/cuda_wgmma_persistent.cu decode(): sections of 8 heads, each
section's query tiles longest first) handed to 132 blocks, as a makespan
relative to a perfect split (python3 tile_schedule_sim.py).

A query tile of q + 1 key tiles costs q + 1 + X key-tile times (X: its fixed
cost). "when free": a block takes the next tile of the list when it finishes
its current one (cuda_wgmma_persistent, cuda_wgmma_uniform); "at start": it
claims the next one when it starts the current one (cuda_wgmma_lookahead).
Llama 3 8B prefill shapes: H = 32, B*S = 16384 tokens, 128-row query tiles.
A model of the schedule only (no memory system, no clock): the headers of
cuda_wgmma_uniform and cuda_wgmma_lookahead quote it as such."""
import heapq


def tiles(B, H, S, X, G=8, BR=128):
    nqt = (S + BR - 1) // BR
    nbh = B * H
    G = min(G, nbh)
    out = []
    for L in range(nqt * nbh):
        sec_tiles = G * nqt
        sec, r = L // sec_tiles, L % sec_tiles
        gh = min(G, nbh - sec * G)
        qt = nqt - 1 - r // gh
        out.append(qt + 1 + X)
    return out


def when_free(ts, sms=132):
    h = [0.0] * sms
    for c in ts:
        heapq.heappush(h, heapq.heappop(h) + c)
    return max(h)


def at_start(ts, sms=132):
    n = len(ts)
    nxt = min(sms, n)
    ev = [(0.0, b, b) for b in range(nxt)]
    heapq.heapify(ev)
    end = 0.0
    while ev:
        t, b, i = heapq.heappop(ev)
        j = nxt  # claimed as tile i starts
        nxt += 1
        end = max(end, t + ts[i])
        if j < n:
            heapq.heappush(ev, (t + ts[i], b, j))
    return end


def main():
    print("S      X=1 when free   X=2 when free   X=2 at start   at start / when free")
    for S, B in ((1024, 16), (2048, 8), (4096, 4), (8192, 2), (16384, 1)):
        t1, t2 = tiles(B, 32, S, 1.0), tiles(B, 32, S, 2.0)
        m1, m2 = sum(t1) / 132, sum(t2) / 132
        f1, f2, a2 = when_free(t1) / m1, when_free(t2) / m2, at_start(t2) / m2
        print("%-6d %.3f           %.3f           %.3f          %.3f" % (S, f1, f2, a2, a2 / f2))


main()
