#!/usr/bin/env python3
"""pipeline_sim.py: the synchronisation of kernels/wgmma_persist_fwd.cuh's
block (one producer, NWG consumer warpgroups) run under random interleavings
on the CPU, to check the per-warpgroup key-tile counts (PF_WGSKIP) before
any GPU run: no deadlock, and every shared-memory read sees the tile it
expects.

Model, one block. mbarriers as in PTX (a phase completes when its expected
arrivals are in; try_wait.parity(p) passes while the current phase's parity
differs from p, so a waiter two phases late would block, which shows as a
deadlock): full[st] (1 arrival: the producer's load), empty[st] (NWG
arrivals: one per consumer warpgroup, standing for its 4 warps, which do
the same), Q full (1) and Q empty (NWG). Named barriers as bar.sync /
bar.arrive with 256 threads = 2 warpgroup arrivals. Each shared-memory
buffer (the Q tile, K and V of each stage) carries a tag of what was last
loaded into it; a wgmma that reads it checks the tag when it is issued and
again at the wgmma wait that ends it (the data must not change while it
is read). The consumer code is the .cuh's, step for step (key tile 0, the
loop over 1 .. jw - 1, the last P V, the idle turn of a warpgroup with no
key tile, the idle tail over jw .. jend - 1); the tile list is random:
per query tile a key-tile count jend in 1..7 and per warpgroup any jw in
0..jend (the kernel's jw is never above jend). WGSKIP = False replays the
previous rungs (jw = jend for every warpgroup).

Usage: python3 pipeline_sim.py [TRIALS] [--mutate NAME]   (default 3000;
exit 1 on a failure). --mutate breaks the modelled kernel on purpose, to show
that the checks catch it: tail-no-wait (the idle tail releases a stage
without waiting for it to fill), no-tail (no idle tail), no-qempty-idle (a
warpgroup without key tiles never releases Q), last-pv-jend (the last P V
reads stage jend - 1 instead of jw - 1); each should fail.
"""
import random
import sys

MUTATE = None


class Deadlock(Exception):
    pass


class Block:
    def __init__(self, nwg, nst, tiles, rng):
        self.nwg, self.nst, self.tiles, self.rng = nwg, nst, tiles, rng
        # mbarriers: [current phase, arrivals in this phase, expected]
        self.full = [[0, 0, 1] for _ in range(nst)]
        self.empty = [[0, 0, nwg] for _ in range(nst)]
        self.qfull = [0, 0, 1]
        self.qempty = [0, 0, nwg]
        self.named = {}  # barrier id -> arrivals so far in its generation
        self.named_gen = {}
        self.tag_k = [None] * nst
        self.tag_v = [None] * nst
        self.tag_q = None
        self.slot = None

    @staticmethod
    def arrive(bar):
        bar[1] += 1
        if bar[1] == bar[2]:
            bar[0] += 1
            bar[1] = 0

    @staticmethod
    def passed(bar, parity):
        return (bar[0] & 1) != parity


