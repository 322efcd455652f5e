#!/bin/bash
# round 3, call B (same warm machine as call A): FlashAttention-4 from the
# two wheel halves; cost-fa4 on today's code twice (FA4's disk cache
# cold, then warm), then on the old code; cost-bwd today's then old (the
# other order than round 2).
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r3b; mkdir -p $L/db
[ -x bf/src/attnbench ] && [ -x old-src/bf/src/attnbench ] && [ -f /root/fa4half00 ] || { echo "call A's machine is gone"; exit 1; }
cat /root/fa4half00 .fa4/b/fa4half01 > /root/fa4.tar && mkdir -p /root/whl && tar xf /root/fa4.tar -C /root/whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site /root/whl/*.whl > $L/pip.log 2>&1 || { tail $L/pip.log; exit 1; }
echo "installed $(el) s"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
export FLASH_ATTENTION_CUTE_DSL_CACHE_DIR=/tmp/fa4-cache-r3
python3 -m pip list 2>/dev/null | grep -i -E "flash|cutlass|^torch " > $L/versions.txt; date -u >> $L/versions.txt
AB=$PWD/bf/src/attnbench; OLD=$PWD/old-src/bf/src/attnbench
E=cost-fa4
timeout 100 $AB run experiments/$E.cfg --db $L/db/$E-new.db > /dev/null 2> $L/run-$E-new-cold.log; echo "$E new cold rc=$? $(el) s"
timeout 100 $AB run experiments/$E.cfg --db $L/db/$E-new.db > /dev/null 2> $L/run-$E-new-warm.log; echo "$E new warm rc=$? $(el) s"
(cd old-src && timeout 200 $OLD run ../experiments/$E.cfg --db $L/db/$E-old.db > /dev/null 2> $L/run-$E-old.log); echo "$E old rc=$? $(el) s"
E=cost-bwd
timeout 90 $AB run experiments/$E.cfg --db $L/db/$E-new.db > /dev/null 2> $L/run-$E-new.log; echo "$E new rc=$? $(el) s"
(cd old-src && timeout 120 $OLD run ../experiments/$E.cfg --db $L/db/$E-old.db > /dev/null 2> $L/run-$E-old.log); echo "$E old rc=$? $(el) s"
for f in $L/run-*.log; do echo "$(basename $f): $(grep -h 'timed samples$' $f | tail -1)"; done
cd $OUT && tar czf r3b.tgz r3b && rm -rf r3b
