#!/usr/bin/env python3
"""summarize.py ATTNBENCH DB...: the tables of this folder's README from the
study's databases, every number read back through `attnbench report --json`
(the reports' own figures). For each run of each database: the experiment,
wall time, share in timed samples, the phases (checks, setup, adapters,
inputs), the median of the measurements' relative median-CI half-widths and
of the comparisons' relative speedup-CI half-widths; then per variant its
later measurements' mean fixed cost and the largest, with its
configuration."""
import json
import statistics
import subprocess
import sys

ab, dbs = sys.argv[1], sys.argv[2:]


def report(db, run):
    out = subprocess.run([ab, "report", str(run), "--db", db, "--json", "-o", "-"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


rows, var_rows = [], []
for db in dbs:
    ids = subprocess.run(["sqlite3", db, "SELECT id FROM runs ORDER BY id"],
                         capture_output=True, text=True, check=True).stdout.split()
    for run in ids:
        d = report(db, run)
        w = d["walltime"]
        p = w["phases"]
        mci = [100 * (v["median_ci"][1] - v["median_ci"][0]) / 2 / v["median_ms"]
               for v in d["variants"] if v.get("median_ms") and v.get("median_ci")]
        sci = [100 * (c["speedup_ci"][1] - c["speedup_ci"][0]) / 2 / c["speedup"]
               for c in d["comparisons"] if c.get("speedup") and c.get("speedup_ci")]
        name = d["experiment"] if isinstance(d["experiment"], str) else d["experiment"].get("name")
        rows.append("| %s | %s | %s | %.1f | %.1f%% | %.2f | %.2f | %.2f | %.2f | %.2f%% | %.2f%% |" % (
            db.split("/")[-1], run, name, w["total_s"], 100 * w["timed_share"],
            p.get("check_s", 0), p.get("setup_s", 0), p.get("adapter_s", 0), p.get("inputs_s", 0),
            statistics.median(mci) if mci else float("nan"),
            statistics.median(sci) if sci else float("nan")))
        for v in w["variants"]:
            var_rows.append("| %s | %s | %s | %s | %.0f | %.0f | %.0f | %s |" % (
                db.split("/")[-1], run, name, v["variant"], 1e3 * v["first_fixed_s"],
                1e3 * v["later_fixed_s_mean"], 1e3 * v["worst_fixed_s"], v["worst_config"]))
print("| database | run | experiment | wall s | in samples | checks s | setup s | "
      "adapters s | inputs s | median CI ± (median) | speedup CI ± (median) |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
print("\n".join(rows))
print()
print("| database | run | experiment | variant | first fixed ms | later mean ms | largest ms | "
      "largest at |")
print("|---|---:|---|---|---:|---:|---:|---|")
print("\n".join(var_rows))
