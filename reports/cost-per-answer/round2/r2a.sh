#!/bin/bash
# round 2, call A: three builds for 90a side by side (today's tree;
# 2026-11-25's code, old-src = 5f5fdbe; refold = today's tree before the
# reference kernel's change, 1694bcd); the device reference's digests old vs
# new and against the CPU oracle, its time old vs new; cost-prefill-hopper
# and cost-ladder-sdpa on the old code then the new; cuDNN's plans test and
# the plans-ahead study (threads 0/1/4/16, JIT cache warm and cold).
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/r2a; mkdir -p $L/db
cp .fa4/a/fa4half00 /root/fa4half00 2>/dev/null &
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build-new.log 2>&1 && ninja -C bf >> $L/build-new.log 2>&1; echo "rc $?" >> $L/build-new.log) &
(cd old-src && meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build-old.log 2>&1 && ninja -C bf src/attnbench >> $L/build-old.log 2>&1; echo "rc $?" >> $L/build-old.log) &
mkdir -p refold && tar c --exclude=./bf --exclude=./old-src --exclude=./refold --exclude=./.deps --exclude=./.fa4 --exclude=./.git . | tar x -C refold && cp devscripts/gpu_reference_old.cu refold/kernels/gpu_reference.cu
(cd refold && ATTNBENCH_COMMIT=1694bcd meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build-refold.log 2>&1 && ninja -C bf tests/gpu/gpu_check >> $L/build-refold.log 2>&1; echo "rc $?" >> $L/build-refold.log) &
wait
echo "built $(el) s: new $(tail -1 $L/build-new.log), old $(tail -1 $L/build-old.log), refold $(tail -1 $L/build-refold.log)"
AB=$PWD/bf/src/attnbench; OLD=$PWD/old-src/bf/src/attnbench; GN=./bf/tests/gpu/gpu_check; GO=./refold/bf/tests/gpu/gpu_check
timeout 60 $GO --reference-digest > $L/dig-old.txt 2>&1; timeout 60 $GO --reference-digest > $L/dig-old2.txt 2>&1
timeout 60 $GN --reference-digest > $L/dig-new.txt 2>&1
strip() { sed -E 's/ (sums|sq_ref|plain_sq)=[^ ]*//g' "$1"; }
echo "digests: $(wc -l < $L/dig-new.txt) lines; old vs new (oref, maxima) differ in $(diff <(strip $L/dig-old.txt) <(strip $L/dig-new.txt) | grep -c '^>') lines; old vs new all fields $(diff $L/dig-old.txt $L/dig-new.txt | grep -c '^>'); old vs old $(diff $L/dig-old.txt $L/dig-old2.txt | grep -c '^>') $(el) s"
timeout 120 $GN --reference > $L/reference-new.log 2>&1; echo "gpu_check --reference (new) rc=$? $(tail -1 $L/reference-new.log) $(el) s"
for s in 1,16,16384,128,1,bf16 1,16,16384,128,0,bf16 1,16,16384,64,0,fp16 8,16,2048,128,1,bf16; do
  echo "== $s" >> $L/reftime.log; timeout 30 $GO --reference-time $s 5 >> $L/reftime.log 2>&1; timeout 30 $GN --reference-time $s 5 >> $L/reftime.log 2>&1
done; echo "reference timed $(el) s"
for E in cost-prefill-hopper cost-ladder-sdpa; do
  (cd old-src && timeout 200 $OLD run ../experiments/$E.cfg --db $L/db/$E-old.db > /dev/null 2> $L/run-$E-old.log); echo "$E old rc=$? $(el) s"
  timeout 100 $AB run experiments/$E.cfg --db $L/db/$E-new.db > /dev/null 2> $L/run-$E-new.log; echo "$E new rc=$? $(el) s"
done
timeout 100 sh tests/gpu/cudnn_plans.sh $AB > $L/cudnn-plans.log 2>&1; echo "cudnn_plans.sh rc=$?: $(tail -1 $L/cudnn-plans.log) $(el) s"
for c in warm cold; do for th in 0 1 4 16; do
  [ $(el) -lt 540 ] || break
  if [ $c = cold ]; then export CUDA_CACHE_DISABLE=1; else unset CUDA_CACHE_DISABLE; fi
  ATTNBENCH_PREPARE_THREADS=$th timeout 40 $AB run experiments/cost-cudnn-plans.cfg --db $L/db/plans.db > /dev/null 2> $L/run-plans-$c-$th.log
  echo "plans $c threads=$th rc=$? $(grep -h 'timed samples$' $L/run-plans-$c-$th.log | tail -1) | $(grep -ho 'in [0-9.]* s (charged' $L/run-plans-$c-$th.log)"
done; done
unset CUDA_CACHE_DISABLE
for f in $L/run-cost-*.log; do echo "$(basename $f): $(grep -h 'timed samples$' $f | tail -1) $(grep -ho 'in [0-9.]* s (charged' $f)"; done
grep -h "median" $L/reftime.log | head -20
wait; ls -la /root/fa4half00 >> $L/gpu.txt 2>&1
cd $OUT && tar czf r2a.tgz r2a && rm -rf r2a
