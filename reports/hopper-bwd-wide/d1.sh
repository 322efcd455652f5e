#!/bin/bash
# One GPU call: build this checkout for 90a; the gradient check of the three
# new rungs (cuda_wgmma_bwd_expfirst, dqwide, widexp); compute-sanitizer
# memcheck, synccheck and racecheck (--small; racecheck on the main kernel
# only) of each; then the three experiments (D = 128 grid, D = 64 grid,
# Llama 3 8B) with cuDNN and cuda_wgmma_bwd_lsevec; SASS of the new main kernels.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/bwd; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/setup.log 2>&1 && ninja -C bf src/attnbench tests/gpu/gpu_check_bwd > $L/build.log 2>&1) || { tail -30 $L/build.log; exit 1; }
echo "built $(el) s"
gb=./bf/tests/gpu/gpu_check_bwd
R="expfirst dqwide widexp"
ok=1
for r in $R; do
  timeout 100 $gb cuda_wgmma_bwd_$r > $L/check-$r.log 2>&1; c=$?
  [ $c -eq 0 ] || ok=0
  echo "check $r rc=$c $(el) s: $(grep -h ' cases' $L/check-$r.log | tr '\n' ' ' | cut -c1-200)"
  [ $c -eq 0 ] || grep -m5 -i "fail\|error\|mismatch" $L/check-$r.log
done
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for r in $R; do
  (for t in memcheck synccheck; do timeout 120 "$cs" --tool $t --error-exitcode 3 $gb --small cuda_wgmma_bwd_$r > $L/$t-$r.log 2>&1; echo "rc $?" >> $L/$t-$r.log; done
   timeout 200 "$cs" --tool racecheck --racecheck-report all --print-limit 200 --kernel-name kns=bwd_ws --error-exitcode 3 $gb --small cuda_wgmma_bwd_$r > $L/racecheck-$r.log 2>&1; echo "rc $?" >> $L/racecheck-$r.log) &
done
A=bf/src/attnbench
if [ $ok -eq 1 ]; then
  for e in hopper-bwd-wide hopper-bwd-wide-d64 hopper-bwd-wide-llama3-8b; do
    [ $(el) -lt 420 ] || break
    r=$(timeout 150 $A run experiments/$e.cfg --db $OUT/$e.db 2> $L/run-$e.log); echo "$e run=$r rc=$? $(el) s"; tail -1 $L/run-$e.log
  done
fi
wait
for f in $L/memcheck-* $L/synccheck-* $L/racecheck-*; do echo "$(basename $f): $(tail -1 $f); $(grep -E 'backward: [0-9]+ cases' $f | tail -1 | cut -c1-80); $(grep 'ERROR SUMMARY\|RACECHECK SUMMARY' $f | tail -1)"; done
echo "sanitizers done $(el) s"
for e in hopper-bwd-wide hopper-bwd-wide-d64 hopper-bwd-wide-llama3-8b; do
  [ -f $OUT/$e.db ] && $A report 1 --db $OUT/$e.db --chain -o $L/$e-run1.md --no-plots > /dev/null 2>&1; grep -A8 "^Predicted speedups" $L/$e-run1.md | tail -5
done
o=$(ls bf/kernels/*cuda_wgmma_bwd_dqwide.cu.o 2>/dev/null | head -1); [ -n "$o" ] && cuobjdump -sass $o > $L/dqwide.sass 2>&1
o=$(ls bf/kernels/*cuda_wgmma_bwd_expfirst.cu.o 2>/dev/null | head -1); [ -n "$o" ] && cuobjdump -sass $o > $L/expfirst.sass 2>&1
cd $OUT && tar czf bwd.tgz bwd && rm -rf bwd; echo "done $(el) s"
