#!/usr/bin/env python3
"""block_design.py: synthetic interleaved-round runs with a known true
speedup, imported into attnbench and judged by `attnbench report --json`,
to measure what the paired analysis over rounds promises: the false-positive
rate of its raw p under the null, the coverage of the true ratio by its
speedup CI, and its power.

A run here is an attnbench export (the format `attnbench import` takes,
built from tests/stats/grid_template.json, an H200 hot-mode run with its
samples removed) with one run of REPS configurations (B = 1..REPS); each
configuration is an independent replicate: cuda_mma_pipeline (A, the
candidate) against cuda_mma_swizzle (B, the experiment's baseline), sampled
in ROUNDS interleaved rounds (each round visits both variants in a random
order). The latency of sample j of variant v in round r is

  log x = log mu_v + u_r + a_{v,r} + e_{v,r} + eps_{v,r,j}
          + log(1 + first) [j = 0] + i_v

  u_r      round effect shared by both variants, N(0, s_round)
  a_{v,r}  noise of variant A only that persists across rounds: a
           stationary AR(1) over the rounds, coefficient phi, sd s_ar
  e_{v,r}  the variant's own round-to-round noise, N(0, s_var)
  eps      within-round noise, N(0, s_within)
  first    the first sample of each block (a variant's samples in a
           round) slow by this fraction
  i_v      an instance effect: one draw per instance, N(0, s_inst), fixed
           for the whole run

With `instances` k > 1 (the experiment setting of that name) each variant
runs as k instances v#1..v#k, every round visits all 2k in a random order,
and each instance has its own i_v and its own AR(1) series a (noise that
persists across rounds belongs to an instance: its placement, its
allocation); u_r is shared by all.

mu_B = 0.1 ms, mu_A = mu_B (1 + slowdown): the true speedup
median(B)/median(A) of the analysis is 1 / (1 + slowdown) (u, a, e, eps
and i are symmetric about 0 in the log, so the ratio of the variants'
medians is exp(log mu_B - log mu_A); the first-sample excess is not part of
a variant's latency and the instance effect not part of the variant).

Scenarios (SCENARIOS below): independent rounds; round effects shared by
both variants; variant-specific noise persisting across rounds (AR(1), phi
0.5 and 0.85); unequal counts per round (A 2 samples, B 3) with a slow
first sample (+10%); instance effects; and the first six again with 4
instances per variant at the same budget (the "-k4" rows: the rounds split
among the instances, every instance with its own instance effect and AR(1)
series). Seeds: numpy's default_rng (PCG64) seeded with [SEED, scenario index, effect index], SEED 20261126 unless
--seed says otherwise.

Usage:
  block_design.py ATTNBENCH TEMPLATE OUT.md [--reps N] [--power-reps N]
                  [--rounds R] [--seed S] [--json OUT.json]
                  [--scenarios NAME,NAME,...] [--check MAX_FP MIN_COVERAGE]
Writes the table of results (markdown) to OUT.md. --power-reps 0 skips
the slowdowns; --scenarios runs only those named. With --check, exits 1
when a scenario's false-positive rate exceeds MAX_FP or its coverage is
under MIN_COVERAGE (the reduced meson test, stats_block_design). Needs
numpy; exits 77 (skipped) without it.
"""
import copy
import json
import math
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("skipped: no numpy")
    sys.exit(77)

MU_B = 0.1
SCENARIOS = [
    # name, description, parameters
    ("independent", "independent rounds",
     dict(s_round=0.0, s_var=0.02, s_within=0.01)),
    ("shared-round", "round effects shared by both variants (sd 0.05)",
     dict(s_round=0.05, s_var=0.02, s_within=0.01)),
    ("ar-0.5", "A's noise persists across rounds, AR(1) phi 0.5 (sd 0.03)",
     dict(s_round=0.03, s_var=0.01, s_within=0.01, s_ar=0.03, phi=0.5)),
    ("ar-0.85", "A's noise persists across rounds, AR(1) phi 0.85 (sd 0.03)",
     dict(s_round=0.03, s_var=0.01, s_within=0.01, s_ar=0.03, phi=0.85)),
    ("first-slow", "A 2 samples a round, B 3; each block's first sample +10%",
     dict(s_round=0.03, s_var=0.02, s_within=0.01, first=0.10, count_a=2, count_b=3)),
    ("instance", "an instance effect per measurement (sd 0.005)",
     dict(s_round=0.03, s_var=0.02, s_within=0.01, s_inst=0.005)),
    ("instance-x4", "the same instance effect, 4 instances per variant",
     dict(s_round=0.03, s_var=0.02, s_within=0.01, s_inst=0.005, instances=4)),
    ("ar-0.85-x4", "A's AR(1) phi 0.85 noise per instance, 4 instances per variant",
     dict(s_round=0.03, s_var=0.01, s_within=0.01, s_ar=0.03, phi=0.85, instances=4)),
]
# The first six scenarios again as the default runs them: DEFAULT_INSTANCES
# instances per variant at the same budget (the rounds split among the
# instances: 20 rounds of 2 become 5 rounds of 2 for each of 4 instances,
# as experiments/instances-*-k4.cfg against -k1.cfg). Appended, so the
# scenarios above keep their seeds.
DEFAULT_INSTANCES = 4
SCENARIOS += [(name + "-k%d" % DEFAULT_INSTANCES,
               desc + "; %d instances per variant, same samples" % DEFAULT_INSTANCES,
               dict(p, instances=DEFAULT_INSTANCES, split=True))
              for name, desc, p in SCENARIOS[:6]]
