#!/bin/bash
# reports/sampling-budget/run.sh OUT: the GPU measurements of
# reports/sampling-budget/README.md, from the repository root with attnbench
# built in b/ (release, gpu_targets 90a). Writes OUT/study.db (every run),
# OUT/reports.tgz (markdown and JSON reports), OUT/logs.tgz.
#   1. experiments/fixed-cost-prefill.cfg at the defaults: where the time
#      goes per variant (AB_CUDNN_SDPA_VERBOSE=1: cuDNN's setup timed);
#   2. experiments/sampling-budget-{launch,compute}.cfg with --min-time 0,
#      0.02, 0.05 and 0.2 s;
#   3. experiments/kit-rotation.cfg, with the kit before rotation copied
#      from OLDKIT (default oldkit/, made by the caller) and the GPU test of
#      the kit's rotation.
set -u
OUT=$1
AB=b/src/attnbench
mkdir -p "$OUT/logs" "$OUT/reports"
DB=$OUT/study.db
log() { echo "[$(date -u +%T)] $*" | tee -a "$OUT/logs/steps.log"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv >"$OUT/logs/gpu.txt" 2>&1
report() { # run id, name
  "$AB" report "$1" --db "$DB" --no-plots -o "$OUT/reports/$2.md" >/dev/null 2>>"$OUT/logs/report.log"
  "$AB" report "$1" --db "$DB" --json -o "$OUT/reports/$2.json" >/dev/null 2>>"$OUT/logs/report.log"
}
runone() { # name, log, args...
  local name=$1 lg=$2; shift 2
  local t0=$(date +%s.%N)
  local id
  id=$(AB_CUDNN_SDPA_VERBOSE=1 timeout 150 "$AB" run "$@" --db "$DB" 2>>"$OUT/logs/$lg.log" | tail -n 1)
  log "$name: run ${id:-none}, $(awk "BEGIN { print $(date +%s.%N) - $t0 }") s"
  [ -n "$id" ] && report "$id" "$name"
}
log "start"
runone fixed-cost-prefill fixed-cost experiments/fixed-cost-prefill.cfg
for shape in launch compute; do
  for mt in 0 0.02 0.05 0.2; do
    runone "budget-$shape-$mt" budget experiments/sampling-budget-$shape.cfg --min-time $mt
  done
done
runone kit-rotation kit experiments/kit-rotation.cfg
python3 tests/external/kit_rotation_gpu.py adapters >"$OUT/logs/kit_rotation_gpu.log" 2>&1
log "kit_rotation_gpu: exit $?"
log "done"
tar czf "$OUT/reports.tgz" -C "$OUT" reports && rm -rf "$OUT/reports"
tar czf "$OUT/logs.tgz" -C "$OUT" logs
