#!/usr/bin/env python3
"""tests/mutation/run.py: mutation testing of the checking path.

Applies each mutant of tests/mutation/mutants.py to the source tree, one at a
time, rebuilds (ninja in BUILD), runs the CPU test suites, and restores the
file. A mutant is killed when the build fails to link a working program or a
test fails; it survives when every test passes. Prints one line per mutant
and the kill ratio; exits 1 when any mutant survives.

Runs the suites one at a time in the order given (the check suite first)
and stops each mutant's tests at the first failing test (--maxfail 1).
Usage (from the repository root, with a configured CPU build):
    python3 tests/mutation/run.py [--build build] [--suite check --suite stats ...] [ID...]
Defaults: build dir `build`, suites check stats db cli external history.
Needs a configured CPU build of this tree in the build dir
(meson setup build -Dcuda=disabled).
A run of all 25 mutants takes about 25 x (rebuild + suites); on 2 cores
about half an hour. The working tree is restored after each mutant, also
after Ctrl-C.
"""
import argparse
import os
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
    ap.add_argument("ids", nargs="*")
    a = ap.parse_args()
    suites = a.suite or ["check", "stats", "db", "cli", "external", "history"]
    chosen = [m for m in MUTANTS if not a.ids or m[0] in a.ids]
    open(a.log, "w").close()
    killed = survived = stale = 0
    for mid, path, orig, mut, what in chosen:
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
                for s in suites:  # one suite at a time, in order: stop at the first failure
                    cmd = ["meson", "test", "-C", a.build, "--no-rebuild", "-q", "--maxfail", "1",
                           "--suite", s]
                    if run(cmd, a.log) != 0:
                        verdict, by = "KILLED", "tests"
                        break
        finally:
            open(full, "w").write(text)
        if verdict == "KILLED":
            killed += 1
            # which tests failed: meson's testlog
            tl = os.path.join(ROOT, a.build, "meson-logs", "testlog.txt")
            if by == "tests" and os.path.exists(tl):
                names = sorted({w for l in open(tl) if " FAIL " in l
                                for w in l.split() if ":" in w and "/" not in w} |
                               {l.split(" / ")[1].split()[0] for l in open(tl)
                                if " / " in l and " FAIL " in l})
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
