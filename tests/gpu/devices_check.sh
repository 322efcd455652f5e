#!/bin/bash
# tests/gpu/devices_check.sh [ATTNBENCH] [OUTDIR]: `attnbench run --devices`
# on a GPU machine (issues 20 and 21), in about a minute; builds nothing.
# ATTNBENCH defaults to ./b/src/attnbench, OUTDIR to $OUT or a temporary
# folder. One small CUDA experiment (3 variants x 8 configurations) is run
# into fresh databases
#   plain     attnbench run (one process, whole experiment)
#   all       --devices all (one worker per visible GPU)
#   shared    --devices 0,0 (two workers on GPU 0; testing only)
# and checked: each holds exactly the experiment's (variant, configuration)
# set, enumerated here from the sweep, every row once and ok, each worker's
# run labelled with its device; with 2+ GPUs every worker of `all` has its
# own environment (GPU UUID in the fingerprint), and the wall-time speed-up
# of `all` over `plain` is printed. Prints a PASS/FAIL table last; exit 0
# when every check passed, 1 otherwise, 77 without a GPU.
set -u
AB=${1:-./b/src/attnbench}
O=${2:-${OUT:-$(mktemp -d)}}
mkdir -p "$O"
[ -x "$AB" ] || { echo "devices_check: no attnbench at $AB" >&2; exit 1; }
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >"$O/gpus.txt" 2>&1 && [ -s "$O/gpus.txt" ] ||
  { echo "skipped: no CUDA device"; exit 77; }
command -v sqlite3 >/dev/null 2>&1 && SQL="sqlite3" || SQL=""
q() { if [ -n "$SQL" ]; then sqlite3 "$1" "$2"; else "$AB" query "$2" --db "$1" | sed '1,2d;$d' | sed 's/ *$//; s/   */|/g'; fi; }
ngpu=$(grep -c '^GPU ' "$O/gpus.txt")
# the GPUs attnbench may use: CUDA_VISIBLE_DEVICES's entries when set
[ -n "${CUDA_VISIBLE_DEVICES:-}" ] && ngpu=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
cat >"$O/devices-check.cfg" <<'CFG'
name = "devices-check";
hypothesis = "--devices gives the same measurement set as a plain run.";
variants = ["cuda_fa2_warps", "cuda_mma_pipeline", "cublas_standard"];
baseline = "cublas_standard";
sweep = { B = 4; H = 16; S = [1024, 2048]; D = [64, 128]; causal = [false, true]; dtype = "fp16"; };
warmup = 5;
samples = 40;
seed = 20;
CFG
for v in cublas_standard cuda_fa2_warps cuda_mma_pipeline; do for s in 1024 2048; do
  for d in 64 128; do for c in 0 1; do echo "$v|4|16|$s|$d|$c|fp16"; done; done; done; done |
  sort >"$O/expected.txt"
results=()
check() { # name, condition result (0 pass), detail
  local r=PASS; [ "$2" -eq 0 ] || r=FAIL
  results+=("$(printf '%-34s %-4s %s' "$1" "$r" "$3")")
}
now() { date +%s.%N; }
run_one() { # label, args...
  local label=$1; shift
  rm -f "$O/$label.db"*
  local t0=$(now)
  "$AB" run "$O/devices-check.cfg" "$@" --db "$O/$label.db" >"$O/$label.ids" 2>"$O/$label.log"
  local rc=$?
  awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}' >"$O/$label.wall"
  return $rc
}
set_check() { # label, expected runs
  local label=$1 runs=$2
  q "$O/$label.db" "SELECT variant, B, H, S, D, causal, dtype FROM measurements WHERE status = 'ok'" |
    sort >"$O/$label.set"
  local nall=$(q "$O/$label.db" "SELECT count(*) FROM measurements")
  diff -q "$O/expected.txt" "$O/$label.set" >/dev/null && [ "$nall" = "$(wc -l <"$O/expected.txt")" ]
  check "$label: measurement set" $? "$(wc -l <"$O/$label.set") ok of $nall rows, expected $(wc -l <"$O/expected.txt")"
  local nr=$(q "$O/$label.db" "SELECT count(*) FROM runs WHERE status = 'complete'")
  [ "$nr" = "$runs" ]
  check "$label: complete runs" $? "$nr, expected $runs"
}
run_one plain; rc=$?
check "plain: exit status" $rc "wall $(cat "$O/plain.wall") s"
set_check plain 1
run_one all --devices all; rc=$?
check "all: exit status" $rc "wall $(cat "$O/all.wall") s, $ngpu GPU(s)"
set_check all "$ngpu"
labels=$(q "$O/all.db" "SELECT group_concat(worker, ',') FROM (SELECT worker FROM runs ORDER BY shard_k)")
want=$(for ((i = 0; i < ngpu; i++)); do printf 'cuda:%s,' "$i"; done); want=${want%,}
[ -n "${CUDA_VISIBLE_DEVICES:-}" ] && want=$(echo "$CUDA_VISIBLE_DEVICES" | sed 's/\([^,]*\)/cuda:\1/g')
[ "$labels" = "$want" ]
check "all: worker labels" $? "$labels"
nenv=$(q "$O/all.db" "SELECT count(DISTINCT environment_id) FROM runs")
nuuid=$(q "$O/all.db" "SELECT count(DISTINCT json_extract(v.fingerprint, '\$.gpu.uuid')) FROM runs r JOIN environments v ON v.id = r.environment_id")
[ "$nenv" = "$ngpu" ] && [ "$nuuid" = "$ngpu" ]
check "all: one environment per GPU" $? "$nenv environments, $nuuid GPU UUIDs"
run_one shared --devices 0,0; rc=$?
check "shared 0,0: exit status" $rc "wall $(cat "$O/shared.wall") s"
set_check shared 2
nl=$(q "$O/shared.db" "SELECT count(*) FROM runs WHERE worker LIKE 'cuda:% (shared, testing)'")
[ "$nl" = 2 ]
check "shared 0,0: labelled shared" $? "$(q "$O/shared.db" "SELECT group_concat(worker, '; ') FROM runs")"
"$AB" status "$O/devices-check.cfg" --db "$O/all.db" >"$O/all.status" 2>&1
check "all: status complete" $? "$(grep -o '[0-9]* of [0-9]* parts complete' "$O/all.status")"

{
  echo "== per-GPU environments of --devices all"
  q "$O/all.db" "SELECT r.id, r.worker, json_extract(v.fingerprint, '\$.gpu.name'), json_extract(v.fingerprint, '\$.gpu.uuid'), v.hash, r.started_at, r.finished_at, (SELECT count(*) FROM measurements m WHERE m.run_id = r.id) FROM runs r JOIN environments v ON v.id = r.environment_id ORDER BY r.shard_k"
  echo "== wall time: plain $(cat "$O/plain.wall") s, --devices all ($ngpu GPU) $(cat "$O/all.wall") s, speed-up $(awk -v a="$(cat "$O/plain.wall")" -v b="$(cat "$O/all.wall")" 'BEGIN{printf "%.2fx", a/b}'); --devices 0,0 $(cat "$O/shared.wall") s"
  cat "$O/gpus.txt"
  date -u +"%Y-%m-%d %H:%M UTC"
  printf '%s\n' "${results[@]}"
} | tee "$O/summary.txt"
! grep -q ' FAIL ' "$O/summary.txt"
