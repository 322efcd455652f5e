#!/bin/bash
# GPU call B of the latewait round (same warm machine as call-a5.sh):
# FlashAttention-4 installed, experiments/fa3-grid-latewait.cfg run twice
# (runs 1 and 2 of one database: the held-out reading), --chain reports,
# then the source counters of cuda_wgmma_latewait at D = 128 non-causal.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/b; mkdir -p $L
[ -f /root/fa4half00 ] && [ -x bf/src/attnbench ] || { echo "call A's machine is gone"; exit 1; }
cat /root/fa4half00 .fa4/b/fa4half01 > /root/fa4.tar && mkdir -p /root/whl && tar xf /root/fa4.tar -C /root/whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site /root/whl/*.whl > $L/pip.log 2>&1 || { tail $L/pip.log; exit 1; }
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
python3 -m pip list 2>/dev/null | grep -i -E "flash|cutlass|^torch " > $L/versions.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $L/versions.txt; date -u >> $L/versions.txt
echo "installed $(el) s"
A=bf/src/attnbench; e=fa3-grid-latewait
for k in 1 2; do
  [ $(el) -lt 400 ] || break
  r=$(timeout 200 $A run experiments/$e.cfg --db $OUT/$e.db 2> $L/run$k-$e.log); echo "$e run=$r rc=$? $(el) s"; tail -1 $L/run$k-$e.log
done
n=cuda_wgmma_latewait-1_16_16384_128_0_bf16
if [ $(el) -lt 520 ]; then
  timeout 60 ncu --section SourceCounters --section WarpStateStats -k regex:wgmma_persist_fwd --launch-skip 5 --launch-count 1 -o $L/$n bf/tests/gpu/gpu_check --time 1,16,16384,128,0,bf16 cuda_wgmma_latewait > $L/$n.log 2>&1
  ncu -i $L/$n.ncu-rep --page source --csv --print-source sass > $L/$n-sass.csv 2> $L/$n-sass.err
  rm -f $L/$n.ncu-rep; echo "ncu $(el) s"
fi
cd $OUT && tar czf b.tgz b && rm -rf b; echo "done $(el) s"
