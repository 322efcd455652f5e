#!/bin/sh
# tests/check/cli_check.sh CASE ATTNBENCH_CHECK ATTNBENCH: end-to-end guards
# of the correctness path. ATTNBENCH_CHECK is attnbench with the test-only
# variant cpu_broken_scale linked in (broken_cpu.c); ATTNBENCH is the real
# program. Expected values come from sqlite3(1), sort(1) and awk(1) over the
# stored rows, never from attnbench.
#   broken-variant  a run of cpu_flash and cpu_broken_scale: the broken one is
#                   stored `failed`, with no samples, its message names the
#                   check; cpu_flash is `ok` with samples; the report lists the
#                   failure; the real attnbench neither lists nor runs it
#   broken-bwd      cpu_flash and cpu_broken_dv (dV 1% off) with
#                   pass = fwd, bwd, fwd+bwd: the broken backward is stored
#                   `failed` on dV alone (dQ, dK pass), untimed; its forward
#                   and cpu_flash's every pass are `ok`; the report's gradient
#                   table says so
#   zero-length     S = 0 (and B, H, D = 0) refused with the file and line
#   throttled       samples flagged throttled stay out of the report's median
set -u
case_name=$1; ABC=$2; AB=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { sqlite3 "$1" "$2"; }

cfg() { # file, variants, extra
  cat >"$1" <<CFG
name = "check-$case_name";
hypothesis = "test";
variants = [$2];
sweep = { B = 1; H = 2; S = [17, 40]; D = 16; causal = [false, true]; dtype = "fp32"; };
warmup = 1;
samples = 12;
round_size = 4;
seed = 3;
$3
CFG
}

case $case_name in
broken-bwd)
  cat >x.cfg <<CFG
name = "check-bwd";
hypothesis = "test";
variants = ["cpu_flash", "cpu_broken_dv"];
sweep = { B = 1; H = 4; H_kv = [4, 2]; S = 40; D = 16; causal = [false, true]; dtype = "fp32";
          pass = ["fwd", "bwd", "fwd+bwd"]; };
warmup = 1; samples = 8; round_size = 4; seed = 5;
CFG
  "$ABC" run x.cfg --db t.db >out.txt 2>err.txt; rc=$?
  [ $rc = 3 ] || { cat err.txt >&2; fail "run: exit $rc, want 3 (a measurement failed its check)"; }
  v=$(q t.db "SELECT count(*) FROM measurements WHERE variant = 'cpu_broken_dv' AND pass != 'fwd' AND status = 'failed' AND message LIKE 'correctness: dV:%not timed'")
  [ "$v" = 8 ] || fail "cpu_broken_dv: $v of 8 backward measurements failed on dV (want 8)"
  v=$(q t.db "SELECT count(*) FROM grad_checks g JOIN measurements m ON m.id = g.measurement_id WHERE m.variant = 'cpu_broken_dv' AND g.pass = (g.grad != 'dV')")
  [ "$v" = 24 ] || fail "cpu_broken_dv: $v of 24 gradient rows as expected (dQ, dK pass; dV fails)"
  v=$(q t.db "SELECT count(*) FROM samples s JOIN measurements m ON m.id = s.measurement_id WHERE m.variant = 'cpu_broken_dv' AND m.pass != 'fwd'")
  [ "$v" = 0 ] || fail "cpu_broken_dv's backward was timed: $v samples"
  v=$(q t.db "SELECT count(*) FROM measurements WHERE status = 'ok' AND (variant = 'cpu_flash' OR pass = 'fwd')")
  [ "$v" = 16 ] || fail "$v of 16 measurements ok (cpu_flash every pass, cpu_broken_dv forward)"
  v=$(q t.db "SELECT count(*) FROM grad_checks g JOIN measurements m ON m.id = g.measurement_id WHERE m.variant = 'cpu_flash' AND g.pass = 1 AND g.nonfinite = 0 AND g.elems > 0")
  [ "$v" = 24 ] || fail "cpu_flash: $v of 24 gradient rows pass"
  v=$(q t.db "SELECT count(*) FROM measurements WHERE pass = 'fwd+bwd' AND abs(flops / (3.5 * 4 * 1 * 4 * 40 * 40 * 16 / (1 + causal)) - 1) < 1e-12")
  [ "$v" = 8 ] || fail "fwd+bwd FLOPs are not 3.5 forwards ($v of 8)"
  "$ABC" report 1 --db t.db -o r.md >/dev/null 2>&1 || fail "report failed"
  v=$(grep -c '^| B=1 H=4 H_kv=2 S=40 D=16 causal fp32 bwd | cpu_broken_dv | dV | .* | \*\*no\*\* |$' r.md)
  [ "$v" = 1 ] || fail "report's gradient table lacks the failed dV row"
  v=$(grep -c '^| .* | cpu_flash | d[QKV] | .* | yes |$' r.md)
  [ "$v" = 24 ] || fail "report's gradient table shows $v passing cpu_flash rows, want 24"
  ;;
