#!/usr/bin/env python3
"""judge_xr.py: the across-runs study of reports/instances-default/across-runs/
judged by attnbench's report (within each run) and compare (between two
runs), tallied into a markdown table and a JSON file.

Usage: judge_xr.py ATTNBENCH DATABASE TALLY.md TALLY.json

The database holds alternating runs of experiments/instances-xr-base-default
(k and ref: two names for cuda_mma_pipeline, the default 4 instances),
-slow-default (k is cuda_mma_pipeline_slowed, default instances) and
-base-k1 (as base, `instances = 1`: a run as stored before the default).
Judged:
- report --json of every run: k against ref (A/A in base runs, power in slow).
- compare --within-run (the two runs' own variance: by instance where
  either has several, rows marked i; two single-instance runs by their
  rounds, marked u):
  A/A default-default: base run 2j-1 against base run 2j (k and ref);
  A/A one-one: base-k1 run 2j-1 against base-k1 run 2j (k and ref: the
  comparison of two single-instance runs by their rounds, as before);
  power default-default: base run i against slow run i (k; ref is A/A);
  A/A one-default: base-k1 run i against base run i (k and ref);
  power one-default: base-k1 run i against slow run i (k; ref is A/A).
- compare (default: the between-run test where the database holds >= 3
  other runs of the variant in A's environment): the same pairs, ref only
  (k names two kernels across the database, so its between-run spread would
  mix them).
A comparison's CI covers 1 when its printed interval (3 decimals) does.
"""
import json
import os
import re
import subprocess
import sys
import tempfile


def runs_by_experiment(ab, db):
    out = subprocess.run([ab, "runs", "--json", "--db", db], capture_output=True, text=True,
                         check=True).stdout
    by = {}
    for r in json.loads(out):
        by.setdefault(r["experiment"], []).append(r["id"])
    for v in by.values():
        v.sort()
    return by


def report(ab, db, run):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "r.json")
        subprocess.run([ab, "report", str(run), "--db", db, "--json", "-o", path],
                       capture_output=True, text=True, check=True)
        with open(path) as f:
            return json.load(f)["comparisons"]


ROW = re.compile(r"^B=(\d+) H=\d+ S=(\d+) D=\d+ \S+ \S+\s+(\S+)(?: \((\d+)\|(\d+)\))?\s+"
                 r"([\d.]+)\s+([\d.]+)\s+\S+%\s+([\d.]+)x \[([\d.]+), ([\d.]+)\] (\w)\s+(\S+)\s+\S+\s+(.*)$")


def compare(ab, db, a, b, within):
    args = [ab, "compare", str(a), str(b), "--db", db] + (["--within-run"] if within else [])
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        m = ROW.match(line)
        if m:
            rows.append({"run_a": a, "run_b": b, "B": int(m.group(1)), "S": int(m.group(2)),
                         "variant": m.group(3), "instances": [m.group(4), m.group(5)],
                         "speedup": float(m.group(8)), "lo": float(m.group(9)),
                         "hi": float(m.group(10)), "mark": m.group(11),
                         "p_holm": float(m.group(12)), "verdict": m.group(13).split(" (")[0]})
    return rows


def shape(b):
    return "compute-bound B=4 S=4096" if b == 4 else "launch-bound B=32 S=512"


def main():
    ab, db, md, js = sys.argv[1:5]
    by = runs_by_experiment(ab, db)
    base, slow, k1 = (by["instances-xr-base-default"], by["instances-xr-slow-default"],
                      by["instances-xr-base-k1"])
    n = min(len(base), len(slow), len(k1))
    tally = {}  # (judge, design, truth, shape) -> counts

    def add(judge, design, truth, b, covers, verdict, mark):
        t = tally.setdefault((judge, design, truth, shape(b)),
                             {"n": 0, "covers_1": 0, "slower": 0, "faster": 0, "marks": {}})
        t["n"] += 1
        t["covers_1"] += covers
        t["slower"] += verdict in ("slower", "REGRESSED")
        t["faster"] += verdict in ("faster", "improved")
        t["marks"][mark] = t["marks"].get(mark, 0) + 1

    detail = {"report": [], "compare": []}
    for design, runs, truth in (("default (4 instances)", base[:n], "A/A"),
                                ("default (4 instances)", slow[:n], "power"),
                                ("one instance", k1[:n], "A/A")):
        for r in runs:
            for c in report(ab, db, r):
                lo, hi = c["speedup_ci"]
                add("report", design, truth, c["config"]["B"], lo <= 1 <= hi, c["verdict"],
                    "i" if "instance" in c["method"] else "r")
                detail["report"].append({"run": r, "B": c["config"]["B"], "speedup": c["speedup"],
                                         "ci": [lo, hi], "p": c["p"], "verdict": c["verdict"],
                                         "method": c["method"]})
    pairs = []
    for j in range(n // 2):
        pairs.append(("A/A default-default", base[2 * j], base[2 * j + 1], {"k": "A/A", "ref": "A/A"}))
        pairs.append(("A/A one-one", k1[2 * j], k1[2 * j + 1], {"k": "A/A", "ref": "A/A"}))
    for i in range(n):
        pairs.append(("default-default", base[i], slow[i], {"k": "power", "ref": "A/A"}))
        pairs.append(("one-default", k1[i], base[i], {"k": "A/A", "ref": "A/A"}))
        pairs.append(("one-default", k1[i], slow[i], {"k": "power", "ref": "A/A"}))
    for design, a, b, truth in pairs:
        design = design.replace("A/A ", "")
        for within in (True, False):
            for r in compare(ab, db, a, b, within):
                if not within and r["variant"] != "ref":
                    continue
                judge = "compare --within-run" if within else "compare (between-run test)"
                add(judge, design, truth[r["variant"]], r["B"], r["lo"] <= 1 <= r["hi"],
                    r["verdict"], r["mark"])
                r.update({"judge": judge, "design": design, "truth": truth[r["variant"]]})
                detail["compare"].append(r)
    lines = ["| judge | runs | truth | shape | comparisons | CI covers 1 | called slower | called faster | method (marks) |",
             "|---|---|---|---|---:|---:|---:|---:|---|"]
    for key in sorted(tally):
        t = tally[key]
        lines.append("| %s | %s | %s | %s | %d | %d | %d | %d | %s |" % (
            key[0], key[1], key[2], key[3], t["n"], t["covers_1"], t["slower"], t["faster"],
            ", ".join("%s %d" % kv for kv in sorted(t["marks"].items()))))
    with open(md, "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(js, "w") as f:
        json.dump({"runs": {"base": base, "slow": slow, "k1": k1},
                   "tally": [dict(zip(("judge", "runs", "truth", "shape"), k), **v)
                             for k, v in sorted(tally.items())],
                   "detail": detail}, f, indent=1)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
