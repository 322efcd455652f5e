#!/bin/bash
# round 9, call E (a fresh machine): this code built for 90a; the first
# half of the FA4 wheels copied aside for call F.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r9e; mkdir -p $L
cp .fa4/a/fa4half00 /root/fa4half00 &
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT); meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build.log 2>&1; ninja -C bf src/attnbench >> $L/build.log 2>&1; echo "rc $?" >> $L/build.log)
echo "built $(el) s: $(tail -1 $L/build.log)"
wait; ls -la /root/fa4half00 >> $L/gpu.txt
cd $OUT && tar czf r9e.tgz r9e && rm -rf r9e
