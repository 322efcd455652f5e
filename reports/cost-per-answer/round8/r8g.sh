#!/bin/bash
# round 8, call G (a fresh machine): this stop's code with shapes ahead
# (devscripts/COMMIT) and the previous stop's (old-src = 16f33ac) built for
# 90a; the adapter tests on the GPU; each experiment once on the old code
# into a scratch database (caches warmed), then new, old, old, new for
# cost-prefill-hopper, cost-ladder-sdpa and cost-bwd; the first half of the
# FA4 wheels copied aside for call H.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r8g; mkdir -p $L/db
cp .fa4/a/fa4half00 /root/fa4half00 2>/dev/null &
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
tar xJf devscripts/old-src.tar.xz
(export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT); meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build-new.log 2>&1; ninja -C bf >> $L/build-new.log 2>&1; echo "rc $?" >> $L/build-new.log) &
[ -x old-src/bf/src/attnbench ] || (export ATTNBENCH_COMMIT=16f33ac358d1; cd old-src && meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build-old.log 2>&1 && ninja -C bf src/attnbench >> $L/build-old.log 2>&1; echo "rc $?" >> $L/build-old.log) &
wait
echo "built $(el) s: new $(tail -1 $L/build-new.log), old $(tail -1 $L/build-old.log 2>/dev/null)"
timeout 200 meson test -C bf external-ipc-gpu external-kit-rotation-gpu external-kit-ipc external-protocol2 gpu-cudnn-plans --num-processes 3 > $L/tests.log 2>&1; echo "tests rc=$? $(el) s: $(grep -E '^(Ok|Fail|Skipped|Timeout):' $L/tests.log | tr -s ' ' | tr '\n' ' ')"
grep -E 'FAIL' $L/tests.log | head -5
cp bf/meson-logs/testlog.txt $L/tests-testlog.txt 2>/dev/null
AB=$PWD/bf/src/attnbench; OLD=$PWD/old-src/bf/src/attnbench
new() { timeout 100 $AB run experiments/$1.cfg --db $L/db/$1-new.db > /dev/null 2> $L/run-$1-new-$2.log; echo "$1 new rc=$? $(el) s"; }
old() { (cd old-src && timeout 100 $OLD run ../experiments/$1.cfg --db $L/db/$1-$3.db > /dev/null 2> $L/run-$1-$3-$2.log); echo "$1 $3 rc=$? $(el) s"; }
for E in cost-prefill-hopper cost-ladder-sdpa cost-bwd; do old $E 0 warmup; done
for E in cost-prefill-hopper cost-ladder-sdpa cost-bwd; do new $E 1; old $E 1 old; old $E 2 old; new $E 2; done
for f in $L/run-cost-*.log; do echo "$(basename $f .log): $(grep -h 'timed samples$' $f | tail -1)"; done
wait; ls -la /root/fa4half00 >> $L/gpu.txt 2>&1
cd $OUT && tar czf r8g.tgz r8g && rm -rf r8g
