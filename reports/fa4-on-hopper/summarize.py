#!/usr/bin/env python3
"""summarize.py: the tables of README.md in this folder, recomputed from its
databases and native-timing files (python3 summarize.py, from this folder).

Ratios are of medians over all samples (speed ratio = the other's median /
this one's); the reports (`attnbench report 1 --db X.db`) give the paired,
round-level estimates and verdicts."""
import json
import math
import sqlite3
import statistics


def medians(db, cols):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    rows = con.execute("SELECT variant, %s, median_ms FROM measurement_summary" % cols).fetchall()
    out = {}
    for r in rows:
        out.setdefault(tuple(r[1:-1]), {})[r[0]] = r[-1]
    return out


def gm(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def main():
    print("## kit (device buffers, [B,S,H,D]) against FA4 called natively")
    m = medians("fa4-native-layout.db", "B, H, S, causal")
    nat = {}
    for f in ("native-fa4-before.jsonl", "native-fa4-after.jsonl"):
        for line in open(f):
            d = json.loads(line)
            nat.setdefault((d["B"], d["H"], d["S"], int(d["causal"])), []).append(d["median_ms"])
    print("| B | H | S | causal | native ms (before, after) | kit ms | kit / native | kit, own inputs / native |")
    print("|---:|---:|---:|---|---|---:|---:|---:|")
    for k in sorted(nat):
        n = statistics.mean(nat[k])
        x = m[k]
        print("| %d | %d | %d | %s | %.4f, %.4f | %.4f | %.3f | %.3f |" % (
            *k[:3], "yes" if k[3] else "no", nat[k][0], nat[k][1], x["fa4"], x["fa4"] / n,
            x["fa4_own_inputs"] / n))
    print("\n## FlashAttention-3's grid: speed relative to fa4 (fa4 median / variant median)")
    g = medians("fa3-grid-fa4.db", "D, causal, dtype, S")
    for v in ("cuda_wgmma_persistent", "cudnn_sdpa"):
        print("%s:" % v)
        for D in (64, 128):
            for c in (0, 1):
                r = [g[k]["fa4"] / g[k][v] for k in g if k[0] == D and k[1] == c]
                print("  D=%d causal=%d: geometric mean %.3f, range %.3f-%.3f (%d configurations)"
                      % (D, c, gm(r), min(r), max(r), len(r)))
        r = [g[k]["fa4"] / g[k][v] for k in g]
        print("  all: geometric mean %.3f, range %.3f-%.3f (%d)" % (gm(r), min(r), max(r), len(r)))
    print("\n## Llama 3 8B prefill (H=32, D=128, causal, bf16)")
    p = medians("llama3-8b-prefill-fa4.db", "B, S, H_kv, S_kv")
    print("| B | S | H_kv | S_kv | own / cudnn_sdpa | own / fa4 | fa4 / cudnn_sdpa |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for k in sorted(p):
        x = p[k]
        own = x["cuda_wgmma_persistent"]
        print("| %d | %d | %d | %d | %.3f | %.3f | %.3f |" % (
            *k, x["cudnn_sdpa"] / own, x["fa4"] / own, x["cudnn_sdpa"] / x["fa4"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
