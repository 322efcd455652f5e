#!/bin/bash
# round 9, call C (call B's warm machine): FlashAttention-4 from the two
# wheel halves; cost-fa4 without keeping (FA4's disk cache cold, then warm)
# and with --keep-adapters (the first starts FA4, the next two are handed
# to it), then once more without.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r9c; mkdir -p $L/db
[ -x bf/src/attnbench ] && [ -f /root/fa4half00 ] || { echo "call B's machine is gone"; exit 1; }
cat /root/fa4half00 .fa4/b/fa4half01 > /root/fa4.tar && mkdir -p /root/whl && tar xf /root/fa4.tar -C /root/whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site /root/whl/*.whl > $L/pip.log 2>&1 || { tail $L/pip.log; exit 1; }
echo "installed $(el) s"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
export FLASH_ATTENTION_CUTE_DSL_CACHE_DIR=/tmp/fa4-cache
python3 -m pip list 2>/dev/null | grep -i -E "flash|cutlass|^torch " > $L/versions.txt; date -u >> $L/versions.txt
AB=$PWD/bf/src/attnbench; E=cost-fa4
r() { timeout 120 python3 devscripts/ts.py $AB run experiments/$E.cfg --db $L/db/$E.db $2 > $L/run-$E-$1.log; echo "$E $1 rc=$? $(el) s: $(tail -1 $L/run-$E-$1.log)"; }
r plain-cold ""
r plain-warm ""
r keep1 "--keep-adapters 300"
r keep2 "--keep-adapters 300"
r keep3 "--keep-adapters 300"
r plain2 ""
pgrep -af "fa4.py" > $L/kept-procs.txt; pkill -f examples/fa4.py
cd $OUT && tar czf r9c.tgz r9c && rm -rf r9c
