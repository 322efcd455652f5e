#!/bin/bash
# round 13, call B (call A's warm machine): FlashAttention-4 from the two
# wheel halves; cost-fa4 as call A's experiments (--keep-adapters 0 with
# FA4's disk cache cold, three default runs, the kept adapter listed and
# stopped, --keep-adapters 0); then the GPU tests of keeping and of the
# kit's device buffers on this build.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r13b; mkdir -p $L/db
[ -x bf/src/attnbench ] && [ -f /root/fa4half00 ] || { echo "call A's machine is gone"; exit 1; }
cat /root/fa4half00 .fa4/b/fa4half01 > /root/fa4.tar && mkdir -p /root/whl && tar xf /root/fa4.tar -C /root/whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site /root/whl/*.whl > $L/pip.log 2>&1 || { tail $L/pip.log; exit 1; }
echo "installed $(el) s"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
export FLASH_ATTENTION_CUTE_DSL_CACHE_DIR=/tmp/fa4-cache
python3 -m pip list 2>/dev/null | grep -i -E "flash|cutlass|^torch " > $L/versions.txt; date -u >> $L/versions.txt
AB=$PWD/bf/src/attnbench; E=cost-fa4
unset ATTNBENCH_KEEP_ADAPTERS
r() { timeout 120 python3 devscripts/ts.py $AB run experiments/$E.cfg --db $L/db/$E.db $2 > $L/run-$E-$1.log; echo "$E $1 rc=$? $(el) s: $(grep 'timed samples' $L/run-$E-$1.log | tail -1)"; }
$AB adapters --stop > /dev/null 2>&1
r warm-cold "--keep-adapters 0"
r default1 ""; r default2 ""; r default3 ""
$AB adapters > $L/adapters.txt 2>&1; $AB adapters --stop >> $L/adapters.txt 2>&1; sleep 1; pgrep -af examples/fa4.py >> $L/adapters.txt
r plain "--keep-adapters 0"
unset PYTHONPATH
(cd bf && timeout 240 meson test --no-rebuild external-keep external-ipc-gpu > $L/tests.log 2>&1; echo "tests rc $?" >> $L/tests.log)
grep -E "^ *[0-9]+/[0-9]+ |rc " $L/tests.log
cd $OUT && tar czf r13b.tgz r13b && rm -rf r13b
