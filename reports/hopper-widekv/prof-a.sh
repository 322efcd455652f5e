#!/bin/bash
# Source-level profile, call A: build for 90a, then one launch of
# cuda_wgmma_desciter at B=1 H=16 S=16384 D=128 bf16 non-causal under Nsight
# Compute with the source counters (stall samples per SASS instruction),
# printed as CSV; FA4's first wheel half put aside for prof-b.sh.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/pa; mkdir -p $L
cp .fa4/a/fa4half00 /root/fa4half00 &
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/setup.log 2>&1 && ninja -C bf src/attnbench tests/gpu/gpu_check > $L/build.log 2>&1) || { tail -30 $L/build.log; exit 1; }
echo "built $(el) s"
for v in cuda_wgmma_desciter; do
  for sh in 1,16,16384,128,0,bf16 1,16,16384,64,0,bf16; do
    n=$v-${sh//,/_}
    timeout 120 ncu --section SourceCounters --section WarpStateStats -k regex:wgmma_persist_fwd --launch-skip 5 --launch-count 1 -o $L/$n bf/tests/gpu/gpu_check --time $sh $v > $L/$n.log 2>&1
    ncu -i $L/$n.ncu-rep --page source --csv --print-source sass > $L/$n-sass.csv 2> $L/$n-sass.err
    ncu -i $L/$n.ncu-rep --page details --csv > $L/$n-details.csv 2>&1
    echo "$n $(el) s: $(wc -l < $L/$n-sass.csv) sass lines"
  done
done
wait
rm -f $L/*.ncu-rep
cd $OUT && tar czf pa.tgz pa && rm -rf pa
