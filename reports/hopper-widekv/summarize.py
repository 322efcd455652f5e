#!/usr/bin/env python3
"""Tables of reports/hopper-widekv/README.md from its databases
(python3 summarize.py, in this folder).

Ratios are speeds: the other variant's median over the named one's (> 1:
the named one is faster), geometric means over configurations. "Best own"
is the fastest own forward rung per configuration by median, a choice
made on the same medians it is judged by (it favours the own side); the
held-out rows choose the rung per configuration in one run and judge it
in the other (the widekv and desciter runs share uniform, wgskip, widekv
and ilpsoft; fa3-grid-latewait's runs 1 and 2 hold the same five rungs).
"""
import math
import sqlite3
from collections import defaultdict

KEY = "B,H,H_kv,S,S_kv,D,causal,dtype"
COMMON = ["cuda_wgmma_uniform", "cuda_wgmma_wgskip", "cuda_wgmma_widekv", "cuda_wgmma_ilpsoft"]
PARTS = [(64, 0), (64, 1), (128, 0), (128, 1)]


def load(db, run=1):
    con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    d = defaultdict(dict)
    for r in con.execute(f"SELECT {KEY}, variant, median_ms FROM measurement_summary WHERE run_id = ?",
                         (run,)):
        d[r[:8]][r[8]] = r[9]
    return d


