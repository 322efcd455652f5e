#!/bin/bash
# Lead's final GPU call B (same warm machine as call A): FlashAttention-4 installed from
# the two wheel halves, then FlashAttention-3's grid with FA4, cuDNN and the own rungs in one run.
set -u
T0=$(date +%s)
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat final-scripts/COMMIT)
L=$OUT/fa4; mkdir -p $L
cat /root/fa4half00 .fa4/b/fa4half01 > /root/fa4.tar && mkdir -p /root/whl && tar xf /root/fa4.tar -C /root/whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site /root/whl/*.whl > $L/pip.log 2>&1 || { tail $L/pip.log; exit 1; }
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
[ -x bf/src/attnbench ] || { (meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/setup.log 2>&1 && ninja -C bf > $L/build.log 2>&1) || exit 1; }
echo "ready $(( $(date +%s)-T0 )) s"
python3 -m pip list 2>/dev/null | grep -i -E "flash|cutlass|^torch " > $L/versions.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $L/versions.txt
A=bf/src/attnbench
r=$(timeout 330 $A run experiments/fa3-grid-fa4.cfg --db $OUT/fa3-grid-fa4.db 2> $L/run-fa3-grid-fa4.log); echo "fa3-grid run=$r rc=$? $(( $(date +%s)-T0 )) s"; tail -3 $L/run-fa3-grid-fa4.log
if [ $(( $(date +%s)-T0 )) -lt 330 ]; then
  r=$(timeout $(( 480 - ($(date +%s)-T0) )) $A run experiments/llama3-8b-prefill-fa4.cfg --db $OUT/llama3-8b-prefill-fa4.db 2> $L/run-llama.log); echo "llama run=$r rc=$? $(( $(date +%s)-T0 )) s"
fi
cd $OUT && tar czf fa4logs.tgz fa4 && rm -rf fa4
