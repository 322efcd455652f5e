#!/bin/sh
# verdict_grid.sh: `attnbench stats`, `compare` and `report` (main table and
# --chain) must give the same verdict, for the same reason, on the same
# samples: one verdict rule (stats/verdict.c), one family definition (here a
# family of one in each), the same minimum resolvable shift (the A/A
# resolution of an A/A calibration run in the case's environment, built by
# grid_make with a known resolution; stats --min-shift gets the value it
# implies). The cases (grid_make.c) include the issue's
# hot-mode small shift (4.85 v 5.00 us, n = 200, floor 4 us) and its 20 -> 17
# us change, where the expected verdict is also checked.
# Usage: verdict_grid.sh ATTNBENCH GRID_MAKE TEMPLATE
AB=$1 MAKE=$2 TMPL=$3
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
rverdict() { # a report table row -> faster, slower, none or none/floor
  v=$(printf '%s\n' "$1" | sed 's/.*| \*\*\([^*]*\)\*\* |.*/\1/')
  case "$v" in
    faster) echo faster ;;
    slower) echo slower ;;
    "no significant difference (shift below the A/A resolution)") echo none/floor ;;
    "no significant difference"*) echo none ;;
    *) echo "unreadable:$v" ;;
  esac
}
"$MAKE" "$TMPL" "$T" >"$T/cases.txt" || fail "grid_make failed"
"$AB" import "$T/grid.json" --db "$T/g.db" >/dev/null || fail "import of the grid failed"
n=0
while read -r k floor expect; do
  s=$("$AB" stats "$T/case${k}_a.txt" "$T/case${k}_b.txt" --min-shift "$floor" --json) ||
    fail "case $k: stats failed"
  sv=$(printf '%s\n' "$s" | sed -n 's/^  "verdict": "\(.*\)",$/\1/p')
  sr=$(printf '%s\n' "$s" | sed -n 's/^  "verdict_reason": "\(.*\)",$/\1/p')
  case "$sv" in
    faster) want=faster ;;
    slower) want=slower ;;
    *) want=none ;;
  esac
  [ "$sr" = "shift below the A/A resolution" ] && want="$want/floor"
  base=$(( (${k#0} + 1) * 16 ))
  ur=$(printf 'a%07x' $((base + 1))) up=$(printf 'a%07x' $((base + 2))) uq=$(printf 'a%07x' $((base + 3)))
  rid=$("$AB" query "SELECT id FROM runs WHERE uuid LIKE '$ur%'" --db "$T/g.db" | sed -n 3p | tr -d ' ')
  "$AB" report "$rid" --db "$T/g.db" --no-plots -o "$T/r.md" >/dev/null || fail "case $k: report failed"
  "$AB" report "$rid" --db "$T/g.db" --no-plots --chain -o "$T/rc.md" >/dev/null || fail "case $k: report --chain failed"
  # main table of the plain report: the same family of one as stats
  got=$(rverdict "$(grep '^| cuda_mma_pipeline |' "$T/r.md")")
  [ "$got" = "$want" ] || fail "case $k: stats says $want ($sv, $sr), report says $got"
  # --chain: the chain table's row (the baseline cuda_mma_swizzle against the
  # rung before it, cuda_mma_pipeline: the same pair, mirrored) must agree
  # with the main table of the same report
  main=$(rverdict "$(grep '^| cuda_mma_pipeline |' "$T/rc.md")")
  chain=$(rverdict "$(grep '^| cuda_mma_swizzle | cuda_mma_pipeline |' "$T/rc.md")")
  case "$chain" in faster*) chain=slower${chain#faster} ;; slower*) chain=faster${chain#slower} ;; esac
  [ -n "$chain" ] && [ "$chain" = "$main" ] || fail "case $k: --chain report: main table $main, chain table (mirrored) $chain"
  cv=$("$AB" compare "$up" "$uq" --db "$T/g.db" | grep '^B=4 ' | sed 's/.*  \([^ ].*\)$/\1/')
  case "$cv" in
    improved) got=faster ;;
    REGRESSED) got=slower ;;
    "unchanged (shift below the A/A resolution)") got=none/floor ;;
    unchanged*) got=none ;;
    *) fail "case $k: compare verdict '$cv'" ;;
  esac
  [ "$got" = "$want" ] || fail "case $k: stats says $want ($sv, $sr), compare says $got ($cv)"
  if [ "$expect" != "-" ]; then
    [ "${want%/floor}" = "$expect" ] || fail "case $k: all say $want, expected $expect"
  fi
  echo "ok: case $k (floor $floor ms): stats, report, compare say $want; report --chain: main $main, chain $chain"
  n=$((n + 1))
done <"$T/cases.txt"
[ "$n" -ge 10 ] || fail "only $n cases"
echo "ok: $n cases agree"
