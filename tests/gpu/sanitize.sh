#!/bin/sh
# tests/gpu/sanitize.sh TOOL GPU_CHECK: compute-sanitizer's TOOL (memcheck,
# racecheck, synccheck, initcheck) over every CUDA variant of this build, as
# `gpu_check --list` names them from the registry (so a new variant is in the
# suite as soon as it is in kernels/registry.c), each at the small shapes of
# `gpu_check --small` (B=1, H=2, S = 17 and 520: a partial tile, several
# full K/V tiles with stage reuse and a tail; every dtype, D in {64, 128},
# causal and not). Each (tool, variant) must finish in 60 s and report no
# error and no hazard (racecheck: errors and warnings alike).
# Exit 0 when all are clean, 1 otherwise, 77 without a CUDA device or
# without compute-sanitizer.
tool=$1
gpu_check=$2
out=$("$gpu_check" --shape 1,1,1,64,0,fp16 2>&1 | head -1)
case $out in skipped:*) echo "$out"; exit 77 ;; esac
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -z "$cs" ]; then
    echo "skipped: compute-sanitizer not found"
    exit 77
fi
extra=
case $tool in
    racecheck) extra="--racecheck-report all" ;;
    initcheck) extra="--track-unused-memory no" ;;
esac
fails=0
for v in $("$gpu_check" --list); do
    log=$(mktemp)
    t0=$(date +%s)
    timeout 60 "$cs" --tool "$tool" $extra --error-exitcode 3 --print-limit 20 \
        "$gpu_check" --small "$v" >"$log" 2>&1
    rc=$?
    t1=$(date +%s)
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard" "$log" | tail -1)
    if [ $rc -ne 0 ]; then
        fails=$((fails + 1))
        echo "FAIL $tool $v (exit $rc, $((t1 - t0)) s): $summary"
        grep -E "Error|Warning|Race|Hazard|at .*\.cu|FAIL" "$log" | head -40
    else
        echo "ok   $tool $v ($((t1 - t0)) s): $summary"
    fi
    rm -f "$log"
done
[ $fails -eq 0 ]
