#!/usr/bin/env python3
"""summarize.py ATTNBENCH OLD.db NEW.db [NEW_RUN [OLD_RUN]]: one experiment
measured on earlier code (OLD.db, run OLD_RUN, default 1: 2026-11-25's in
rounds 1-3, the previous stop's in round 7) and on later code (NEW.db, run
NEW_RUN, default 1), every number read back through `attnbench report --json` of
today's build (one analysis for both databases). Prints one markdown row:
the two walls and their ratio, each run's share in timed samples, the
median over measurements of the median CI's half-width relative to the
median, and, matched by (configuration, variant), the median and the largest
ratio of today's half-width to then's and how many are wider; then each
variant's fixed cost per measurement in today's run (first, later mean,
largest). Used by README.md's tables (reports/cost-per-answer/).

summarize.py --kit KIT.db RUN NATIVE_BEFORE.jsonl NATIVE_AFTER.jsonl: FA4's
median through the kit (run RUN of fa4-kit-vs-native or fa4-kit-alone,
measurement_summary over all samples) against the same calls timed natively
(tools/native_timing.py) before and after that run: one row per shape."""
import json
import sqlite3
import statistics
import subprocess
import sys


def report(ab, db, run):
    out = subprocess.run([ab, "report", str(run), "--db", db, "--json", "-o", "-"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def half_widths(d):
    """(config, variant) -> median CI half-width / median."""
    out = {}
    for v in d["variants"]:
        if v.get("median_ms") and v.get("median_ci"):
            lo, hi = v["median_ci"]
            out[(json.dumps(v["config"], sort_keys=True), v["variant"])] = \
                (hi - lo) / 2 / v["median_ms"]
    return out


def kit_vs_native(db, run, before, after):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    kit = {tuple(r[:4]): r[4] for r in con.execute(
        "SELECT B, H, S, causal, median_ms FROM measurement_summary WHERE variant = 'fa4' "
        "AND run_id = ?", (int(run),))}
    nat = {}
    for f in (before, after):
        for line in open(f):
            d = json.loads(line)
            nat.setdefault((d["B"], d["H"], d["S"], int(d["causal"])), []).append(d["median_ms"])
    print("| B | H | S | causal | native ms (before, after) | kit ms | kit / native (mean of the two) |")
    print("|---:|---:|---:|---|---|---:|---:|")
    for k in sorted(nat):
        n = statistics.mean(nat[k])
        print("| %d | %d | %d | %s | %.4f, %.4f | %.4f | %.3f |" % (
            *k[:3], "yes" if k[3] else "no", nat[k][0], nat[k][1], kit[k], kit[k] / n))


def main():
    if sys.argv[1] == "--kit":
        return kit_vs_native(*sys.argv[2:6])
    ab, old_db, new_db = sys.argv[1:4]
    new_run = sys.argv[4] if len(sys.argv) > 4 else "1"
    old_run = sys.argv[5] if len(sys.argv) > 5 else "1"
    old, new = report(ab, old_db, old_run), report(ab, new_db, new_run)
    name = new["experiment"] if isinstance(new["experiment"], str) else new["experiment"]["name"]
    wo, wn = old["walltime"], new["walltime"]
    ho, hn = half_widths(old), half_widths(new)
    common = sorted(set(ho) & set(hn))
    ratios = [hn[k] / ho[k] for k in common if ho[k] > 0]
    print("| %s | %.1f s | %.1f s | %.2fx | %.1f%% | %.1f%% | %.2f%% | %.2f%% | %.2f (%.2f) | %d of %d |" % (
        name, wo["total_s"], wn["total_s"], wo["total_s"] / wn["total_s"],
        100 * wo["timed_share"], 100 * wn["timed_share"],
        100 * statistics.median(ho.values()), 100 * statistics.median(hn.values()),
        statistics.median(ratios), max(ratios), sum(r > 1 for r in ratios), len(ratios)))
    for v in wn["variants"]:
        print("|   | %s | %d | %.0f ms | %.0f ms | %.0f ms | %s |" % (
            v["variant"], v["measurements"], 1e3 * v["first_fixed_s"],
            1e3 * v["later_fixed_s_mean"], 1e3 * v["worst_fixed_s"], v["worst_config"]))


if __name__ == "__main__":
    main()
