#!/bin/bash
# round 9, call B (a fresh machine): this code (devscripts/COMMIT: kept
# adapters) built for 90a; the adapter tests on the GPU and the external
# suite; cost-bwd and cost-prefill-hopper without and with --keep-adapters
# (the first kept run starts PyTorch, the later ones are handed to it); the
# first half of the FA4 wheels copied aside for call C.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r9b; mkdir -p $L/db
cp .fa4/a/fa4half00 /root/fa4half00 2>/dev/null &
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT); meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build.log 2>&1; ninja -C bf >> $L/build.log 2>&1; echo "rc $?" >> $L/build.log)
echo "built $(el) s: $(tail -1 $L/build.log)"
timeout 240 meson test -C bf external-kit-hold-gpu external-ipc-gpu external-kit-rotation-gpu --num-processes 3 > $L/tests-gpu.log 2>&1; echo "gpu tests rc=$? $(el) s: $(grep -E '^(Ok|Fail|Skipped|Timeout):' $L/tests-gpu.log | tr -s ' ' | tr '\n' ' ')"
cp bf/meson-logs/testlog.txt $L/tests-gpu-testlog.txt
grep -E "held: route|stream ran" $L/tests-gpu-testlog.txt | head -3
timeout 200 meson test -C bf --suite external --num-processes 4 > $L/tests-ext.log 2>&1; echo "external rc=$? $(el) s: $(grep -E '^(Ok|Fail|Skipped|Timeout):' $L/tests-ext.log | tr -s ' ' | tr '\n' ' ')"
grep -E 'FAIL|TIMEOUT' $L/tests-*.log | head -5
AB=$PWD/bf/src/attnbench
r() { timeout 100 python3 devscripts/ts.py $AB run experiments/$1.cfg --db $L/db/$1.db $3 > $L/run-$1-$2.log; echo "$1 $2 rc=$? $(el) s: $(tail -1 $L/run-$1-$2.log)"; }
r cost-bwd plain0 ""
r cost-bwd plain1 ""
r cost-bwd keep1 "--keep-adapters 300"
r cost-bwd keep2 "--keep-adapters 300"
r cost-bwd keep3 "--keep-adapters 300"
r cost-bwd plain2 ""
r cost-prefill-hopper plain1 ""
r cost-prefill-hopper keep1 "--keep-adapters 300"
r cost-prefill-hopper keep2 "--keep-adapters 300"
r cost-prefill-hopper plain2 ""
pgrep -af "torch_sdpa.py" > $L/kept-procs.txt; pkill -f torch_sdpa.py
wait; ls -la /root/fa4half00 >> $L/gpu.txt 2>&1
cd $OUT && tar czf r9b.tgz r9b && rm -rf r9b
