#!/bin/bash
# round 11, call A (a fresh machine): the final code (devscripts/COMMIT)
# for 90a; cost-prefill-hopper, cost-ladder-sdpa and cost-bwd each twice
# plain (the first warms the machine's caches) and three times with
# --keep-adapters 300 (the first starts the kept adapters); the first half
# of the FA4 wheels copied aside for call B.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r11a; mkdir -p $L/db
cp .fa4/a/fa4half00 /root/fa4half00 &
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT); meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build.log 2>&1; ninja -C bf src/attnbench >> $L/build.log 2>&1; echo "rc $?" >> $L/build.log)
echo "built $(el) s: $(tail -1 $L/build.log)"
AB=$PWD/bf/src/attnbench
r() { timeout 100 python3 devscripts/ts.py $AB run experiments/$1.cfg --db $L/db/$1.db $3 > $L/run-$1-$2.log; echo "$1 $2 rc=$? $(el) s: $(tail -1 $L/run-$1-$2.log)"; }
for E in cost-prefill-hopper cost-ladder-sdpa cost-bwd; do
  r $E plain1 ""; r $E plain2 ""
  r $E keep1 "--keep-adapters 300"; r $E keep2 "--keep-adapters 300"; r $E keep3 "--keep-adapters 300"
done
$AB adapters > $L/adapters.txt 2>&1; $AB adapters --stop >> $L/adapters.txt 2>&1; cat $L/adapters.txt | grep -c "^pid"
wait; ls -la /root/fa4half00 >> $L/gpu.txt
cd $OUT && tar czf r11a.tgz r11a && rm -rf r11a
