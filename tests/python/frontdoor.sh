#!/bin/sh
# frontdoor.sh AB SRC: the README's ten-line example
# (examples/python/notebook_compare.py) from the checkout, as a notebook
# would run it: a numpy kernel gets its verdict against cpu_flash through
# attnbench.compare in one call, and a deliberately wrong kernel (it
# returns V) is reported failed by the call, with attnbench's own check.
# The expected outcomes are attnbench's rules, not its output: `mine`
# computes softmax(Q K^T / sqrt(D)) V in float32, inside FlashAttention's
# tolerance of the float64 reference (kernels/check.h), so it is stored
# ok, checked and timed in every round (10 rounds of 5, the call's
# default); `wrong` is off by far more than the tolerance, so it is stored
# failed with no samples. Any of the three verdicts (faster, slower, no
# significant difference) passes: which one is a fact of the machine.
# Skips (77) without python3 and numpy.
set -u
AB=$1 SRC=$2
. "$SRC/tests/lib/numpy_python.sh" # PY, or skipped
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
q() { sqlite3 "$tmp/attnbench.db" "$1"; }
cd "$tmp" || exit 1
ATTNBENCH_EXE=$AB PYTHONPATH=$SRC/python "$PY" "$SRC/examples/python/notebook_compare.py" \
    >out.txt 2>err.txt || { cat out.txt err.txt; fail "the example exited non-zero"; }
grep -Eq '^  mine +vs cpu_flash +B=1 H=2 S=128 D=64 fp32: (faster|slower|no significant difference)' out.txt ||
    { cat out.txt err.txt; fail "no verdict of mine against cpu_flash"; }
grep -Eq '^  wrong +FAILED: correctness' out.txt || { cat out.txt; fail "the call did not say wrong failed"; }
grep -q 'attnbench.compare: wrong FAILED' err.txt || { cat err.txt; fail "no failure on stderr"; }
[ "$(q "SELECT status||checked FROM measurements WHERE variant='mine'")" = ok1 ] || fail "mine not ok+checked"
[ "$(q "SELECT count(DISTINCT round) FROM samples s JOIN measurements m ON m.id=s.measurement_id WHERE variant='mine'")" = 10 ] ||
    fail "mine: samples not in 10 rounds"
[ "$(q "SELECT status FROM measurements WHERE variant='wrong'")" = failed ] || fail "wrong not stored failed"
[ "$(q "SELECT count(*) FROM samples s JOIN measurements m ON m.id=s.measurement_id WHERE variant='wrong'")" = 0 ] ||
    fail "wrong has samples"
ls "$tmp"/attnbench-compare-* >/dev/null 2>&1 || true
grep -q "report " out.txt || fail "no report path"
rep=$(sed -n 's/.*: report \(.*\.md\)$/\1/p' out.txt | head -1)
[ -s "$rep" ] || fail "report $rep missing"
# two served torch functions share attnbench's buffers: each IPC handle is
# opened once in the process and closed when the last user lets go (a stub
# libcudart counts the real calls)
PYTHONPATH=$SRC/python "$PY" - <<'PYEOF' || fail "the counted IPC mapping"
from attnbench import frontdoor
class Stub:
    def __init__(self): self.opens, self.closes = [], []
    def open(self, h): self.opens.append(h); return 4096 * len(self.opens)
    def close(self, p): self.closes.append(p); return 0
c = frontdoor._RefCountedCudart(); c.real = Stub()
a, b = c.open(b"h1" * 32), c.open(b"h1" * 32)
assert a == b == 4096 and len(c.real.opens) == 1, c.real.opens
assert c.open(b"h2" * 32) == 8192
c.close(a); assert c.real.closes == [], c.real.closes
c.close(b); assert c.real.closes == [4096], c.real.closes
c.close(8192); assert c.real.closes == [4096, 8192]
PYEOF
echo "ok: verdict for mine against cpu_flash through attnbench.compare; wrong reported FAILED and stored failed; IPC handles opened once per process"
