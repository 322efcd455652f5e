#!/bin/bash
# round 9, call A: this code (devscripts/COMMIT: the kit's flag hold, adapters
# started before the ceilings) and the previous stop's (old-src = 39dd465)
# built for 90a; the adapter tests on the GPU; each experiment once on the
# old code into a scratch database (caches warmed), then new, old, old, new
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r9a; mkdir -p $L/db
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
tar xJf devscripts/old-src.tar.xz
(export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT); meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build-new.log 2>&1; ninja -C bf >> $L/build-new.log 2>&1; echo "rc $?" >> $L/build-new.log) &
(export ATTNBENCH_COMMIT=39dd4653f09b; cd old-src && meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build-old.log 2>&1 && ninja -C bf src/attnbench >> $L/build-old.log 2>&1; echo "rc $?" >> $L/build-old.log) &
wait
echo "built $(el) s: new $(tail -1 $L/build-new.log), old $(tail -1 $L/build-old.log 2>/dev/null)"
timeout 300 meson test -C bf external-kit-hold-gpu external-ipc-gpu external-kit-rotation-gpu --suite external --num-processes 4 > $L/tests.log 2>&1; echo "tests rc=$? $(el) s: $(grep -E '^(Ok|Fail|Skipped|Timeout):' $L/tests.log | tr -s ' ' | tr '\n' ' ')"
grep -E 'FAIL|TIMEOUT' $L/tests.log | head -5
cp bf/meson-logs/testlog.txt $L/tests-testlog.txt 2>/dev/null
grep -A3 "kit_hold_gpu\|held: route" $L/tests-testlog.txt | grep -E "held|stream ran|FAIL|ok" | head -4
AB=$PWD/bf/src/attnbench; OLD=$PWD/old-src/bf/src/attnbench
new() { timeout 100 python3 devscripts/ts.py $AB run experiments/$1.cfg --db $L/db/$1-new.db > $L/run-$1-new-$2.log; echo "$1 new rc=$? $(el) s"; }
old() { (cd old-src && timeout 100 python3 ../devscripts/ts.py $OLD run ../experiments/$1.cfg --db $L/db/$1-$3.db > $L/run-$1-$3-$2.log); echo "$1 $3 rc=$? $(el) s"; }
for E in cost-prefill-hopper cost-ladder-sdpa cost-bwd; do old $E 0 warmup; done
for E in cost-prefill-hopper cost-ladder-sdpa cost-bwd; do new $E 1; old $E 1 old; old $E 2 old; new $E 2; done
for f in $L/run-cost-*.log; do echo "$(basename $f .log): $(grep -h 'timed samples$' $f | tail -1)"; done
cd $OUT && tar czf r9a.tgz r9a && rm -rf r9a
