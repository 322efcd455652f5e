#!/bin/bash
# One GPU call: the final code (the dQ accumulator's tensor map encoded in
# ws_before beside the other four) built for 90a; the gradient check of the
# backward rungs whose maps it encodes (16-bit Q, dO, K, V and, from dqtma
# on, the fp32 dQ accumulator's) and the forward check of two wgmma
# forward rungs (16-bit maps); memcheck of kvreg.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/v3; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/setup.log 2>&1 && ninja -C bf tests/gpu/gpu_check_bwd tests/gpu/gpu_check > $L/build.log 2>&1) || { tail -30 $L/build.log; exit 1; }
echo "built $(el) s"
for r in kvreg dqtma dqwide owndq lsevec; do
  timeout 90 ./bf/tests/gpu/gpu_check_bwd cuda_wgmma_bwd_$r > $L/check-bwd-$r.log 2>&1
  echo "bwd $r rc=$? $(grep -h ' cases' $L/check-bwd-$r.log | cut -c1-120)"
done
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 150 "$cs" --tool memcheck --error-exitcode 3 ./bf/tests/gpu/gpu_check_bwd --small cuda_wgmma_bwd_kvreg > $L/memcheck-kvreg.log 2>&1
echo "memcheck kvreg rc=$? $(grep 'ERROR SUMMARY' $L/memcheck-kvreg.log | tail -1)"
for v in cuda_wgmma_persistent cuda_wgmma_tma; do
  timeout 120 ./bf/tests/gpu/gpu_check $v > $L/check-fwd-$v.log 2>&1
  echo "fwd $v rc=$? $(tail -1 $L/check-fwd-$v.log | cut -c1-160)"
done
cd $OUT && tar czf v3.tgz v3 && rm -rf v3; echo "done $(el) s"
