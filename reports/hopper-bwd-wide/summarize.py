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
CLEAN = [  # the runs with nothing else on the GPU (d5.sh): the figures quoted
    ("hopper-bwd-dq-d128", 1, ["lsevec", "expfirst", "dqwide", "widexp", "dqtma", "dqtmaexp"],
     [("expfirst", "lsevec"), ("dqwide", "lsevec"), ("widexp", "dqwide"), ("dqtma", "dqwide"),
      ("dqtma", "lsevec"), ("dqtmaexp", "dqtma")]),
    ("hopper-bwd-dq-d64", 1, ["defer", "deferexp", "lsevec", "expfirst", "dqwide", "widexp",
                              "dqtma", "dqearly", "dqtmaexp"],
     [("deferexp", "defer"), ("expfirst", "lsevec"), ("dqwide", "lsevec"), ("widexp", "dqwide"),
      ("dqtma", "dqwide"), ("dqtma", "defer"), ("dqearly", "dqtma"), ("dqtmaexp", "dqtma")]),
    ("hopper-bwd-dq-llama3-8b", 1, ["lsevec", "expfirst", "dqwide", "widexp", "dqtma", "dqtmaexp"],
     [("expfirst", "lsevec"), ("dqwide", "lsevec"), ("widexp", "dqwide"), ("dqtma", "dqwide"),
      ("dqtma", "lsevec"), ("dqtmaexp", "dqtma")]),
]
H100 = [(db + "-h100", run, vs, st) for db, run, vs, st in CLEAN]  # d6.sh: the same on an H100
RUNS = [  # the first runs (d2-d4.sh), beside compute-sanitizer processes on the GPU
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
    ("hopper-bwd-dqtma", 1, ["lsevec", "dqwide", "dqtma"], [("dqtma", "dqwide"), ("dqtma", "lsevec")]),
    ("hopper-bwd-dqtma-d64", 1, ["lsevec", "dqwide", "dqtma"],
     [("dqtma", "dqwide"), ("dqtma", "lsevec")]),
    ("hopper-bwd-dqtma-llama3-8b", 1, ["lsevec", "dqwide", "dqtma"],
     [("dqtma", "dqwide"), ("dqtma", "lsevec")]),
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


def tables(runs):
    for db, run, vs, steps in runs:
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


def best_own(runs):
    """Per configuration the fastest own rung of the run against cuDNN."""
    print("| database | configurations | geometric mean | lowest (configuration, rung) | highest | fastest rung (configurations) |")
    print("|---|---:|---:|---|---:|---|")
    allr = []
    for db, run, vs, _ in runs:
        d = load(db, run)
        rs, lo, wins = [], None, defaultdict(int)
        for k in sorted(d):
            v = max(vs, key=lambda v: d[k]["cudnn_sdpa"] / d[k][P + v])
            r = d[k]["cudnn_sdpa"] / d[k][P + v]
            rs.append(r)
            wins[v] += 1
            if lo is None or r < lo[0]:
                lo = (r, k, v)
        allr += rs
        k = lo[1]
        where = f"B={k[0]} S={k[3]} D={k[5]} {'causal' if k[6] else 'non-causal'}"
        w = ", ".join(f"{v} {n}" for v, n in sorted(wins.items(), key=lambda x: -x[1]))
        print(f"| {db} | {len(rs)} | {gm(rs):.3f} | {lo[0]:.3f} ({where}, {lo[2]}) | {max(rs):.3f} | {w} |")
    print()
    return allr


def training():
    """hopper-bwd-training-dq.db (d7.sh): per pass each own rung against
    cuDNN (geometric mean over the eight configurations, range), the F+B
    ratio's range, and throughput from B = 1 to 16 at S = 1024."""
    con = sqlite3.connect("file:hopper-bwd-training-dq.db?mode=ro&immutable=1", uri=True)
    inst = defaultdict(list)
    for B, S, ps, v, ms in con.execute(
            "SELECT B, S, pass, variant, median_ms FROM measurement_summary WHERE run_id = 1"):
        inst[(B, S, ps, v.split("#")[0])].append(ms)
    lvl = {k: gm(x) for k, x in inst.items()}
    cfgs = sorted({(B, S) for B, S, _, _ in lvl})
    vs = ["lsevec", "dqtma", "dqearly"]
    print("| rung | fwd / cuDNN | bwd / cuDNN | fwd+bwd / cuDNN | F+B ratio (cuDNN's) | fwd+bwd throughput B = 16 over B = 1 (cuDNN's) |")
    print("|---|---:|---:|---:|---:|---:|")
    for v in vs:
        cells = []
        for ps in ("fwd", "bwd", "fwd+bwd"):
            cells.append(fmt([lvl[(B, S, ps, "cudnn_sdpa")] / lvl[(B, S, ps, P + v)] for B, S in cfgs]))
        fb = [lvl[(B, S, "bwd", P + v)] / lvl[(B, S, "fwd", P + v)] for B, S in cfgs]
        fbc = [lvl[(B, S, "bwd", "cudnn_sdpa")] / lvl[(B, S, "fwd", "cudnn_sdpa")] for B, S in cfgs]
        def scal(w):
            return 16 * lvl[(1, 1024, "fwd+bwd", w)] / lvl[(16, 1024, "fwd+bwd", w)]
        cells.append(f"{min(fb):.2f}-{max(fb):.2f} ({min(fbc):.2f}-{max(fbc):.2f})")
        cells.append(f"{scal(P + v):.2f}x ({scal('cudnn_sdpa'):.2f}x)")
        print(f"| {v} | " + " | ".join(cells) + " |")
    print()


def clean_part(title, runs, gpu):
    """One GPU's clean runs: their tables, then the best own rung per
    configuration over the grid (the first two runs) and at Llama 3 8B."""
    print(f"## {title}\n")
    tables(runs)
    print(f"### best own backward against cuDNN, per configuration{gpu}\n")
    grid = best_own(runs[:2])
    print(f"FlashAttention-3's grid (D = 128 and 64, {len(grid)} configurations): geometric mean "
          f"{gm(grid):.3f}, lowest {min(grid):.3f}, highest {max(grid):.3f}.\n")
    best_own(runs[2:])


def main():
    clean_part("Clean runs (d5.sh)", CLEAN, "")
    clean_part("The same experiments on an H100 (d6.sh)", H100, " (H100)")
    print("## The training step (d7.sh, H100)\n")
    training()
    print("## First runs (d2-d4.sh, beside compute-sanitizer processes)\n")
    tables(RUNS)


if __name__ == "__main__":
    main()
