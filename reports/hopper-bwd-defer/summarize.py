#!/usr/bin/env python3
"""Tables of reports/hopper-bwd-defer/README.md (python3 summarize.py, in
this folder). Per configuration each variant's level is the geometric mean
of its instances' medians (four instances of each variant, run 1 of each
database; an instance with no median is left out); a ratio a/b is a speed
ratio (b's level over a's); parts are D x causal, geometric means over
their configurations, with the range over them in brackets."""
import math
import sqlite3
from collections import defaultdict

KEY = "B,H,H_kv,S,S_kv,D,causal,dtype"
P = "cuda_wgmma_bwd_"
CALLS = [  # database, variants in ladder order
    ("hopper-bwd-defer", ["headsplit", "defer", "stagger", "fullsplit"]),
    ("hopper-bwd-regdq", ["headsplit", "defer", "regdq", "lsevec"]),
    ("hopper-bwd-stsm", ["defer", "lsevec", "lsehoist", "stsm"]),
    ("hopper-bwd-red4", ["defer", "lsevec", "red4", "defervec"]),
    ("hopper-bwd-tail", ["lsevec", "tail"]),
]
STEPS = {  # (rung, the rung it is measured against)
    "hopper-bwd-defer": [("defer", "headsplit"), ("stagger", "defer")],
    "hopper-bwd-regdq": [("defer", "headsplit"), ("regdq", "defer"), ("lsevec", "regdq")],
    "hopper-bwd-stsm": [("lsevec", "defer"), ("lsehoist", "lsevec"), ("stsm", "lsevec")],
    "hopper-bwd-red4": [("lsevec", "defer"), ("red4", "lsevec"), ("defervec", "lsevec"),
                        ("defervec", "defer")],
    "hopper-bwd-tail": [("tail", "lsevec")],
}


def gm(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def load(db):
    con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    inst = defaultdict(lambda: defaultdict(list))
    for r in con.execute(f"SELECT {KEY}, variant, median_ms FROM measurement_summary WHERE run_id = 1"):
        if r[9] is not None:
            inst[r[:8]][r[8].split("#")[0]].append(r[9])
    return {k: {v: gm(x) for v, x in vv.items()} for k, vv in inst.items()}


def parts(d):
    out = []
    for D, c in sorted(set((k[5], k[6]) for k in d), key=lambda x: (-x[0], x[1])):
        name = f"D={D} {'causal' if c else 'non-causal'}" if len({k[1] for k in d}) == 1 and 16 in {k[1] for k in d} else "Llama 3 8B (S = 2K-8K)"
        out.append((name, sorted(k for k in d if k[5] == D and k[6] == c)))
    return out


def fmt(r):
    return f"{gm(r):.3f} ({min(r):.3f}-{max(r):.3f})"


def main():
    for db, vs in CALLS:
        for suffix in ("", "-llama3-8b"):
            d = load(f"{db}{suffix}.db")
            have = [v for v in vs if P + v in next(iter(d.values()))]
            steps = [s for s in STEPS[db] if s[0] in have and s[1] in have]
            print(f"### {db}{suffix}.db, run 1\n")
            print("| part | " + " | ".join(f"{v} / cuDNN" for v in have) + " | " +
                  " | ".join(f"{a} / {b}" for a, b in steps) + " |")
            print("|---|" + "---:|" * (len(have) + len(steps)))
            for name, ks in parts(d):
                cells = [fmt([d[k]["cudnn_sdpa"] / d[k][P + v] for k in ks]) for v in have]
                cells += [fmt([d[k][P + b] / d[k][P + a] for k in ks]) for a, b in steps]
                print(f"| {name} | " + " | ".join(cells) + " |")
            print()



def best_own():
    """Per configuration the fastest own rung of the run against cuDNN."""
    print("### best own backward against cuDNN, per run (every own rung of the run)\n")
    print("| database | configurations | geometric mean | lowest (configuration, rung) | highest |")
    print("|---|---:|---:|---|---:|")
    for db, vs in CALLS:
        for suffix in ("", "-llama3-8b"):
            d = load(f"{db}{suffix}.db")
            r = []
            for k, lv in sorted(d.items()):
                own = {v: lv[v] for v in lv if v.startswith(P)}
                v = min(own, key=own.get)
                r.append((lv["cudnn_sdpa"] / own[v], k, v[len(P):]))
            lo = min(r)
            print(f"| {db}{suffix} | {len(r)} | {gm([x[0] for x in r]):.3f} | {lo[0]:.3f} "
                  f"(B={lo[1][0]} S={lo[1][3]} D={lo[1][5]} {'causal' if lo[1][6] else 'non-causal'}, "
                  f"{lo[2]}) | {max(r)[0]:.3f} |")
    print()


if __name__ == "__main__":
    main()
    best_own()
