#!/usr/bin/env python3
"""check.py: recomputes every figure of the covered documents from the committed
databases and fails on a figure that no longer matches or a number nobody covers.

Usage: check.py [--root DIR] [--attnbench PATH] [--db COMMITTED=COPY]... [--list]
                [--only-db COMMITTED]

The covered regions (tools/figures/README.md defines them exactly): README.md
between the results-summary markers, all of reports/README.md, and the
measured lines and paragraphs of the opening comment of kernels/*.cu and
kernels/*.cuh. Manifests (tools/figures/manifest/*.fig) name each figure's
text as printed, its database and its computation (compute.py). A figure
passes when each printed number equals its computed value rounded to the
printed digits; every other number of a covered region must match one of the
allow rules in allow.py. --db points a committed database at another file
(the test that alters a copy of one); --only-db checks the figures of one
database alone, without the scan for uncovered numbers. Exit status: 0 all figures hold and
every number is covered, 1 otherwise (each failure printed, naming the
document, line and figure), 2 bad usage or a malformed manifest.
"""

import argparse
import ast
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import allow  # noqa: E402
import compute  # noqa: E402

NUMBER = re.compile(r"\d+(?:\.\d+)?")
FIGURE = re.compile(r"\{([^{}]*)\}")
README_BEGIN = "<!-- results-summary:begin -->"
README_END = "<!-- results-summary:end -->"


class Doc:
    """A document as one whitespace-collapsed string, each character mapped
    back to its line, with the covered spans of that string."""

    def __init__(self, path, lines):
        self.path = path
        parts, self.line_of = [], []
        for no, text in lines:
            t = " ".join(text.split())
            if not t:
                t = "\n"  # a paragraph break survives as one character
            if parts:
                parts.append(" ")
                self.line_of.append(no)
            parts.append(t)
            self.line_of.extend([no] * len(t))
        self.text = "".join(parts)
        self.covered = []  # (start, end) spans of the string that are checked

    def line(self, pos):
        return self.line_of[min(pos, len(self.line_of) - 1)] if self.line_of else 0


def comment_text(line):
    """A line of a C comment without its decoration (/*, *, */)."""
    t = re.sub(r"^\s*/?\*+/?", "", line)
    return re.sub(r"\*/\s*$", "", t).strip()


def load_markdown(path, rel, whole):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    doc = Doc(rel, [(i + 1, ln) for i, ln in enumerate(lines)])
    if whole:
        doc.covered.append((0, len(doc.text)))
        return doc, None
    b = doc.text.find(README_BEGIN)
    e = doc.text.find(README_END)
    if b < 0 or e < b:
        return doc, f"{rel}: no {README_BEGIN} ... {README_END} region"
    doc.covered.append((b + len(README_BEGIN), e))
    return doc, None


def load_header(path, rel):
    """The opening comment of a kernel source; covered: every line holding
    'measured', and from a sentence opening with 'Measured' to the end of
    its paragraph (a blank comment line or the end of the comment)."""
    with open(path, encoding="utf-8") as f:
        src = f.read().split("\n")
    lines = []
    if src and src[0].lstrip().startswith("/*"):
        for i, ln in enumerate(src):
            lines.append((i + 1, comment_text(ln)))
            if "*/" in ln:
                break
    doc = Doc(rel, lines)
    # paragraph of each position: split the string at the paragraph marks
    starts = [0] + [m.end() for m in re.finditer("\n", doc.text)]
    ends = [m.start() for m in re.finditer("\n", doc.text)] + [len(doc.text)]
    for m in re.finditer(r"measured", doc.text, re.IGNORECASE):
        ln = doc.line(m.start())
        first = doc.line_of.index(ln)
        end = len(doc.line_of) - doc.line_of[::-1].index(ln)
        if m.group(0) == "Measured":
            end = next(e for s, e in zip(starts, ends) if s <= m.start() <= e)
        doc.covered.append((first, end))
    return doc


def documents(root):
    """The covered documents, with messages for any region not found."""
    docs, problems = [], []
    d, err = load_markdown(os.path.join(root, "README.md"), "README.md", whole=False)
    docs.append(d)
    if err:
        problems.append(err)
    idx = os.path.join(root, "reports", "README.md")
    if os.path.isfile(idx):
        docs.append(load_markdown(idx, "reports/README.md", whole=True)[0])
    for path in sorted(glob.glob(os.path.join(root, "kernels", "*.cu")) +
                       glob.glob(os.path.join(root, "kernels", "*.cuh"))):
        docs.append(load_header(path, os.path.relpath(path, root)))
    return docs, problems


