#!/bin/bash
# One GPU call: build this checkout for 90a; the gradient check and
# compute-sanitizer memcheck, synccheck, racecheck (--small; racecheck on
# the main kernel) of cuda_wgmma_bwd_dqtma, the gradient check of lsevec
# and dqwide (the main kernel's parameter list changed); experiments
# hopper-bwd-dqtma (D = 128), -d64, -llama3-8b; Nsight Compute counters and
# warp-stall sampling of dqtma (B=4 H=16 S=4096 D=128 bf16 non-causal).
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/bwd; mkdir -p $L $OUT/dbs
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt; ncu --version | tail -1 >> $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/setup.log 2>&1 && ninja -C bf src/attnbench tests/gpu/gpu_check_bwd > $L/build.log 2>&1) || { tail -30 $L/build.log; exit 1; }
echo "built $(el) s"
gb=./bf/tests/gpu/gpu_check_bwd
ok=1
for r in dqtma lsevec dqwide; do
  timeout 60 $gb cuda_wgmma_bwd_$r > $L/check-$r.log 2>&1; c=$?; [ $c -eq 0 ] || ok=0
  echo "check $r rc=$c $(el) s: $(grep -h ' cases' $L/check-$r.log | cut -c1-200)"
  [ $c -eq 0 ] || grep -m4 FAIL $L/check-$r.log | cut -c1-250
done
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
(for t in memcheck synccheck; do timeout 120 "$cs" --tool $t --error-exitcode 3 $gb --small cuda_wgmma_bwd_dqtma > $L/$t-dqtma.log 2>&1; echo "rc $?" >> $L/$t-dqtma.log; done
 timeout 200 "$cs" --tool racecheck --racecheck-report all --print-limit 200 --kernel-name kns=bwd_ws --error-exitcode 3 $gb --small cuda_wgmma_bwd_dqtma > $L/racecheck-dqtma.log 2>&1; echo "rc $?" >> $L/racecheck-dqtma.log) &
A=bf/src/attnbench
if [ $ok -eq 1 ]; then
  for e in hopper-bwd-dqtma hopper-bwd-dqtma-d64 hopper-bwd-dqtma-llama3-8b; do
    r=$(timeout 120 $A run experiments/$e.cfg --db $OUT/dbs/$e.db 2> $L/run-$e.log); echo "$e run=$r $(el) s"; tail -1 $L/run-$e.log
  done
fi
wait
for f in $L/memcheck-* $L/synccheck-* $L/racecheck-*; do echo "$(basename $f): $(tail -1 $f); $(grep -E 'backward: [0-9]+ cases' $f | tail -1 | cut -c1-80); $(grep 'ERROR SUMMARY\|RACECHECK SUMMARY' $f | tail -1)"; done
for e in hopper-bwd-dqtma hopper-bwd-dqtma-d64 hopper-bwd-dqtma-llama3-8b; do
  [ -f $OUT/dbs/$e.db ] && $A report 1 --db $OUT/dbs/$e.db --chain -o $L/$e-run1.md --no-plots > /dev/null 2>&1; grep -A5 "^Predicted speedups" $L/$e-run1.md | tail -2
done
if [ $ok -eq 1 ]; then
P=$L/prof; mkdir -p $P
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__inst_executed_pipe_tensor_op_gmma.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,lts__t_sectors_srcunit_tex_op_red.sum
timeout 100 ncu --clock-control none --kernel-name regex:bwd_ws --launch-skip 5 --launch-count 3 --metrics "$M" --csv --page raw \
    $gb --time 4,16,4096,128,0,bf16,bwd cuda_wgmma_bwd_dqtma > $P/ncu-dqtma.csv 2> $P/ncu-dqtma.err; echo "ncu rc=$? $(el) s"
timeout 150 ncu --clock-control none --kernel-name regex:bwd_ws --launch-skip 5 --launch-count 1 --section SourceCounters --section WarpStateStats --import-source no -o $P/dqtma \
    $gb --time 4,16,4096,128,0,bf16,bwd cuda_wgmma_bwd_dqtma > $P/src-dqtma.log 2>&1; echo "source rc=$? $(el) s"
ncu --import $P/dqtma.ncu-rep --page source --csv --print-source sass > $P/dqtma-sass.csv 2> /dev/null; rm -f $P/dqtma.ncu-rep
fi
cd $OUT && tar czf bwd.tgz bwd && rm -rf bwd && tar czf dbs.tgz dbs && rm -rf dbs; echo "done $(el) s"
