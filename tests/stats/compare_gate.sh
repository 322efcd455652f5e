#!/bin/sh
# compare_gate.sh: `attnbench compare --fail-on-regression` cannot pass by
# dropping data: every (variant, configuration) of run A that could not be
# compared is listed with its reason, and the gate exits 4 when any could
# not be compared or nothing was (3 when something regressed, 0 otherwise).
# Runs from grid_make.c: gatea (both variants ok), gatec (the same samples),
# gateb (cuda_mma_swizzle failed), gated (cuda_mma_pipeline 1.5x slower),
# gatee (cuda_mma_pipeline with 2 samples).
# Usage: compare_gate.sh ATTNBENCH GRID_MAKE TEMPLATE
AB=$1 MAKE=$2 TMPL=$3
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
"$MAKE" "$TMPL" "$T" >/dev/null || fail "grid_make failed"
"$AB" import "$T/grid.json" --db "$T/g.db" >/dev/null || fail "import failed"
uuid() { case $1 in gatea) echo 0000a001 ;; gateb) echo 0000a002 ;; gatec) echo 0000a003 ;;
  gated) echo 0000a004 ;; gatee) echo 0000a005 ;; esac; }
gate() { # expected status, run A, run B (names above)
  want=$1; a=$(uuid "$2"); b=$(uuid "$3"); shift 3; set -- "$a" "$b"
  "$AB" compare "$@" --db "$T/g.db" --fail-on-regression >"$T/out.txt" 2>"$T/err.txt"
  st=$?
  [ "$st" = "$want" ] || { cat "$T/out.txt" "$T/err.txt" >&2; fail "compare $*: exit $st, want $want"; }
}
gate 0 gatea gatec
grep -q "2 unchanged" "$T/out.txt" || fail "gatea v gatec: not 2 unchanged"
echo "ok: identical runs pass (exit 0)"
gate 4 gatea gateb
grep -q "not compared (1)" "$T/out.txt" || fail "gatea v gateb: the dropped pair is not listed"
grep -q "cuda_mma_swizzle .*B: status error" "$T/out.txt" || fail "reason 'B: status error' missing"
grep -q "1 of A could not be compared" "$T/err.txt" || fail "no gate message"
echo "ok: a pair failed in B fails the gate (exit 4) though the other compared, listed with its reason"
gate 4 gatea gatee
grep -q "cuda_mma_pipeline .*too few samples (A 50, B 2" "$T/out.txt" || fail "reason 'too few samples' missing"
echo "ok: too few samples in B fails the gate (exit 4)"
gate 4 gateb gatee
grep -q "cuda_mma_swizzle .*A: status error" "$T/out.txt" || fail "reason 'A: status error' missing"
grep -q "nothing was compared" "$T/err.txt" || fail "nothing compared: no message"
echo "ok: nothing compared fails the gate (exit 4)"
gate 3 gatea gated
grep -q "REGRESSED" "$T/out.txt" || fail "regression not shown"
echo "ok: a regression exits 3"
"$AB" compare 0000a001 0000a002 --db "$T/g.db" >"$T/out.txt" 2>&1 || fail "without --fail-on-regression compare must exit 0"
grep -q "not compared (1)" "$T/out.txt" || fail "without the gate the dropped pair is still listed"
echo "ok: without --fail-on-regression: exit 0, dropped pairs still listed"
