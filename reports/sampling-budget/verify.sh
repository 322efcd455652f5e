#!/bin/bash
# reports/sampling-budget/verify.sh OUT: the second GPU call of
# reports/sampling-budget/README.md, from the repository root with attnbench
# built in b/: experiments/fixed-cost-prefill.cfg at the defaults chosen
# (min_time 0.02 s), the launch-bound budget runs repeated (--min-time 0
# and 0.02, twice each), and the GPU tests of the kit and of the budget's
# neighbours (meson test: external-kit-rotation-gpu, external-ipc-gpu,
# adapter-kit). Writes OUT/verify.db, OUT/reports.tgz, OUT/logs.tgz.
set -u
OUT=$1
AB=b/src/attnbench
mkdir -p "$OUT/logs" "$OUT/reports"
DB=$OUT/verify.db
log() { echo "[$(date -u +%T)] $*" | tee -a "$OUT/logs/steps.log"; }
report() {
  "$AB" report "$1" --db "$DB" --no-plots -o "$OUT/reports/$2.md" >/dev/null 2>>"$OUT/logs/report.log"
  "$AB" report "$1" --db "$DB" --json -o "$OUT/reports/$2.json" >/dev/null 2>>"$OUT/logs/report.log"
}
runone() { # name, log, args...
  local name=$1 lg=$2; shift 2
  local t0=$(date +%s.%N) id
  id=$(AB_CUDNN_SDPA_VERBOSE=1 timeout 150 "$AB" run "$@" --db "$DB" 2>>"$OUT/logs/$lg.log" | tail -n 1)
  log "$name: run ${id:-none}, $(awk "BEGIN { print $(date +%s.%N) - $t0 }") s"
  [ -n "$id" ] && report "$id" "$name"
}
log "start"
runone fixed-cost-prefill fixed-cost experiments/fixed-cost-prefill.cfg
for rep in 1 2; do
  for mt in 0 0.02; do
    runone "budget-launch-$mt-rep$rep" budget experiments/sampling-budget-launch.cfg --min-time $mt
  done
done
timeout 200 meson test -C b external-kit-rotation-gpu external-ipc-gpu adapter-kit \
  >"$OUT/logs/meson-test.log" 2>&1
log "meson test: exit $?"
cp b/meson-logs/testlog.txt "$OUT/logs/testlog.txt" 2>/dev/null
log "done"
tar czf "$OUT/reports.tgz" -C "$OUT" reports && rm -rf "$OUT/reports"
tar czf "$OUT/logs.tgz" -C "$OUT" logs
