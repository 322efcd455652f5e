#!/bin/bash
# round 6: the device reference after out_sums (the shared epilogue): its
# digests against round 2's (reference_micro and reference_tiles before the
# fold), the CPU-oracle suite.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/r6; mkdir -p $L
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build.log 2>&1 && ninja -C bf tests/gpu/gpu_check >> $L/build.log 2>&1) || { tail -20 $L/build.log; exit 1; }
echo "built $(el) s"
timeout 60 ./bf/tests/gpu/gpu_check --reference-digest > $L/dig.txt 2>&1
strip() { sed -E 's/ (sums|sq_ref|plain_sq)=[^ ]*//g' "$1"; }
echo "digest lines $(wc -l < $L/dig.txt); oref+maxima differing from round 2 (micro): $(diff <(strip devscripts/r2dig/dig-new.txt) <(strip $L/dig.txt) | grep -c '^>'), from round 2 (tiles): $(diff <(strip devscripts/r2dig/dig-old.txt) <(strip $L/dig.txt) | grep -c '^>')"
timeout 120 ./bf/tests/gpu/gpu_check --reference > $L/reference.log 2>&1; echo "gpu_check --reference rc=$? $(tail -1 $L/reference.log) $(el) s"
cd $OUT && tar czf r6.tgz r6 && rm -rf r6
