#!/bin/sh
# tests/shard/shard_test.sh: one experiment split into parts and put back
# together, end to end on the CPU variants. Usage:
#   shard_test.sh CASE ATTNBENCH SOURCE_ROOT
# Cases:
#   split-merge   experiments/quickstart-cpu.cfg run whole, and as --shard 1/2
#                 plus Slurm array task 2 of 2 into two databases merged
#                 (twice) into a third: the same (variant, configuration) set,
#                 none missing or doubled, every sample there; status says
#                 complete / names the missing part and its command
#   resume-part   a part interrupted (SIGINT) part-way: status shows it
#                 interrupted with a resume command; that command measures only
#                 the part's missing pairs
#   workers       --devices 0,0,0: three concurrent workers into one database
#                 (WAL): every expected row exactly once, the workers' runs
#                 overlapped in time, labelled as sharing a device
#   kill-worker   --devices 0,0 with one worker SIGKILLed part-way: the other
#                 part completes, the killed part's measurements stay, status
#                 shows it abandoned and its resume command completes it
#   sbatch        contrib/slurm/attnbench-array.sbatch with the Slurm variables
#                 set by hand (tasks 1 and 2 of --array=1-2), its merge step
#                 twice, and --submit with a fake sbatch on PATH
# The expected (variant, configuration) sets are enumerated here from the
# experiment text's sweep (shell loops), not read from attnbench.
# Exit 0 pass, 1 fail, 77 skipped.
set -u
case_name=$1; AB=$2; SRC=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v sqlite3 >/dev/null 2>&1 || { echo "skipped: no sqlite3"; exit 77; }
q() { sqlite3 "$1" "$2"; }
unset SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_MAX SLURM_ARRAY_TASK_COUNT \
      SLURM_ARRAY_TASK_STEP SLURM_ARRAY_JOB_ID SLURM_JOB_ID CUDA_VISIBLE_DEVICES 2>/dev/null

# every (variant, B, H, S, D, causal, dtype) of the quickstart sweep:
# variants cpu_reference, cpu_flash; B 1, H 2, S 128 256, D 64, causal 0 1, fp32
quick_set() {
  for v in cpu_flash cpu_reference; do for s in 128 256; do for c in 0 1; do
    echo "$v|1|2|$s|64|$c|fp32"; done; done; done | sort
}
meas() { # db: the stored (variant, configuration) rows, duplicates kept
  q "$1" "SELECT variant, B, H, S, D, causal, dtype FROM measurements WHERE status = 'ok'" | sort
}
# the quickstart experiment with fewer samples: same configurations, variants
fast_cfg() {
  sed -e 's/^samples = 50;/samples = 6;/' -e 's/^round_size = 5;/round_size = 3;/' \
      -e 's/^name = "quickstart-cpu";/name = "quickstart-cpu-fast";/' \
      "$SRC/experiments/quickstart-cpu.cfg" >"$1"
  grep -q '^samples = 6;' "$1" || fail "could not derive $1 from quickstart-cpu.cfg"
}

