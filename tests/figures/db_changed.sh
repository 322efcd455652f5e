#!/bin/sh
# db_changed.sh PYTHON AB SRC: the figure check fails, naming the figure, when
# one measurement of a committed database is changed. A copy of
# reports/bwd-ladder/bwd-ladder.db gets cuda_mma_bwd's samples at B=32 H=16
# S=512 D=128 non-causal fp16 (the largest of the "56-79 TFLOP/s at S = 512"
# in kernels/cuda_mma_bwd.cu) multiplied by 1.2 with sqlite3; the check,
# pointed at the copy with --db, must exit 1 and name that header's figure.
# The unchanged copy must pass the same way (the failure is the change's).
set -u
PY=$1 AB=$2 SRC=$3
command -v sqlite3 >/dev/null || { echo "skipped: no sqlite3"; exit 77; }
db=reports/bwd-ladder/bwd-ladder.db
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cp "$SRC/$db" "$tmp/copy.db"
"$PY" "$SRC/tools/figures/check.py" --root "$SRC" --attnbench "$AB" --db "$db=$tmp/copy.db" \
  >"$tmp/same.out" 2>&1 || { cat "$tmp/same.out"; echo "FAIL: the unchanged copy does not pass"; exit 1; }
sqlite3 "$tmp/copy.db" "UPDATE samples SET ms = ms * 1.2 WHERE measurement_id = (
  SELECT id FROM measurements WHERE variant = 'cuda_mma_bwd' AND B = 32 AND H = 16 AND S = 512
  AND D = 128 AND causal = 0 AND dtype = 'fp16' AND pass = 'bwd')" || exit 1
"$PY" "$SRC/tools/figures/check.py" --root "$SRC" --attnbench "$AB" --db "$db=$tmp/copy.db" \
  >"$tmp/changed.out" 2>&1
rc=$?
cat "$tmp/changed.out"
[ $rc -eq 1 ] || { echo "FAIL: exit status $rc after the change, expected 1"; exit 1; }
grep -q '^FAIL kernels/cuda_mma_bwd.cu:[0-9]*: figure ".*56-79 TFLOP/s' "$tmp/changed.out" ||
  { echo "FAIL: the changed figure is not named"; exit 1; }
echo "ok"
