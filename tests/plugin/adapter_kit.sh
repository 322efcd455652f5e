#!/bin/sh
# adapter_kit.sh AB SRC BUILD: the Python adapter kit
# (adapters/attnbench_adapter.py) on the CPU, with numpy only:
#  1. the kit's inputs are bit for bit kernels/data.c's (check_inputs.py
#     compiles ab_inputs_fill and compares every dtype and five seeds);
#  2. adapters/examples/numpy_attention.py, a numpy function wrapped by one
#     call of the kit, in protocol 2 (inside the rounds) and protocol 1,
#     beside cpu_flash: stored ok and checked, with samples;
#  3. a numpy function that returns V (wrong) is stored 'failed' by
#     attnbench's verdict on the kit's figures.
# Skips (77) when no python3 with numpy is found.
set -u
AB=$1 SRC=$2 BUILD=$3
. "$SRC/tests/lib/numpy_python.sh" # PY, or skipped
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
q() { sqlite3 "$tmp/k.db" "$1"; }

"$PY" "$SRC/tests/external/check_inputs.py" "$BUILD" >"$tmp/inputs.log" 2>&1 ||
    { cat "$tmp/inputs.log"; fail "the kit's inputs differ from ab_inputs_fill"; }
cat >"$tmp/wrong.py" <<PYEOF
import sys
sys.path.insert(0, "$SRC/adapters")
import attnbench_adapter
attnbench_adapter.main(lambda q, k, v, causal, scale: v, framework="numpy")
PYEOF
ex="$SRC/adapters/examples/numpy_attention.py"
cat >"$tmp/k.cfg" <<CFG
name = "kit";
variants = ( "cpu_flash",
  { name = "numpy_p2"; command = "$PY $ex"; protocol = 2; timeout = 60.0; },
  { name = "numpy_p1"; command = "$PY $ex"; timeout = 60.0; },
  { name = "numpy_wrong"; command = "$PY $tmp/wrong.py"; protocol = 2; timeout = 60.0; } );
baseline = "cpu_flash";
sweep = { B = 1; H = 2; S = [24, 33]; D = 16; causal = [false, true]; dtype = ["fp32", "bf16"]; };
skip_unsupported = true;
warmup = 1; samples = 8; round_size = 2;
CFG
cd "$tmp" || exit 1
"$AB" run k.cfg --db k.db >run.out 2>run.err; rc=$?
[ $rc = 3 ] || { cat run.err; fail "run: exit $rc, want 3 (numpy_wrong fails its check)"; }
[ "$(q "SELECT status FROM runs")" = complete ] || fail "run not complete"
for v in numpy_p2 numpy_p1; do
    [ "$(q "SELECT count(*) FROM measurements WHERE variant='$v' AND status='ok' AND checked=1")" = 8 ] ||
        fail "$v: $(q "SELECT S, causal, dtype, status, message FROM measurements WHERE variant='$v'")"
    [ "$(q "SELECT count(*) FROM samples JOIN measurements m ON m.id=measurement_id WHERE variant='$v'")" = 64 ] ||
        fail "$v: expected 8 x 8 samples"
done
[ "$(q "SELECT count(DISTINCT round) FROM samples JOIN measurements m ON m.id=measurement_id WHERE variant='numpy_p2' AND S=24 AND causal=0 AND dtype='fp32'")" = 4 ] ||
    fail "numpy_p2: samples not taken in the 4 rounds"
[ "$(q "SELECT count(*) FROM measurements WHERE variant='numpy_wrong' AND status='failed'")" = 8 ] ||
    fail "numpy_wrong: $(q "SELECT status, message FROM measurements WHERE variant='numpy_wrong'")"
q "SELECT adapter_env FROM measurements WHERE variant='numpy_p2' LIMIT 1" | grep -q '"adapter": *"numpy_attention"' ||
    fail "numpy_p2: the env line was not stored"
# H_kv < H and S_kv != S through the kit (both protocols), checked by attnbench
cat >kv.cfg <<CFG
name = "kitkv";
hypothesis = "the kit passes H_kv and S_kv through";
variants = ( "cpu_reference", { name = "numpy_p2"; protocol = 2; command = "$PY $ex"; },
  { name = "numpy_p1"; command = "$PY $ex"; } );
baseline = "cpu_reference";
sweep = { B = 2; H = 4; D = 16; causal = [false, true]; dtype = "fp32"; };
configs = ( { H_kv = 2; S = 1; S_kv = 37; }, { H_kv = 1; S = 19; S_kv = 5; } );
warmup = 1; samples = 6; round_size = 3; seed = 3;
CFG
"$AB" run kv.cfg --db kv.db >kv.out 2>kv.err || { cat kv.err; fail "kv run failed"; }
[ "$(sqlite3 kv.db "SELECT count(*) FROM measurements WHERE status='ok' AND checked=1 AND H_kv < H")" = 12 ] ||
    fail "kit kv: $(sqlite3 kv.db "SELECT variant, H_kv, S, S_kv, causal, status, message FROM measurements")"
echo "ok: kit inputs bit-exact; numpy adapter ok and checked in protocols 2 and 1; wrong function failed; H_kv/S_kv through the kit"
