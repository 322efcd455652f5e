#!/bin/sh
# threads.sh AB SRC: the experiment's `threads` reaches adapters and the
# report says threads per variant. An experiment with threads = 3 runs the
# numpy kit example (adapters/examples/numpy_attention.py) in protocols 1
# and 2 beside cpu_flash with OMP_NUM_THREADS=7 inherited: each adapter
# must see OMP_NUM_THREADS=3 (the kit puts it in its env line, stored as
# the measurement's adapter_env), and the report's run table must list
# "CPU threads per variant" with cpu_flash at 3 OpenMP threads and each
# adapter at OMP_NUM_THREADS=3; `show` and the report give each adapter's
# command and version line (provenance). Skips (77) without python3 and numpy.
set -u
AB=$1 SRC=$2
. "$SRC/tests/lib/numpy_python.sh" # PY, or skipped
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
ex="$SRC/adapters/examples/numpy_attention.py"
cat >"$tmp/t.cfg" <<CFG
name = "threads";
variants = ( "cpu_flash",
  { name = "np2"; command = "$PY $ex"; protocol = 2; timeout = 60.0; },
  { name = "np1"; command = "$PY $ex"; timeout = 60.0; } );
baseline = "cpu_flash";
sweep = { B = 1; H = 2; S = 16; D = 16; causal = false; dtype = "fp32"; };
warmup = 1; samples = 4; round_size = 2; threads = 3;
CFG
cd "$tmp" || exit 1
OMP_NUM_THREADS=7 "$AB" run t.cfg --db t.db >run.out 2>run.err || { cat run.err; fail "run"; }
for v in np1 np2; do
    sqlite3 t.db "SELECT adapter_env FROM measurements WHERE variant='$v'" | grep -q '"threads": *"3"' ||
        fail "$v: OMP_NUM_THREADS was not 3: $(sqlite3 t.db "SELECT adapter_env FROM measurements WHERE variant='$v'")"
done
"$AB" report 1 --db t.db -o r.md >/dev/null 2>&1 || fail "report"
row=$(grep '^| CPU threads per variant |' r.md) || fail "no threads-per-variant row"
for want in "cpu_flash: 3 (OpenMP)" "np2: 3 (adapter: OMP_NUM_THREADS=3)" "np1: 3 (adapter: OMP_NUM_THREADS=3)"; do
    echo "$row" | grep -qF "$want" || fail "row lacks '$want': $row"
done
# provenance (the same run): `show` and the report give each adapter's
# command and its version line (the kit's env line as stored)
"$AB" show 1 --db t.db >show.txt 2>&1 || fail "show"
for v in np1 np2; do
    grep -E "^  $v +adapter +command $PY $ex \(protocol [12]\); version line \{.*\"numpy\":" show.txt >/dev/null ||
        { grep -A5 '^provenance' show.txt; fail "show lacks $v's command and version line"; }
    grep -F "| \`$v\` | adapter | command \`$PY $ex\`" r.md | grep -qF '"threads":"3"' ||
        fail "the report lacks $v's command and version line"
done
echo "ok: threads = 3 reached both adapters (OMP_NUM_THREADS 7 inherited was replaced); the report lists threads per variant"
