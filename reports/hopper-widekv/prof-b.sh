#!/bin/bash
# Source-level profile, call B (same warm machine as prof-a.sh): FA4 installed,
# one launch of its forward at the same shapes under the same sections.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/pb; mkdir -p $L
[ -f /root/fa4half00 ] || { echo "prof-a's machine is gone"; exit 1; }
cat /root/fa4half00 .fa4/b/fa4half01 > /root/fa4.tar && mkdir -p /root/whl && tar xf /root/fa4.tar -C /root/whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site /root/whl/*.whl > $L/pip.log 2>&1 || { tail $L/pip.log; exit 1; }
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
for sh in "1 16 16384 128 0 bf16" "1 16 16384 64 0 bf16"; do
  n=fa4-$(echo $sh | tr ' ' _)
  timeout 150 ncu --section SourceCounters --section WarpStateStats -k regex:[Ff]lash --launch-skip 1 --launch-count 1 -o $L/$n python3 devscripts/fa4_one.py $sh 3 > $L/$n.log 2>&1
  ncu -i $L/$n.ncu-rep --page source --csv --print-source sass > $L/$n-sass.csv 2> $L/$n-sass.err
  ncu -i $L/$n.ncu-rep --page details --csv > $L/$n-details.csv 2>&1
  echo "$n $(el) s: $(wc -l < $L/$n-sass.csv) sass lines"
done
rm -f $L/*.ncu-rep
cd $OUT && tar czf pb.tgz pb && rm -rf pb
