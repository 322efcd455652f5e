#!/bin/sh
# capabilities.sh AB SRC: an adapter's hello declares what it runs
# (adapters/PROTOCOL.md "Capabilities") and attnbench skips the rest with
# the reason instead of storing errors. The numpy kit declares
# dtypes=fp32 (main's caps=) in a sweep over fp32 and bf16: the fp32
# configuration is measured and checked, the bf16 one is not stored at all
# (as a built-in variant's unsupported shape) and the run's stderr names
# the declaration. Without the capability the kit would measure bf16 too
# (it supports it), so the test cannot pass by accident. Skips (77)
# without python3 and numpy.
set -u
AB=$1 SRC=$2
. "$SRC/tests/lib/numpy_python.sh" # PY, or skipped
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat >"$tmp/fp32only.py" <<PYEOF
import sys
sys.path.insert(0, "$SRC/adapters/examples")
sys.path.insert(0, "$SRC/adapters")
import attnbench_adapter
from numpy_attention import attention
attnbench_adapter.main(attention, framework="numpy", caps={"dtypes": ["fp32"]})
PYEOF
cat >"$tmp/c.cfg" <<CFG
name = "caps";
variants = ( "cpu_flash", { name = "fp32only"; command = "$PY $tmp/fp32only.py"; protocol = 2; timeout = 60.0; } );
baseline = "cpu_flash";
sweep = { B = 1; H = 2; S = 16; D = 16; causal = false; dtype = ["fp32", "bf16"]; };
skip_unsupported = true;  # cpu_flash is fp32 only
warmup = 1; samples = 4; round_size = 2;
CFG
cd "$tmp" || exit 1
"$AB" run c.cfg --db c.db >run.out 2>run.err || { cat run.err; fail "run"; }
[ "$(sqlite3 c.db "SELECT dtype||':'||status||checked FROM measurements WHERE variant='fp32only'")" = "fp32:ok1" ] ||
    fail "fp32only: $(sqlite3 c.db "SELECT dtype, status, message FROM measurements WHERE variant='fp32only'")"
grep -q "fp32only .*skipped: the adapter declares dtypes=fp32; this configuration is bf16" run.err ||
    { cat run.err; fail "no skip reason on stderr"; }
echo "ok: the bf16 configuration skipped with the declared reason, fp32 measured"
