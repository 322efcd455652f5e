#!/bin/bash
# One GPU call: build this checkout for 90a; the gradient check of
# cuda_wgmma_bwd_defer, cuda_wgmma_bwd_stagger and cuda_wgmma_bwd_headsplit
# (their shared code changed); compute-sanitizer memcheck, synccheck and
# racecheck (--small; racecheck on the main kernel only) of the two new
# rungs; then the two experiments (bf16 grid, Llama 3 8B) with cuDNN.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/bwd; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/setup.log 2>&1 && ninja -C bf src/attnbench tests/gpu/gpu_check_bwd > $L/build.log 2>&1) || { tail -30 $L/build.log; exit 1; }
echo "built $(el) s"
gb=./bf/tests/gpu/gpu_check_bwd
timeout 240 $gb cuda_wgmma_bwd_tail > $L/check.log 2>&1; c=$?
echo "gradient check rc=$c $(el) s: $(grep -h ' cases' $L/check.log | tr '\n' ' ' | cut -c1-300)"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for r in tail; do
  (for t in memcheck synccheck; do timeout 120 "$cs" --tool $t --error-exitcode 3 $gb --small cuda_wgmma_bwd_$r > $L/$t-$r.log 2>&1; echo "rc $?" >> $L/$t-$r.log; done
   timeout 200 "$cs" --tool racecheck --racecheck-report all --print-limit 200 --kernel-name kns=bwd_ws --error-exitcode 3 $gb --small cuda_wgmma_bwd_$r > $L/racecheck-$r.log 2>&1; echo "rc $?" >> $L/racecheck-$r.log) &
done
wait
for f in $L/memcheck-* $L/synccheck-* $L/racecheck-*; do echo "$(basename $f): $(tail -1 $f); $(grep -E 'backward: [0-9]+ cases' $f | tail -1 | cut -c1-80); $(grep 'ERROR SUMMARY\|RACECHECK SUMMARY' $f | tail -1)"; done
echo "sanitizers done $(el) s"
if [ $c -eq 0 ]; then
  A=bf/src/attnbench
  for e in hopper-bwd-tail hopper-bwd-tail-llama3-8b; do
    [ $(el) -lt 450 ] || break
    r=$(timeout 150 $A run experiments/$e.cfg --db $OUT/$e.db 2> $L/run-$e.log); echo "$e run=$r rc=$? $(el) s"; tail -1 $L/run-$e.log
  done
  for e in hopper-bwd-tail hopper-bwd-tail-llama3-8b; do
    [ -f $OUT/$e.db ] && $A report 1 --db $OUT/$e.db --chain -o $L/$e-run1.md --no-plots > /dev/null 2>&1; grep -A5 "^Predicted speedups" $L/$e-run1.md | tail -2
  done
fi
cd $OUT && tar czf bwd.tgz bwd && rm -rf bwd; echo "done $(el) s"