class Figure:
    def __init__(self, manifest, line, doc, db, text):
        self.manifest, self.line, self.doc, self.db = manifest, line, doc, db
        self.marked = " ".join(text.split())
        self.value = None

    def where(self):
        return f"{self.manifest}:{self.line}"

    def printed(self):
        """The text as printed (braces removed) and the (start, end, text)
        of each braced figure within it."""
        out, figs, pos = [], [], 0
        for m in FIGURE.finditer(self.marked):
            out.append(self.marked[pos:m.start()])
            start = sum(len(x) for x in out)
            text, _, op = m.group(1).partition("|")
            out.append(text)
            figs.append((start, start + len(text), m.group(1)))
            pos = m.end()
        out.append(self.marked[pos:])
        return "".join(out), figs


def parse_manifest(path, rel):
    """figure:/value: pairs under sticky doc: and db: lines; a line that
    starts with whitespace continues the previous field; # comments."""
    figs, doc, db, cur, field = [], None, None, None, None
    with open(path, encoding="utf-8") as f:
        for no, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                field = None if not line.strip() else field
                continue
            if line[0] in " \t":
                if field is None:
                    raise SyntaxError(f"{rel}:{no}: continuation line outside a field")
                if field == "figure":
                    cur.marked += " " + " ".join(line.split())
                else:
                    cur.value += " " + line.strip()
                continue
            key, sep, val = line.partition(":")
            if not sep or key not in ("doc", "db", "figure", "value"):
                raise SyntaxError(f"{rel}:{no}: expected doc:, db:, figure: or value:")
            val = val.strip()
            if key == "doc":
                doc, field = val, None
            elif key == "db":
                db, field = val, None
            elif key == "figure":
                if doc is None or db is None:
                    raise SyntaxError(f"{rel}:{no}: figure before doc: and db:")
                if cur is not None and cur.value is None:
                    raise SyntaxError(f"{cur.where()}: figure without value:")
                cur = Figure(rel, no, doc, db, val)
                figs.append(cur)
                field = "figure"
            else:
                if cur is None or cur.value is not None:
                    raise SyntaxError(f"{rel}:{no}: value: without its figure:")
                cur.value, field = val, "value"
    if cur is not None and cur.value is None:
        raise SyntaxError(f"{cur.where()}: figure without value:")
    return figs


ALLOWED_NODES = (ast.Expression, ast.Call, ast.Name, ast.Load, ast.Constant, ast.Tuple,
                 ast.List, ast.keyword, ast.BinOp, ast.Add, ast.Sub, ast.Mult, ast.Div,
                 ast.UnaryOp, ast.USub, ast.Compare, ast.Gt, ast.GtE, ast.Lt, ast.LtE,
                 ast.Eq, ast.NotEq, ast.Subscript)


def evaluate(expr, fns, where):
    """EXPR (a Python expression of library calls, numbers and strings)
    evaluated to a tuple of floats."""
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as e:
        raise SyntaxError(f"{where}: value: {e.msg}")
    for node in ast.walk(tree):
        if not isinstance(node, ALLOWED_NODES):
            raise SyntaxError(f"{where}: value: {type(node).__name__} not allowed")
        if isinstance(node, ast.Name) and node.id not in fns:
            raise SyntaxError(f"{where}: value: unknown function {node.id}")
    v = eval(compile(tree, where, "eval"), {"__builtins__": {}}, dict(fns))  # checked above
    if isinstance(v, compute.Series):
        raise compute.FigureError("value is a selection of several measurements: reduce it "
                                  "(value, minmax, geomean, ...)")
    if not isinstance(v, tuple):
        v = (v,)
    flat = []
    for x in v:
        if isinstance(x, tuple):
            flat.extend(x)
        elif isinstance(x, compute.Series):
            flat.extend(x.values())
        else:
            flat.append(x)
    return tuple(float(x) for x in flat)


