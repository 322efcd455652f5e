#!/usr/bin/env python3
"""Tables of reports/fa4-same-run/README.md from its two databases.

Best own = the fastest of the own forward rungs (cuda_wgmma_*) per configuration,
by median; ratios are speeds: the other variant's median over this one's (> 1: the first named is faster).
Geometric means over configurations. Usage: python3 summarize.py (in this folder).
"""
import math, sqlite3

KEY = "B,H,H_kv,S,S_kv,D,causal,dtype"

def rows(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    q = f"""WITH best AS (SELECT {KEY}, min(median_ms) m FROM measurement_summary
                 WHERE variant LIKE 'cuda_wgmma_%' GROUP BY {KEY}),
            f AS (SELECT {KEY}, median_ms fm FROM measurement_summary WHERE variant='fa4'),
            c AS (SELECT {KEY}, median_ms cm FROM measurement_summary WHERE variant='cudnn_sdpa')
            SELECT {KEY}, fm/m, cm/m, cm/fm FROM best JOIN f USING ({KEY}) JOIN c USING ({KEY})"""
    return con.execute(q).fetchall()

def gm(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))

def line(label, rs):
    own_fa4 = [r[8] for r in rs]; own_cudnn = [r[9] for r in rs]; fa4_cudnn = [r[10] for r in rs]
    return (f"| {label} | {len(rs)} | {gm(own_fa4):.3f} | {min(own_fa4):.3f}-{max(own_fa4):.3f} | "
            f"{gm(own_cudnn):.3f} | {gm(fa4_cudnn):.3f} |")

def main():
    g = rows("fa3-grid-fa4.db")
    print("| FA3 grid part | configurations | best own / FA4, gm | range | best own / cuDNN, gm | FA4 / cuDNN, gm |")
    print("|---|---:|---:|---|---:|---:|")
    for d in (64, 128):
        for c in (0, 1):
            print(line(f"D={d} {'causal' if c else 'non-causal'}", [r for r in g if r[5] == d and r[6] == c]))
    print(line("all", g))
    print()
    print("| B | S | H_kv | S_kv | best own / FA4 | best own / cuDNN | FA4 / cuDNN |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    l = rows("llama3-8b-prefill-fa4.db")
    for r in sorted(l, key=lambda r: (r[3], r[2], r[4])):
        print(f"| {r[0]} | {r[3]} | {r[2]} | {r[4]} | {r[8]:.3f} | {r[9]:.3f} | {r[10]:.3f} |")
    print(line("Llama 3 8B prefill, all", l))

if __name__ == "__main__":
    main()
