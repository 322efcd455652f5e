#!/usr/bin/env python3
"""power_summary.py AB DB RUN...: the power study's table from
`attnbench report RUN --json` of each run: per run, the slowed variant's
speedup over cuda_mma_pipeline with its CI, the Wilcoxon p over rounds and
the verdict, and how many runs called it slower. Prints markdown."""
import json
import subprocess
import sys


def main():
    ab, db, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
    rows, slower = [], 0
    for run in runs:
        out = subprocess.run([ab, "report", run, "--db", db, "--json", "-o", "-"],
                             check=True, capture_output=True, text=True).stdout
        rep = json.loads(out)
        for c in rep["comparisons"]:
            if c["variant"] != "cuda_mma_pipeline_slowed":
                continue
            slower += c["verdict"] == "slower"
            p = "—" if c["p"] is None else "%.2g" % c["p"]
            rows.append("| %s | %d | %.4f [%.4f, %.4f] | %s | %s |" % (
                run, c["rounds"], c["speedup"], c["speedup_ci"][0], c["speedup_ci"][1], p,
                c["verdict"]))
    print("| run | rounds | speedup of the slowed variant [95% CI] | p (Wilcoxon over rounds) | verdict |")
    print("|---|---:|---|---:|---|")
    print("\n".join(rows))
    print("\nCalled slower in %d of %d runs." % (slower, len(rows)))


if __name__ == "__main__":
    main()
