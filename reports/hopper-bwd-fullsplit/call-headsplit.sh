#!/bin/bash
# One GPU call (reports/hopper-bwd-fullsplit/ (headsplit round)): build this checkout for 90a,
# the gradient check of cuda_wgmma_bwd_headsplit (and of cuda_wgmma_bwd_heads,
# whose shared code changed), compute-sanitizer memcheck and synccheck
# (--small) and racecheck at the smallest shapes, then the two experiments
# (FlashAttention-3's bf16 grid and Llama 3 8B) with cuDNN in the same run.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/bwd; mkdir -p $L
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/setup.log 2>&1 && ninja -C bf src/attnbench tests/gpu/gpu_check_bwd > $L/build.log 2>&1) || { tail -30 $L/build.log; exit 1; }
echo "built $(el) s"
gb=./bf/tests/gpu/gpu_check_bwd
timeout 200 $gb cuda_wgmma_bwd_headsplit cuda_wgmma_bwd_heads > $L/check.log 2>&1; c=$?
echo "gradient check rc=$c $(el) s: $(grep -h ' cases' $L/check.log | tr '\n' ' ' | cut -c1-200)"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
s=""
for t in memcheck synccheck; do
  timeout 90 "$cs" --tool $t --error-exitcode 3 $gb --small cuda_wgmma_bwd_headsplit > $L/$t.log 2>&1; s="$s $t:rc=$?"
done
echo "sanitizers$s $(el) s"
if [ $c -eq 0 ]; then
  A=bf/src/attnbench
  for e in hopper-bwd-headsplit hopper-bwd-headsplit-llama3-8b; do
    [ $(el) -lt 420 ] || break
    r=$(timeout 150 $A run experiments/$e.cfg --db $OUT/$e.db 2> $L/run-$e.log); echo "$e run=$r rc=$? $(el) s"; tail -1 $L/run-$e.log
  done
fi
cd $OUT && tar czf bwd.tgz bwd && rm -rf bwd; echo "done $(el) s"
