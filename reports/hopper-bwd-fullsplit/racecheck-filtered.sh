#!/bin/bash
# compute-sanitizer racecheck of the three newest backward rungs
# (cuda_wgmma_bwd_loadwarp, _fullsplit, _headsplit) over gpu_check_bwd
# --small, three processes side by side, only their main kernel (bwd_ws)
# instrumented (--kernel-name kns=bwd_ws): the float64 reference's kernels,
# which the check runs, are left uninstrumented; 540 s each.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/rc; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build.log 2>&1 && ninja -C bf tests/gpu/gpu_check_bwd >> $L/build.log 2>&1) || { tail -20 $L/build.log; exit 1; }
echo "built $(el) s"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
$cs --version | tail -1 >> $L/gpu.txt
for r in loadwarp fullsplit headsplit; do
  (t0=$(date +%s); timeout 540 "$cs" --tool racecheck --racecheck-report all --print-limit 200 --kernel-name kns=bwd_ws --error-exitcode 3 ./bf/tests/gpu/gpu_check_bwd --small cuda_wgmma_bwd_$r > $L/racecheck-$r.log 2>&1; echo "rc $? in $(( $(date +%s) - t0 )) s" >> $L/racecheck-$r.log) &
done
wait
for r in loadwarp fullsplit headsplit; do echo "$r: $(tail -1 $L/racecheck-$r.log); $(grep -E 'backward: [0-9]+ cases' $L/racecheck-$r.log | tail -1); $(grep -ci 'hazard' $L/racecheck-$r.log) hazard lines; $(grep 'ERROR SUMMARY\|RACECHECK SUMMARY' $L/racecheck-$r.log | tail -1)"; done
echo "$(el) s"
cd $OUT && tar czf rc.tgz rc && rm -rf rc
