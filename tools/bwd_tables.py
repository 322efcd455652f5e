"""Tables of the Hopper backward studies (reports/hopper-bwd-*/summarize.py):
per configuration each variant's level is the geometric mean of its
instances' medians (an instance with no median is left out); a ratio a/b is
a speed ratio (b's level over a's); parts are D x causal (x dtype where a
database holds more than one; "Llama 3 8B" where H_kv < H), geometric means
over their configurations with the range over them in brackets. Databases
are opened read-only, by path without the .db suffix, from the current
directory."""
import math
import sqlite3
from collections import defaultdict

KEY = "B,H,H_kv,S,S_kv,D,causal,dtype"
P = "cuda_wgmma_bwd_"


def gm(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def load(db, run):
    """{configuration: {variant: level}} of run RUN of DB.db."""
    con = sqlite3.connect(f"file:{db}.db?mode=ro&immutable=1", uri=True)
    inst = defaultdict(lambda: defaultdict(list))
    q = f"SELECT {KEY}, variant, median_ms FROM measurement_summary WHERE run_id = ?"
    for r in con.execute(q, (run,)):
        if r[9] is not None:
            inst[r[:8]][r[8].split("#")[0]].append(r[9])
    return {k: {v: gm(x) for v, x in vv.items()} for k, vv in inst.items()}


def parts(d):
    """[(name, configurations)] of a loaded run, D descending, non-causal first."""
    dtypes = sorted(set(k[7] for k in d))
    out = []
    for D, c, dt in sorted(set((k[5], k[6], k[7]) for k in d), key=lambda x: (-x[0], x[1], x[2])):
        ks = sorted(k for k in d if k[5] == D and k[6] == c and k[7] == dt)
        if any(k[2] != k[1] for k in ks):
            name = "Llama 3 8B (S = 2K-8K)"
        else:
            name = f"D={D} {'causal' if c else 'non-causal'}"
        if len(dtypes) > 1:
            name += f" {dt}"
        out.append((name, ks))
    return out


def fmt(r):
    return f"{gm(r):.3f} ({min(r):.3f}-{max(r):.3f})"


def tables(runs):
    """For each (db, run, rungs, steps): each rung against cuDNN and each
    step (a, b) as a / b, per part."""
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
    """Per configuration the fastest own rung of the run against cuDNN; one
    row per run; returns every configuration's ratio."""
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
        dt = f" {k[7]}" if len(set(c[7] for c in d)) > 1 else ""
        where = f"B={k[0]} S={k[3]} D={k[5]} {'causal' if k[6] else 'non-causal'}{dt}"
        w = ", ".join(f"{v} {n}" for v, n in sorted(wins.items(), key=lambda x: -x[1]))
        print(f"| {db} | {len(rs)} | {gm(rs):.3f} | {lo[0]:.3f} ({where}, {lo[2]}) | {max(rs):.3f} | {w} |")
    print()
    return allr


def training(db, vs):
    """Seed 003's training tables of run 1 of DB.db: per pass each own rung
    of VS against cuDNN (geometric mean over the configurations, range), the
    F+B ratio's range, and throughput from B = 1 to 16 at S = 1024."""
    con = sqlite3.connect(f"file:{db}.db?mode=ro&immutable=1", uri=True)
    inst = defaultdict(list)
    for B, S, ps, v, ms in con.execute(
            "SELECT B, S, pass, variant, median_ms FROM measurement_summary WHERE run_id = 1"):
        inst[(B, S, ps, v.split("#")[0])].append(ms)
    lvl = {k: gm(x) for k, x in inst.items()}
    cfgs = sorted({(B, S) for B, S, _, _ in lvl})
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
