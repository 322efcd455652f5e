#!/usr/bin/env python3
"""Tables of reports/hopper-bwd-pingpong/README.md (python3 summarize.py, in
this folder), computed as tools/bwd_tables.py says: per configuration each
variant's level is the geometric mean of its four instances' medians, a
ratio a/b a speed ratio, parts D x causal x dtype (and the Llama 3 8B
shape), geometric means over their configurations with the range over them
in brackets."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from bwd_tables import P, best_own, gm, load, tables, training  # noqa: E402

H200 = [  # e1-e4.sh, each experiment run alone on the GPU, in the order run
    ("hopper-bwd-pingpong", 1, ["dqearly", "pingpong"], [("pingpong", "dqearly")]),
    ("hopper-bwd-pingpong-llama3-8b", 1, ["dqearly", "pingpong"], [("pingpong", "dqearly")]),
    ("hopper-bwd-dslate", 1, ["dqearly", "dslate", "wguni"],
     [("dslate", "dqearly"), ("wguni", "dslate"), ("wguni", "dqearly")]),
    ("hopper-bwd-dslate-llama3-8b", 1, ["dqearly", "dslate", "wguni"],
     [("dslate", "dqearly"), ("wguni", "dslate"), ("wguni", "dqearly")]),
    ("hopper-bwd-wgdesc", 1, ["wguni", "wgdesc", "wgstsm"],
     [("wgdesc", "wguni"), ("wgstsm", "wgdesc"), ("wgstsm", "wguni")]),
    ("hopper-bwd-wgdesc-llama3-8b", 1, ["wguni", "wgdesc", "wgstsm"],
     [("wgdesc", "wguni"), ("wgstsm", "wgdesc"), ("wgstsm", "wguni")]),
    ("hopper-bwd-kvreg", 1, ["wguni", "kvreg", "unistsm"],
     [("kvreg", "wguni"), ("unistsm", "wguni")]),
    ("hopper-bwd-kvreg-llama3-8b", 1, ["wguni", "unistsm"], [("unistsm", "wguni")]),
]
H100 = [  # e5.sh: the last grid and Llama 3 8B experiments again on an H100
    ("hopper-bwd-kvreg-h100", 1, ["wguni", "kvreg", "unistsm"],
     [("kvreg", "wguni"), ("unistsm", "wguni")]),
    ("hopper-bwd-kvreg-llama3-8b-h100", 1, ["wguni", "unistsm"], [("unistsm", "wguni")]),
]


def one_rung(db, rung):
    """RUNG alone against cuDNN over every configuration of run 1 of DB."""
    d = load(db, 1)
    r = [d[k]["cudnn_sdpa"] / d[k][P + rung] for k in sorted(d)]
    print(f"| {db} | {rung} | {len(r)} | {gm(r):.3f} | {min(r):.3f} | {max(r):.3f} |")


def main():
    print("## Every run on the H200 (e1-e4.sh)\n")
    tables(H200)
    print("## The last experiments on an H100 (e5.sh)\n")
    tables(H100)
    print("## The bars: the backward rung against cuDNN over each run's configurations\n")
    print("| database | rung | configurations | geometric mean | lowest | highest |")
    print("|---|---|---:|---:|---:|---:|")
    for db in ("hopper-bwd-dslate", "hopper-bwd-wgdesc", "hopper-bwd-kvreg", "hopper-bwd-kvreg-h100"):
        one_rung(db, "wguni")
    for db in ("hopper-bwd-kvreg", "hopper-bwd-kvreg-h100"):
        one_rung(db, "kvreg")
    for db in ("hopper-bwd-dslate-llama3-8b", "hopper-bwd-wgdesc-llama3-8b",
               "hopper-bwd-kvreg-llama3-8b", "hopper-bwd-kvreg-llama3-8b-h100"):
        one_rung(db, "wguni")
    print()
    print("### best own backward against cuDNN, per configuration (the last runs' rungs)\n")
    best_own([r for r in H200 if r[0].startswith("hopper-bwd-kvreg")] + H100)
    print("## The training step (e5.sh, H100)\n")
    training("hopper-bwd-training-kvreg", ["dqearly", "kvreg"])


if __name__ == "__main__":
    main()