EFFECTS = [0.0, 0.02, 0.05]  # true slowdowns of A


def ar1(rng, n, phi, sd):
    """A stationary AR(1) series of n values with marginal sd."""
    x = np.empty(n)
    x[0] = rng.normal(0, sd)
    e = math.sqrt(1 - phi * phi) * sd
    for t in range(1, n):
        x[t] = phi * x[t - 1] + rng.normal(0, e)
    return x


def simulate(rng, p, rounds, slowdown):
    """The samples of each instance of A and B of one replicate: a dict
    (variant, instance) -> list of (ms, round, t)."""
    k = p.get("instances", 1)
    keys = [(v, j) for v in "AB" for j in range(k)]
    mu = {"A": MU_B * (1 + slowdown), "B": MU_B}
    u = rng.normal(0, p.get("s_round", 0), rounds)
    a = {key: ar1(rng, rounds, p.get("phi", 0), p.get("s_ar", 0))
         if p.get("s_ar") and key[0] == "A" else np.zeros(rounds) for key in keys}
    inst = {key: rng.normal(0, p.get("s_inst", 0)) for key in keys}
    count = {"A": p.get("count_a", 2), "B": p.get("count_b", 2)}
    out = {key: [] for key in keys}
    t = 0.0
    for r in range(rounds):
        if k == 1:  # the draws of the suite's first version, kept for its seeds
            order = [("A", 0), ("B", 0)] if rng.random() < 0.5 else [("B", 0), ("A", 0)]
        else:
            order = [keys[i] for i in rng.permutation(len(keys))]
        for key in order:
            v = key[0]
            e = rng.normal(0, p.get("s_var", 0))
            for j in range(count[v]):
                lx = (math.log(mu[v]) + u[r] + a[key][r] + e + rng.normal(0, p.get("s_within", 0))
                      + inst[key] + (math.log1p(p.get("first", 0)) if j == 0 else 0))
                t += 0.001
                out[key].append((math.exp(lx), r, t))
    return out


def make_export(tmpl, rng, p, reps, rounds, slowdown, uuid):
    run = copy.deepcopy(tmpl)
    run["uuid"] = uuid
    ninst = p.get("instances", 1)
    if ninst > 1:  # the experiment as stored says how many instances
        run["experiment"]["definition"] += "instances = %d;\n" % ninst
    proto = {m["variant"]: m for m in run["measurements"]}
    ms = []
    for k in range(reps):
        s = simulate(rng, p, rounds, slowdown)
        for (v, j), smp in s.items():
            name = {"A": "cuda_mma_pipeline", "B": "cuda_mma_swizzle"}[v]
            m = copy.deepcopy(proto[name])
            if ninst > 1:
                m["variant"] = "%s#%d" % (name, j + 1)
            m["B"] = k + 1
            m["samples"] = [{"idx": i, "ms": x, "round": r, "t_s": t, "throttled": 0}
                            for i, (x, r, t) in enumerate(smp)]
            ms.append(m)
    run["measurements"] = ms
    return {"attnbench_export": 1, "runs": [run]}


def judge(ab, doc, tmp):
    """Imports doc into a fresh database and returns report --json's
    comparisons."""
    path = os.path.join(tmp, "x.json")
    db = os.path.join(tmp, "x.db")
    if os.path.exists(db):
        os.remove(db)
    with open(path, "w") as f:
        json.dump(doc, f)
    subprocess.run([ab, "import", path, "--db", db], check=True, stdout=subprocess.DEVNULL)
    out = os.path.join(tmp, "x.report.json")
    subprocess.run([ab, "report", "1", "--db", db, "--json", "-o", out], check=True,
                   stdout=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)["comparisons"]


