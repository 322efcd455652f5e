#!/bin/bash
# One GPU call: build this checkout for 90a; experiment
# hopper-bwd-training-dq (seed 003's training tables for lsevec, dqtma and
# dqearly against cuDNN), nothing else on the GPU.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/bwd; mkdir -p $L $OUT/dbs
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/setup.log 2>&1 && ninja -C bf src/attnbench > $L/build.log 2>&1) || { tail -30 $L/build.log; exit 1; }
echo "built $(el) s; on the GPU: $(nvidia-smi --query-compute-apps=pid --format=csv,noheader | wc -l) processes"
A=bf/src/attnbench; e=hopper-bwd-training-dq
r=$(timeout 150 $A run experiments/$e.cfg --db $OUT/dbs/$e.db 2> $L/run-$e.log); echo "$e run=$r $(el) s"; tail -1 $L/run-$e.log
$A report 1 --db $OUT/dbs/$e.db -o $L/$e-run1.md --no-plots > /dev/null 2>&1
sed -n '/^## Training step/,/^## Where the time/p' $L/$e-run1.md | head -60
cd $OUT && tar czf bwd.tgz bwd && rm -rf bwd && tar czf dbs.tgz dbs && rm -rf dbs; echo "done $(el) s"
