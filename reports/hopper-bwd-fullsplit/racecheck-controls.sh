#!/bin/bash
# racecheck controls (call G's machine): fullsplit with a kernel filter that
# matches nothing (what an uninstrumented run costs), and each rung with
# every kernel instrumented except the float64 reference's (*_tiles)
set -u
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/rc2; mkdir -p $L
[ -x bf/tests/gpu/gpu_check_bwd ] || { echo "machine gone"; exit 1; }
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
run() { (t0=$(date +%s); timeout 400 "$cs" --tool racecheck --racecheck-report all --print-limit 200 $2 --error-exitcode 3 ./bf/tests/gpu/gpu_check_bwd --small cuda_wgmma_bwd_$3 > $L/$1.log 2>&1; echo "rc $? in $(( $(date +%s) - t0 )) s" >> $L/$1.log) & }
run nomatch-fullsplit "--kernel-name kns=zzz_no_such_kernel" fullsplit
for r in loadwarp fullsplit headsplit; do run notiles-$r "--kernel-name-exclude kns=_tiles" $r; done
wait
for f in $L/*.log; do echo "$(basename $f .log): $(tail -1 $f); $(grep -E 'backward: [0-9]+ cases' $f | tail -1); $(grep 'ERROR SUMMARY\|RACECHECK SUMMARY' $f | tail -1)"; done
cd $OUT && tar czf rc2.tgz rc2 && rm -rf rc2