def rate(k, n):
    return k / n, math.sqrt(max(k, 0.5) * (n - k) / n) / n


def main(argv):
    if len(argv) < 4:
        print(__doc__)
        return 2
    ab, tmpl_path, out_md = argv[1], argv[2], argv[3]
    opts = {"--reps": 400, "--power-reps": 200, "--rounds": 20, "--seed": 20261126}
    out_json, check, only = None, None, None
    i = 4
    while i < len(argv):
        if argv[i] in opts:
            opts[argv[i]] = int(argv[i + 1])
            i += 2
        elif argv[i] == "--json":
            out_json = argv[i + 1]
            i += 2
        elif argv[i] == "--scenarios":
            only = argv[i + 1].split(",")
            unknown = [x for x in only if x not in [sc[0] for sc in SCENARIOS]]
            if unknown:
                print("block_design.py: unknown scenario %s" % unknown[0], file=sys.stderr)
                return 2
            i += 2
        elif argv[i] == "--check":
            check = (float(argv[i + 1]), float(argv[i + 2]))
            i += 3
        else:
            print("block_design.py: unknown argument %s" % argv[i], file=sys.stderr)
            return 2
    with open(tmpl_path) as f:
        tmpl = json.load(f)["runs"][0]
    rounds = opts["--rounds"]
    results = []
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        for si, (name, desc, p) in enumerate(SCENARIOS):
            if only and name not in only:
                continue
            row = {"scenario": name, "description": desc}
            for ei, eff in enumerate(EFFECTS):
                reps = opts["--reps"] if eff == 0 else opts["--power-reps"]
                if reps == 0:
                    continue
                rng = np.random.default_rng([opts["--seed"], si, ei])
                nr = rounds // p["instances"] if p.get("split") else rounds
                doc = make_export(tmpl, rng, p, reps, nr, eff,
                                  "%08x-0000-4000-8000-000000000000" % (si * 16 + ei + 1))
                cmps = judge(ab, doc, tmp)
                truth = 1 / (1 + eff)
                rej = cov = widened = 0
                n = 0
                mde = []
                for c in cmps:
                    if c.get("speedup") is None:
                        continue
                    n += 1
                    pv = c.get("p")
                    sig = pv is not None and pv < 0.05
                    lo, hi = c["speedup_ci"]
                    cov += lo <= truth <= hi
                    if eff == 0:
                        rej += sig
                    else:
                        rej += sig and c["speedup"] < 1
                    widened += bool(c.get("serial_correlation_widened", False))
                    if c.get("mde") is not None:
                        mde.append(c["mde"])
                row[str(eff)] = {"n": n, "reject": rej, "cover": cov, "widened": widened,
                                 "mde_median": float(np.median(mde)) if mde else None}
                if eff == 0 and check:
                    fp, _ = rate(rej, n)
                    cv, _ = rate(cov, n)
                    if fp > check[0] or cv < check[1]:
                        bad.append("%s: raw p < 0.05 in %.3f, coverage %.3f" % (name, fp, cv))
                print("%s slowdown %.2f: %d/%d p < 0.05, coverage %d/%d, widened %d" %
                      (name, eff, rej, n, cov, n, widened), file=sys.stderr)
            results.append(row)
    with open(out_md, "w") as f:
        f.write("| scenario | null: raw p < 0.05 | null: CI covers 1 | 2% slower: power | "
                "2%: coverage | 5% slower: power | 5%: coverage | widened (null) | "
                "median MDE (null) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
        for row in results:
            cells = []
            for eff in ("0.0", "0.02", "0.05"):
                d = row.get(eff)
                for k in ("reject", "cover"):
                    if d is None or d["n"] == 0:
                        cells.append("—")
                        continue
                    v, se = rate(d[k], d["n"])
                    cells.append("%.3f ± %.3f" % (v, se))
            d0 = row["0.0"]
            cells.append("%d/%d" % (d0["widened"], d0["n"]))
            cells.append("%.2f%%" % (100 * d0["mde_median"]) if d0["mde_median"] is not None
                         else "—")
            f.write("| %s: %s | %s |\n" % (row["scenario"], row["description"], " | ".join(cells)))
        f.write("\n%d null and %d replicates per effect and scenario, %d rounds; power: raw p < "
                "0.05 with the speedup below 1; ± one binomial standard error; seed %d; the -k%d rows "
                "split the rounds among their instances.\n" %
                (opts["--reps"], opts["--power-reps"], rounds, opts["--seed"], DEFAULT_INSTANCES))
    if out_json:
        with open(out_json, "w") as f:
            json.dump(results, f, indent=1)
    for b in bad:
        print("FAIL: " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
