#!/usr/bin/env python3
"""summarize.py: the tables of README.md in this folder, recomputed from its
databases (python3 summarize.py, from this folder).

Speed ratios are of medians over all unthrottled samples (ratio = the
other's median / this one's, so > 1 means this one is faster); the reports
(`attnbench report RUN --db X.db`) give the paired, round-level estimates
and verdicts. The FlashAttention-4 column is an ESTIMATE chained through
cuDNN across two sessions: (cudnn_sdpa / own in this folder's run) x
(fa4 / cudnn_sdpa in ../fa4-on-hopper/fa3-grid-fa4.db run 1)."""
import math
import sqlite3

OWN = ("cuda_wgmma_persistent", "cuda_wgmma_uniform", "cuda_wgmma_lookahead")
KEY = "B, H, H_kv, S, S_kv, D, causal, dtype"


def medians(db, run):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    rows = con.execute("SELECT variant, %s, median_ms FROM measurement_summary WHERE run_id = ?"
                       % KEY, (run,)).fetchall()
    out = {}
    for r in rows:
        out.setdefault(tuple(r[1:-1]), {})[r[0]] = r[-1]
    return out


def gm(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def label(k):
    B, H, Hkv, S, Skv, D, c, dt = k
    s = "B=%d S=%d" % (B, S)
    if Hkv != H:
        s += " H_kv=%d" % Hkv
    if Skv != S:
        s += " S_kv=%d" % Skv
    return s + ("" if c else " non-causal")


def table(db, run, title):
    m = medians(db, run)
    print("\n## %s (%s run %d): speed relative to cudnn_sdpa" % (title, db, run))
    print("| configuration | D | dtype | " + " | ".join(OWN) + " | uniform / persistent |")
    print("|---|---:|---|" + "---:|" * (len(OWN) + 1))
    keys = sorted(m, key=lambda k: (k[6] == 0, k[5], k[7], k[3], k[2], k[4]))
    for k in keys:
        x = m[k]
        print("| %s | %d | %s | %s | %.3f |" % (
            label(k), k[5], k[7], " | ".join("%.3f" % (x["cudnn_sdpa"] / x[v]) for v in OWN),
            x["cuda_wgmma_persistent"] / x["cuda_wgmma_uniform"]))
    return m


def ranges(m, title, pick=lambda k: True):
    ks = [k for k in m if pick(k)]
    for v in OWN:
        r = [m[k]["cudnn_sdpa"] / m[k][v] for k in ks]
        print("%s %s vs cudnn_sdpa: geometric mean %.3f, range %.3f-%.3f (%d configurations)"
              % (title, v, gm(r), min(r), max(r), len(r)))


def fa4_chain(m):
    con = sqlite3.connect("file:../fa4-on-hopper/fa3-grid-fa4.db?mode=ro", uri=True)
    f = {}
    for v, D, c, dt, S, ms in con.execute(
            "SELECT variant, D, causal, dtype, S, median_ms FROM measurement_summary"):
        f.setdefault((D, c, dt, S), {})[v] = ms
    print("\n## ESTIMATE, chained through cudnn_sdpa across sessions: own / FA4 on FlashAttention-3's grid")
    out = {}
    for k, x in m.items():
        g = f[(k[5], k[6], k[7], k[3])]
        for v in ("cuda_wgmma_uniform", "cuda_wgmma_persistent"):
            out.setdefault(v, {})[(k[5], k[6], k[7], k[3])] = (
                x["cudnn_sdpa"] / x[v]) * (g["fa4"] / g["cudnn_sdpa"])
    for v, d in out.items():
        for D in (64, 128):
            for c in (0, 1):
                r = [d[k] for k in d if k[0] == D and k[1] == c]
                print("%s D=%d causal=%d: geometric mean %.3f, range %.3f-%.3f" % (
                    v, D, c, gm(r), min(r), max(r)))
        r = list(d.values())
        print("%s all %d: geometric mean %.3f, range %.3f-%.3f" % (v, len(r), gm(r), min(r), max(r)))


def main():
    for run in (1, 2):
        m = table("llama3-8b-prefill-lookahead.db", run, "Llama 3 8B prefill, H = 32, D = 128, bf16")
        ranges(m, "Llama causal", lambda k: k[6] == 1)
    for run in (1, 2):
        table("fa3-grid-causal-lookahead.db", run, "FlashAttention-3 grid, causal, H = 16")
    mc = medians("fa3-grid-causal-lookahead.db", 2)
    mn = table("fa3-grid-noncausal-lookahead.db", 1, "FlashAttention-3 grid, non-causal, H = 16")
    for D in (64, 128):
        ranges(mc, "grid causal D=%d" % D, lambda k: k[5] == D)
        ranges(mn, "grid non-causal D=%d" % D, lambda k: k[5] == D)
    both = dict(mc)
    both.update(mn)
    fa4_chain(both)


main()