def gm(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def rng(xs):
    return f"{gm(xs):.3f} ({min(xs):.3f}-{max(xs):.3f})"


def part(d, D, c):
    return [k for k in d if k[5] == D and k[6] == c]


def rung_table(d, new, prev):
    print(f"| part | {new} / {prev} | by S (gm over dtypes) |")
    print("|---|---|---|")
    for D, c in PARTS:
        ks = part(d, D, c)
        byS = defaultdict(list)
        for k in ks:
            byS[k[3]].append(d[k][prev] / d[k][new])
        s = ", ".join(f"{S}: {gm(v):.3f}" for S, v in sorted(byS.items()))
        print(f"| D={D} {'causal' if c else 'non-causal'} | {rng([d[k][prev] / d[k][new] for k in ks])} | {s} |")
    print()


def fa4_table(d, own):
    print("| part | best own / FA4, gm (range) | best own / cuDNN | FA4 / cuDNN |")
    print("|---|---|---:|---:|")
    allr = []
    for D, c in PARTS:
        ks = part(d, D, c)
        b = [d[k]["fa4"] / min(d[k][v] for v in own) for k in ks]
        bc = [d[k]["cudnn_sdpa"] / min(d[k][v] for v in own) for k in ks]
        fc = [d[k]["cudnn_sdpa"] / d[k]["fa4"] for k in ks]
        allr += b
        print(f"| D={D} {'causal' if c else 'non-causal'} | {rng(b)} | {gm(bc):.3f} | {gm(fc):.3f} |")
    print(f"| all 40 | {rng(allr)} | | |")
    print()
    print("| own rung | rung / FA4, gm (min) | fastest own in |")
    print("|---|---|---:|")
    wins = defaultdict(int)
    for k in d:
        wins[min(own, key=lambda v: d[k][v])] += 1
    for v in own:
        r = [d[k]["fa4"] / d[k][v] for k in d]
        print(f"| {v} | {gm(r):.3f} ({min(r):.3f}) | {wins[v]} |")
    print()


def held_out(sel, ev, label, cands=COMMON):
    r = [ev[k]["fa4"] / ev[k][min(cands, key=lambda v: sel[k][v])] for k in ev]
    print(f"| {label} | {gm(r):.3f} | {min(r):.3f} |")


def main():
    w = load("fa3-grid-widekv.db")
    dc = load("fa3-grid-desciter.db")
    print("## fa3-grid-widekv.db run 1\n")
    rung_table(w, "cuda_wgmma_widekv", "cuda_wgmma_wgskip")
    rung_table(w, "cuda_wgmma_ilpsoft", "cuda_wgmma_widekv")
    fa4_table(w, COMMON)
    print("## fa3-grid-desciter.db run 1\n")
    rung_table(dc, "cuda_wgmma_desciter", "cuda_wgmma_widekv")
    rung_table(dc, "cuda_wgmma_widekv", "cuda_wgmma_wgskip")
    fa4_table(dc, COMMON + ["cuda_wgmma_desciter"])
    print("## held out: rung chosen per configuration in one run, judged in the other\n")
    print("| chosen in -> judged in | best own / FA4, gm | min |")
    print("|---|---:|---:|")
    held_out(w, dc, "fa3-grid-widekv -> fa3-grid-desciter")
    held_out(dc, w, "fa3-grid-desciter -> fa3-grid-widekv")
    late = ["cuda_wgmma_latewait", "cuda_wgmma_splitloop", "cuda_wgmma_desciter",
            "cuda_wgmma_wgskip", "cuda_wgmma_uniform"]
    l1, l2 = load("fa3-grid-latewait.db", 1), load("fa3-grid-latewait.db", 2)
    held_out(l1, l2, "fa3-grid-latewait run 1 -> run 2", late)
    held_out(l2, l1, "fa3-grid-latewait run 2 -> run 1", late)
    print()
    sl = load("fa3-grid-splitloop.db")
    print("## fa3-grid-splitloop.db run 1\n")
    rung_table(sl, "cuda_wgmma_splitloop", "cuda_wgmma_desciter")
    fa4_table(sl, ["cuda_wgmma_splitloop", "cuda_wgmma_desciter", "cuda_wgmma_widekv",
                   "cuda_wgmma_wgskip", "cuda_wgmma_uniform"])
    for run, d in ((1, l1), (2, l2)):
        print(f"## fa3-grid-latewait.db run {run}\n")
        rung_table(d, "cuda_wgmma_latewait", "cuda_wgmma_splitloop")
        rung_table(d, "cuda_wgmma_splitloop", "cuda_wgmma_desciter")
        fa4_table(d, late)
    wide = ["cuda_wgmma_splitwide", "cuda_wgmma_splitloop", "cuda_wgmma_desciter",
            "cuda_wgmma_wgskip", "cuda_wgmma_uniform"]
    w1, w2 = load("fa3-grid-splitwide.db", 1), load("fa3-grid-splitwide.db", 2)
    for run, d in ((1, w1), (2, w2)):
        print(f"## fa3-grid-splitwide.db run {run}\n")
        rung_table(d, "cuda_wgmma_splitwide", "cuda_wgmma_splitloop")
        fa4_table(d, wide)
    print("| chosen in -> judged in | best own / FA4, gm | min |")
    print("|---|---:|---:|")
    held_out(w1, w2, "fa3-grid-splitwide run 1 -> run 2", wide)
    held_out(w2, w1, "fa3-grid-splitwide run 2 -> run 1", wide)
    print()
    for db, own, new, prev in (
            ("llama3-8b-prefill-splitloop.db",
             ["cuda_wgmma_splitloop", "cuda_wgmma_desciter", "cuda_wgmma_wgskip", "cuda_wgmma_uniform"],
             "cuda_wgmma_splitloop", "cuda_wgmma_desciter"),
            ("llama3-8b-prefill-splitwide.db",
             ["cuda_wgmma_splitwide", "cuda_wgmma_splitloop", "cuda_wgmma_wgskip", "cuda_wgmma_uniform"],
             "cuda_wgmma_splitwide", "cuda_wgmma_splitloop")):
        ll = load(db)
        print(f"## {db} run 1 (H = 32, D = 128, causal, bf16)\n")
        print(f"| B | S | H_kv | S_kv | best own / cuDNN | best own / FA4 | {new} / {prev} |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        bc, bf, nv = [], [], []
        for k in sorted(ll, key=lambda k: (k[3], k[2], k[4])):
            b = min(own, key=lambda v: ll[k][v])
            bc.append(ll[k]["cudnn_sdpa"] / ll[k][b])
            bf.append(ll[k]["fa4"] / ll[k][b])
            nv.append(ll[k][prev] / ll[k][new])
            print(f"| {k[0]} | {k[3]} | {k[2]} | {k[4]} | {bc[-1]:.3f} | {bf[-1]:.3f} | {nv[-1]:.3f} |")
        print(f"| all 7 | | | | {rng(bc)} | {rng(bf)} | {rng(nv)} |")
        print()


if __name__ == "__main__":
    main()
