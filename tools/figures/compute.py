"""compute.py: the computations a figure manifest may name (tools/figures/README.md).

Every figure in the README's results summary, reports/README.md and the kernel
headers' measured paragraphs is one expression over these functions, evaluated
against one committed database. Medians, TFLOP/s and GB/s come from the
schema's own view `measurement_summary` (db/schema.sql: the median of a
measurement's unthrottled samples in SQL, TFLOP/s = flops / median, GB/s =
bytes / median); speedups with confidence intervals and verdicts come from
`attnbench report --json` (src/report/), never reimplemented here. What is
left here is selection (which measurements), pairing by configuration, and
reduction (ratio, geometric mean, min-max range, percentage).

A selection is a Series: a list of (configuration key, value) pairs, the key
being (B, H, S, D, causal, dtype, H_kv, S_kv, pass) of a measurement.
"""

import json
import math
import os
import shutil
import sqlite3
import subprocess
import tempfile

CONFIG_COLUMNS = ("B", "H", "S", "D", "causal", "dtype", "H_kv", "S_kv", "pass")
FILTER_COLUMNS = set(CONFIG_COLUMNS) | {"status"}


class FigureError(Exception):
    """A computation that cannot be made (no such measurement, ambiguous
    selection, bad argument): the message names what was asked."""


class Series(list):
    """(key, value) pairs of one quantity over the selected configurations."""

    def values(self):
        return [v for _, v in self]


