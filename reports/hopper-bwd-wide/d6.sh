#!/bin/bash
# One GPU call on an H100: build this checkout for 90a; the three clean
# experiments of d5.sh again (hopper-bwd-dq-d128, -d64, -llama3-8b), nothing
# else on the GPU, to see whether the H200's ratios hold on an H100.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/bwd; mkdir -p $L $OUT/dbs
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/setup.log 2>&1 && ninja -C bf src/attnbench > $L/build.log 2>&1) || { tail -30 $L/build.log; exit 1; }
echo "built $(el) s; on the GPU: $(nvidia-smi --query-compute-apps=pid --format=csv,noheader | wc -l) processes"
A=bf/src/attnbench
for e in hopper-bwd-dq-d128 hopper-bwd-dq-d64 hopper-bwd-dq-llama3-8b; do
  r=$(timeout 150 $A run experiments/$e.cfg --db $OUT/dbs/$e-h100.db 2> $L/run-$e.log); echo "$e run=$r $(el) s"; tail -1 $L/run-$e.log
  $A report 1 --db $OUT/dbs/$e-h100.db --chain -o $L/$e-h100-run1.md --no-plots > /dev/null 2>&1; grep -A12 "^Predicted speedups" $L/$e-h100-run1.md | grep "vs"
done
cd $OUT && tar czf bwd.tgz bwd && rm -rf bwd && tar czf dbs.tgz dbs && rm -rf dbs; echo "done $(el) s"