def producer(b):
    tc = 0
    for it in range(len(b.tiles) + 1):
        if it > 0:
            while not Block.passed(b.qempty, (it - 1) & 1):
                yield "wait"
        if it == len(b.tiles):
            b.slot = -1
            Block.arrive(b.qfull)
            return
        jend = b.tiles[it][0]
        b.slot = it
        b.tag_q = it
        Block.arrive(b.qfull)
        for t in range(jend):
            st = tc % b.nst
            if tc >= b.nst:
                while not Block.passed(b.empty[st], (tc // b.nst - 1) & 1):
                    yield "wait"
            b.tag_k[st] = (it, t)
            b.tag_v[st] = (it, t)
            Block.arrive(b.full[st])
            tc += 1
            yield


def consumer(b, cw, wgskip):
    nwg, nst = b.nwg, b.nst
    my, nxt = 3 + cw, 3 + (cw + 1) % nwg

    def sync(bid):  # bar.sync: arrive, then wait for this generation to complete
        gen = b.named_gen.get(bid, 0)
        b.named[bid] = b.named.get(bid, 0) + 1
        if b.named[bid] == 2:
            b.named[bid] = 0
            b.named_gen[bid] = gen + 1
        while b.named_gen.get(bid, 0) == gen:
            yield "wait"

    def arrive(bid):  # bar.arrive
        b.named[bid] = b.named.get(bid, 0) + 1
        if b.named[bid] == 2:
            b.named[bid] = 0
            b.named_gen[bid] = b.named_gen.get(bid, 0) + 1

    def expect(what, got, want):
        if got != want:
            raise AssertionError("warpgroup %d read %s %r, expected %r" % (cw, what, got, want))

    if cw == nwg - 1:
        arrive(3)
    tc = 0
    for it in range(len(b.tiles) + 1):
        while not Block.passed(b.qfull, it & 1):
            yield "wait"
        t_id = b.slot
        if t_id == -1:
            break
        expect("tile slot", t_id, it)
        jend, jws = b.tiles[it]
        jw = jws[cw] if wgskip else jend
        if not wgskip or jw > 0:
            # key tile 0
            st = tc % nst
            while not Block.passed(b.full[st], (tc // nst) & 1):
                yield "wait"
            yield from sync(my)
            expect("Q", b.tag_q, it)
            expect("K", b.tag_k[st], (it, 0))
            arrive(nxt)
            yield
            expect("Q at wait", b.tag_q, it)
            expect("K at wait", b.tag_k[st], (it, 0))
            if jw == 1:
                Block.arrive(b.qempty)
            for j in range(1, jw):
                st, sp = (tc + j) % nst, (tc + j - 1) % nst
                while not Block.passed(b.full[st], ((tc + j) // nst) & 1):
                    yield "wait"
                yield from sync(my)
                expect("Q", b.tag_q, it)
                expect("K", b.tag_k[st], (it, j))
                expect("V", b.tag_v[sp], (it, j - 1))
                arrive(nxt)
                yield
                expect("Q at wait<1>", b.tag_q, it)
                expect("K at wait<1>", b.tag_k[st], (it, j))
                if j == jw - 1:
                    Block.arrive(b.qempty)
                yield
                expect("V at wait<0>", b.tag_v[sp], (it, j - 1))
                Block.arrive(b.empty[sp])
                yield
            sp = (tc + (jend if MUTATE == "last-pv-jend" else jw) - 1) % nst
            yield from sync(my)
            expect("V (last P V)", b.tag_v[sp], (it, jw - 1))
            arrive(nxt)
            yield
            expect("V at last wait", b.tag_v[sp], (it, jw - 1))
            Block.arrive(b.empty[sp])
        else:
            if MUTATE != "no-qempty-idle":
                Block.arrive(b.qempty)
            yield from sync(my)
            arrive(nxt)
        if wgskip and MUTATE != "no-tail":
            for j in range(jw, jend):
                st = (tc + j) % nst
                while MUTATE != "tail-no-wait" and not Block.passed(b.full[st], ((tc + j) // nst) & 1):
                    yield "wait"
                yield from sync(my)
                arrive(nxt)
                Block.arrive(b.empty[st])
                yield
        tc += jend
    if cw == 0:
        yield from sync(my)


def run(seed, wgskip):
    rng = random.Random(seed)
    nwg = rng.choice([2, 3])
    nst = rng.choice([2, 3, 4])
    tiles = []
    for _ in range(rng.randint(1, 6)):
        jend = rng.randint(1, 7)
        tiles.append((jend, [rng.randint(0, jend) for _ in range(nwg)]))
    b = Block(nwg, nst, tiles, rng)
    agents = [producer(b)] + [consumer(b, c, wgskip) for c in range(nwg)]
    live = list(range(len(agents)))
    idle = 0
    while live:
        i = rng.choice(live)
        try:
            r = next(agents[i])
        except StopIteration:
            live.remove(i)
            idle = 0
            continue
        idle = idle + 1 if r == "wait" else 0
        if idle > 5000:
            raise Deadlock("nwg=%d nst=%d tiles=%r" % (nwg, nst, tiles))
    leftover = {k: v for k, v in b.named.items() if v}
    if leftover:
        raise AssertionError("named barriers left with arrivals %r" % leftover)
    return nwg, nst, len(tiles)


def main():
    global MUTATE
    args = sys.argv[1:]
    if "--mutate" in args:
        i = args.index("--mutate")
        MUTATE = args[i + 1]
        del args[i:i + 2]
    trials = int(args[0]) if args else 3000
    bad = 0
    for wgskip in (False, True):
        for seed in range(trials):
            try:
                run(seed, wgskip)
            except (Deadlock, AssertionError) as e:
                bad += 1
                if bad <= 5:
                    print("FAIL wgskip=%s seed=%d: %s: %s" % (wgskip, seed, type(e).__name__, e))
        print("wgskip=%s: %d random tile lists x interleavings, %d failed" % (wgskip, trials, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