class Context:
    """One committed database opened read-only, with the attnbench binary
    used for `report --json` (None: report figures cannot be computed)."""

    def __init__(self, db_path, attnbench=None, resolve=None):
        if not os.path.isfile(db_path):
            raise FigureError(f"{db_path}: no such database")
        self.db_path = db_path
        self.attnbench = attnbench
        self.resolve = resolve  # committed path -> the file to read (check.py's --db)
        self._others = {}
        self._reports = {}
        self._tmp = None
        self.conn = sqlite3.connect(f"file:{os.path.abspath(db_path)}?mode=ro", uri=True)
        cols = {r[1] for r in self.conn.execute("PRAGMA table_info(measurement_summary)")}
        if not set(CONFIG_COLUMNS) | {"gbs"} <= cols:
            # a database from before the view had every column: read the
            # copy attnbench migrated (the committed file stays as it is)
            self.conn.close()
            self.conn = sqlite3.connect(f"file:{self._migrated()}?mode=ro", uri=True)

    def other(self, committed):
        """The Context of another committed database (figures comparing two
        studies' runs), opened once."""
        if committed not in self._others:
            if not self.resolve:
                raise FigureError(f"{committed}: no way to find another database")
            self._others[committed] = Context(self.resolve(committed), self.attnbench, self.resolve)
        return self._others[committed]

    def close(self):
        for o in self._others.values():
            o.close()
        self.conn.close()
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)

    def default_run(self):
        ids = [r[0] for r in self.conn.execute("SELECT id FROM runs ORDER BY id")]
        if len(ids) != 1:
            raise FigureError(f"{self.db_path} holds {len(ids)} runs: name run=")
        return ids[0]

    def _migrated(self):
        """A temporary copy of the database migrated to the current schema
        by attnbench itself (importing an empty export migrates)."""
        copy = os.path.join(self._tmp or "", "copy.db")
        if self._tmp:
            return copy
        if not self.attnbench:
            raise FigureError(f"{self.db_path}: an older schema or a report figure needs the "
                              "attnbench binary (--attnbench)")
        self._tmp = tempfile.mkdtemp(prefix="figures-")
        copy = os.path.join(self._tmp, "copy.db")
        shutil.copy(self.db_path, copy)
        empty = os.path.join(self._tmp, "none.json")
        with open(empty, "w") as f:
            f.write('{"attnbench_export": 1, "runs": []}\n')
        p = subprocess.run([self.attnbench, "import", empty, "--db", copy],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise FigureError(f"{self.db_path}: attnbench could not migrate a copy: {p.stderr.strip()}")
        return copy

    def report(self, run, flags):
        """The parsed output of `attnbench report RUN FLAGS --json` on a
        migrated temporary copy of the database (report may migrate the
        schema; the committed file is never written)."""
        key = (run, flags)
        if key in self._reports:
            return self._reports[key]
        copy = self._migrated()
        out = os.path.join(self._tmp, f"r{run}-{len(self._reports)}.json")
        cmd = [self.attnbench, "report", str(run)] + flags.split() + [
            "--db", copy, "--json", "--no-plots", "-o", out]
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise FigureError(f"attnbench report {run} {flags} failed: {p.stderr.strip()}")
        with open(out) as f:
            self._reports[key] = json.load(f)
        return self._reports[key]


def _key(row):
    return tuple(row[c] for c in CONFIG_COLUMNS)


def _query(ctx, column, variant_cond, variant_args, run, where, cfg):
    """The SQL and arguments selecting measurement_summary's configuration
    columns and COLUMN for the ok measurements of RUN (default: the
    database's) whose variant matches VARIANT_COND, matching CFG (column =
    value; pass_ for pass) and the SQL WHERE."""
    if run is None:
        run = ctx.default_run()
    conds = ["run_id = ?", variant_cond, "status = 'ok'"]
    args = [run] + list(variant_args)
    for k, v in cfg.items():
        col = "pass" if k == "pass_" else k
        if col not in FILTER_COLUMNS:
            raise FigureError(f"unknown selection column {k}")
        conds.append(f'"{col}" = ?')
        args.append(int(v) if isinstance(v, bool) else v)
    if where:
        conds.append(f"({where})")
    cols = ", ".join(f'"{c}"' for c in CONFIG_COLUMNS)
    return (f"SELECT {cols}, {column} FROM measurement_summary WHERE {' AND '.join(conds)} "
            "ORDER BY measurement_id"), args, run


def _select(ctx, column, variant, run=None, where=None, **cfg):
    """Series of measurement_summary.COLUMN for VARIANT's ok measurements in
    RUN matching CFG (column = value; pass_ for pass) and the SQL WHERE."""
    sql, args, run = _query(ctx, column, "variant = ?", [variant], run, where, cfg)
    conn = ctx.conn
    conn.row_factory = sqlite3.Row
    try:
        rows = conn.execute(sql, args).fetchall()
    except sqlite3.Error as e:
        raise FigureError(f"selection {variant} {cfg} {where or ''}: {e}")
    finally:
        conn.row_factory = None
    if not rows:
        raise FigureError(f"no ok measurement of {variant} in run {run} with {cfg} {where or ''}")
    return Series((_key(r), r[column]) for r in rows)


def _pair(a, b, op):
    bm = dict(b)
    out = Series()
    for k, v in a:
        if k in bm:
            out.append((k, op(v, bm[k])))
    if not out:
        raise FigureError("the two selections share no configuration")
    return out


def library(ctx):
    """The functions a manifest's value: expression may call, bound to CTX."""

    def ms(variant, **sel):
        """Median latency (ms) of each selected measurement."""
        return _select(ctx, "median_ms", variant, **sel)

    def tflops(variant, **sel):
        """TFLOP/s at the median: the measurement's flops / median."""
        return _select(ctx, "tflops", variant, **sel)

    def gbs(variant, **sel):
        """GB/s at the median: the measurement's ideal bytes / median."""
        return _select(ctx, "gbs", variant, **sel)

    def speedup(variant, baseline, **sel):
        """Ratio of medians per configuration both ran: baseline ms / variant
        ms (above 1: the variant is faster)."""
        return _pair(ms(variant, **sel), ms(baseline, **sel), lambda v, b: b / v)

    def instance_ms(variant, run=None, where=None, **cfg):
        """For a run with instances: per configuration the geometric mean of
        the medians (ms) of VARIANT's ok instances VARIANT#k."""
        sql, args, run = _query(ctx, "median_ms", "substr(variant, 1, ?) = ?",
                                [len(variant) + 1, variant + "#"], run, where, cfg)
        try:
            rows = ctx.conn.execute(sql, args).fetchall()
        except sqlite3.Error as e:
            raise FigureError(f"instances of {variant} {cfg} {where or ''}: {e}")
        logs = {}
        for r in rows:
            if r[-1] is not None and r[-1] > 0:
                logs.setdefault(tuple(r[:-1]), []).append(math.log(r[-1]))
        if not logs:
            raise FigureError(f"no ok instance of {variant} in run {run} with {cfg} {where or ''}")
        return Series((k, math.exp(sum(v) / len(v))) for k, v in logs.items())

    def instance_speedup(variant, baseline, **sel):
        """instance_ms(baseline) / instance_ms(variant) per configuration
        both ran (above 1: the variant is faster; reports/hopper-bwd-defer/
        summarize.py's ratio)."""
        return _pair(instance_ms(variant, **sel), instance_ms(baseline, **sel), lambda v, b: b / v)

    def ratio(a, b):
        """a / b per configuration both selections hold (across runs: the
        same configuration in two runs)."""
        return _pair(a, b, lambda x, y: x / y)

    def difference(a, b):
        """a - b per configuration both selections hold."""
        return _pair(a, b, lambda x, y: x - y)

    def timer_floor_ms(run=None, mode="hot"):
        """The run's empty-kernel timer floor (timer_floor.median_ms)."""
        if run is None:
            run = ctx.default_run()
        r = ctx.conn.execute("SELECT median_ms FROM timer_floor WHERE run_id = ? AND timing_mode = ?",
                             (run, mode)).fetchone()
        if not r:
            raise FigureError(f"run {run} has no {mode} timer floor")
        return r[0]

    def first_second(variant, run=None, where=None, **cfg):
        """Per measurement: the median over its rounds of the round's first
        sample / its second (samples in idx order within a round; rounds
        with fewer than two left out), the first-sample effect."""
        ids = _select(ctx, "measurement_id", variant, run=run, where=where, **cfg)
        out = Series()
        for key, mid in ids:
            by_round = {}
            for rnd, ms in ctx.conn.execute(
                    "SELECT round, ms FROM samples WHERE measurement_id = ? AND throttled = 0 "
                    "ORDER BY round, idx", (mid,)):
                by_round.setdefault(rnd, []).append(ms)
            r = sorted(v[0] / v[1] for v in by_round.values() if len(v) >= 2)
            if not r:
                raise FigureError(f"{variant} {key}: no round with two samples")
            n = len(r)
            out.append((key, r[n // 2] if n % 2 else (r[n // 2 - 1] + r[n // 2]) / 2))
        return out

    def _best(level, variants, baseline, sel):
        """Per configuration, the fastest of VARIANTS by LEVEL (ms, or
        instance_ms) against the baseline's: baseline / fastest."""
        best = {}
        for v in variants:
            for k, t in level(v, **sel):
                best[k] = min(best.get(k, math.inf), t)
        return _pair(Series(best.items()), level(baseline, **sel), lambda v, b: b / v)

    def speedup_best(variants, baseline, **sel):
        """Per configuration, the fastest of VARIANTS (smallest median)
        against the baseline: ratio of medians."""
        return _best(ms, variants, baseline, sel)

    def instance_speedup_best(variants, baseline, **sel):
        """speedup_best for a run with instances: per configuration the
        fastest of VARIANTS by instance_ms against the baseline's."""
        return _best(instance_ms, variants, baseline, sel)

    def report_speedup(variant, run=None, baseline=None, flags="", **cfg):
        """(speedup, CI low, CI high) of VARIANT in `attnbench report RUN
        FLAGS --json` for the one configuration matching CFG."""
        c = report_comparison(variant, run=run, baseline=baseline, flags=flags, **cfg)
        return (c["speedup"], c["speedup_ci"][0], c["speedup_ci"][1])

    def _report_hits(variant, run, baseline, flags, cfg):
        if run is None:
            run = ctx.default_run()
        rep = ctx.report(run, flags)
        return [c for c in rep["comparisons"]
                if c["variant"] == variant and (baseline is None or c["baseline"] == baseline)
                and all(_cfg_eq(c["config"], k, v) for k, v in cfg.items())]

    def report_comparison(variant, run=None, baseline=None, flags="", **cfg):
        hits = _report_hits(variant, run, baseline, flags, cfg)
        if len(hits) != 1:
            raise FigureError(f"report {run} {flags}: {len(hits)} comparisons of {variant} "
                              f"against {baseline} with {cfg}")
        return hits[0]

    def report_speedups(variant, run=None, baseline=None, flags="", **cfg):
        """The report's speedup estimates of VARIANT over every configuration
        matching CFG (a series, for minmax or geomean)."""
        hits = _report_hits(variant, run, baseline, flags, cfg)
        if not hits:
            raise FigureError(f"report {run} {flags}: no comparison of {variant} with {cfg}")
        return Series((tuple(sorted(c["config"].items())), c["speedup"]) for c in hits)

    def verdicts(variant, verdict, run=None, baseline=None, flags="", **cfg):
        """How many of VARIANT's comparisons in the report (those matching
        CFG) have a verdict starting with VERDICT."""
        hits = _report_hits(variant, run, baseline, flags, cfg)
        return float(sum(1 for c in hits if (c["verdict"] or "").startswith(verdict)))

    def ceiling_gbs(run=None):
        """The run's measured copy ceiling (runs.peak_copy_gbs)."""
        if run is None:
            run = ctx.default_run()
        r = ctx.conn.execute("SELECT peak_copy_gbs FROM runs WHERE id = ?", (run,)).fetchone()
        if not r or r[0] is None:
            raise FigureError(f"run {run} has no copy ceiling")
        return r[0]

    def sql(query, *args):
        """The single row of a read-only SQL query: one value, or a tuple."""
        try:
            rows = ctx.conn.execute(query, args).fetchall()
        except sqlite3.Error as e:
            raise FigureError(f"sql {query!r}: {e}")
        if len(rows) != 1:
            raise FigureError(f"sql {query!r}: {len(rows)} rows, expected 1")
        return rows[0][0] if len(rows[0]) == 1 else tuple(rows[0])

    def sql_in(db, query, *args):
        """sql() on another committed database (DB: its path in the
        repository), for a figure that compares two databases' runs."""
        return library(ctx.other(db))["sql"](query, *args)

    def _vals(s):
        if isinstance(s, Series):
            return s.values()
        if isinstance(s, (list, tuple)):
            return list(s)
        return [s]

    def value(s):
        """The single value of a selection of exactly one measurement."""
        v = _vals(s)
        if len(v) != 1:
            raise FigureError(f"value(): {len(v)} measurements selected, expected 1")
        return v[0]

    def minmax(*ss):
        """(smallest, largest) over one or more selections."""
        v = [x for s in ss for x in _vals(s)]
        return (min(v), max(v))

    def lo(*ss):
        return min(x for s in ss for x in _vals(s))

    def hi(*ss):
        return max(x for s in ss for x in _vals(s))

    def geomean(*ss):
        """Geometric mean over one or more selections (of ratios)."""
        v = [x for s in ss for x in _vals(s)]
        return math.exp(sum(math.log(x) for x in v) / len(v))

    def count(*ss):
        return float(sum(len(_vals(s)) for s in ss))

    def pct(x, whole):
        """100 * x / whole, element-wise over a selection."""
        if isinstance(x, Series):
            return Series((k, 100.0 * v / whole) for k, v in x)
        if isinstance(x, tuple):
            return tuple(100.0 * v / whole for v in x)
        return 100.0 * x / whole

    def scale(x, f):
        """x * f, element-wise over a selection (units: ms -> us is 1000)."""
        if isinstance(x, Series):
            return Series((k, v * f) for k, v in x)
        if isinstance(x, tuple):
            return tuple(v * f for v in x)
        return x * f

    def inverse(x):
        """1 / x, element-wise (a ratio read the other way round)."""
        if isinstance(x, Series):
            return Series((k, 1.0 / v) for k, v in x)
        if isinstance(x, tuple):
            return tuple(1.0 / v for v in x)
        return 1.0 / x

    fns = dict(ms=ms, tflops=tflops, gbs=gbs, speedup=speedup, ratio=ratio, difference=difference,
               instance_ms=instance_ms, instance_speedup=instance_speedup,
               instance_speedup_best=instance_speedup_best,
               timer_floor_ms=timer_floor_ms, first_second=first_second, speedup_best=speedup_best,
               report_speedup=report_speedup, report_speedups=report_speedups, verdicts=verdicts, ceiling_gbs=ceiling_gbs,
               sql=sql, sql_in=sql_in, value=value, minmax=minmax, lo=lo, hi=hi, geomean=geomean,
               count=count, pct=pct, scale=scale, inverse=inverse)
    return fns


def _cfg_eq(config, k, v):
    k = "pass" if k == "pass_" else k
    if k not in config:
        return v in (None, "fwd") if k == "pass" else False
    c = config[k]
    if isinstance(c, bool):
        return c == bool(v)
    return c == v
