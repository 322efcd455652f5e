#!/usr/bin/env python3
"""summarize.py: the tables of README.md in this folder, recomputed from its
databases and the committed ones they are compared with (python3
summarize.py, from this folder).

Speed ratios are of medians over all unthrottled samples (ratio = the
other's median / this one's, so > 1 means this one is faster); the reports
(`attnbench report RUN --chain --db X.db`) give the paired, round-level
estimates and verdicts. Three parts:
  1. the new rungs (fa3-grid-wgskip.db, llama3-8b-prefill-wgskip.db): each
     against cudnn_sdpa and against the rung before it, with the predicted
     ranges of their headers beside;
  2. the folded rungs: this session's runs of the committed experiments
     (fold-*.db) against the committed runs of ../hopper-causal-uniform/
     (ratios to cudnn_sdpa side by side: each run's own baseline, so a
     different card or clock cancels as far as it moves cuDNN alike);
  3. an ESTIMATE of own / FlashAttention-4 chained through cuDNN across
     sessions: (cudnn_sdpa / own here) x (fa4 / cudnn_sdpa in
     ../fa4-on-hopper/fa3-grid-fa4.db run 1)."""
import math
import sqlite3

KEY = "B, H, H_kv, S, S_kv, D, causal, dtype"
NEW = ("cuda_wgmma_softexp", "cuda_wgmma_wgskip", "cuda_wgmma_uniform")
FOLDED = ("cuda_wgmma_persistent", "cuda_wgmma_uniform", "cuda_wgmma_lookahead")
CU = "../hopper-causal-uniform/"

# the headers' predictions: (D, causal, S) -> (low, high) speed ratio to the previous rung
WGSKIP_PRED = {(64, 1, 1024): (1.14, 1.33), (64, 1, 2048): (1.05, 1.11), (64, 1, 4096): (1.04, 1.09),
               (64, 1, 8192): (1.01, 1.03), (64, 1, 16384): (1.01, 1.03),
               (64, 0, 1024): (1.06, 1.12), (64, 0, 2048): (1.01, 1.03), (64, 0, 4096): (1.01, 1.03),
               (64, 0, 8192): (0.99, 1.01), (64, 0, 16384): (0.99, 1.01)}


def medians(db, run):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    rows = con.execute("SELECT variant, %s, median_ms FROM measurement_summary WHERE run_id = ?"
                       " AND status = 'ok'" % KEY, (run,)).fetchall()
    out = {}
    for r in rows:
        out.setdefault(tuple(r[1:-1]), {})[r[0]] = r[-1]
    return out


def gpu(db, run):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    r = con.execute("SELECT json_extract(e.fingerprint, '$.gpu.name'), r.started_at FROM runs r"
                    " JOIN environments e ON e.id = r.environment_id WHERE r.id = ?",
                    (run,)).fetchone()
    return "%s, %s" % (r[0], r[1][:10]) if r else "?"


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


def order(k):
    return (k[5], k[6] == 0, k[7], k[3], k[2], k[4])


def new_rungs(db, run, title, pred=False):
    m = medians(db, run)
    print("\n## %s (%s run %d; %s): speed relative to cudnn_sdpa, and rung over rung"
          % (title, db, run, gpu(db, run)))
    print("| configuration | D | dtype | softexp | wgskip | uniform | wgskip / uniform |"
          + (" predicted |" if pred else "") + " softexp / wgskip |")
    print("|---|---:|---|---:|---:|---:|---:|" + ("---|" if pred else "") + "---:|")
    for k in sorted(m, key=order):
        x = m[k]
        p = WGSKIP_PRED.get((k[5], k[6], k[3]), (0.99, 1.01))
        print("| %s | %d | %s | %s | %.3f |%s %.3f |" % (
            label(k), k[5], k[7], " | ".join("%.3f" % (x["cudnn_sdpa"] / x[v]) for v in NEW),
            x["cuda_wgmma_uniform"] / x["cuda_wgmma_wgskip"],
            " %.2f-%.2f |" % p if pred else "",
            x["cuda_wgmma_wgskip"] / x["cuda_wgmma_softexp"]))
    return m


def ranges(m, title, pick=lambda k: True):
    ks = [k for k in m if pick(k)]
    if not ks:
        return
    for v in NEW:
        r = [m[k]["cudnn_sdpa"] / m[k][v] for k in ks]
        print("%s %s vs cudnn_sdpa: geometric mean %.3f, range %.3f-%.3f (%d configurations)"
              % (title, v, gm(r), min(r), max(r), len(r)))
    r = [m[k]["cudnn_sdpa"] / min(m[k][v] for v in NEW) for k in ks]
    print("%s best own (fastest of the three per configuration) vs cudnn_sdpa: geometric mean"
          " %.3f, range %.3f-%.3f" % (title, gm(r), min(r), max(r)))