broken-variant)
  cfg x.cfg '"cpu_flash", "cpu_broken_scale"' ''
  "$ABC" run x.cfg --db t.db >out.txt 2>err.txt; rc=$?
  [ $rc = 3 ] || { cat err.txt >&2; fail "run: exit $rc, want 3 (a measurement failed its check)"; }
  n_failed=$(q t.db "SELECT count(*) FROM measurements WHERE variant = 'cpu_broken_scale' AND status = 'failed'")
  n_broken=$(q t.db "SELECT count(*) FROM measurements WHERE variant = 'cpu_broken_scale'")
  [ "$n_broken" = 4 ] && [ "$n_failed" = 4 ] || fail "cpu_broken_scale: $n_failed of $n_broken stored failed (want 4 of 4)"
  s=$(q t.db "SELECT count(*) FROM samples s JOIN measurements m ON m.id = s.measurement_id WHERE m.variant = 'cpu_broken_scale'")
  [ "$s" = 0 ] || fail "cpu_broken_scale was timed: $s samples"
  msg=$(q t.db "SELECT count(*) FROM measurements WHERE variant = 'cpu_broken_scale' AND message LIKE 'correctness:%not timed'")
  [ "$msg" = 4 ] || fail "messages do not name the check"
  ok=$(q t.db "SELECT count(*) FROM measurements WHERE variant = 'cpu_flash' AND status = 'ok' AND rows_checked = rows_total")
  [ "$ok" = 4 ] || fail "cpu_flash: $ok of 4 ok with every row checked"
  s=$(q t.db "SELECT count(*) FROM samples s JOIN measurements m ON m.id = s.measurement_id WHERE m.variant = 'cpu_flash'")
  [ "$s" = 48 ] || fail "cpu_flash: $s samples, want 48"
  "$ABC" report 1 --db t.db -o r.md >/dev/null 2>&1 || fail "report failed"
  lines=$(grep -c '| cpu_broken_scale | failed |' r.md)
  [ "$lines" = 4 ] || fail "report shows $lines failed rows of cpu_broken_scale, want 4"
  grep -q '^- .*cpu_broken_scale: correctness: .*not timed' r.md || fail "report has no failure line"
  grep -q '^Coverage: every row of every (b, h) slice was checked in all 8 checked measurements' r.md ||
    fail "report does not state the check's coverage"
  # a sampled check (as stored for a large CPU configuration): the report
  # states rows, coverage and the escape probability 1 - 20/34 = 0.412
  m=$(q t.db "SELECT min(id) FROM measurements WHERE variant = 'cpu_flash'")
  q t.db "UPDATE measurements SET check_seed = 12345, rows_checked = 20 WHERE id = $m"
  "$ABC" report 1 --db t.db -o r2.md >/dev/null 2>&1 || fail "report failed"
  grep -q '^Coverage: 7 of 8 checked measurements compared every row; 1 compared a fresh sample .*: 20 of 34 rows (58.8%); a single wrong row escapes a sampled check with probability at most 0.412 .*Seeds: 12345\.' r2.md ||
    { grep '^Coverage' r2.md >&2; fail "report does not state the sampled coverage"; }
  # the real program: never listed, never run
  "$AB" variants >v.txt 2>&1
  ! grep -q broken v.txt || fail "attnbench variants lists a broken variant"
  if "$AB" run x.cfg --db u.db >/dev/null 2>e.txt; then fail "attnbench ran cpu_broken_scale"; fi
  grep -q "unknown variant 'cpu_broken_scale'" e.txt || { cat e.txt >&2; fail "wrong refusal"; }
  echo "ok: cpu_broken_scale stored failed 4/4, untimed, reported; unknown to attnbench"
  ;;
