#!/bin/bash
# GPU call A of the splitwide round (reports/hopper-widekv/): build this
# checkout for 90a, the float64 check of cuda_wgmma_splitwide and of the
# rungs before it (the shared body changed again), odd shapes,
# compute-sanitizer memcheck and synccheck (--small), quick timings, and the
# first half of FlashAttention-4's wheels put aside for call B.
# and the first half of FlashAttention-4's wheels put aside for call B.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/a; mkdir -p $L
cp .fa4/a/fa4half00 /root/fa4half00 &
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/setup.log 2>&1 && ninja -C bf src/attnbench tests/gpu/gpu_check > $L/build.log 2>&1) || { tail -30 $L/build.log; exit 1; }
echo "built $(el) s"
gc=./bf/tests/gpu/gpu_check; R="cuda_wgmma_splitwide"; ALL="cuda_wgmma_splitloop cuda_wgmma_wgskip"
timeout 150 $gc $R $ALL > $L/check.log 2>&1; c=$?
for sh in 2,8,1000,128,0,bf16 3,4,3001,128,0,fp16 1,8,4097,128,0,bf16,2,5000 2,6,700,128,1,bf16,3,1500 2,4,1100,64,0,fp16; do
  timeout 30 $gc --shape $sh $R >> $L/check.log 2>&1 || c=$?
done
echo "check rc=$c $(el) s: $(grep -c PASS $L/check.log) PASS lines, $(grep -c FAIL $L/check.log) FAIL lines"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
s=""
for r in $R; do for t in memcheck synccheck; do
  timeout 60 "$cs" --tool $t --error-exitcode 3 $gc --small $r > $L/$t-$r.log 2>&1; s="$s ${r#cuda_wgmma_}-$t:rc=$?"
done; done
for sh in 1,2,300,128,0,bf16 1,2,250,64,1,fp16; do
  timeout 60 "$cs" --tool racecheck --error-exitcode 3 $gc --shape $sh $R > $L/racecheck-${sh//,/_}.log 2>&1; s="$s racecheck-$sh:rc=$?"
done
echo "sanitizers$s $(el) s"
V="cuda_wgmma_splitloop cuda_wgmma_splitwide cudnn_sdpa"
for sh in 1,16,16384,128,0,bf16 2,16,8192,128,0,fp16 16,16,1024,128,0,bf16 1,16,16384,64,0,bf16 4,16,4096,64,1,bf16 1,16,16384,128,1,bf16; do
  echo "== $sh" >> $L/time.log; timeout 40 $gc --time $sh $V >> $L/time.log 2>&1
done
echo "timed $(el) s"
wait; ls -la /root/fa4half00 >> $L/gpu.txt
grep -h "^time" $L/time.log | awk '{t=""; for(i=1;i<=NF;i++) if($i=="TFLOP/s") t=$(i-1); printf "%-8s %s %s %s %s %s %s TFLOP/s\n", $2, $6, $8, $9, $10, $12, t}' | sed 's/cuda_wgmma_//'
cd $OUT && tar czf a.tgz a && rm -rf a
