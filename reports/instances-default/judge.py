#!/usr/bin/env python3
"""judge.py: the tally of the instances study (README.md beside it): every
run of the A/A and power experiments experiments/instances-{aa,power}-k{1,4}.cfg
in the given databases judged by `attnbench report --json`, counted per
design (experiment) and configuration: comparisons, raw p < 0.05, the
speedup CI covering 1, verdict "slower", the median speedup and minimum
detectable effect, and the GPU seconds per run (the run's wall time,
walltime.total_s, else finished - started).

Usage: judge.py ATTNBENCH OUT.md OUT.json DB [DB ...]
Standard library only.
"""
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile


def runs_of(ab, db):
    out = subprocess.run([ab, "query", "SELECT id FROM runs ORDER BY id", "--db", db],
                         check=True, capture_output=True, text=True).stdout
    return [int(x) for x in out.split() if x.strip().isdigit()]


def report(ab, db, rid, tmp):
    path = os.path.join(tmp, "r.json")
    subprocess.run([ab, "report", str(rid), "--db", db, "--json", "-o", path], check=True,
                   stdout=subprocess.DEVNULL)
    with open(path) as f:
        return json.load(f)


def seconds(doc):
    w = doc.get("walltime") or {}
    if w.get("total_s") is not None:
        return float(w["total_s"])
    rr = doc.get("run_record") or {}
    try:
        t0 = datetime.datetime.strptime(rr["started"], "%Y-%m-%dT%H:%M:%SZ")
        t1 = datetime.datetime.strptime(rr["finished"], "%Y-%m-%dT%H:%M:%SZ")
        return (t1 - t0).total_seconds()
    except (KeyError, TypeError, ValueError):
        return None


def shape(cfg):
    return "B=%d H=%d S=%d D=%d" % (cfg["B"], cfg["H"], cfg["S"], cfg["D"])


def main(argv):
    if len(argv) < 5:
        print(__doc__)
        return 2
    ab, out_md, out_json, dbs = argv[1], argv[2], argv[3], argv[4:]
    rows = {}   # (experiment, shape) -> list of comparisons
    cost = {}   # experiment -> list of seconds per run
    gpu = set()
    with tempfile.TemporaryDirectory() as tmp:
        for db in dbs:
            for rid in runs_of(ab, db):
                doc = report(ab, db, rid, tmp)
                exp = os.path.basename((doc.get("run_record") or {}).get("experiment_path") or "?")
                exp = exp[:-4] if exp.endswith(".cfg") else exp
                cost.setdefault(exp, []).append(seconds(doc))
                fp = doc.get("fingerprint") or {}
                g = fp.get("gpu") if isinstance(fp, dict) else None
                if isinstance(g, dict) and g.get("name"):
                    gpu.add("%s (%s, driver %s)" % (g["name"], g.get("uuid", "?"), g.get("driver", "?")))
                for c in doc["comparisons"]:
                    if c.get("speedup") is None:
                        continue
                    rows.setdefault((exp, shape(c["config"])), []).append(
                        {"db": os.path.basename(db), "run": rid, "speedup": c["speedup"],
                         "ci": c["speedup_ci"], "p": c["p"], "verdict": c["verdict"],
                         "instances": c.get("instances"), "mde": c.get("mde"),
                         "df": c.get("df")})
    table = []
    for (exp, shp), cs in sorted(rows.items()):
        n = len(cs)
        sec = [s for s in cost.get(exp, []) if s is not None]
        mdes = [c["mde"] for c in cs if c["mde"] is not None]
        table.append({
            "experiment": exp, "shape": shp, "comparisons": n,
            "raw_p_below_0.05": sum(c["p"] is not None and c["p"] < 0.05 for c in cs),
            "ci_covers_1": sum(c["ci"][0] <= 1 <= c["ci"][1] for c in cs),
            "slower": sum(c["verdict"] == "slower" for c in cs),
            "p_below_0.05_and_slower": sum(c["p"] is not None and c["p"] < 0.05 and
                                           c["speedup"] < 1 for c in cs),
            "median_speedup": statistics.median(c["speedup"] for c in cs),
            "median_mde": statistics.median(mdes) if mdes else None,
            "runs": len(cost.get(exp, [])),
            "mean_run_s": statistics.mean(sec) if sec else None,
            "comparisons_detail": cs})
    with open(out_json, "w") as f:
        json.dump({"gpu": sorted(gpu), "rows": table}, f, indent=1)
    with open(out_md, "w") as f:
        f.write("| experiment | shape | comparisons | raw p < 0.05 | CI covers 1 | slower | "
                "median speedup | median MDE | runs | mean s per run |\n"
                "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
        for r in table:
            f.write("| %s | %s | %d | %d | %d | %d | %.4f | %s | %d | %s |\n" % (
                r["experiment"], r["shape"], r["comparisons"], r["raw_p_below_0.05"],
                r["ci_covers_1"], r["slower"], r["median_speedup"],
                "%.2f%%" % (100 * r["median_mde"]) if r["median_mde"] is not None else "—",
                r["runs"], "%.1f" % r["mean_run_s"] if r["mean_run_s"] is not None else "—"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
