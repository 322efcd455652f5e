#!/bin/bash
# round 13, call D (call C's warm machine): FlashAttention-4 from the two
# wheel halves and its three dependencies call B lacked (quack-kernels,
# apache-tvm-ffi, torch-c-dlpack-ext); cost-fa4 with --keep-adapters 0 and
# FA4's disk cache cold, three runs with default settings (the first starts
# FA4 and leaves it kept), the kept adapter listed and stopped, one run with
# --keep-adapters 0.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r13d; mkdir -p $L/db
[ -x bf/src/attnbench ] && [ -f /root/fa4half00 ] || { echo "call C's machine is gone"; exit 1; }
cat /root/fa4half00 .fa4/b/fa4half01 > /root/fa4.tar && mkdir -p /root/whl && tar xf /root/fa4.tar -C /root/whl && cp .fa4/c/*.whl /root/whl/ || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site /root/whl/*.whl > $L/pip.log 2>&1 || { tail $L/pip.log; exit 1; }
echo "installed $(el) s"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
export FLASH_ATTENTION_CUTE_DSL_CACHE_DIR=/tmp/fa4-cache
python3 -m pip list 2>/dev/null | grep -i -E "flash|cutlass|quack|tvm|dlpack|^torch " > $L/versions.txt; date -u >> $L/versions.txt
AB=$PWD/bf/src/attnbench; E=cost-fa4
unset ATTNBENCH_KEEP_ADAPTERS
r() { timeout 120 python3 devscripts/ts.py $AB run experiments/$E.cfg --db $L/db/$E.db $2 > $L/run-$E-$1.log; echo "$E $1 rc=$? $(el) s: $(grep 'timed samples' $L/run-$E-$1.log | tail -1)"; }
$AB adapters --stop > /dev/null 2>&1
r warm-cold "--keep-adapters 0"
r default1 ""; r default2 ""; r default3 ""
$AB adapters > $L/adapters.txt 2>&1; $AB adapters --stop >> $L/adapters.txt 2>&1; sleep 1; pgrep -af examples/fa4.py >> $L/adapters.txt
r plain "--keep-adapters 0"
cd $OUT && tar czf r13d.tgz r13d && rm -rf r13d
