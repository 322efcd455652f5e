#!/bin/bash
# tests/gpu/device_run.sh GPU_CHECK OUTDIR: the whole GPU side of the correctness check in
# one pass, for a lent GPU machine (one call): the device reference against
# the CPU oracle, the broken kernels, the suite (every CUDA variant, every
# row), then in parallel compute-sanitizer (4 tools x every CUDA variant,
# 60 s each) and every committed configuration re-checked in full.
# Writes summary.txt, suite.log, sanitize.log, race_detail.log, committed.log
# under OUTDIR; prints the summary last. SKIP_COMMITTED=1 leaves out the
# re-check of the committed configurations.
G=$1
O=$2
here=$(cd "$(dirname "$0")" && pwd)
sum=$O/summary.txt
: >"$sum"
step() { # name logfile cmd...
    local name=$1 log=$2; shift 2
    local t0=$(date +%s.%N)
    echo "==== $name: $*" >>"$log"
    "$@" >>"$log" 2>&1
    local rc=$?
    printf "%-12s rc=%-3s %6s s\n" "$name" "$rc" "$(awk -v a="$t0" -v b="$(date +%s.%N)" "BEGIN{printf \"%.1f\", b-a}")" >>"$sum"
}
variants=$("$G" --list)
step reference "$O/suite.log" "$G" --reference
step negative "$O/suite.log" "$G" --negative
step suite "$O/suite.log" "$G" $variants

cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
san_one() { # tool variant
    local extra=
    [ "$1" = racecheck ] && extra="--racecheck-report all"
    [ "$1" = initcheck ] && extra="--track-unused-memory no"
    local t0=$(date +%s)
    local log=$(mktemp)
    timeout 60 "$cs" --tool "$1" $extra --error-exitcode 3 --print-limit 10 "$G" --small "$2" >"$log" 2>&1
    local rc=$?
    { echo "==== $1 $2 rc=$rc $(( $(date +%s) - t0 )) s"
      grep -E "SUMMARY|hazard|Race|Error|error|Warning|at 0x|in .*\.cu|FAIL|cases" "$log" | head -60; } >"$log.out"
    cat "$log.out"
    rm -f "$log" "$log.out"
}
shape_one() { # B,H,S,D,causal,dtype: every variant, every row
    local log=$(mktemp)
    "$G" --shape "$1" $variants >"$log" 2>&1
    local rc=$?
    { grep -v '^on ' "$log"; echo "shape $1 rc=$rc"; } >"$log.out"
    cat "$log.out"
    rm -f "$log" "$log.out"
}
export -f san_one shape_one
export variants
export G cs
(
  t0=$(date +%s)
  for t in memcheck racecheck synccheck initcheck; do for v in $variants; do echo "$t $v"; done; done |
      xargs -P 12 -L 1 bash -c 'san_one $0 $1' >"$O/sanitize.log" 2>&1
  echo "sanitize     wall $(( $(date +%s) - t0 )) s: $(grep -c '^==== .* rc=0 ' "$O/sanitize.log") of $(grep -c '^==== ' "$O/sanitize.log") clean" >>"$sum"
  # the pipeline's candidates one by one: which tile scheme racecheck flags
  for c in 2 9; do
      echo "==== AB_TUNE=$c racecheck cuda_mma_pipeline (fp16 cases)"
      AB_TUNE=$c timeout 60 "$cs" --tool racecheck --racecheck-report all --print-limit 6 "$G" --small cuda_mma_pipeline 2>&1 |
          grep -E "SUMMARY|hazard|Race|Warning|Error|at 0x|\.cu:|cases" | head -40
  done >"$O/race_detail.log" 2>&1
) &
spid=$!
[ -n "${SKIP_COMMITTED:-}" ] || (
  t0=$(date +%s)
  grep -v '^#' "$here/committed_shapes.txt" |
      xargs -P 4 -L 1 bash -c 'shape_one $0' >"$O/committed.log" 2>&1
  echo "committed    wall $(( $(date +%s) - t0 )) s: $(grep -c ' ok$' "$O/committed.log") ok rows, $(grep -c 'FAIL' "$O/committed.log") FAIL rows, $(grep -c '^shape ' "$O/committed.log") shapes" >>"$sum"
) &
cpid=$!
wait $spid $cpid
grep -E "cases, [0-9]+ failed" "$O/suite.log" >>"$sum"
cat "$sum"
