#!/bin/bash
# round 11, call B (call A's warm machine): FlashAttention-4 from the wheel
# halves; cost-fa4 plain (FA4's cache cold, then warm) and three times with
# --keep-adapters 300 (the first starts FA4); the kept adapter then listed
# and stopped by `attnbench adapters`.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r11b; mkdir -p $L/db
[ -x bf/src/attnbench ] && [ -f /root/fa4half00 ] || { echo "call A's machine is gone"; exit 1; }
cat /root/fa4half00 .fa4/b/fa4half01 > /root/fa4.tar && mkdir -p /root/whl && tar xf /root/fa4.tar -C /root/whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site /root/whl/*.whl > $L/pip.log 2>&1 || { tail $L/pip.log; exit 1; }
echo "installed $(el) s"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
export FLASH_ATTENTION_CUTE_DSL_CACHE_DIR=/tmp/fa4-cache
python3 -m pip list 2>/dev/null | grep -i -E "flash|cutlass|^torch " > $L/versions.txt; date -u >> $L/versions.txt
AB=$PWD/bf/src/attnbench; E=cost-fa4
r() { timeout 120 python3 devscripts/ts.py $AB run experiments/$E.cfg --db $L/db/$E.db $2 > $L/run-$E-$1.log; echo "$E $1 rc=$? $(el) s: $(tail -1 $L/run-$E-$1.log)"; }
r plain-cold ""; r plain-warm ""
r keep1 "--keep-adapters 300"; r keep2 "--keep-adapters 300"; r keep3 "--keep-adapters 300"
$AB adapters > $L/adapters.txt 2>&1; $AB adapters --stop >> $L/adapters.txt 2>&1; sleep 1; $AB adapters >> $L/adapters.txt 2>&1; pgrep -af examples/fa4.py >> $L/adapters.txt; cat $L/adapters.txt
cd $OUT && tar czf r11b.tgz r11b && rm -rf r11b
