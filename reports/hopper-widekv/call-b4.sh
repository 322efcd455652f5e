#!/bin/bash
# GPU call B of the splitloop round (same warm machine as call-a4.sh):
# FlashAttention-4 installed, experiments/fa3-grid-splitloop.cfg and
# llama3-8b-prefill-splitloop.cfg (own rungs, cuDNN, FA4 in one run each)
# with their --chain reports, then the source counters of
# cuda_wgmma_splitloop at the two long non-causal shapes.
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
A=bf/src/attnbench
for e in fa3-grid-splitloop llama3-8b-prefill-splitloop; do
  r=$(timeout 280 $A run experiments/$e.cfg --db $OUT/$e.db 2> $L/run-$e.log); echo "$e run=$r rc=$? $(el) s"; tail -1 $L/run-$e.log
done
for sh in 1,16,16384,128,0,bf16 1,16,16384,64,0,bf16; do
  [ $(el) -lt 500 ] || break
  n=cuda_wgmma_splitloop-${sh//,/_}
  timeout 100 ncu --section SourceCounters --section WarpStateStats -k regex:wgmma_persist_fwd --launch-skip 5 --launch-count 1 -o $L/$n bf/tests/gpu/gpu_check --time $sh cuda_wgmma_splitloop > $L/$n.log 2>&1
  ncu -i $L/$n.ncu-rep --page source --csv --print-source sass > $L/$n-sass.csv 2> $L/$n-sass.err
  rm -f $L/$n.ncu-rep; echo "ncu $n $(el) s"
done
cd $OUT && tar czf b.tgz b && rm -rf b; echo "done $(el) s"
