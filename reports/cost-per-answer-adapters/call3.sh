#!/bin/bash
# call3.sh (GPU call 3, within 30 s of call 2 on the same warm machine;
# FA4's second wheel half carried in .fa4/b): joins and installs
# FlashAttention-4 (flash-attn-4 4.0.0b36, CuTe DSL 4.8.1) into /tmp/site,
# then runs the FA4 experiments with call 2's builds, before and after back
# to back (ABBA), and Llama 3 8B prefill twice more with FA4's own disk
# cache on (a fresh folder: the first run compiles and exports, the second
# loads), to show what that cache takes off a later run.
set -u
T0=$(date +%s)
R=$(pwd); W=$R/.gpu-cost; L=$OUT/logs; mkdir -p $L
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
el() { echo $(( $(date +%s) - T0 )); }
[ -x /root/b-after/src/attnbench ] && [ -f /root/fa4half00 ] || { echo "call 2's machine is gone"; exit 1; }
cat /root/fa4half00 .fa4/b/fa4half01 > /root/fa4.tar && mkdir -p /root/whl && tar xf /root/fa4.tar -C /root/whl
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site /root/whl/*.whl > $L/pip.log 2>&1 || { tail $L/pip.log; exit 1; }
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
python3 -m pip list 2>/dev/null | grep -i -E "flash|cutlass|^torch " > $L/versions.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $L/versions.txt
date -u >> $L/versions.txt
echo "installed $(el) s"
export AB_CUDNN_SDPA_VERBOSE=1
run() { # run SIDE EXPERIMENT LATEST_START [DB]
  local side=$1 exp=$2 dir=$R db=${4:-$1}; [ $side = after ] && dir=$W
  [ $(el) -gt $3 ] && { echo "skip $db $exp (at $(el) s)"; return; }
  ( cd $dir && timeout $(( 400 - $(el) < 150 ? 400 - $(el) : 150 )) /root/b-$side/src/attnbench run experiments/$exp.cfg --db $OUT/$db.db > $L/$db-$exp.out 2> $L/$db-$exp.log ); echo "$db $exp rc=$? $(el) s"
}
run before llama3-8b-prefill-fa4 200
run after llama3-8b-prefill-fa4 230
run after fa3-grid-fa4 250
run before fa3-grid-fa4 300
export FLASH_ATTENTION_CUTE_DSL_CACHE_ENABLED=1 FLASH_ATTENTION_CUTE_DSL_CACHE_DIR=/root/fa4cache
run after llama3-8b-prefill-fa4 340 after-diskcache
run after llama3-8b-prefill-fa4 370 after-diskcache
unset FLASH_ATTENTION_CUTE_DSL_CACHE_ENABLED FLASH_ATTENTION_CUTE_DSL_CACHE_DIR
run after fa4-native-layout 330
run before fa4-native-layout 330
cd $OUT && tar czf logs.tgz logs && rm -rf logs; echo "done $(el) s"
