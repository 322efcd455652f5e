#!/bin/sh
# regression_demo.sh: the committed regression demo
# (reports/seeds-and-ladders/attnbench.db, runs 11-13 of
# experiments/regress-demo.cfg on an H200: 11 the baseline, 12 an unchanged
# rerun, 13 with cuda_mma_pipeline forced to its smallest tiles, +13%
# slower non-causal, +6.5% causal by the runs' medians) judged by `compare
# --fail-on-regression`: two runs of 5 rounds a measurement, their rounds
# as independent samples (Mann-Whitney; paired round by round no test of 5
# rounds could reach p < 0.05). The slowed run must exit 3 with both
# cuda_mma_pipeline pairs REGRESSED and cuda_mma_swizzle unchanged; the
# unchanged rerun must exit 0 with nothing called.
# Usage: regression_demo.sh ATTNBENCH DATABASE
AB=$1 DB=$2
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cp "$DB" "$T/demo.db" || fail "cannot copy $DB"
"$AB" compare 11 13 --db "$T/demo.db" --fail-on-regression >"$T/slow.txt" 2>&1
st=$?
[ $st = 3 ] || { cat "$T/slow.txt" >&2; fail "compare 11 13: exit $st, want 3"; }
grep -q "^test: 4 pairs two runs: rounds as independent samples, Mann-Whitney" "$T/slow.txt" ||
  fail "compare 11 13 does not say it took the rounds as independent samples"
[ "$(grep -c ' cuda_mma_pipeline .* u .*REGRESSED$' "$T/slow.txt")" = 2 ] ||
  { cat "$T/slow.txt" >&2; fail "compare 11 13: the two cuda_mma_pipeline pairs are not REGRESSED"; }
[ "$(grep -c ' cuda_mma_swizzle .* unchanged$' "$T/slow.txt")" = 2 ] ||
  { cat "$T/slow.txt" >&2; fail "compare 11 13: the unchanged cuda_mma_swizzle was called"; }
echo "ok: the slowed run: exit 3, cuda_mma_pipeline REGRESSED (both), cuda_mma_swizzle unchanged"
"$AB" compare 11 12 --db "$T/demo.db" --fail-on-regression >"$T/same.txt" 2>&1
st=$?
[ $st = 0 ] || { cat "$T/same.txt" >&2; fail "compare 11 12: exit $st, want 0"; }
grep -q "^0 improved, 0 regressed, 4 unchanged" "$T/same.txt" ||
  { cat "$T/same.txt" >&2; fail "compare 11 12 called a change"; }
echo "ok: the unchanged rerun: exit 0, 4 unchanged"
