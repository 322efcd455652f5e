#!/bin/sh
# walltime_test.sh AB: a CPU run records where its wall time went
# (run_walltime, db/walltime.h) and its report prints it, per phase and
# per variant, in markdown and in `report --json`. Independent side: the
# samples themselves in the database (timed_s, the run's and each
# variant's, must equal their sum / 1000 up to rounding; each variant's
# measurements their count), and the clock (the phases are parts of the
# total, so they may not add up to more than it; the variants' wall time
# is part of the run's).
set -u
AB=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
cat >w.cfg <<CFG
name = "w";
variants = ["cpu_reference", "cpu_flash"];
sweep = { B = 1; H = 2; S = [32, 48]; D = 16; dtype = "fp32"; };
warmup = 3; samples = 12;
CFG
"$AB" run w.cfg --db w.db >/dev/null 2>log.txt || { cat log.txt; fail "run failed"; }
grep -q "of it timed samples" log.txt || fail "run did not print its timed share"
row=$(sqlite3 w.db "SELECT total_s, timed_s, sampling_s, warmup_s + check_s + setup_s + inputs_s + ceilings_s + adapter_s + store_s FROM run_walltime WHERE run_id = 1")
[ -n "$row" ] || fail "no run_walltime row"
sum_ms=$(sqlite3 w.db "SELECT sum(ms) FROM samples")
echo "$row|$sum_ms" | awk -F'|' '{
  total = $1; timed = $2; sampling = $3; rest = $4; samples_s = $5 / 1000;
  if (timed <= 0 || total <= 0) { print "FAIL: zero times: " $0; exit 1 }
  if ((timed - samples_s) ^ 2 > (1e-9 * samples_s) ^ 2) { print "FAIL: timed_s " timed " != sum of samples " samples_s; exit 1 }
  if (sampling < timed * (1 - 1e-9)) { print "FAIL: sampling wall " sampling " < timed " timed; exit 1 }
  if (sampling + rest > total * (1 + 1e-9)) { print "FAIL: phases " sampling + rest " exceed the total " total; exit 1 }
}' || exit 1
"$AB" report 1 --db w.db -o r.md --no-plots >/dev/null || fail "report failed"
grep -q "^## Where the time went" r.md || fail "no wall-time section"
grep -q "^| timed samples (the samples themselves) |" r.md || fail "no timed-samples row"
grep -q "^| cpu_reference | 2 |" r.md || fail "no per-variant row of cpu_reference"
grep -q "^| cpu_flash | 2 |" r.md || fail "no per-variant row of cpu_flash"
"$AB" report 1 --db w.db --json -o r.json >/dev/null || fail "report --json failed"
for v in cpu_reference cpu_flash; do
  got=$(sqlite3 :memory: "SELECT json_extract(value, '\$.phases.timed_s') || '|' ||
      json_extract(value, '\$.measurements') || '|' || json_extract(value, '\$.total_s')
      FROM json_each(json_extract(readfile('r.json'), '\$.walltime.variants'))
      WHERE json_extract(value, '\$.variant') = '$v'")
  want=$(sqlite3 w.db "SELECT sum(s.ms) || '|' || count(DISTINCT m.id) FROM samples s
      JOIN measurements m ON m.id = s.measurement_id WHERE m.variant = '$v'")
  total=$(sqlite3 w.db "SELECT total_s FROM run_walltime WHERE run_id = 1")
  echo "$got|$want|$total" | awk -F'|' -v v="$v" '{
    if ($1 == "" || $4 == "") { print "FAIL: " v ": no JSON account or no samples: " $0; exit 1 }
    if (($1 - $4 / 1000) ^ 2 > (1e-6 * $1) ^ 2) { print "FAIL: " v " timed_s " $1 " != its samples " $4 / 1000; exit 1 }
    if ($2 != $5) { print "FAIL: " v " measurements " $2 " != " $5; exit 1 }
    if ($3 < $1 || $3 > $6) { print "FAIL: " v " wall " $3 " outside [timed, run total " $6 "]"; exit 1 }
  }' || exit 1
done
[ "$(sqlite3 :memory: "SELECT json_extract(readfile('r.json'), '\$.sampling.min_time_s')")" = 0.02 ] ||
  fail "report --json lacks the default GPU-time budget"
echo "ok: wall time recorded and reported, per phase and per variant"
