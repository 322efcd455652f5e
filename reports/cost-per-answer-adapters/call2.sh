#!/bin/bash
# call2.sh (GPU call 2, run from the device copy's root with this branch's
# tree in .gpu-cost; FA4's first wheel half carried in .fa4/a): keeps that
# half for call 3, builds main (BEFORE, the copy's root) and this branch
# (AFTER) into /root (kept for call 3 on the warm machine), checks the tiled
# backward reference on the GPU, then runs the non-FA4 experiments before
# and after back to back (this time AFTER first), and bwd-kv once more with
# the warp-per-row backward reference (AB_GPU_REFERENCE_BWD_ROWS=1) for the
# reference's own share.
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
cd $W
B=/root/b-after/tests/gpu
timeout 60 $B/gpu_check_bwd --reference > $L/bwd-reference.log 2>&1; echo "bwd reference rc=$? $(el) s"; tail -1 $L/bwd-reference.log; grep -c FAIL $L/bwd-reference.log
timeout 60 $B/gpu_check_bwd --small cudnn_sdpa cuda_mma_bwd_pipeline > $L/bwd-variants.log 2>&1; echo "bwd variants rc=$? $(el) s"; grep -iE "failed|cases" $L/bwd-variants.log | tail -4
export AB_CUDNN_SDPA_VERBOSE=1
run() { # run SIDE EXPERIMENT LATEST_START [DB]
  local side=$1 exp=$2 dir=$R db=${4:-$1}; [ $side = after ] && dir=$W
  [ $(el) -gt $3 ] && { echo "skip $side $exp (at $(el) s)"; return; }
  ( cd $dir && timeout $(( 400 - $(el) < 120 ? 400 - $(el) : 120 )) /root/b-$side/src/attnbench run experiments/$exp.cfg --db $OUT/$db.db > $L/$db-$exp.out 2> $L/$db-$exp.log ); echo "$db $exp rc=$? $(el) s"
}
run after bwd-kv 300
run before bwd-kv 320
AB_GPU_REFERENCE_BWD_ROWS=1 run after bwd-kv 340 after-rows
run after hopper-lpt 300
run before hopper-lpt 330
run after seed-004-sdpa 370
run before seed-004-sdpa 385
cd $OUT && tar czf logs.tgz logs && rm -rf logs; echo "done $(el) s"
