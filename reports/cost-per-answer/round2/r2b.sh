#!/bin/bash
# round 2, call B (same warm machine as call A): FlashAttention-4 from the
# two wheel halves; cost-fa4 on the old code, then the new code twice (FA4's
# disk cache cold, then warm); cost-bwd old then new; FA4 timed natively,
# through the kit (fa4-kit-vs-native), natively again.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r2b; mkdir -p $L/db
[ -x bf/src/attnbench ] && [ -x old-src/bf/src/attnbench ] && [ -f /root/fa4half00 ] || { echo "call A's machine is gone"; exit 1; }
cat /root/fa4half00 .fa4/b/fa4half01 > /root/fa4.tar && mkdir -p /root/whl && tar xf /root/fa4.tar -C /root/whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site /root/whl/*.whl > $L/pip.log 2>&1 || { tail $L/pip.log; exit 1; }
echo "installed $(el) s"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
export FLASH_ATTENTION_CUTE_DSL_CACHE_DIR=/tmp/fa4-cache-r2
python3 -m pip list 2>/dev/null | grep -i -E "flash|cutlass|^torch " > $L/versions.txt; date -u >> $L/versions.txt
AB=$PWD/bf/src/attnbench; OLD=$PWD/old-src/bf/src/attnbench
E=cost-fa4
(cd old-src && timeout 200 $OLD run ../experiments/$E.cfg --db $L/db/$E-old.db > /dev/null 2> $L/run-$E-old.log); echo "$E old rc=$? $(el) s"
timeout 100 $AB run experiments/$E.cfg --db $L/db/$E-new.db > /dev/null 2> $L/run-$E-new-cold.log; echo "$E new cold rc=$? $(el) s"
timeout 100 $AB run experiments/$E.cfg --db $L/db/$E-new.db > /dev/null 2> $L/run-$E-new-warm.log; echo "$E new warm rc=$? $(el) s"
E=cost-bwd
(cd old-src && timeout 120 $OLD run ../experiments/$E.cfg --db $L/db/$E-old.db > /dev/null 2> $L/run-$E-old.log); echo "$E old rc=$? $(el) s"
timeout 90 $AB run experiments/$E.cfg --db $L/db/$E-new.db > /dev/null 2> $L/run-$E-new.log; echo "$E new rc=$? $(el) s"
S=8x16x2048x128,4x16x4096x128,1x32x8192x128
timeout 90 python3 tools/native_timing.py --kernel fa4 --shapes $S --dtype bf16 --causal both > $L/native-fa4-before.jsonl 2> $L/native-before.err; echo "native rc=$? $(el) s"
timeout 120 $AB run experiments/fa4-kit-vs-native.cfg --db $L/db/fa4-kit-vs-native.db > /dev/null 2> $L/run-fa4-kit-vs-native.log; echo "kit run rc=$? $(el) s"
[ $(el) -lt 520 ] && timeout 70 python3 tools/native_timing.py --kernel fa4 --shapes $S --dtype bf16 --causal both > $L/native-fa4-after.jsonl 2> $L/native-after.err; echo "native2 rc=$? $(el) s"
for f in $L/run-*.log; do echo "$(basename $f): $(grep -h 'timed samples$' $f | tail -1)"; done
cd $OUT && tar czf r2b.tgz r2b && rm -rf r2b