case "$case_name" in
split-merge)
  cfg=$SRC/experiments/quickstart-cpu.cfg
  quick_set >expected.txt
  "$AB" run "$cfg" --db whole.db >/dev/null 2>whole.log || { cat whole.log; fail "whole run"; }
  "$AB" run "$cfg" --shard 1/2 --db a.db >/dev/null 2>a.log || { cat a.log; fail "--shard 1/2"; }
  SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=2 \
    "$AB" run "$cfg" --db b.db >/dev/null 2>b.log || { cat b.log; fail "Slurm task 2 of 2"; }
  grep -q 'shard 2/2 (from the Slurm array task)' b.log || fail "Slurm task not announced: $(cat b.log)"
  [ "$(q b.db 'SELECT shard_k || "/" || shard_n FROM runs')" = 2/2 ] || fail "Slurm task not stored as 2/2"
  [ "$(q a.db 'SELECT command FROM runs')" = "attnbench run $cfg --shard 1/2" ] || fail "stored command"
  # the two parts are disjoint and neither is empty
  [ -s "$(meas a.db >pa.txt; echo pa.txt)" ] && [ -s "$(meas b.db >pb.txt; echo pb.txt)" ] || fail "an empty part"
  [ -z "$(sort pa.txt pb.txt | uniq -d)" ] || fail "parts overlap: $(sort pa.txt pb.txt | uniq -d)"
  # status of one part: the other is missing, with its command; exit 3
  "$AB" status "$cfg" --db a.db >st_a.txt; rc=$?
  [ $rc -eq 3 ] || fail "status of a half: exit $rc, expected 3"
  grep -q "attnbench run $cfg --shard 2/2 --db a.db" st_a.txt || fail "no rerun command: $(cat st_a.txt)"
  grep -q '1 of 2 parts complete' st_a.txt || fail "status: $(cat st_a.txt)"
  for i in 1 2; do
    "$AB" merge a.db --db merged.db 2>/dev/null || fail "merge a ($i)"
    "$AB" merge b.db --db merged.db 2>/dev/null || fail "merge b ($i)"
  done
  meas whole.db >whole.txt; meas merged.db >merged.txt
  diff expected.txt whole.txt >/dev/null || fail "whole run: $(diff expected.txt whole.txt)"
  diff whole.txt merged.txt || fail "merged parts differ from the whole run"
  [ "$(q merged.db 'SELECT count(*) FROM runs')" = 2 ] || fail "merging twice added runs"
  # every sample of every measurement: 50 each, as in the whole run
  [ "$(q merged.db 'SELECT count(*) FROM samples')" = "$(q whole.db 'SELECT count(*) FROM samples')" ] ||
    fail "sample counts differ"
  [ "$(q merged.db 'SELECT count(*) FROM samples')" = 400 ] || fail "expected 8 x 50 samples (experiments/quickstart-cpu.cfg)"
  "$AB" status "$cfg" --db merged.db >st_m.txt || fail "status of the merge: $(cat st_m.txt)"
  grep -q '2 of 2 parts complete: the experiment is complete' st_m.txt || fail "$(cat st_m.txt)"
  # a report of one part says it is one part
  run=$(q merged.db "SELECT id FROM runs WHERE shard_k = 1")
  "$AB" report "$run" --db merged.db --no-plots -o r.md >/dev/null || fail "report"
  grep -q '| shard | part 1 of 2 of experiment' r.md || fail "report does not name the shard"
  ;;
resume-part)
  fast_cfg fast.cfg
  # part 2 of 2 has 3 configurations; stop it after its first measurement
  "$AB" run fast.cfg --shard 2/2 --db p.db >/dev/null 2>p.log &
  pid=$!
  for _ in $(seq 1 600); do
    [ "$(q p.db 'SELECT count(*) FROM measurements' 2>/dev/null)" -ge 1 ] 2>/dev/null && break
    sleep 0.1
  done
  kill -INT $pid; wait $pid; rc=$?
  [ $rc -eq 130 ] || fail "interrupted part: exit $rc, expected 130 ($(cat p.log))"
  n1=$(q p.db 'SELECT count(*) FROM measurements')
  [ "$n1" -lt 6 ] || fail "the part finished before the signal ($n1 measurements); cannot test"
  "$AB" status fast.cfg --db p.db >st.txt; rc=$?
  [ $rc -eq 3 ] || fail "status exit $rc"
  grep -Eq '^ +2 +3 +[0-9] of 6 +1 +interrupted' st.txt || fail "part 2 not interrupted: $(cat st.txt)"
  grep -q "attnbench run fast.cfg --shard 1/2 --db p.db" st.txt || fail "no command for part 1"
  cmd=$(grep -o 'attnbench resume [0-9]* --db p.db' st.txt) || fail "no resume command: $(cat st.txt)"
  "$AB" ${cmd#attnbench } >/dev/null 2>r.log || { cat r.log; fail "$cmd"; }
  # the resumed part measured exactly its own 3 configurations x 2 variants
  [ "$(q p.db 'SELECT count(*) FROM measurements')" = 6 ] || fail "resumed part: $(q p.db 'SELECT count(*) FROM measurements') measurements, expected 6"
  "$AB" run fast.cfg --shard 1/2 --db p.db >/dev/null 2>&1 || fail "part 1"
  "$AB" status fast.cfg --db p.db >st2.txt || fail "not complete: $(cat st2.txt)"
  quick_set >expected.txt; meas p.db >got.txt
  diff expected.txt got.txt || fail "resumed split differs from the experiment's set"
  ;;
workers)
  # a sweep of 12 small configurations, so three workers commit often at once
  cat >many.cfg <<CFG
