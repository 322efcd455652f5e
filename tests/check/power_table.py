#!/usr/bin/env python3
"""tests/check/power_table.py LOG: the power table of docs/correctness.md
from the output of test_check (CPU) or `gpu_check --negative` (GPU). For each wrong output
and dtype: how many cases failed the check, and the smallest margin, i.e.
over the cases the minimum of max(max_err / tol, rel_l2 / l2_tol) (> 1:
caught, the factor by which the weaker of the two rules was exceeded);
for the correct output the largest such ratio (< 1: passed)."""
import re
import sys
from collections import defaultdict

cases = defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r"(\S+)\s+(fp16|bf16|fp32) .*?D=\s*(\d+)\s+causal=(\d) .*?S=\s*(\d+)?", line)
    m1 = re.search(r"(fp16|bf16|fp32) D=(\d+) causal=(\d) S=(\d+)\s+(\S+)\s+max_err (\S+) tol (\S+) .*rel_l2 (\S+) l2_tol (\S+) (pass|FAIL)", line)
    m2 = re.search(r"^(cuda_broken_\S+)\s+(fp16|bf16|fp32) S=(\d+)\s+D=(\d+)\s+causal=(\d) max_err=(\S+) tol=(\S+) rel_l2=(\S+) l2_tol=(\S+) (.*) -> (\S+)", line)
    if m1:
        dt, kind = m1.group(1), m1.group(5)
        e, t, l, lt = map(float, (m1.group(6), m1.group(7), m1.group(8), m1.group(9)))
        caught = m1.group(10) == "FAIL"
    elif m2:
        kind, dt = m2.group(1).replace("cuda_broken_", ""), m2.group(2)
        e, t, l, lt = map(float, (m2.group(6), m2.group(7), m2.group(8), m2.group(9)))
        caught = m2.group(10) != "passed"
    else:
        continue
    r = max(e / t if t > 0 else float("inf"), l / lt if lt > 0 else float("inf"))
    cases[(kind, dt)].append((caught, r))

kinds = []
for k, _ in cases:
    if k not in kinds:
        kinds.append(k)
print("| output | fp16 | bf16 | fp32 |")
print("|---|---|---|---|")
for k in kinds:
    row = [k]
    for dt in ("fp16", "bf16", "fp32"):
        c = cases.get((k, dt))
        if not c:
            row.append("—")
        elif k == "none":
            row.append(f"passed {sum(not x for x, _ in c)}/{len(c)}, worst {max(r for _, r in c):.2f} of tol")
        else:
            fin = [r for _, r in c if r != float("inf")]
            mm = f", margin ≥ {min(fin):.1f}×" if fin else ", NaN"
            row.append(f"caught {sum(x for x, _ in c)}/{len(c)}{mm}")
    print("| " + " | ".join(row) + " |")
