#!/bin/bash
# round 1, call B (same warm machine as call A: its builds, /root/fa4half00):
# FlashAttention-4 installed from the two wheel halves; cost-fa4 on the old
# code, then the new code twice (FA4's disk cache cold, then warm), then
# cost-bwd on the old code and the new code.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r1b; mkdir -p $L/db
[ -x bf/src/attnbench ] && [ -x old-src/bf/src/attnbench ] || { echo "builds missing: a fresh machine"; exit 1; }
[ -f /root/fa4half00 ] || { echo "no /root/fa4half00: a fresh machine"; exit 1; }
cat /root/fa4half00 .fa4/b/fa4half01 > /root/fa4.tar && mkdir -p /root/whl && tar xf /root/fa4.tar -C /root/whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site /root/whl/*.whl > $L/pip.log 2>&1 || { tail $L/pip.log; exit 1; }
echo "installed $(el) s"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
export FLASH_ATTENTION_CUTE_DSL_CACHE_DIR=/tmp/fa4-cache
python3 -m pip list 2>/dev/null | grep -i -E "flash|cutlass|^torch " > $L/versions.txt
AB=$PWD/bf/src/attnbench; OLD=$PWD/old-src/bf/src/attnbench
E=experiments/cost-fa4.cfg
(cd old-src && timeout 200 $OLD run ../$E --db $L/db/fa4-old.db > /dev/null 2> $L/run-fa4-old.log); echo "fa4 old rc=$? $(el) s"
timeout 120 $AB run $E --db $L/db/fa4-new.db > /dev/null 2> $L/run-fa4-new-cold.log; echo "fa4 new cold rc=$? $(el) s"
timeout 100 $AB run $E --db $L/db/fa4-new.db > /dev/null 2> $L/run-fa4-new-warm.log; echo "fa4 new warm rc=$? $(el) s"
E=experiments/cost-bwd.cfg
(cd old-src && timeout 120 $OLD run ../$E --db $L/db/bwd-old.db > /dev/null 2> $L/run-bwd-old.log); echo "bwd old rc=$? $(el) s"
timeout 90 $AB run $E --db $L/db/bwd-new.db > /dev/null 2> $L/run-bwd-new.log; echo "bwd new rc=$? $(el) s"
for f in fa4-old fa4-new-cold fa4-new-warm bwd-old bwd-new; do echo "$f: $(grep -h 'timed samples$' $L/run-$f.log | tail -1) $(grep -h 'built ahead' $L/run-$f.log)"; done
cd $OUT && tar czf r1b.tgz r1b && rm -rf r1b
