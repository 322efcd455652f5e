#!/bin/bash
# One GPU call on an H100: build this checkout for 90a; the gradient check
# of cuda_wgmma_bwd_kvreg; experiments hopper-bwd-kvreg and -llama3-8b
# again (the H200's e4 run repeated on another GPU model) and
# hopper-bwd-training-kvreg (seed 003's training tables), nothing else on
# the GPU.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/bwd; mkdir -p $L $OUT/dbs
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/setup.log 2>&1 && ninja -C bf src/attnbench tests/gpu/gpu_check_bwd > $L/build.log 2>&1) || { tail -30 $L/build.log; exit 1; }
echo "built $(el) s"
gb=./bf/tests/gpu/gpu_check_bwd
timeout 90 $gb cuda_wgmma_bwd_kvreg > $L/check-kvreg.log 2>&1; c=$?
echo "check kvreg rc=$c $(el) s: $(grep -h ' cases' $L/check-kvreg.log | cut -c1-200)"
A=bf/src/attnbench
echo "on the GPU now: $(nvidia-smi --query-compute-apps=pid --format=csv,noheader | wc -l) processes"
if [ $c -eq 0 ]; then
  for e in hopper-bwd-kvreg:hopper-bwd-kvreg-h100 hopper-bwd-kvreg-llama3-8b:hopper-bwd-kvreg-llama3-8b-h100 hopper-bwd-training-kvreg:hopper-bwd-training-kvreg; do
    x=${e%%:*}; d=${e#*:}
    r=$(timeout 300 $A run experiments/$x.cfg --db $OUT/dbs/$d.db 2> $L/run-$d.log); echo "$d run=$r $(el) s"; tail -1 $L/run-$d.log
    $A report 1 --db $OUT/dbs/$d.db --chain -o $L/$d-run1.md --no-plots > /dev/null 2>&1; grep -A12 "^Predicted speedups" $L/$d-run1.md | grep "vs"
  done
fi
cd $OUT && tar czf bwd.tgz bwd && rm -rf bwd && tar czf dbs.tgz dbs && rm -rf dbs; echo "done $(el) s"
