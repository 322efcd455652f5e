#!/bin/bash
# One GPU call: the final code built for 90a; the GPU suite's tests of the
# seven new rungs (gpu-RUNG: the forward check, gpu-bwd-RUNG: the gradient
# check) and of the harness's GPU paths that a backward run takes
# (gpu-bwd-reference, gpu-cudnn_sdpa, gpu-bwd-cudnn_sdpa).
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/v2; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/setup.log 2>&1 && ninja -C bf > $L/build.log 2>&1) || { tail -30 $L/build.log; exit 1; }
echo "built $(el) s"
T=""
for r in pingpong dslate wguni wgdesc wgstsm kvreg unistsm; do T="$T gpu-cuda_wgmma_bwd_$r gpu-bwd-cuda_wgmma_bwd_$r"; done
timeout 420 meson test -C bf --suite gpu --num-processes 1 $T gpu-bwd-reference gpu-cudnn_sdpa gpu-bwd-cudnn_sdpa > $L/suite.log 2>&1
echo "suite rc=$? $(el) s"; grep -E "^ *[0-9]+/[0-9]+ " $L/suite.log | sed 's/  */ /g' | cut -c1-90; grep -E "^(Ok|Fail|Skipped|Timeout):" $L/suite.log
cp bf/meson-logs/testlog.txt $L/ 2>/dev/null
cd $OUT && tar czf v2.tgz v2 && rm -rf v2; echo "done $(el) s"
