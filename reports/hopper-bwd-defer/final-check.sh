#!/bin/bash
# One GPU call on the final code: build for 90a; the gradient check of
# every backward variant (their shared code changed this stop), and the
# forward check of the Hopper rungs whose forward they share.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/final; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/setup.log 2>&1 && ninja -C bf tests/gpu/gpu_check_bwd tests/gpu/gpu_check > $L/build.log 2>&1) || { tail -30 $L/build.log; exit 1; }
echo "built $(el) s"
V=$(grep "^AB_BWD" kernels/variants.def | sed 's/AB_BWD(\([a-z0-9_]*\),.*/\1/')
V=$(echo $V | tr " " "\n" | grep -v "^cpu_")
timeout 420 ./bf/tests/gpu/gpu_check_bwd $V > $L/check-bwd.log 2>&1; echo "bwd rc=$? $(el) s"
grep -E "backward: [0-9]+ cases" $L/check-bwd.log | sed 's/ on this GPU//'
timeout 100 ./bf/tests/gpu/gpu_check cuda_wgmma_persistent > $L/check-fwd.log 2>&1; echo "fwd rc=$? $(el) s: $(tail -1 $L/check-fwd.log)"
cd $OUT && tar czf final.tgz final && rm -rf final; echo "done $(el) s"
