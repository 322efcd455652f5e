#!/bin/bash
# call1.sh (GPU call 1 of the study, run from the device copy's root with
# this branch's tree in .gpu-cost): keeps the first half of FlashAttention-4's
# wheels for call 2, builds main's code (the copy's root: BEFORE) and this
# branch's (.gpu-cost: AFTER) side by side into /root (kept for call 2 on the
# warm machine), runs the GPU tests of what changed, then the non-FA4
# experiments before and after, back to back on this GPU (ABBA order).
set -u
T0=$(date +%s)
R=$(pwd); W=$R/.gpu-cost; L=$OUT/logs; mkdir -p $L
[ -d .fa4/a ] && cp .fa4/a/fa4half00 /root/ &
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
el() { echo $(( $(date +%s) - T0 )); }
( cd $R && ATTNBENCH_COMMIT=$(cat $W/BEFORE_COMMIT) meson setup /root/b-before -Dbuildtype=release -Dgpu_targets=90a >/dev/null && ninja -C /root/b-before > $L/build-before.log 2>&1 ) &
( cd $W && ATTNBENCH_COMMIT=$(cat $W/COMMIT) meson setup /root/b-after -Dbuildtype=release -Dgpu_targets=90a >/dev/null && ninja -C /root/b-after > $L/build-after.log 2>&1 ) &
wait
[ -x /root/b-before/src/attnbench ] || { tail -30 $L/build-before.log; exit 1; }
[ -x /root/b-after/src/attnbench ] || { tail -30 $L/build-after.log; exit 1; }
echo "built $(el) s"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
date -u | tee -a $L/gpu.txt
# what changed, on the GPU: cuDNN's graphs with the kernel cache (forward
# and backward, many shapes in one process), the kit over device buffers
cd $W
AB_CUDNN_SDPA_VERBOSE=1 timeout 100 meson test -C /root/b-after gpu-cudnn_sdpa gpu-bwd-cudnn_sdpa gpu-bwd-reference gpu-reference external-ipc-gpu --num-processes 1 > $L/gpu-tests.log 2>&1; echo "gpu tests rc=$? $(el) s"
grep -E "^ *[0-9]+/[0-9]+ |Ok:|Fail:|Skipped:" $L/gpu-tests.log | tail -10
export AB_CUDNN_SDPA_VERBOSE=1
run() { # run SIDE EXPERIMENT
  local side=$1 exp=$2 dir=$R; [ $side = after ] && dir=$W
  [ $(el) -gt $3 ] && { echo "skip $side $exp (at $(el) s)"; return; }
  ( cd $dir && timeout 150 /root/b-$side/src/attnbench run experiments/$exp.cfg --db $OUT/$side.db > $L/$side-$exp.out 2> $L/$side-$exp.log ); echo "$side $exp rc=$? $(el) s"
}
run before seed-004-sdpa 330
run after seed-004-sdpa 350
run after bwd-kv 330
run before bwd-kv 370
cd $OUT && tar czf logs.tgz logs && rm -rf logs; echo "done $(el) s"
