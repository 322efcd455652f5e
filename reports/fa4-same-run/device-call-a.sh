#!/bin/bash
# Lead's final GPU call A (merged main): build for 90a, the helpers' first runs of their
# new rungs (bwd.sh, fwd.sh), then the whole GPU suite; the first half of FA4's wheels
# is put aside for call B.
set -u
T0=$(date +%s)
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat final-scripts/COMMIT)
L=$OUT/lead; mkdir -p $L
cp .fa4/a/fa4half00 /root/fa4half00 &
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/setup.log 2>&1 && ninja -C bf > $L/build.log 2>&1) || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-T0 )) s"
for h in bwd fwd; do
  [ -f final-scripts/$h.sh ] && timeout 95 bash final-scripts/$h.sh > $L/$h-summary.txt 2>&1
  echo "$h.sh rc=$? $(( $(date +%s)-T0 )) s"
done
meson test -C bf --suite gpu --num-processes 4 > $L/suite.log 2>&1; echo "suite rc=$? $(( $(date +%s)-T0 )) s"
cp bf/meson-logs/testlog.txt $L/testlog.txt
bf/src/attnbench variants > $L/variants.txt 2>&1
wait; ls -la /root/fa4half00 >> $L/gpu.txt
cd $OUT && for d in bwd fwd; do [ -d $d ] && tar czf $d.tgz $d && rm -rf $d; done; tar czf lead.tgz lead && cp lead/*summary.txt . 2>/dev/null
grep -E "^Ok|^Fail|^Skipped|^Timeout" lead/suite.log; grep -E "FAIL|TIMEOUT" lead/suite.log | head
cat lead/bwd-summary.txt lead/fwd-summary.txt 2>/dev/null | tail -12
rm -rf lead
