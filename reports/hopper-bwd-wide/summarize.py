#!/usr/bin/env python3
"""Tables of reports/hopper-bwd-wide/README.md (python3 summarize.py, in
this folder). Per configuration each variant's level is the geometric mean
of its instances' medians (four instances of each variant; an instance with
no median is left out); a ratio a/b is a speed ratio (b's level over a's);
parts are D x causal, geometric means over their configurations, with the
range over them in brackets."""
import math
import sqlite3
from collections import defaultdict

KEY = "B,H,H_kv,S,S_kv,D,causal,dtype"
P = "cuda_wgmma_bwd_"
RUNS = [  # database, run, variants in ladder order, (rung, against) pairs
    ("hopper-bwd-wide", 1, ["lsevec", "expfirst", "dqwide", "widexp"],
     [("expfirst", "lsevec"), ("dqwide", "lsevec"), ("widexp", "dqwide")]),
    ("hopper-bwd-wide", 2, ["lsevec", "expfirst", "dqwide", "widexp"],
     [("expfirst", "lsevec"), ("dqwide", "lsevec"), ("widexp", "dqwide")]),
    ("hopper-bwd-wide-d64", 1, ["lsevec", "expfirst", "dqwide", "widexp"],
     [("expfirst", "lsevec"), ("dqwide", "lsevec"), ("widexp", "dqwide")]),
    ("hopper-bwd-wide-llama3-8b", 1, ["lsevec", "expfirst", "dqwide", "widexp"],
     [("expfirst", "lsevec"), ("dqwide", "lsevec"), ("widexp", "dqwide")]),
    ("hopper-bwd-deferexp", 1, ["defer", "deferexp", "lsevec", "expfirst"],
     [("deferexp", "defer"), ("expfirst", "lsevec"), ("lsevec", "defer")]),
]


def gm(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def load(db, run):
    con = sqlite3.connect(f"file:{db}.db?mode=ro&immutable=1", uri=True)
    inst = defaultdict(lambda: defaultdict(list))
    q = f"SELECT {KEY}, variant, median_ms FROM measurement_summary WHERE run_id = ?"
    for r in con.execute(q, (run,)):
        if r[9] is not None:
            inst[r[:8]][r[8].split("#")[0]].append(r[9])
    return {k: {v: gm(x) for v, x in vv.items()} for k, vv in inst.items()}


def parts(d):
    out = []
    for D, c in sorted(set((k[5], k[6]) for k in d), key=lambda x: (-x[0], x[1])):
        ks = sorted(k for k in d if k[5] == D and k[6] == c)
        if any(k[2] != k[1] for k in ks):
            name = "Llama 3 8B (S = 2K-8K)"
        else:
            name = f"D={D} {'causal' if c else 'non-causal'}"
        out.append((name, ks))
    return out


def fmt(r):
    return f"{gm(r):.3f} ({min(r):.3f}-{max(r):.3f})"


def main():
    for db, run, vs, steps in RUNS:
        d = load(db, run)
        print(f"### {db}.db, run {run}\n")
        print("| part | " + " | ".join(f"{v} / cuDNN" for v in vs) + " | " +
              " | ".join(f"{a} / {b}" for a, b in steps) + " |")
        print("|---|" + "---:|" * (len(vs) + len(steps)))
        for name, ks in parts(d):
            cells = [fmt([d[k]["cudnn_sdpa"] / d[k][P + v] for k in ks]) for v in vs]
            cells += [fmt([d[k][P + b] / d[k][P + a] for k in ks]) for a, b in steps]
            print(f"| {name} | " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    main()
