#!/usr/bin/env python3
"""Tables of reports/hopper-bwd-fullsplit/README.md's headsplit section
(python3 summarize.py, in this folder): per configuration each variant's
level is the geometric mean of its instances' medians (the runs have four
instances of each variant; an instance whose every sample was flagged
throttled has no median and is left out), ratios are speeds (the other's level over the
named one's), geometric means over the configurations of each part."""
import math
import sqlite3
from collections import defaultdict

KEY = "B,H,H_kv,S,S_kv,D,causal,dtype"


def gm(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def load(db):
    con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    inst = defaultdict(lambda: defaultdict(list))
    for r in con.execute(f"SELECT {KEY}, variant, median_ms FROM measurement_summary WHERE run_id = 1"):
        if r[9] is not None:
            inst[r[:8]][r[8].split("#")[0]].append(r[9])
    return {k: {v: gm(x) for v, x in vv.items()} for k, vv in inst.items()}


def table(db):
    d = load(db)
    print(f"## {db} run 1\n")
    print("| part | headsplit / heads | headsplit / cuDNN | heads / cuDNN | fullsplit / cuDNN | best own / cuDNN |")
    print("|---|---|---:|---:|---:|---|")
    own = ["cuda_wgmma_bwd_headsplit", "cuda_wgmma_bwd_heads", "cuda_wgmma_bwd_fullsplit"]
    allb = []
    for D, c in sorted(set((k[5], k[6]) for k in d)):
        ks = [k for k in d if k[5] == D and k[6] == c]
        hh = [d[k]["cuda_wgmma_bwd_heads"] / d[k]["cuda_wgmma_bwd_headsplit"] for k in ks]
        vs = {v: gm([d[k]["cudnn_sdpa"] / d[k][v] for k in ks]) for v in own}
        b = [d[k]["cudnn_sdpa"] / min(d[k][v] for v in own) for k in ks]
        allb += b
        print(f"| D={D} {'causal' if c else 'non-causal'} | {gm(hh):.3f} ({min(hh):.3f}-{max(hh):.3f}) | "
              f"{vs[own[0]]:.3f} | {vs[own[1]]:.3f} | {vs[own[2]]:.3f} | {gm(b):.3f} ({min(b):.3f}-{max(b):.3f}) |")
    print(f"| all | | | | | {gm(allb):.3f} ({min(allb):.3f}-{max(allb):.3f}) |\n")


if __name__ == "__main__":
    table("hopper-bwd-headsplit.db")
    table("hopper-bwd-headsplit-llama3-8b.db")
