#!/bin/bash
# round 10, call G: cuDNN's plans built beside the first references
# (devscripts/COMMIT) against the code before it (old-src = c421680), both
# for 90a. cost-prefill-native (no adapter): each once to warm, then new,
# old, old, new; cost-prefill-hopper with --keep-adapters: each once to
# start its kept PyTorch, then new, old, old, new (handed over); then the
# GPU suite's runner and adapter tests on the new build.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r10g; mkdir -p $L/db
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
tar xJf devscripts/old-src.tar.xz
(export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT); meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build-new.log 2>&1; ninja -C bf >> $L/build-new.log 2>&1; echo "rc $?" >> $L/build-new.log) &
(export ATTNBENCH_COMMIT=c421680; cd old-src && meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build-old.log 2>&1 && ninja -C bf src/attnbench >> $L/build-old.log 2>&1; echo "rc $?" >> $L/build-old.log) &
wait
echo "built $(el) s: new $(tail -1 $L/build-new.log), old $(tail -1 $L/build-old.log)"
AB=$PWD/bf/src/attnbench; OLD=$PWD/old-src/bf/src/attnbench
new() { timeout 100 python3 devscripts/ts.py $AB run experiments/$1.cfg --db $L/db/$1-new.db $3 > $L/run-$1-new-$2.log; echo "$1 new $2 rc=$? $(el) s: $(tail -1 $L/run-$1-new-$2.log)"; }
old() { (cd old-src && timeout 100 python3 ../devscripts/ts.py $OLD run ../experiments/$1.cfg --db $L/db/$1-old.db $3 > $L/run-$1-old-$2.log); echo "$1 old $2 rc=$? $(el) s: $(tail -1 $L/run-$1-old-$2.log)"; }
E=cost-prefill-native
new $E 0 ""; old $E 0 ""
new $E 1 ""; old $E 1 ""; old $E 2 ""; new $E 2 ""
E=cost-prefill-hopper; K="--keep-adapters 300"
new $E 0 "$K"; old $E 0 "$K"
new $E 1 "$K"; old $E 1 "$K"; old $E 2 "$K"; new $E 2 "$K"
pkill -f torch_sdpa.py
timeout 280 meson test -C bf gpu-cudnn-plans external-ipc-gpu external-kit-hold-gpu external-keep gpu-cudnn_sdpa gpu-bwd-cudnn_sdpa gpu-first-sample --num-processes 2 > $L/tests.log 2>&1; echo "tests rc=$? $(el) s: $(grep -E '^(Ok|Fail|Skipped|Timeout):' $L/tests.log | tr -s ' ' | tr '\n' ' ')"
grep -E '^ *[0-9]+/[0-9]+ ' $L/tests.log
cp bf/meson-logs/testlog.txt $L/tests-testlog.txt
for f in $L/run-*.log; do echo "$(basename $f .log): $(grep -h 'timed samples$' $f | tail -1)"; done
cd $OUT && tar czf r10g.tgz r10g && rm -rf r10g
