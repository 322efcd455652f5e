#!/bin/bash
# round 1, call A: build today's tree and 2026-11-25's (old-src = 5f5fdbe,
# reports/ left out) for 90a; check cudnn_sdpa's plan cache (gpu_check fwd
# and bwd, tests/gpu/cudnn_plans.sh); run cost-prefill-hopper on the old
# code, the new code, and the new code without plans built ahead.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/r1a; mkdir -p $L/db
cp .fa4/a/fa4half00 /root/fa4half00 2>/dev/null &
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build-new.log 2>&1 && ninja -C bf >> $L/build-new.log 2>&1; echo "rc $?" >> $L/build-new.log) &
(cd old-src && meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build-old.log 2>&1 && ninja -C bf src/attnbench >> $L/build-old.log 2>&1; echo "rc $?" >> $L/build-old.log) &
wait
echo "built $(el) s: new $(tail -1 $L/build-new.log), old $(tail -1 $L/build-old.log)"
AB=$PWD/bf/src/attnbench; OLD=$PWD/old-src/bf/src/attnbench
timeout 120 ./bf/tests/gpu/gpu_check cudnn_sdpa > $L/check-cudnn.log 2>&1; echo "gpu_check cudnn_sdpa rc=$? $(grep -c PASS $L/check-cudnn.log) pass $(grep -c FAIL $L/check-cudnn.log) fail $(el) s"
timeout 120 ./bf/tests/gpu/gpu_check_bwd cudnn_sdpa > $L/check-bwd-cudnn.log 2>&1; echo "gpu_check_bwd cudnn_sdpa rc=$? $(el) s"
timeout 120 sh tests/gpu/cudnn_plans.sh $AB > $L/cudnn-plans.log 2>&1; echo "cudnn_plans.sh rc=$?: $(tail -1 $L/cudnn-plans.log) $(el) s"
E=experiments/cost-prefill-hopper.cfg
(cd old-src && timeout 240 $OLD run ../$E --db $L/db/old.db > /dev/null 2> $L/run-old.log); echo "old rc=$? $(el) s"
timeout 150 $AB run $E --db $L/db/new.db > /dev/null 2> $L/run-new.log; echo "new rc=$? $(el) s"
ATTNBENCH_PREPARE_THREADS=0 timeout 150 $AB run $E --db $L/db/new.db > /dev/null 2> $L/run-new-noprep.log; echo "new, no prepare rc=$? $(el) s"
for f in old new new-noprep; do echo "$f: $(grep -h 'timed samples$' $L/run-$f.log | tail -1) $(grep -h 'built ahead' $L/run-$f.log)"; done
wait; ls -la /root/fa4half00 >> $L/gpu.txt 2>&1
cd $OUT && tar czf r1a.tgz r1a && rm -rf r1a
