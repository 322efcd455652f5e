#!/bin/bash
# Final GPU call of the session (reports/hopper-widekv/): build this checkout
# for 90a, the whole GPU suite (meson test --suite gpu), then
# compute-sanitizer racecheck of the forward rungs added today and
# yesterday on small shapes (one query tile or two, a few key tiles: the
# sanitize suite's --small shapes took more than 100 s a rung), as many as
# the call's time allows.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/final; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/setup.log 2>&1 && ninja -C bf > $L/build.log 2>&1) || { tail -30 $L/build.log; exit 1; }
echo "built $(el) s"
timeout 300 meson test -C bf --suite gpu --num-processes 4 > $L/suite.log 2>&1; echo "suite rc=$? $(el) s"
cp bf/meson-logs/testlog.txt $L/testlog.txt 2>/dev/null
gc=./bf/tests/gpu/gpu_check; cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
s=""
for r in splitloop desciter widekv wgskip latewait ilpsoft softexp; do
  for sh in 1,2,300,128,0,bf16 1,2,250,64,1,fp16; do
    [ $(el) -lt 540 ] || { s="$s $r/$sh:skipped"; continue; }
    timeout 60 "$cs" --tool racecheck --error-exitcode 3 $gc --shape $sh cuda_wgmma_$r > $L/racecheck-$r-${sh//,/_}.log 2>&1
    s="$s $r/${sh}:rc=$?"
  done
done
echo "racecheck$s ($(el) s)"
cd $OUT && tar czf final.tgz final && cp final/suite.log suite.log; grep -E "^Ok|^Fail|^Skipped|^Timeout" final/suite.log; grep -E "FAIL|TIMEOUT" final/suite.log | head; rm -rf final
