#!/bin/bash
# round 8, call H (call G's warm machine): FlashAttention-4 from the two
# wheel halves; cost-fa4 on this stop's code and on the previous stop's,
# each with FA4's disk cache cold (a cache folder of its own), then each
# again with it warm.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/r8h; mkdir -p $L/db
tar xJf devscripts/old-src.tar.xz
[ -x bf/src/attnbench ] && [ -x old-src/bf/src/attnbench ] && [ -f /root/fa4half00 ] || { echo "call G's machine is gone"; exit 1; }
cat /root/fa4half00 .fa4/b/fa4half01 > /root/fa4.tar && mkdir -p /root/whl && tar xf /root/fa4.tar -C /root/whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site /root/whl/*.whl > $L/pip.log 2>&1 || { tail $L/pip.log; exit 1; }
echo "installed $(el) s"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
python3 -m pip list 2>/dev/null | grep -i -E "flash|cutlass|^torch " > $L/versions.txt; date -u >> $L/versions.txt
AB=$PWD/bf/src/attnbench; OLD=$PWD/old-src/bf/src/attnbench; E=cost-fa4
for pass in cold warm; do
  FLASH_ATTENTION_CUTE_DSL_CACHE_DIR=/tmp/fa4-cache-new timeout 100 $AB run experiments/$E.cfg --db $L/db/$E-new.db > /dev/null 2> $L/run-$E-new-$pass.log; echo "$E new $pass rc=$? $(el) s"
  (cd old-src && FLASH_ATTENTION_CUTE_DSL_CACHE_DIR=/tmp/fa4-cache-old timeout 100 $OLD run ../experiments/$E.cfg --db $L/db/$E-old.db > /dev/null 2> $L/run-$E-old-$pass.log); echo "$E old $pass rc=$? $(el) s"
done
for f in $L/run-*.log; do echo "$(basename $f .log): $(grep -h 'timed samples$' $f | tail -1)"; done
cd $OUT && tar czf r8h.tgz r8h && rm -rf r8h
