#!/usr/bin/env python3
"""Tables of reports/hopper-bwd-wide/README.md (python3 summarize.py, in
this folder). Per configuration each variant's level is the geometric mean
of its instances' medians (four instances of each variant; an instance with
no median is left out); a ratio a/b is a speed ratio (b's level over a's);
parts are D x causal, geometric means over their configurations, with the
range over them in brackets."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from bwd_tables import best_own, gm, tables, training  # noqa: E402
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
    training("hopper-bwd-training-dq", ["lsevec", "dqtma", "dqearly"])
    print("## First runs (d2-d4.sh, beside compute-sanitizer processes)\n")
    tables(RUNS)


if __name__ == "__main__":
    main()
