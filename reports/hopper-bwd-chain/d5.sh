#!/bin/bash
# One GPU call: build this checkout for 90a and run the three ladder
# experiments with predicted speedups (hopper-bwd-chain-*), then their
# reports with --chain.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/chain; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/setup.log 2>&1 && ninja -C bf src/attnbench > $L/build.log 2>&1) || { tail -30 $L/build.log; exit 1; }
echo "built $(el) s"
A=bf/src/attnbench
for e in hopper-bwd-chain-d128 hopper-bwd-chain-d64 hopper-bwd-chain-llama3-8b; do
  r=$(timeout 150 $A run experiments/$e.cfg --db $OUT/$e.db 2> $L/run-$e.log); echo "$e run=$r rc=$? $(el) s: $(tail -1 $L/run-$e.log)"
  $A report 1 --db $OUT/$e.db --chain -o $L/$e-run1.md --no-plots > /dev/null 2>&1
  grep -A6 "^Predicted speedups" $L/$e-run1.md | tail -4
done
cd $OUT && tar czf chain.tgz chain && rm -rf chain; echo "done $(el) s"
