#!/bin/bash
# GPU call B of the Llama 3 8B prefill run (same warm machine as call-a7.sh):
# FlashAttention-4 installed, experiments/llama3-8b-prefill-splitwide.cfg once
# (runs 1 and 2 of one database: the held-out reading), --chain reports,
# no profile.
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
A=bf/src/attnbench; e=llama3-8b-prefill-splitwide
for k in 1; do
  [ $(el) -lt 400 ] || break
  r=$(timeout 200 $A run experiments/$e.cfg --db $OUT/$e.db 2> $L/run$k-$e.log); echo "$e run=$r rc=$? $(el) s"; tail -1 $L/run$k-$e.log
done
cd $OUT && tar czf b.tgz b && rm -rf b; echo "done $(el) s"