name = "many";
hypothesis = "three workers into one database lose no row";
variants = ["cpu_reference", "cpu_flash"];
sweep = { B = 1; H = 2; S = [128, 192, 256, 320, 384, 448]; D = 64; causal = [false, true]; dtype = "fp32"; };
warmup = 1;
samples = 12;
round_size = 4;
seed = 7;
CFG
  # (shapes large enough that each worker runs for seconds: the overlap
  # check below compares start and end times stored to the second)
  for v in cpu_flash cpu_reference; do for s in 128 192 256 320 384 448; do for c in 0 1; do
    echo "$v|1|2|$s|64|$c|fp32"; done; done; done | sort >expected.txt
  "$AB" run many.cfg --devices 0,0,0 --db w.db >ids.txt 2>w.log || { cat w.log; fail "--devices 0,0,0"; }
  [ "$(wc -l <ids.txt)" = 3 ] || fail "expected 3 run ids, got: $(cat ids.txt)"
  meas w.db >got.txt
  diff expected.txt got.txt || fail "rows lost or doubled (diff above)"
  [ "$(q w.db 'SELECT count(*) FROM samples')" = $((24 * 12)) ] || fail "samples: $(q w.db 'SELECT count(*) FROM samples'), expected 288"
  [ "$(q w.db "SELECT count(*) FROM runs WHERE status = 'complete' AND worker LIKE '%shared, testing%'")" = 3 ] ||
    fail "workers not labelled: $(q w.db 'SELECT id, status, worker FROM runs')"
  [ "$(q w.db 'SELECT group_concat(shard_k || "/" || shard_n) FROM (SELECT * FROM runs ORDER BY shard_k)')" = "1/3,2/3,3/3" ] ||
    fail "parts: $(q w.db 'SELECT shard_k, shard_n FROM runs')"
  # they ran at the same time: every run started before every other finished
  [ "$(q w.db 'SELECT count(*) FROM runs a JOIN runs b ON a.id <> b.id WHERE a.started_at >= b.finished_at')" = 0 ] ||
    fail "the workers did not overlap in time: $(q w.db 'SELECT id, started_at, finished_at FROM runs')"
  "$AB" status many.cfg --db w.db >st.txt || fail "status: $(cat st.txt)"
  # bad device lists are refused before anything runs
  "$AB" run many.cfg --devices 0,x --db w.db >/dev/null 2>e.log && fail "--devices 0,x accepted"
  grep -q 'devices' e.log || fail "no message for --devices 0,x"
  "$AB" run many.cfg --devices 0 --shard 1/2 --db w.db >/dev/null 2>/dev/null && fail "--devices with --shard accepted"
  [ "$(q w.db 'SELECT count(*) FROM runs')" = 3 ] || fail "a refused command stored a run"
  ;;