def matches(printed, computed):
    """The printed number equals the computed one rounded to the printed
    digits (Python's rounding of the binary value, as printf's). PRINTED
    "3|<=" (a bound: "within 3%") holds when the computed value, rounded to
    the printed digits, is <= 3; likewise >=."""
    p, _, op = printed.partition("|")
    p = p.lstrip("+")
    digits = len(p.split(".")[1]) if "." in p else 0
    r = f"{computed:.{digits}f}"
    if op == "<=":
        return float(r) <= float(p)
    if op == ">=":
        return float(r) >= float(p)
    return r == p


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--attnbench", help="attnbench binary for report --json figures")
    ap.add_argument("--db", action="append", default=[], metavar="COMMITTED=COPY")
    ap.add_argument("--list", action="store_true", help="print every figure with its value")
    ap.add_argument("--only-db", metavar="COMMITTED",
                    help="check only the figures of this database (no coverage scan)")
    a = ap.parse_args(argv)
    root = os.path.abspath(a.root)
    override = {}
    for o in a.db:
        k, sep, v = o.partition("=")
        if not sep:
            ap.error(f"--db {o}: expected COMMITTED=COPY")
        override[os.path.normpath(k)] = v
    try:
        figs = []
        for path in sorted(glob.glob(os.path.join(root, "tools", "figures", "manifest", "*.fig"))):
            figs.extend(parse_manifest(path, os.path.relpath(path, root)))
    except SyntaxError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    def resolve(committed):
        c = os.path.normpath(committed)
        return override.get(c, os.path.join(root, c))

    docs, failures = documents(root)
    bydoc = {d.path: d for d in docs}
    contexts = {}
    ok = 0
    if a.only_db:
        figs = [f for f in figs if os.path.normpath(f.db) == os.path.normpath(a.only_db)]
        if not figs:
            print(f"error: no figure names {a.only_db}", file=sys.stderr)
            return 2
        failures = []
    for fig in figs:
        doc = bydoc.get(fig.doc)
        if doc is None:
            failures.append(f"{fig.where()}: {fig.doc} is not a covered document")
            continue
        printed, marks = fig.printed()
        hits = [m.start() for m in re.finditer(re.escape(printed), doc.text)]
        if not hits:
            failures.append(f"{fig.where()}: not found in {fig.doc}: \"{printed}\"")
            continue
        db = os.path.normpath(fig.db)
        path = override.get(db, os.path.join(root, db))
        try:
            if path not in contexts:
                contexts[path] = compute.Context(path, a.attnbench, resolve)
            ctx = contexts[path]
            vals = evaluate(fig.value, compute.library(ctx), fig.where())
        except SyntaxError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        except (compute.FigureError, Exception) as e:  # a computation that fails is a failure
            failures.append(f"{fig.doc}:{doc.line(hits[0])}: figure \"{printed}\" "
                            f"({fig.where()}): cannot compute: {e}")
            continue
        if len(vals) != len(marks):
            failures.append(f"{fig.where()}: {len(marks)} braced numbers, value gives {len(vals)}")
            continue
        bad = [(t, v) for (_, _, t), v in zip(marks, vals) if not matches(t, v)]
        if a.list:
            print(f"{fig.doc}:{doc.line(hits[0])}: {printed}  <- {', '.join(f'{v:.6g}' for v in vals)}")
        if bad:
            failures.append(f"{fig.doc}:{doc.line(hits[0])}: figure \"{printed}\" ({fig.where()}, "
                            f"{fig.db}): " + "; ".join(f"printed {t.replace('|', ' as ')}, "
                                                      f"database gives {v:.6g}"
                                                      for t, v in bad))
            continue
        ok += 1
        for h in hits:
            for s, e, _ in marks:
                doc.figures = getattr(doc, "figures", []) + [(h + s, h + e)]
    for c in contexts.values():
        c.close()
    uncovered = 0
    for doc in ([] if a.only_db else docs):
        spans = getattr(doc, "figures", [])
        seen = set()
        for s, e in doc.covered:
            for m in NUMBER.finditer(doc.text, s, e):
                if m.start() in seen:
                    continue
                seen.add(m.start())
                if m.start() > 0 and doc.text[m.start() - 1] in "0123456789.":
                    continue
                if any(fs <= m.start() and m.end() <= fe for fs, fe in spans):
                    continue
                if allow.allowed(doc.text, m.start(), m.end()):
                    continue
                uncovered += 1
                ctx = doc.text[max(s, m.start() - 40):m.end() + 25].replace("\n", " ")
                failures.append(f"{doc.path}:{doc.line(m.start())}: number {m.group(0)} is "
                                f"covered by no figure: ...{ctx}...")
    for f in failures:
        print(f"FAIL {f}")
    print(f"{ok} of {len(figs)} figures hold; {uncovered} numbers uncovered; "
          f"{len(docs)} documents scanned")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