def fold(db_new, db_old, run_old, title):
    a, b = medians(db_new, 1), medians(CU + db_old, run_old)
    print("\n## Folded rungs, %s: ratio to cudnn_sdpa, this session (%s run 1; %s) / committed"
          " (%s run %d; %s)" % (title, db_new, gpu(db_new, 1), db_old, run_old,
                                 gpu(CU + db_old, run_old)))
    print("| configuration | D | dtype | " + " | ".join(FOLDED) + " |")
    print("|---|---:|---|" + "---:|" * len(FOLDED))
    q = {v: [] for v in FOLDED}
    for k in sorted(a, key=order):
        if k not in b:
            continue
        cells = []
        for v in FOLDED:
            ra, rb = a[k]["cudnn_sdpa"] / a[k][v], b[k]["cudnn_sdpa"] / b[k][v]
            q[v].append(ra / rb)
            cells.append("%.3f / %.3f" % (ra, rb))
        print("| %s | %d | %s | %s |" % (label(k), k[5], k[7], " | ".join(cells)))
    for v in FOLDED:
        print("%s %s: this session's ratio to cudnn_sdpa over the committed one: geometric mean"
              " %.3f, range %.3f-%.3f" % (title, v, gm(q[v]), min(q[v]), max(q[v])))
    u = [a[k]["cuda_wgmma_persistent"] / a[k]["cuda_wgmma_uniform"] for k in a if k in b]
    w = [b[k]["cuda_wgmma_persistent"] / b[k]["cuda_wgmma_uniform"] for k in a if k in b]
    print("%s uniform / persistent in one run: this session %.3f-%.3f, committed %.3f-%.3f"
          % (title, min(u), max(u), min(w), max(w)))


def fold_uniform_grid(m):
    """cuda_wgmma_uniform's ratio to cudnn_sdpa in fa3-grid-wgskip against the committed grid runs."""
    c = medians(CU + "fa3-grid-causal-lookahead.db", 2)
    c.update(medians(CU + "fa3-grid-noncausal-lookahead.db", 1))
    q = [(m[k]["cudnn_sdpa"] / m[k]["cuda_wgmma_uniform"])
         / (c[k]["cudnn_sdpa"] / c[k]["cuda_wgmma_uniform"]) for k in m if k in c]
    print("\nFolded cuda_wgmma_uniform on the FA3 grid (fa3-grid-wgskip.db run 1 against the"
          " committed causal run 2 and non-causal run 1): ratio to cudnn_sdpa, this session over"
          " committed: geometric mean %.3f, range %.3f-%.3f (%d configurations)"
          % (gm(q), min(q), max(q), len(q)))


def fa4_estimate(m):
    f = medians("../fa4-on-hopper/fa3-grid-fa4.db", 1)
    print("\n## ESTIMATE, chained through cudnn_sdpa across sessions: own / FA4 on"
          " FlashAttention-3's grid")
    for D in (64, 128):
        for c in (0, 1):
            ks = [k for k in m if k in f and k[5] == D and k[6] == c]
            r = [(m[k]["cudnn_sdpa"] / min(m[k][v] for v in NEW)) * (f[k]["fa4"] / f[k]["cudnn_sdpa"])
                 for k in ks]
            print("best own D=%d causal=%d: geometric mean %.3f, range %.3f-%.3f"
                  % (D, c, gm(r), min(r), max(r)))
    ks = [k for k in m if k in f]
    r = [(m[k]["cudnn_sdpa"] / min(m[k][v] for v in NEW)) * (f[k]["fa4"] / f[k]["cudnn_sdpa"])
         for k in ks]
    print("best own, all %d: geometric mean %.3f, range %.3f-%.3f" % (len(r), gm(r), min(r), max(r)))


if __name__ == "__main__":
    g = new_rungs("fa3-grid-wgskip.db", 1, "FlashAttention-3 grid, H = 16, B*S = 16K", pred=True)
    for D in (64, 128):
        for c in (1, 0):
            ranges(g, "grid D=%d %s" % (D, "causal" if c else "non-causal"),
                   lambda k, D=D, c=c: k[5] == D and k[6] == c)
    ranges(g, "grid all")
    l = new_rungs("llama3-8b-prefill-wgskip.db", 1, "Llama 3 8B prefill, H = 32, D = 128, bf16")
    ranges(l, "Llama causal", lambda k: k[6] == 1)
    fold("fold-llama3-8b-prefill-lookahead.db", "llama3-8b-prefill-lookahead.db", 2, "Llama 3 8B")
    fold("fold-fa3-grid-causal-lookahead.db", "fa3-grid-causal-lookahead.db", 2, "FA3 grid causal")
    fold_uniform_grid(g)
    fa4_estimate(g)
