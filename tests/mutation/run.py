#!/usr/bin/env python3
"""tests/mutation/run.py: mutation testing of the checking path.

Applies each mutant of tests/mutation/mutants.py to the source tree, one at a
time, rebuilds (ninja in BUILD), runs the CPU test suites, and restores the
file. A mutant is killed when the build fails or a test fails that passes on
the unmutated tree (tests failing there are listed and left out); it
survives when every test passes. Prints one line per mutant
and the kill ratio; exits 1 when any mutant survives.

Runs the suites one at a time in the order given (the check suite first)
and stops each mutant's tests at the first failing test (--maxfail 1).
--hints TRANSCRIPT runs the tests that killed each mutant in an earlier
transcript, and those its description names, first (the verdict is the same in any order; it only comes sooner);
--no-baseline skips the baseline when every test just passed on this tree.
Usage (from the repository root, with a configured CPU build):
    python3 tests/mutation/run.py [--build build] [--suite check --suite stats ...] [ID...]
(the mutants named run in the order named; all of them without IDs).
Defaults: build dir `build`, suites check stats db cli external history hostile.
Needs a configured CPU build of this tree in the build dir
(meson setup build -Dcuda=disabled).
A run of all 65 mutants takes about 65 x (rebuild + suites up to the first
failure); on 2 shared cores about two hours. The working tree is restored after each mutant, also
after Ctrl-C.
"""
import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from mutants import MUTANTS  # noqa: E402


def run(cmd, log):
    with open(log, "ab") as f:
        return subprocess.call(cmd, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--suite", action="append")
    ap.add_argument("--log", default="/tmp/attnbench-mutation.log")
    ap.add_argument("--hints", help="an earlier transcript: the tests that killed each mutant "
                    "there (its [brackets]) run first")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip the baseline: every test of the suites passed on this tree "
                    "in a run just before (say which in the transcript)")
    ap.add_argument("ids", nargs="*")
    a = ap.parse_args()
    suites = a.suite or ["check", "stats", "db", "cli", "external", "history", "hostile"]
    # the mutants named, in the order named (all, in the table's order, when none)
    by_id = {m[0]: m for m in MUTANTS}
    unknown = [i for i in a.ids if i not in by_id]
    if unknown:
        print("no such mutant: " + ", ".join(unknown))
        return 2
    chosen = [by_id[i] for i in a.ids] if a.ids else list(MUTANTS)
    open(a.log, "w").close()
    # baseline: the tests of each suite, less those that already fail on
    # the unmutated tree (they cannot tell anything about a mutant)
    if run(["ninja", "-C", a.build], a.log) != 0:
        print("the unmutated tree does not build")
        return 2
    tests = {}
    for s in suites:
        lst = subprocess.run(["meson", "test", "-C", a.build, "--no-rebuild", "--list",
                              "--suite", s], cwd=ROOT, capture_output=True, text=True).stdout
        names = [l.split(" / ")[1].strip() for l in lst.splitlines() if " / " in l]
        ok = []
        for n in names:
            if a.no_baseline:
                ok.append(n)
            elif run(["meson", "test", "-C", a.build, "--no-rebuild", "-q", n], a.log) == 0:
                ok.append(n)
            else:
                print(f"baseline: {n} fails on the unmutated tree; left out", flush=True)
        tests[s] = ok
    # hints: mutant id -> the tests that killed it in an earlier transcript
    # (run first: a kill is a kill whatever the order; survivors still run
    # every suite)
    hints = {}
    every = {n for s in tests.values() for n in s}
    for line in open(a.hints) if a.hints else []:
        f = line.split()
        if len(f) > 2 and f[0] == "KILLED" and line.rstrip().endswith("]"):
            named = line.rstrip()[line.rstrip().rindex("[") + 1:-1].split(",")
            hints[f[1]] = [n for n in named if n in every]
    if a.hints:  # and the tests a mutant's description names
        for m in MUTANTS:
            named = [w for w in re.split(r"[^A-Za-z0-9_-]+", m[4]) if w in every]
            hints[m[0]] = hints.get(m[0], []) + [n for n in named if n not in hints.get(m[0], [])]
    killed = survived = stale = 0
    for mid, path, orig, mut, what in chosen:  # noqa: C901
        full = os.path.join(ROOT, path)
        text = open(full).read()
        if orig not in text:
            print(f"STALE    {mid:22s} {path}: original text not found")
            stale += 1
            continue
        t0 = time.time()
        try:
            open(full, "w").write(text.replace(orig, mut, 1))
            with open(a.log, "a") as f:
                f.write(f"\n==== {mid}: {what}\n")
            if run(["ninja", "-C", a.build], a.log) != 0:
                verdict, by = "KILLED", "build"
            else:
                verdict, by = "SURVIVED", "-"
                cmd = ["meson", "test", "-C", a.build, "--no-rebuild", "-q", "--maxfail", "1"]
                steps = ([hints[mid]] if hints.get(mid) else []) + [tests[s] for s in suites]
                for step in steps:  # the hinted tests, then one suite at a time: stop at the first failure
                    if not step:
                        continue
                    if run(cmd + step, a.log) != 0:
                        verdict, by = "KILLED", "tests"
                        break
        finally:
            open(full, "w").write(text)
        if verdict == "KILLED":
            killed += 1
            # which tests failed: meson's testlog
            tl = os.path.join(ROOT, a.build, "meson-logs", "testlog.txt")
            if by == "tests" and os.path.exists(tl):
                names = sorted({l.split(" / ")[1].split()[0] for l in open(tl)
                                if " / " in l and (" FAIL " in l or " TIMEOUT " in l)})
                by = ",".join(names)[:70] or "tests"
        else:
            survived += 1
        print(f"{verdict:8s} {mid:22s} {time.time() - t0:6.0f} s  {what}  [{by}]", flush=True)
    run(["ninja", "-C", a.build], a.log)  # the unmutated tree again
    total = killed + survived
    print(f"kill ratio: {killed}/{total}" + (f" ({stale} stale)" if stale else ""))
    return 1 if survived or stale else 0


if __name__ == "__main__":
    sys.exit(main())
