#!/bin/bash
# round 9, call F (call E's warm machine): FlashAttention-4 timed natively
# (tools/native_timing.py) and alone through the kit (fa4-kit-alone, the
# kit's flag hold), natively, through the kit, natively: round 4's call B
# on this code.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r9f; mkdir -p $L/db
[ -x bf/src/attnbench ] && [ -f /root/fa4half00 ] || { echo "call E's machine is gone"; exit 1; }
cat /root/fa4half00 .fa4/b/fa4half01 > /root/fa4.tar && mkdir -p /root/whl && tar xf /root/fa4.tar -C /root/whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site /root/whl/*.whl > $L/pip.log 2>&1 || { tail $L/pip.log; exit 1; }
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
python3 -m pip list 2>/dev/null | grep -i -E "flash|cutlass|^torch " > $L/versions.txt; date -u >> $L/versions.txt
echo "installed $(el) s"
S=8x16x2048x128,4x16x4096x128,1x32x8192x128
for i in 1 2 3; do
  timeout 60 python3 tools/native_timing.py --kernel fa4 --shapes $S --dtype bf16 --causal both > $L/native-$i.jsonl 2> $L/native-$i.err; echo "native $i rc=$? $(el) s"
  [ $i = 3 ] && break
  timeout 90 bf/src/attnbench run experiments/fa4-kit-alone.cfg --db $L/db/fa4-kit-alone.db > /dev/null 2> $L/run-kit-$i.log; echo "kit $i rc=$? $(el) s"
done
cd $OUT && tar czf r9f.tgz r9f && rm -rf r9f
