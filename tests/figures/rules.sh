#!/bin/sh
# rules.sh PYTHON SRC: tools/figures/check.py on a small tree of its own: a
# README.md results summary quoting one measurement of a copy of
# reports/bwd-ladder/bwd-ladder.db (cuda_mma_bwd, B=32 H=16 S=512 D=64
# non-causal fp16 backward: 67.80 TFLOP/s, 1.2669 ms in that database's
# committed report reports/bwd-ladder/bwd-ladder-run1.md, the independent
# source of the values below). Checks: the figure at 2 and at 1 decimal
# passes (printed = computed rounded to the printed digits), a wrong last
# digit fails naming the figure, a number no figure covers fails naming it,
# shape parameters and dates pass as allowed, a kernel header's Measured
# paragraph is scanned to its end and its other paragraphs are not, and a
# missing region fails.
set -u
PY=$1 SRC=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tools/figures/manifest" "$tmp/reports" "$tmp/kernels"
cp "$SRC/reports/bwd-ladder/bwd-ladder.db" "$tmp/reports/t.db"
fails=0
# case NAME EXPECTED_RC GREP SUMMARY FIGURE: one run of the check
case_() {
  name=$1 want=$2 pattern=$3 summary=$4 figure=$5
  printf '# t\n\n<!-- results-summary:begin -->\n%s\n<!-- results-summary:end -->\n' "$summary" >"$tmp/README.md"
  printf 'doc: README.md\ndb: reports/t.db\n\nfigure: %s\nvalue: (value(tflops(%s)), value(ms(%s)))\n' \
    "$figure" "$SEL" "$SEL" >"$tmp/tools/figures/manifest/t.fig"
  "$PY" "$SRC/tools/figures/check.py" --root "$tmp" >"$tmp/out" 2>&1
  rc=$?
  if [ $rc -ne "$want" ] || ! grep -q -- "$pattern" "$tmp/out"; then
    echo "FAIL $name: exit $rc (expected $want), output:"; cat "$tmp/out"; fails=$((fails + 1))
  else
    echo "ok   $name"
  fi
}
SEL="'cuda_mma_bwd', B=32, S=512, D=64, causal=0, dtype='fp16', pass_='bwd'"
case_ exact 0 "1 of 1 figures hold; 0 numbers uncovered" \
  "On 2026-11-24 at B=32 H=16 S=512 D=64: 67.80 TFLOP/s (1.2669 ms)." "{67.80} TFLOP/s ({1.2669} ms)"
case_ rounded 0 "1 of 1 figures hold" \
  "At B=32 S=512: 67.8 TFLOP/s (1.267 ms)." "{67.8} TFLOP/s ({1.267} ms)"
case_ wrong-digit 1 'figure "67.9 TFLOP/s (1.267 ms)".*printed 67.9, database gives 67.8' \
  "At B=32 S=512: 67.9 TFLOP/s (1.267 ms)." "{67.9} TFLOP/s ({1.267} ms)"
case_ uncovered 1 "README.md:4: number 12.5 is covered by no figure" \
  "At B=32 S=512: 67.8 TFLOP/s (1.267 ms), 12.5% faster." "{67.8} TFLOP/s ({1.267} ms)"
case_ not-found 1 'not found in README.md: "68 TFLOP/s (1.267 ms)"' \
  "At B=32 S=512: 67.8 TFLOP/s (1.267 ms)." "{68} TFLOP/s ({1.267} ms)"
# kernel headers: a Measured paragraph is checked to its end, a line with
# "measured" alone, other paragraphs not at all
printf '# t\n\n<!-- results-summary:begin -->\n<!-- results-summary:end -->\n' >"$tmp/README.md"
hdr() {
  printf '/*\n * t.cu: a header.\n *\n * Idea: 12 warps, 3 stages.\n *\n * Measured (run 1): 67.80 TFLOP/s\n * at B=32 S=512.%s\n *\n * ptxas: 99 registers.\n */\n' "$1" >"$tmp/kernels/t.cu"
  printf 'doc: kernels/t.cu\ndb: reports/t.db\n\nfigure: {67.80} TFLOP/s\nvalue: value(tflops(%s))\n' \
    "$SEL" >"$tmp/tools/figures/manifest/t.fig"
  "$PY" "$SRC/tools/figures/check.py" --root "$tmp" >"$tmp/out" 2>&1
}
hdr ""
if [ $? -eq 0 ]; then echo "ok   header"; else echo "FAIL header:"; cat "$tmp/out"; fails=$((fails + 1)); fi
hdr " Then 12.5 more."
if [ $? -eq 1 ] && grep -q "kernels/t.cu:7: number 12.5 is covered by no figure" "$tmp/out"; then
  echo "ok   header-uncovered"
else echo "FAIL header-uncovered:"; cat "$tmp/out"; fails=$((fails + 1)); fi
rm -f "$tmp/kernels/t.cu"
printf '# t\nno markers\n' >"$tmp/README.md"
rm -f "$tmp/tools/figures/manifest/t.fig"
"$PY" "$SRC/tools/figures/check.py" --root "$tmp" >"$tmp/out" 2>&1
if [ $? -eq 1 ] && grep -q "no <!-- results-summary:begin -->" "$tmp/out"; then echo "ok   no-region"
else echo "FAIL no-region:"; cat "$tmp/out"; fails=$((fails + 1)); fi
[ $fails -eq 0 ] || exit 1
echo "ok"
