#!/usr/bin/env python3
"""Tables of reports/hopper-bwd-defer/README.md (python3 summarize.py, in
this folder). Per configuration each variant's level is the geometric mean
of its instances' medians (four instances of each variant, run 1 of each
database; an instance with no median is left out); a ratio a/b is a speed
ratio (b's level over a's); parts are D x causal, geometric means over
their configurations, with the range over them in brackets."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from bwd_tables import P, gm, load, tables  # noqa: E402
CALLS = [  # database, variants in ladder order
    ("hopper-bwd-defer", ["headsplit", "defer", "stagger", "fullsplit"]),
    ("hopper-bwd-regdq", ["headsplit", "defer", "regdq", "lsevec"]),
    ("hopper-bwd-stsm", ["defer", "lsevec", "lsehoist", "stsm"]),
    ("hopper-bwd-red4", ["defer", "lsevec", "red4", "defervec"]),
    ("hopper-bwd-tail", ["lsevec", "tail"]),
]
STEPS = {  # (rung, the rung it is measured against)
    "hopper-bwd-defer": [("defer", "headsplit"), ("stagger", "defer")],
    "hopper-bwd-regdq": [("defer", "headsplit"), ("regdq", "defer"), ("lsevec", "regdq")],
    "hopper-bwd-stsm": [("lsevec", "defer"), ("lsehoist", "lsevec"), ("stsm", "lsevec")],
    "hopper-bwd-red4": [("lsevec", "defer"), ("red4", "lsevec"), ("defervec", "lsevec"),
                        ("defervec", "defer")],
    "hopper-bwd-tail": [("tail", "lsevec")],
}


def main():
    runs = []
    for db, vs in CALLS:
        for suffix in ("", "-llama3-8b"):
            d = load(f"{db}{suffix}", 1)
            have = [v for v in vs if P + v in next(iter(d.values()))]
            runs.append((f"{db}{suffix}", 1, have,
                         [s for s in STEPS[db] if s[0] in have and s[1] in have]))
    tables(runs)


def best_own():
    """Per configuration the fastest own rung of the run against cuDNN."""
    print("### best own backward against cuDNN, per run (every own rung of the run)\n")
    print("| database | configurations | geometric mean | lowest (configuration, rung) | highest |")
    print("|---|---:|---:|---|---:|")
    for db, vs in CALLS:
        for suffix in ("", "-llama3-8b"):
            d = load(f"{db}{suffix}", 1)
            r = []
            for k, lv in sorted(d.items()):
                own = {v: lv[v] for v in lv if v.startswith(P)}
                v = min(own, key=own.get)
                r.append((lv["cudnn_sdpa"] / own[v], k, v[len(P):]))
            lo = min(r)
            print(f"| {db}{suffix} | {len(r)} | {gm([x[0] for x in r]):.3f} | {lo[0]:.3f} "
                  f"(B={lo[1][0]} S={lo[1][3]} D={lo[1][5]} {'causal' if lo[1][6] else 'non-causal'}, "
                  f"{lo[2]}) | {max(r)[0]:.3f} |")
    print()


if __name__ == "__main__":
    main()
    best_own()
