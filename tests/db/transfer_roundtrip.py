#!/usr/bin/env python3
"""transfer_roundtrip.py: every table of a run survives export -> import and merge.

For each source database: export every run (attnbench export, JSON), import the
file into a fresh database, merge the source into another fresh database, and
compare every table of the source with the same table of both copies, row for
row (as multisets), with database ids left out and foreign keys replaced by
what identifies the row they point at: a run by its uuid, a measurement by its
run's uuid and its configuration (variant, B, H, S, D, causal, dtype, and H_kv,
S_kv, pass where the source has them), an experiment or environment by its
hash. Environments and experiments are compared as far as runs use them (they
are shared rows, carried with a run). Values are compared exactly (a latency
must come back bit for bit). A table of the copies that the source lacks (a
source of an older schema) must stay empty there. A foreign key this script
does not know (PRAGMA foreign_key_list) fails the comparison, and --build fails
when a table has no row, so a table added to the schema is noticed.

Usage:
  transfer_roundtrip.py ATTNBENCH --build        a database with a row in every
      table: a tiny CPU run, plus rows inserted by SQL for the tables only a GPU
      run fills (timer_floor, clock_blocks, grad_checks); fails if any table of the schema is
      empty, then round-trips it
  transfer_roundtrip.py ATTNBENCH DB|DIR...      round-trips each database (a
      copy; the file itself is only read); a folder stands for every *.db
      under it (reports/: every committed database)
Exit 0 when every table matches, 1 otherwise (each difference printed), 77
when the build cannot run the tiny experiment.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

KNOWN_FK = {"run_id", "measurement_id", "experiment_id", "environment_id"}
MEAS_KEY = ["variant", "B", "H", "S", "D", "causal", "dtype", "H_kv", "S_kv", "pass"]


def ro(path):
    """a read-only connection that never writes the file (no -wal/-shm made)"""
    return sqlite3.connect("file:%s?mode=ro&immutable=1" % path, uri=True)


def tables(db):
    return [r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY name")]


def columns(db, table):
    return [r[1] for r in db.execute("SELECT * FROM pragma_table_info(?)", (table,))]


def dump(db, table, cols, meas_cols):
    """the rows of table as a sorted list of tuples, over the columns cols
    (the source's), ids out, foreign keys as natural keys"""
    sel = []
    fks = {r[3] for r in db.execute("SELECT * FROM pragma_foreign_key_list(?)", (table,))}
    unknown = fks - KNOWN_FK
    if unknown:
        raise SystemExit("%s.%s: a foreign key this comparison does not know; teach "
                         "transfer_roundtrip.py what it points at" % (table, unknown.pop()))
    for c in cols:
        if c == "id":  # a row id (INTEGER PRIMARY KEY), never copied
            continue
        if c == "run_id":
            sel.append("(SELECT uuid FROM runs WHERE id = t.run_id)")
        elif c == "measurement_id":
            key = " || '|' || ".join("m.\"%s\"" % k for k in meas_cols)
            sel.append("(SELECT r.uuid || '|' || %s FROM measurements m JOIN runs r "
                       "ON r.id = m.run_id WHERE m.id = t.measurement_id)" % key)
        elif c == "experiment_id":
            sel.append("(SELECT hash FROM experiments WHERE id = t.experiment_id)")
        elif c == "environment_id":
            sel.append("(SELECT hash FROM environments WHERE id = t.environment_id)")
        else:
            sel.append("t.\"%s\"" % c)
    where = ""
    if table == "environments":
        where = " WHERE t.id IN (SELECT environment_id FROM runs)"
    elif table == "experiments":
        where = " WHERE t.id IN (SELECT experiment_id FROM runs)"
    rows = db.execute("SELECT %s FROM \"%s\" t%s" % (", ".join(sel), table, where)).fetchall()
    if table == "environments":  # the fingerprint is JSON; import writes it canonical
        fp = [c for c in cols if c != "id"].index("fingerprint")
        rows = [r[:fp] + (json.dumps(json.loads(r[fp]), sort_keys=True),) + r[fp + 1:]
                for r in rows]
    return sorted(rows, key=repr)


def compare(src_path, copy_path, how):
    """differences between the source and a copy, one line each"""
    out = []
    src, dst = ro(src_path), ro(copy_path)
    st, dt = tables(src), tables(dst)
    meas_cols = [c for c in MEAS_KEY if c in columns(src, "measurements")]
    for t in st:
        if t not in dt:
            out.append("%s: table %s missing in the copy" % (how, t))
            continue
        cols = columns(src, t)
        a, b = dump(src, t, cols, meas_cols), dump(dst, t, cols, meas_cols)
        if a != b:
            sa, sb = set(map(repr, a)), set(map(repr, b))
            ex = sorted(sa - sb)[:1] or ["(duplicates differ)"]
            out.append("%s: table %s: %d rows in the source, %d in the copy; %d source rows "
                       "not in the copy, e.g. %s" % (how, t, len(a), len(b), len(sa - sb),
                                                     ex[0][:300]))
    for t in dt:
        if t not in st:
            n = dst.execute("SELECT count(*) FROM \"%s\"" % t).fetchone()[0]
            if n:
                out.append("%s: table %s (not in the source) has %d rows" % (how, t, n))
    src.close()
    dst.close()
    return out


def run(cmd, what):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s failed (exit %d): %s" % (what, p.returncode, p.stderr.strip()))
    return p.stdout


def roundtrip(ab, path, tmp):
    """export -> import and merge of a copy of path; the differences"""
    src = os.path.join(tmp, "src.db")
    for f in ("src.db", "src.db-wal", "src.db-shm", "imported.db", "merged.db", "e.json"):
        if os.path.exists(os.path.join(tmp, f)):
            os.remove(os.path.join(tmp, f))
    shutil.copyfile(path, src)
    db = ro(src)
    ids = [str(r[0]) for r in db.execute("SELECT id FROM runs ORDER BY id")]
    db.close()
    imp, mer, exp = (os.path.join(tmp, n) for n in ("imported.db", "merged.db", "e.json"))
    run([ab, "export"] + ids + ["--db", src, "-o", exp], "export")
    run([ab, "import", exp, "--db", imp], "import")
    run([ab, "merge", src, "--db", mer], "merge")
    return compare(src, imp, "export -> import") + compare(src, mer, "merge")


TINY = """name = "roundtrip";
hypothesis = "cpu_flash and cpu_reference compute the same attention.";
variants = ["cpu_reference", "cpu_flash"];
baseline = "cpu_reference";
sweep = { B = 1; H = 2; S = [16, 33]; D = 8; causal = [false, true]; dtype = "fp32"; };
warmup = 1;
samples = 6;
round_size = 2;
seed = 5;
"""


def build(ab, tmp):
    """a database with at least one row in every table; its path"""
    cfg, path = os.path.join(tmp, "roundtrip.cfg"), os.path.join(tmp, "built.db")
    with open(cfg, "w") as f:
        f.write(TINY)
    p = subprocess.run([ab, "run", cfg, "--db", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        print("skipped: the tiny CPU run failed: %s" % p.stderr.strip()[-300:])
        sys.exit(77)
    db = sqlite3.connect(path)
    # what only a GPU run writes: the timer floor, clock blocks (NVML) and the
    # gradient checks of a backward pass; made-up but well-formed values,
    # distinct per row
    db.executescript("""
        INSERT INTO timer_floor(run_id, timing_mode, n, median_ms)
          SELECT id, 'hot', 200, 0.0021 FROM runs;
        INSERT INTO clock_blocks(measurement_id, round, first_idx, n, sm_mhz_before,
            sm_mhz_after, mem_mhz, temp_c, power_w, reasons, throttled, power_capped)
          SELECT id, 0, 0, 2, 1980, 1755 + id, 2619, 51, 312.25 + id, 4, 0, 1 FROM measurements;
        INSERT INTO grad_checks(measurement_id, grad, max_abs_err, rel_l2_err, plain_max_abs_err,
            atol, tolerance, ref_absmax, nonfinite, elems, pass)
          SELECT m.id, g.grad, 0.0009765625 * m.id, 0.0021 + g.k, 0.00048828125, 1e-05,
                 2 * 0.00048828125 + 1e-05, 3.25 + g.k, g.k - 1, 1024 * g.k, g.k != 3
          FROM measurements m, (SELECT 'dQ' AS grad, 1 AS k UNION ALL SELECT 'dK', 2
                                UNION ALL SELECT 'dV', 3) g;
    """)
    db.commit()
    empty = [t for t in tables(db)
             if db.execute("SELECT count(*) FROM \"%s\"" % t).fetchone()[0] == 0]
    db.close()
    if empty:
        raise SystemExit("FAIL: no row in %s: the round trip would not test them; add rows "
                         "for them in build()" % ", ".join(empty))
    return path


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    ab, args = os.path.abspath(sys.argv[1]), sys.argv[2:]
    tmp = tempfile.mkdtemp(prefix="attnbench-roundtrip-")
    bad = 0
    try:
        if args == ["--build"]:
            args = [build(ab, tmp)]
        files = []
        for a in args:
            if os.path.isdir(a):
                files += sorted(os.path.join(d, f) for d, _, fs in os.walk(a) for f in fs
                                if f.endswith(".db"))
            else:
                files.append(a)
        args = files
        for path in args:
            t0 = time.time()
            try:
                diffs = roundtrip(ab, path, tmp)
            except RuntimeError as e:
                diffs = [str(e)]
            db = ro(path)
            counts = ", ".join("%s %d" % (t, db.execute("SELECT count(*) FROM \"%s\"" % t)
                                          .fetchone()[0]) for t in tables(db))
            db.close()
            if diffs:
                bad += 1
                print("FAIL %s (%.1f s)" % (path, time.time() - t0))
                for d in diffs:
                    print("  " + d)
            else:
                print("ok %s (%.1f s): %s" % (path, time.time() - t0, counts))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d of %d databases round-trip whole" % (len(args) - bad, len(args)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