zero-length)
  for ax in S B H D; do
    cfg z.cfg '"cpu_flash"' ''
    sed "s/ $ax = [^;]*;/ $ax = 0;/" z.cfg >z0.cfg
    grep -q " $ax = 0;" z0.cfg || fail "could not set $ax = 0"
    if "$AB" run z0.cfg --db z.db >/dev/null 2>e.txt; then fail "$ax = 0 accepted"; fi
    grep -q "z0.cfg:4: $ax must be" e.txt || { cat e.txt >&2; fail "$ax = 0: message"; }
    echo "ok: $ax = 0 -> $(head -n 1 e.txt)"
  done
  [ ! -e z.db ] || [ "$(q z.db 'SELECT count(*) FROM runs')" = 0 ] || fail "a refused run was stored"
  ;;
throttled)
  cfg t.cfg '"cpu_flash"' ''
  sed -i 's/samples = 12;/samples = 21;/' t.cfg
  "$AB" run t.cfg --db t.db >/dev/null 2>&1 || fail "run failed"
  # flag the 10 fastest samples of the first measurement throttled
  m=$(q t.db "SELECT min(id) FROM measurements")
  q t.db "UPDATE samples SET throttled = 1 WHERE measurement_id = $m AND idx IN (SELECT idx FROM samples WHERE measurement_id = $m ORDER BY ms LIMIT 10)"
  # independent median of the 11 unthrottled samples (odd count: the middle one)
  want=$(q t.db "SELECT ms FROM samples WHERE measurement_id = $m AND throttled = 0" | sort -g | awk '{a[NR]=$1} END {print a[(NR+1)/2]}')
  all=$(q t.db "SELECT ms FROM samples WHERE measurement_id = $m" | sort -g | awk '{a[NR]=$1} END {print a[(NR+1)/2]}')
  "$AB" report 1 --db t.db -o r.md >/dev/null 2>&1 || fail "report failed"
  got=$(q t.db "SELECT median_ms FROM measurement_summary WHERE measurement_id = $m")
  awk -v a="$got" -v b="$want" 'BEGIN { exit !(a == b) }' || fail "summary median $got, unthrottled median $want"
  # the report's row: n = 11 and the unthrottled median (ms, 4 decimals)
  # the report's latency format: four decimals, more below 0.1 ms (four significant digits)
  wantf=$(awk -v x="$want" 'BEGIN { d = 4; for (a = x; a < 0.1 && d < 9; a *= 10) d++; printf sprintf("%%.%df", d), x }')
  # (columns: variant | n | rounds | median ms | ...)
  grep -Eq "^\| cpu_flash \| 11 \| [0-9]+ \| $wantf \|" r.md || { grep '| cpu_flash |' r.md >&2; fail "report row is not n = 11, median $wantf"; }
  grep -q "10 samples taken while throttled, excluded" r.md || fail "report does not say 10 samples were excluded"
  echo "ok: throttled samples excluded (median $want, with them $all)"
  ;;
*) fail "unknown case $case_name" ;;
esac
