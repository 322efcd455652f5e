#!/bin/bash
# tests/gpu/two_gpus.sh [ATTNBENCH] [OUTDIR]: one experiment split over the GPUs of a host with two or
# more GPUs; a manual script, not a meson test (it needs 2 GPUs and about
# three minutes). With experiments/two-gpus.cfg it
#   one     runs `attnbench run --devices 0` (one worker, GPU 0) into one.db
#   all     runs `--devices all` (one worker per GPU) into all.db
#   kill    runs `--devices all` into kill.db, SIGKILLs the last worker's
#           process once it has stored 3 measurements, lets the other GPU
#           finish, reads `attnbench status` (the killed part must show as
#           not complete, with a rerun command), runs the printed command
# and checks: every database holds each (variant, configuration) of the
# experiment exactly once and ok; each worker of `all` has its own
# environment (GPU UUID); kill.db keeps the killed worker's finished
# measurements (their ids survive the resume) and ends complete. Prints the
# wall times, the speed-up of `all` over `one`, and a PASS/FAIL table last.
# Exit 0 when every check passed, 1 otherwise, 77 with fewer than 2 GPUs.
set -u
AB=${1:-./b/src/attnbench}
O=${2:-${OUT:-$(mktemp -d)}}
EXP=${EXP:-experiments/two-gpus.cfg}
DEVS=${DEVS:-all}   # testing on a CPU: DEVS=0,1 EXP=<cpu experiment>
mkdir -p "$O"
[ -x "$AB" ] || { echo "two_gpus: no attnbench at $AB" >&2; exit 1; }
nvidia-smi -L >"$O/gpus.txt" 2>&1 || { echo "skipped: no CUDA device"; exit 77; }
ngpu=$(grep -c '^GPU ' "$O/gpus.txt")
[ "$ngpu" -ge 2 ] || { echo "skipped: $ngpu GPU(s), two needed"; exit 77; }
command -v sqlite3 >/dev/null 2>&1 && SQL=sqlite3 || SQL=
q() { if [ -n "$SQL" ]; then sqlite3 "$1" "$2"; else "$AB" query "$2" --db "$1" | sed '1,2d;$d' | sed 's/ *$//; s/   */|/g'; fi; }
results=()
check() { # name, status (0 pass), detail
  local r=PASS; [ "$2" -eq 0 ] || r=FAIL
  results+=("$(printf '%-40s %-4s %s' "$1" "$r" "$3")")
}
now() { date +%s.%N; }
ROWS="SELECT variant || '|' || B || '|' || H || '|' || S || '|' || D || '|' || causal || '|' || dtype FROM measurements"
"$AB" status "$EXP" --plan "$ngpu" >"$O/plan.txt" 2>&1
nexp=$(( $(sed -n 's/.*: \([0-9]*\) configurations x \([0-9]*\) variants.*/\1 * \2/p' "$O/plan.txt") ))
set_check() { # label: every (variant, configuration) once, all ok
  local db=$O/$1.db
  local n=$(q "$db" "SELECT count(*) FROM measurements" | head -1 | tr -dc 0-9)
  local nd=$(q "$db" "SELECT count(*) FROM (SELECT DISTINCT variant, B, H, S, D, causal, dtype FROM measurements)" | head -1 | tr -dc 0-9)
  local nok=$(q "$db" "SELECT count(*) FROM measurements WHERE status = 'ok'" | head -1 | tr -dc 0-9)
  [ "$n" = "$nexp" ] && [ "$nd" = "$nexp" ] && [ "$nok" = "$nexp" ]
  check "$1: each measurement once, ok" $? "$n rows, $nd distinct, $nok ok, expected $nexp"
}
run_one() { # label, args...: wall time to O/label.wall
  local label=$1; shift
  rm -f "$O/$label.db"*
  local t0=$(now)
  "$AB" run "$EXP" "$@" --db "$O/$label.db" >"$O/$label.ids" 2>"$O/$label.log"
  local rc=$?
  awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}' >"$O/$label.wall"
  return $rc
}
run_one one --devices 0; check "one (--devices 0): exit" $? "wall $(cat "$O/one.wall") s"
set_check one
run_one all --devices "$DEVS"; check "all (--devices all): exit" $? "wall $(cat "$O/all.wall") s, $ngpu GPUs"
set_check all
nenv=$(q "$O/all.db" "SELECT count(DISTINCT environment_id) FROM runs" | head -1 | tr -dc 0-9)
nuuid=$(q "$O/all.db" "SELECT count(DISTINCT json_extract(v.fingerprint, '\$.gpu.uuid')) FROM runs r JOIN environments v ON v.id = r.environment_id" | head -1 | tr -dc 0-9)
[ "$nenv" = "$ngpu" ] && [ "$nuuid" = "$ngpu" ]
check "all: one environment per GPU" $? "$nenv environments, $nuuid GPU UUIDs"
speed=$(awk -v a="$(cat "$O/one.wall")" -v b="$(cat "$O/all.wall")" 'BEGIN{printf "%.2f", a/b}')
awk -v s="$speed" 'BEGIN{exit !(s >= 1.8)}'
check "all: speed-up over one GPU >= 1.8x" $? "${speed}x"

