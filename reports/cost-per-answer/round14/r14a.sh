#!/bin/bash
# round 14, call A (a fresh machine): cost-decode (Llama 3 8B decode steps,
# default sampling) as round 13's experiments: one run with
# --keep-adapters 0 to warm the machine's caches, three with default
# settings (the first starts PyTorch and leaves it kept, the next two are
# handed it), the kept adapter listed and stopped, one with
# --keep-adapters 0; then the same for cost-bwd once more on this machine.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r14a; mkdir -p $L/db
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,compute_mode --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT); meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build.log 2>&1; ninja -C bf src/attnbench >> $L/build.log 2>&1; echo "rc $?" >> $L/build.log)
echo "built $(el) s: $(tail -1 $L/build.log)"
AB=$PWD/bf/src/attnbench
unset ATTNBENCH_KEEP_ADAPTERS
r() { timeout 100 python3 devscripts/ts.py $AB run experiments/$1.cfg --db $L/db/$1.db $3 > $L/run-$1-$2.log; echo "$1 $2 rc=$? $(el) s: $(grep 'timed samples' $L/run-$1-$2.log | tail -1)"; }
for E in cost-decode cost-bwd; do
  $AB adapters --stop > /dev/null 2>&1
  r $E warm "--keep-adapters 0"
  r $E default1 ""; r $E default2 ""; r $E default3 ""
  $AB adapters > $L/adapters-$E.txt 2>&1; $AB adapters --stop >> $L/adapters-$E.txt 2>&1
  sleep 1; pgrep -af "torch_sdpa" >> $L/adapters-$E.txt
  r $E plain "--keep-adapters 0"
done
cd $OUT && tar czf r14a.tgz r14a && rm -rf r14a
