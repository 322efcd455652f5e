#!/bin/sh
# rounds_agree.sh: on the same samples with the same rounds, `attnbench
# stats` (files with a round column), `report --json` and the markdown
# report give the same speedup, interval, p and verdict: one comparison
# (src/analysis/pair.h), paired over rounds. `compare --within-run` of the
# same samples as two runs does not pair rounds of different runs: its p is
# Mann-Whitney's on the two runs' per-round settled medians, as `stats`
# gives it on those medians; plain `compare` judges by the between-run
# variance of the database's other runs of the same thing and says so.
# The cases (rounds_make.c) include 80 samples as 20 rounds with A 2.5%
# slower under 15% round effects, where all must say slower (an i.i.d.
# analysis of the same samples says no difference), and a case whose
# per-round ratios are serially correlated.
# Usage: rounds_agree.sh ATTNBENCH ROUNDS_MAKE TEMPLATE
AB=$1 MAKE=$2 TMPL=$3
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
"$MAKE" "$TMPL" "$T" >"$T/cases.txt" || fail "rounds_make failed"
"$AB" import "$T/rounds.json" --db "$T/r.db" >/dev/null || fail "import failed"
jget() { # FILE KEY: the first "KEY": value of a JSON file, as printed
  sed -n "s/^ *\"$2\": \\([^,]*\\),*\$/\\1/p" "$1" | head -1 | tr -d '"'
}
settled() { # FILE of "MS ROUND" lines -> the settled median of each round, one a line
  awk '{ if (!($2 in first)) { first[$2] = $1; n[$2] = 0; order[++nr] = $2 }
         else v[$2, ++n[$2]] = $1 }
       END { for (i = 1; i <= nr; i++) { r = order[i]; m = n[r]
               if (m == 0) { printf "%.17g\n", first[r]; continue }
               for (j = 1; j <= m; j++) w[j] = v[r, j]
               for (j = 2; j <= m; j++) { x = w[j]; for (q = j - 1; q >= 1 && w[q] > x; q--) w[q + 1] = w[q]; w[q + 1] = x }
               printf "%.17g\n", (m % 2) ? w[(m + 1) / 2] : (w[m / 2] + w[m / 2 + 1]) / 2 } }' "$1"
}
same() { # A B: equal to 9 significant digits
  awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a);
    exit !(d <= 1e-9 * m + 1e-15) }'
}
n=0
while read -r k expect; do
  "$AB" stats "$T/case${k}_a.txt" "$T/case${k}_b.txt" --json >"$T/s.json" || fail "case $k: stats failed"
  grep -q '"paired": true' "$T/s.json" || fail "case $k: stats did not pair the rounds"
  # stats' speedup block: ratio, lo, hi
  sr=$(sed -n '/"speedup": {/,/}/p' "$T/s.json" | sed -n 's/.*"ratio": \([^,]*\),*/\1/p')
  slo=$(sed -n '/"speedup": {/,/}/p' "$T/s.json" | sed -n 's/.*"lo": \([^,]*\),*/\1/p')
  shi=$(sed -n '/"speedup": {/,/}/p' "$T/s.json" | sed -n 's/.*"hi": \([^,]*\),*/\1/p')
  sp=$(sed -n 's/^  "p": \([^,]*\),*$/\1/p' "$T/s.json")
  sv=$(sed -n 's/^  "verdict": "\(.*\)",$/\1/p' "$T/s.json")
  base=$(( (${k#0} + 1) * 16 ))
  ur=$(printf 'c%07x' $((base + 1))) up=$(printf 'c%07x' $((base + 2))) uq=$(printf 'c%07x' $((base + 3)))
  rid=$("$AB" query "SELECT id FROM runs WHERE uuid LIKE '$ur%'" --db "$T/r.db" | sed -n 3p | tr -d ' ')
  "$AB" report "$rid" --db "$T/r.db" --json -o "$T/r.json" >/dev/null || fail "case $k: report --json failed"
  "$AB" report "$rid" --db "$T/r.db" --no-plots -o "$T/r.md" >/dev/null || fail "case $k: report failed"
  rr=$(jget "$T/r.json" speedup)
  rlo=$(sed -n '/"speedup_ci": \[/,/\]/p' "$T/r.json" | sed -n 2p | tr -d ' ,')
  rhi=$(sed -n '/"speedup_ci": \[/,/\]/p' "$T/r.json" | sed -n 3p | tr -d ' ,')
  rp=$(jget "$T/r.json" p)
  rv=$(jget "$T/r.json" verdict)
  grep -q '"paired": true' "$T/r.json" || fail "case $k: report did not pair the rounds"
  for pair in "speedup $sr $rr" "lo $slo $rlo" "hi $shi $rhi" "p $sp $rp"; do
    set -- $pair
    same "$2" "$3" || fail "case $k: $1: stats $2, report --json $3"
  done
  case "$rv" in
    faster|slower) rw=$rv ;; *) rw=none ;;
  esac
  case "$sv" in
    faster|slower) sw=$sv ;; *) sw=none ;;
  esac
  [ "$sw" = "$rw" ] || fail "case $k: stats says $sw ($sv), report $rw ($rv)"
  # the markdown: the same numbers as the JSON (formatted), the same verdict
  row=$(grep '^| cuda_mma_pipeline |' "$T/r.md")
  want=$(awk -v a="$rr" -v b="$rlo" -v c="$rhi" 'BEGIN { printf "%.3f× [%.3f, %.3f]", a, b, c }')
  case "$row" in *"$want"*) ;; *) fail "case $k: markdown row lacks '$want': $row" ;; esac
  # compare: run B (before) against run A (after), two runs: their rounds
  # are not paired in time, so compare takes each run's per-round settled
  # medians as two independent samples (Mann-Whitney): its p must be the
  # i.i.d. `stats` p of those medians (rank-based, so the log changes
  # nothing), computed here from the case files (first sample of a round
  # left out, median of the rest, type 7)
  cl=$("$AB" compare "$up" "$uq" --db "$T/r.db" --within-run | grep '^B=4 ')
  case "$cl" in *"] u "*) ;; *) fail "case $k: compare --within-run did not take the two runs' rounds as independent samples: $cl" ;; esac
  for s in a b; do settled "$T/case${k}_$s.txt" >"$T/m$s.txt"; done
  mp=$("$AB" stats "$T/ma.txt" "$T/mb.txt" --json | sed -n 's/^  "p": \([^,]*\),*$/\1/p')
  cpw=$(awk -v p="$mp" 'BEGIN { printf "%.2g", p }')
  case "$cl" in *" $cpw "*) ;; *) fail "case $k: compare's p (Holm) is not the Mann-Whitney p $cpw of the per-round medians: $cl" ;; esac
  # without --within-run the database's other runs of the same variant and
  # configuration (the other cases' runs, same environment) give the
  # between-run variance, and compare says so
  "$AB" compare "$up" "$uq" --db "$T/r.db" >"$T/c.txt" || fail "case $k: compare failed"
  grep -q "^between-run variance: used for" "$T/c.txt" || fail "case $k: compare did not use the between-run variance"
  grep '^B=4 ' "$T/c.txt" | grep -q '] b ' || fail "case $k: the pair is not marked b"
  if [ "$k" = 04 ]; then # A's noise AR(1) 0.85 across rounds: the serial-correlation rule
    grep -q '"serial_correlation_widened": true' "$T/s.json" || fail "case 04: stats did not widen"
    grep -q '"serial_correlation_widened": true' "$T/r.json" || fail "case 04: report did not widen"
  fi
  if [ "$expect" != "-" ]; then
    [ "$sw" = "$expect" ] || fail "case $k: all say $sw, expected $expect"
  fi
  echo "ok: case $k: stats, report, report --json: speedup $sr [$slo, $shi], p $sp, $sw; compare of two runs: Mann-Whitney of the per-round medians, p $cpw"
  n=$((n + 1))
done <"$T/cases.txt"
[ "$n" -ge 5 ] || fail "only $n cases"
# the same samples without their rounds: i.i.d., and the first case is not
# called slower (the point of pairing)
cut -d' ' -f1 "$T/case00_a.txt" >"$T/a1.txt"; cut -d' ' -f1 "$T/case00_b.txt" >"$T/b1.txt"
v=$("$AB" stats "$T/a1.txt" "$T/b1.txt" --json | sed -n 's/^  "verdict": "\(.*\)",$/\1/p')
[ "$v" = "no significant difference" ] || fail "case 00 i.i.d.: $v (the round effects should hide it)"
# a round column in one file only is refused, naming both
"$AB" stats "$T/case00_a.txt" "$T/b1.txt" >/dev/null 2>"$T/err.txt" && fail "one round column accepted"
grep -q "case00_a.txt has a round column and .*b1.txt has none" "$T/err.txt" || fail "message: $(cat "$T/err.txt")"
echo "ok: $n cases agree; without rounds the same samples are i.i.d."
