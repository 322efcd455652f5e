#!/bin/bash
# One GPU call: build this checkout for 90a; the gradient check of
# cuda_wgmma_bwd_kvreg and cuda_wgmma_bwd_unistsm and compute-sanitizer
# memcheck, synccheck, racecheck (--small; racecheck on the main kernel);
# once every sanitizer has finished (nothing else on the GPU), experiments
# hopper-bwd-kvreg and -llama3-8b; then Nsight Compute (warp state, SASS
# with execution counts) of wguni, kvreg and unistsm at B=4 H=16 S=4096
# D=64 bf16 non-causal.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/bwd; mkdir -p $L $OUT/dbs
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/setup.log 2>&1 && ninja -C bf src/attnbench tests/gpu/gpu_check_bwd > $L/build.log 2>&1) || { tail -30 $L/build.log; exit 1; }
echo "built $(el) s"
gb=./bf/tests/gpu/gpu_check_bwd
ok=1
for r in kvreg unistsm; do
  timeout 90 $gb cuda_wgmma_bwd_$r > $L/check-$r.log 2>&1; c=$?; [ $c -eq 0 ] || ok=0
  echo "check $r rc=$c $(el) s: $(grep -h ' cases' $L/check-$r.log | cut -c1-200)"
  [ $c -eq 0 ] || { grep -m4 FAIL $L/check-$r.log | cut -c1-250; tail -3 $L/check-$r.log; }
done
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ $ok -eq 1 ]; then
for r in kvreg unistsm; do
(for t in memcheck synccheck; do timeout 150 "$cs" --tool $t --error-exitcode 3 $gb --small cuda_wgmma_bwd_$r > $L/$t-$r.log 2>&1; echo "rc $?" >> $L/$t-$r.log; done) &
(timeout 220 "$cs" --tool racecheck --racecheck-report all --print-limit 200 --kernel-name kns=bwd_ws --error-exitcode 3 $gb --small cuda_wgmma_bwd_$r > $L/racecheck-$r.log 2>&1; echo "rc $?" >> $L/racecheck-$r.log) &
done
fi
A=bf/src/attnbench
wait
for f in $L/memcheck-* $L/synccheck-* $L/racecheck-*; do [ -f $f ] && echo "$(basename $f): $(tail -1 $f); $(grep -E 'backward: [0-9]+ cases' $f | tail -1 | cut -c1-80); $(grep 'ERROR SUMMARY\|RACECHECK SUMMARY' $f | tail -1)"; done
echo "sanitizers done $(el) s; on the GPU now: $(nvidia-smi --query-compute-apps=pid --format=csv,noheader | wc -l) processes"
if [ $ok -eq 1 ]; then
  for e in hopper-bwd-kvreg hopper-bwd-kvreg-llama3-8b; do
    r=$(timeout 300 $A run experiments/$e.cfg --db $OUT/dbs/$e.db 2> $L/run-$e.log); echo "$e run=$r $(el) s"; tail -1 $L/run-$e.log
  done
fi
for e in hopper-bwd-kvreg hopper-bwd-kvreg-llama3-8b; do
  [ -f $OUT/dbs/$e.db ] && $A report 1 --db $OUT/dbs/$e.db --chain -o $L/$e-run1.md --no-plots > /dev/null 2>&1; grep -A12 "^Predicted speedups" $L/$e-run1.md | grep "vs"
done
P=$L/prof; mkdir -p $P
for n in wguni kvreg unistsm; do
  timeout 120 ncu --clock-control none --kernel-name regex:bwd_ws --launch-skip 5 --launch-count 1 \
    --section WarpStateStats --section SourceCounters --section SpeedOfLight \
    --metrics smsp__inst_executed.sum,sm__cycles_elapsed.max,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed \
    --import-source no -o $P/$n $gb --time 4,16,4096,64,0,bf16,bwd cuda_wgmma_bwd_$n > $P/$n.log 2>&1; echo "ncu $n rc=$? $(el) s"
  ncu --import $P/$n.ncu-rep --page raw --csv > $P/$n-raw.csv 2>&1
  ncu --import $P/$n.ncu-rep --page source --csv --print-source sass > $P/$n-sass.csv 2> $P/$n-sass.err
  rm -f $P/$n.ncu-rep
  grep -o '"smsp__inst_executed.sum","[^"]*"' $P/$n-raw.csv | head -1
done
cd $OUT && tar czf bwd.tgz bwd && rm -rf bwd && tar czf dbs.tgz dbs && rm -rf dbs; echo "done $(el) s"
