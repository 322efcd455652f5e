#!/bin/bash
# round 13, call A (a fresh machine): the code with adapters kept by
# default (devscripts/COMMIT) for 90a; per experiment (cost-prefill-hopper,
# cost-ladder-sdpa, cost-bwd): one run with --keep-adapters 0 to warm the
# machine's caches, three runs with default settings (the first starts the
# adapters and leaves them kept, the next two are handed them), the kept
# adapters listed and stopped, one run with --keep-adapters 0 (the earlier
# default); the first half of the FA4 wheels copied aside for call B.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r13a; mkdir -p $L/db
cp .fa4/a/fa4half00 /root/fa4half00 &
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,compute_mode --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT); meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build.log 2>&1; ninja -C bf src/attnbench >> $L/build.log 2>&1; echo "rc $?" >> $L/build.log)
echo "built $(el) s: $(tail -1 $L/build.log)"
AB=$PWD/bf/src/attnbench
unset ATTNBENCH_KEEP_ADAPTERS
r() { timeout 100 python3 devscripts/ts.py $AB run experiments/$1.cfg --db $L/db/$1.db $3 > $L/run-$1-$2.log; echo "$1 $2 rc=$? $(el) s: $(grep 'timed samples' $L/run-$1-$2.log | tail -1)"; }
for E in cost-prefill-hopper cost-ladder-sdpa cost-bwd; do
  $AB adapters --stop > /dev/null 2>&1
  r $E warm "--keep-adapters 0"
  r $E default1 ""; r $E default2 ""; r $E default3 ""
  $AB adapters > $L/adapters-$E.txt 2>&1; $AB adapters --stop >> $L/adapters-$E.txt 2>&1
  sleep 1; pgrep -af "torch_sdpa" >> $L/adapters-$E.txt
  r $E plain "--keep-adapters 0"
done
wait; ls -la /root/fa4half00 >> $L/gpu.txt
cd $OUT && tar czf r13a.tgz r13a && rm -rf r13a
