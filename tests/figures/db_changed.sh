#!/bin/sh
# db_changed.sh PYTHON AB SRC: the figure check fails, naming the figure, when
# one measurement of a committed database is changed. A copy of
# reports/bwd-ladder/bwd-ladder.db gets the samples of cuda_mma_bwd's
# slowest measurement at S=512 (the low end of "56-79 TFLOP/s at S = 512" in
# kernels/cuda_mma_bwd.cu) multiplied by 1.2 with sqlite3; the check,
# pointed at the copy with --db, must exit 1 and name that header's figure.
# The unchanged copy must pass the same way (the failure is the change's).
# Both checks are of that database's figures alone (--only-db).
set -u
PY=$1 AB=$2 SRC=$3
command -v sqlite3 >/dev/null || { echo "skipped: no sqlite3"; exit 77; }
db=reports/bwd-ladder/bwd-ladder.db
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cp "$SRC/$db" "$tmp/copy.db"
"$PY" "$SRC/tools/figures/check.py" --root "$SRC" --attnbench "$AB" --db "$db=$tmp/copy.db" \
  --only-db "$db" >"$tmp/same.out" 2>&1 || { cat "$tmp/same.out"; echo "FAIL: the unchanged copy does not pass"; exit 1; }
sqlite3 "$tmp/copy.db" "UPDATE samples SET ms = ms * 1.2 WHERE measurement_id = (
  SELECT measurement_id FROM measurement_summary WHERE variant = 'cuda_mma_bwd' AND S = 512
  ORDER BY tflops LIMIT 1)" || exit 1
"$PY" "$SRC/tools/figures/check.py" --root "$SRC" --attnbench "$AB" --db "$db=$tmp/copy.db" \
  --only-db "$db" >"$tmp/changed.out" 2>&1
rc=$?
cat "$tmp/changed.out"
[ $rc -eq 1 ] || { echo "FAIL: exit status $rc after the change, expected 1"; exit 1; }
grep -q '^FAIL kernels/cuda_mma_bwd.cu:[0-9]*: figure ".*56-79 TFLOP/s' "$tmp/changed.out" ||
  { echo "FAIL: the changed figure is not named"; exit 1; }
echo "ok"
