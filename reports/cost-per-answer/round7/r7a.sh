#!/bin/bash
# round 7, call A: this stop's code (devscripts/COMMIT) and the previous
# stop's (old-src = 16f33ac) built for 90a side by side; the GPU suite on
# this stop's; then cost-prefill-hopper and cost-ladder-sdpa, new then old.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r7a; mkdir -p $L/db
cp .fa4/a/fa4half00 /root/fa4half00 2>/dev/null &
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
[ -d old-src ] || tar xJf devscripts/old-src.tar.xz
(export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT); meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build-new.log 2>&1 && ninja -C bf >> $L/build-new.log 2>&1; echo "rc $?" >> $L/build-new.log) &
(export ATTNBENCH_COMMIT=16f33ac358d1; cd old-src && meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build-old.log 2>&1 && ninja -C bf src/attnbench >> $L/build-old.log 2>&1; echo "rc $?" >> $L/build-old.log) &
wait
echo "built $(el) s: new $(tail -1 $L/build-new.log), old $(tail -1 $L/build-old.log)"
grep -i -E "warning" $L/build-new.log | grep -v -i "deprecat" | head -5
timeout 285 meson test -C bf --suite gpu --num-processes 4 > $L/suite.log 2>&1; echo "suite rc=$? $(el) s: $(grep -E '^(Ok|Fail|Skipped|Timeout):' $L/suite.log | tr -s ' ' | tr '\n' ' ')"
grep -E " FAIL | TIMEOUT " $L/suite.log | head
cp bf/meson-logs/testlog.txt $L/suite-testlog.txt 2>/dev/null
AB=$PWD/bf/src/attnbench; OLD=$PWD/old-src/bf/src/attnbench
for E in cost-prefill-hopper cost-ladder-sdpa; do
  timeout 100 $AB run experiments/$E.cfg --db $L/db/$E-new.db > /dev/null 2> $L/run-$E-new.log; echo "$E new rc=$? $(el) s"
  (cd old-src && timeout 100 $OLD run ../experiments/$E.cfg --db $L/db/$E-old.db > /dev/null 2> $L/run-$E-old.log); echo "$E old rc=$? $(el) s"
done
for f in $L/run-cost-*.log; do echo "$(basename $f): $(grep -h 'timed samples$' $f | tail -1)"; done
wait; ls -la /root/fa4half00 >> $L/gpu.txt 2>&1
cd $OUT && tar czf r7a.tgz r7a && rm -rf r7a
