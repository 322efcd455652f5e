#!/bin/bash
# round 9, call D: the watchdog of the kit's flag hold; the GPU tests of the
# kit and the adapters, one at a time
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r9d; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
[ -x bf/src/attnbench ] || echo "fresh machine: building"
(export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT); meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build.log 2>&1; ninja -C bf >> $L/build.log 2>&1; echo "rc $?" >> $L/build.log)
echo "built $(el) s: $(tail -1 $L/build.log)"
for t in external-kit-hold-gpu external-kit-rotation-gpu external-keep external-ipc-gpu; do
  timeout 500 meson test -C bf $t --timeout-multiplier 3 > $L/test-$t.log 2>&1; echo "$t rc=$? $(el) s"
  cp bf/meson-logs/testlog.txt $L/testlog-$t.txt
done
grep -hE "held: route|stream ran|waits on the GPU inside|launch hold:" $L/testlog-external-kit-hold-gpu.txt | head -6
grep -hE "launch hold" $L/testlog-external-kit-rotation-gpu.txt | head -3
cd $OUT && tar czf r9d.tgz r9d && rm -rf r9d
