#!/bin/bash
# GPU call A of the Llama 3 8B prefill run with cuda_wgmma_splitwide: build
# this checkout for 90a and put FlashAttention-4's first wheel half aside.
set -u
T0=$(date +%s)
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
cp .fa4/a/fa4half00 /root/fa4half00 &
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > /tmp/setup.log 2>&1 && ninja -C bf src/attnbench > /tmp/build.log 2>&1) || { tail -30 /tmp/build.log; exit 1; }
wait; echo "built $(( $(date +%s) - T0 )) s"; ls -la /root/fa4half00