# kill-and-resume: the last worker is killed after its third measurement
rm -f "$O/kill.db"*
t0=$(now)
"$AB" run "$EXP" --devices "$DEVS" --db "$O/kill.db" >"$O/kill.ids" 2>"$O/kill.log" &
parent=$!
victim=; label=
for i in $(seq 1 1200); do
  line=$(grep "^worker $ngpu/$ngpu: .*process" "$O/kill.log" | head -1)
  if [ -n "$line" ] && [ -z "$victim" ]; then
    victim=$(echo "$line" | sed 's/.*process \([0-9]*\).*/\1/')
    label=$(echo "$line" | sed 's/^worker [0-9]*\/[0-9]*: \(.*\), process.*/\1/')
  fi
  if [ -n "$victim" ]; then
    k=$(q "$O/kill.db" "SELECT count(*) FROM measurements m JOIN runs r ON r.id = m.run_id WHERE r.worker = '$label'" 2>/dev/null | head -1 | tr -dc 0-9)
    [ "${k:-0}" -ge 3 ] && break
  fi
  sleep 0.1
done
kill -KILL "$victim" 2>/dev/null; killed=$?
wait "$parent"; prc=$?
check "kill: worker $label (pid $victim) killed" $killed "parent exit $prc (non-zero expected)"
before=$(q "$O/kill.db" "SELECT group_concat(m.id) FROM measurements m JOIN runs r ON r.id = m.run_id WHERE r.worker = '$label'" | head -1)
nbefore=$(q "$O/kill.db" "SELECT count(*) FROM measurements" | head -1 | tr -dc 0-9)
"$AB" status "$EXP" --db "$O/kill.db" >"$O/kill-status1.txt" 2>&1; src=$?
rerun=$(grep -E '^\s*(CUDA_VISIBLE_DEVICES=[^ ]+ )?attnbench (resume|run) ' "$O/kill-status1.txt" | head -1 | sed 's/^ *//')
[ "$src" -ne 0 ] && [ -n "$rerun" ]
check "kill: status shows the part incomplete" $? "exit $src; rerun: $rerun"
# the printed command names `attnbench`: run it with this binary
cmd=$(echo "$rerun" | sed "s#attnbench #$AB #")
t1=$(now)
eval "$cmd" >"$O/kill-resume.out" 2>"$O/kill-resume.log"; rrc=$?
check "kill: printed rerun command" $rrc "$cmd ($(awk -v a="$t1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}') s)"
set_check kill
after=$(q "$O/kill.db" "SELECT group_concat(m.id) FROM measurements m JOIN runs r ON r.id = m.run_id WHERE r.worker = '$label'" | head -1)
case ",$after," in *",${before%%,*},"*) kept=0 ;; *) kept=1 ;; esac
[ -n "$before" ] || kept=1
check "kill: killed worker's rows kept" $kept "before kill+resume: $(echo "$before" | tr -cd , | wc -c | awk '{print $1+1}') rows of $label (of $nbefore in all)"
"$AB" status "$EXP" --db "$O/kill.db" >"$O/kill-status2.txt" 2>&1
check "kill: status complete after resume" $? "$(grep -o '[0-9]* of [0-9]* parts complete' "$O/kill-status2.txt")"

{
  echo "== GPUs"; cat "$O/gpus.txt"
  echo "== per-worker runs and environments of --devices all"
  q "$O/all.db" "SELECT r.id, r.worker, json_extract(v.fingerprint, '\$.gpu.name'), json_extract(v.fingerprint, '\$.gpu.uuid'), v.hash, r.started_at, r.finished_at, (SELECT count(*) FROM measurements m WHERE m.run_id = r.id) FROM runs r JOIN environments v ON v.id = r.environment_id ORDER BY r.shard_k"
  echo "== wall time: --devices 0 $(cat "$O/one.wall") s, --devices all ($ngpu GPUs) $(cat "$O/all.wall") s, speed-up ${speed}x"
  date -u +"%Y-%m-%d %H:%M UTC"
  printf '%s\n' "${results[@]}"
} | tee "$O/summary.txt"
! grep -q ' FAIL ' "$O/summary.txt"
