#!/bin/bash
# round 7, call F (a fresh machine): both codes built as in call B; each
# experiment run once on the previous stop's code into a scratch database
# (the machine's caches warmed: page cache of PyTorch's import, the driver's
# JIT cache for cuDNN and PyTorch's cuDNN), then new, old, old, new (ABBA)
# for cost-prefill-hopper, cost-ladder-sdpa and cost-bwd.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r7f; mkdir -p $L/db
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
tar xJf devscripts/old-src.tar.xz
(export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT); meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build-new.log 2>&1; ninja -C bf src/attnbench >> $L/build-new.log 2>&1; echo "rc $?" >> $L/build-new.log) &
[ -x old-src/bf/src/attnbench ] || (export ATTNBENCH_COMMIT=16f33ac358d1; cd old-src && meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build-old.log 2>&1 && ninja -C bf src/attnbench >> $L/build-old.log 2>&1; echo "rc $?" >> $L/build-old.log) &
wait
echo "built $(el) s: new $(tail -1 $L/build-new.log), old $(tail -1 $L/build-old.log 2>/dev/null)"
AB=$PWD/bf/src/attnbench; OLD=$PWD/old-src/bf/src/attnbench
new() { timeout 100 $AB run experiments/$1.cfg --db $L/db/$1-new.db > /dev/null 2> $L/run-$1-new-$2.log; echo "$1 new rc=$? $(el) s"; }
old() { (cd old-src && timeout 100 $OLD run ../experiments/$1.cfg --db $L/db/$1-$3.db > /dev/null 2> $L/run-$1-$3-$2.log); echo "$1 $3 rc=$? $(el) s"; }
for E in cost-prefill-hopper cost-ladder-sdpa cost-bwd; do old $E 0 warmup; done
for E in cost-prefill-hopper cost-ladder-sdpa cost-bwd; do new $E 1; old $E 1 old; old $E 2 old; new $E 2; done
for f in $L/run-cost-*.log; do echo "$(basename $f .log): $(grep -h 'timed samples$' $f | tail -1)"; done
cd $OUT && tar czf r7f.tgz r7f && rm -rf r7f
