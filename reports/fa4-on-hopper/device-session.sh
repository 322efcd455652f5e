#!/bin/bash
# FA4 session: assemble wheels, install, smoke test, native timing, attnbench runs.
set -u
T0=$(date +%s)
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/logs; mkdir -p $L
cat /root/fa4half00 .fa4/b/fa4half01 > /root/fa4.tar; md5sum /root/fa4.tar
mkdir -p /root/whl && tar xf /root/fa4.tar -C /root/whl
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site /root/whl/*.whl > $L/pip.log 2>&1 || { tail $L/pip.log; exit 1; }
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
(meson setup build90 -Dbuildtype=release -Dgpu_targets=90a > $L/setup.log 2>&1 && ninja -C build90 > $L/build.log 2>&1) || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-T0 )) s"
timeout 200 python3 -c "
from flash_attn.cute import flash_attn_func; import torch
q=torch.randn(1,256,2,128,device='cuda',dtype=torch.bfloat16)
o=flash_attn_func(q,q,q,causal=True); o=o[0] if isinstance(o,tuple) else o
r=torch.nn.functional.scaled_dot_product_attention(q.transpose(1,2),q.transpose(1,2),q.transpose(1,2),is_causal=True).transpose(1,2)
print('fa4 ok', o.shape, 'max diff vs sdpa', (o-r).abs().max().item())" > $L/smoke.log 2>&1; rc=$?; echo "smoke rc=$rc $(( $(date +%s)-T0 )) s"; tail -2 $L/smoke.log
if [ $rc -ne 0 ]; then tail -20 $L/smoke.log; cd $OUT && tar czf logs.tgz logs; exit 1; fi
python3 -m pip list 2>/dev/null | grep -i -E "flash|cutlass|^torch " > $L/versions.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $L/versions.txt
S=8x16x2048x128,4x16x4096x128,1x32x8192x128
timeout 120 python3 tools/native_timing.py --kernel fa4 --shapes $S --dtype bf16 --causal both > $L/native-fa4-before.jsonl 2> $L/native-before.err; echo "native rc=$? $(( $(date +%s)-T0 )) s"
export ATTNBENCH_DB=$OUT/fa4-native-layout.db
r=$(timeout 200 build90/src/attnbench run experiments/fa4-native-layout.cfg 2> $L/run.log); echo "run=$r rc=$? $(( $(date +%s)-T0 )) s"; tail -2 $L/run.log
[ $(( $(date +%s)-T0 )) -lt 250 ] && timeout 90 python3 tools/native_timing.py --kernel fa4 --shapes $S --dtype bf16 --causal both > $L/native-fa4-after.jsonl 2> $L/native-after.err; echo "native2 rc=$? $(( $(date +%s)-T0 )) s"
cd $OUT && tar czf logs.tgz logs && rm -rf logs
