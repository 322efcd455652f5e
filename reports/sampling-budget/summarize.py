#!/usr/bin/env python3
"""summarize.py ATTNBENCH DB: the tables of reports/sampling-budget/README.md
from a study database, every number read back through `attnbench report
--json` (the reports' own figures: medians, their round-bootstrap CIs, the
speedups' CIs, the wall-time account per phase and per variant). Prints
markdown: one row per (run, variant) with the run's command, the variant's
samples, rounds, median and the CI's half-width relative to it, the run's
wall time and the variant's timed samples and fixed cost; then the
comparisons' speedup CIs; then the per-variant wall-time table of each run
of experiments/fixed-cost-prefill.cfg."""
import json
import subprocess
import sys

ab, db = sys.argv[1], sys.argv[2]
runs = subprocess.run(["sqlite3", db, "SELECT id, command FROM runs ORDER BY id"],
                      capture_output=True, text=True, check=True).stdout.split("\n")


def report(run):
    out = subprocess.run([ab, "report", str(run), "--db", db, "--json", "-o", "-"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def cfg(c):
    return "B=%d H=%d S=%d D=%d%s" % (c["B"], c["H"], c["S"], c["D"],
                                       " causal" if c["causal"] else "")


print("| run | command | wall s | variant | n | rounds | median ms | median CI ± | "
      "timed ms | fixed ms per measurement |")
print("|---:|---|---:|---|---:|---:|---:|---:|---:|---:|")
cmps = []
fixed_runs = []
for line in runs:
    if not line:
        continue
    run, command = line.split("|", 1)
    d = report(run)
    w = d.get("walltime") or {}
    acct = {v["variant"]: v for v in w.get("variants", [])}
    if "fixed-cost-prefill" in command:
        fixed_runs.append((run, command, d))
        continue
    for v in d["variants"]:
        lo, hi = v["median_ci"]
        a = acct.get(v["variant"], {})
        print("| %s | `%s` | %.2f | %s | %d | %d | %.5f | %.2f%% | %.0f | %.0f |"
              % (run, command.replace("attnbench run ", ""), w.get("total_s", 0), v["variant"],
                 v["n"], v["rounds"], v["median_ms"], 100 * (hi - lo) / 2 / v["median_ms"],
                 1e3 * a.get("phases", {}).get("timed_s", 0),
                 1e3 * a.get("fixed_s_per_measurement", 0)))
    for c in d["comparisons"]:
        cmps.append((run, cfg(c["config"]), c))
print("\n| run | configuration | variant / baseline | speedup | CI | ± | verdict |")
print("|---:|---|---|---:|---|---:|---|")
for run, conf, c in cmps:
    lo, hi = c["speedup_ci"]
    print("| %s | %s | %s / %s | %.4f | [%.4f, %.4f] | %.2f%% | %s |"
          % (run, conf, c["variant"], c["baseline"], c["speedup"], lo, hi,
             100 * (hi - lo) / 2 / c["speedup"], c["verdict"]))
for run, command, d in fixed_runs:
    w = d["walltime"]
    print("\nRun %s (`%s`): %.1f s, %.1f%% timed samples.\n" % (run, command, w["total_s"],
                                                               100 * w["timed_share"]))
    print("| phase | s |\n|---|---:|")
    for k, x in w["phases"].items():
        print("| %s | %.2f |" % (k, x))
    print("\n| variant | n | timed s | overhead s | warm-up s | check s | setup s | adapter s | "
          "shared ref s | first fixed ms | later mean ms | later largest ms (configuration) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for v in w["variants"]:
        p = v["phases"]
        later = v.get("later_fixed_s_mean")
        worst = v.get("worst_fixed_s")
        print("| %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %s | %s |"
              % (v["variant"], v["measurements"], p["timed_s"], p["sampling_overhead_s"],
                 p["warmup_s"], p["check_s"], p["setup_s"], p["adapter_s"],
                 p.get("shared_reference_s", 0),
                 "%.0f" % (1e3 * v["first_fixed_s"]) if "first_fixed_s" in v else "-",
                 "%.0f" % (1e3 * later) if later is not None else "-",
                 "%.0f (%s)" % (1e3 * worst, v["worst_config"]) if worst is not None else "-"))
