#!/bin/bash
# round 13, call C (a fresh machine: call B's was gone): the same code
# built for 90a; the GPU tests of keeping and of the kit's device buffers,
# with a sqlite3 CLI stand-in on PATH (devscripts/bin: the machine has no
# sqlite3 CLI, so call B skipped one and failed the other); the first half
# of the FA4 wheels copied aside for call D.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r13c; mkdir -p $L
cp .fa4/a/fa4half00 /root/fa4half00 &
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,compute_mode --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT); meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build.log 2>&1; ninja -C bf src/attnbench >> $L/build.log 2>&1; echo "rc $?" >> $L/build.log)
echo "built $(el) s: $(tail -1 $L/build.log)"
export PATH=$PWD/devscripts/bin:$PATH
(cd bf && timeout 300 meson test --no-rebuild external-keep external-ipc-gpu > $L/tests.log 2>&1; echo "tests rc $?" >> $L/tests.log; cp meson-logs/testlog.txt $L/testlog.txt)
grep -E "^ *[0-9]+/[0-9]+ |rc " $L/tests.log; echo "$(el) s"
wait; ls -la /root/fa4half00 >> $L/gpu.txt
cd $OUT && tar czf r13c.tgz r13c && rm -rf r13c
