#!/bin/bash
# round 4, call A: today's tree built for 90a; compute-sanitizer memcheck,
# synccheck and racecheck over the device reference's CPU-oracle suite
# (gpu_check --reference: reference_micro at D = 64 and 128, reference_tiles
# at D = 1 and 200); the first FA4 wheel half put aside for call B.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/r4a; mkdir -p $L
cp .fa4/a/fa4half00 /root/fa4half00 2>/dev/null &
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build.log 2>&1 && ninja -C bf src/attnbench tests/gpu/gpu_check >> $L/build.log 2>&1) || { tail -20 $L/build.log; exit 1; }
echo "built $(el) s"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for t in memcheck synccheck racecheck; do
  timeout 150 "$cs" --tool $t --error-exitcode 3 ./bf/tests/gpu/gpu_check --reference > $L/$t-reference.log 2>&1
  echo "$t rc=$? $(tail -2 $L/$t-reference.log | tr '\n' ' ') $(el) s"
done
wait; ls -la /root/fa4half00 >> $L/gpu.txt 2>&1
cd $OUT && tar czf r4a.tgz r4a && rm -rf r4a