kill-worker)
  # --devices 0,0 with worker 2 killed (SIGKILL) part-way: worker 1's part
  # completes, worker 2's finished measurements stay, status shows its part
  # abandoned, and the printed resume command completes it
  fast_cfg fast.cfg
  "$AB" run fast.cfg --devices 0,0 --db k.db >ids.txt 2>k.log &
  parent=$!
  w2=
  for _ in $(seq 1 600); do
    w2=$(sed -n 's/^worker 2\/2: .*, process \([0-9]*\)$/\1/p' k.log)
    [ -n "$w2" ] && [ "$(q k.db "SELECT count(*) FROM measurements m JOIN runs r ON r.id = m.run_id WHERE r.shard_k = 2" 2>/dev/null)" -ge 1 ] 2>/dev/null && break
    sleep 0.1
  done
  [ -n "$w2" ] || fail "worker 2 not announced: $(cat k.log)"
  kill -KILL "$w2"
  wait $parent; rc=$?
  [ $rc -eq 137 ] || fail "parent exit $rc after a worker's SIGKILL, expected 137 ($(cat k.log))"
  grep -q 'worker 1/2: .*exit 0' k.log || fail "worker 1 did not finish: $(cat k.log)"
  kept=$(q k.db "SELECT count(*) FROM measurements m JOIN runs r ON r.id = m.run_id WHERE r.shard_k = 2")
  [ "$kept" -ge 1 ] && [ "$kept" -lt 6 ] || fail "worker 2 kept $kept measurements (expected 1..5)"
  "$AB" status fast.cfg --db k.db >st.txt; rc=$?
  [ $rc -eq 3 ] || fail "status exit $rc: $(cat st.txt)"
  grep -Eq "^ +2 +3 +$kept of 6 +1 +abandoned" st.txt || fail "part 2 not abandoned: $(cat st.txt)"
  cmd=$(grep -o 'attnbench resume [0-9]* --db k.db' st.txt) || fail "no resume command: $(cat st.txt)"
  "$AB" ${cmd#attnbench } >/dev/null 2>r.log || { cat r.log; fail "$cmd"; }
  "$AB" status fast.cfg --db k.db >st2.txt || fail "not complete after resume: $(cat st2.txt)"
  quick_set >expected.txt; meas k.db >got.txt
  diff expected.txt got.txt || fail "rows lost or doubled after kill and resume"
  [ "$(q k.db 'SELECT count(*) FROM samples')" = 48 ] || fail "samples: expected 8 x 6"
  ;;
sbatch)
  fast_cfg fast.cfg
  S=$SRC/contrib/slurm/attnbench-array.sbatch
  export ATTNBENCH="$AB" ATTNBENCH_TASK_DIR="$tmp/node"
  for t in 1 2; do
    SLURM_JOB_ID=10$t SLURM_ARRAY_JOB_ID=100 SLURM_ARRAY_TASK_ID=$t SLURM_ARRAY_TASK_MIN=1 \
      SLURM_ARRAY_TASK_MAX=2 SLURM_ARRAY_TASK_COUNT=2 bash "$S" fast.cfg out >task$t.log 2>&1 ||
      { cat task$t.log; fail "array task $t"; }
    [ -f out/shard-$t.db ] || fail "task $t left no out/shard-$t.db"
  done
  for i in 1 2; do
    bash "$S" --merge fast.cfg out >merge$i.log 2>&1 || { cat merge$i.log; fail "merge job ($i)"; }
  done
  grep -q '2 of 2 parts complete: the experiment is complete' merge2.log || fail "$(cat merge2.log)"
  quick_set >expected.txt; meas out/attnbench.db >got.txt
  diff expected.txt got.txt || fail "merged array differs from the experiment's set"
  [ "$(q out/attnbench.db 'SELECT count(*) FROM runs')" = 2 ] || fail "merging twice added runs"
  # not an array task: refused
  bash "$S" fast.cfg out >/dev/null 2>&1 && fail "ran outside an array task"
  # --submit: the array, then the merge job depending on it (fake sbatch)
  mkdir bin
  cat >bin/sbatch <<'FAKE'
#!/bin/sh
echo "$*" >>"$SBATCH_LOG"; n=$(wc -l <"$SBATCH_LOG"); echo "$((4000 + n))"
FAKE
  chmod +x bin/sbatch
  SBATCH_LOG=$tmp/sbatch.log PATH="$tmp/bin:$PATH" bash "$S" --submit 3 fast.cfg out2 >sub.log 2>&1 ||
    { cat sub.log; fail "--submit"; }
  grep -q -- '--array=1-3 --gres=gpu:1 .*attnbench-array.sbatch fast.cfg out2' sbatch.log || fail "array submission: $(cat sbatch.log)"
  grep -q -- '--dependency=afterany:4001 .*--merge fast.cfg out2' sbatch.log || fail "merge submission: $(cat sbatch.log)"
  grep -q 'array job 4001 (tasks 1-3), merge job 4002' sub.log || fail "$(cat sub.log)"
  ;;
*) fail "unknown case $case_name" ;;
esac
echo "ok: $case_name"
