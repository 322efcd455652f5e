#!/bin/bash
# One GPU call: build this checkout for 90a; the gradient check and
# compute-sanitizer memcheck, synccheck, racecheck (--small; racecheck on
# the main kernel) of cuda_wgmma_bwd_deferexp; experiment hopper-bwd-deferexp
# (D = 64); hopper-bwd-wide again as run 2 of d2's database (its S = 8192
# configurations varied 2x between rounds on d2's H200); Nsight Compute of
# lsevec, expfirst and dqwide (B=4 H=16 S=4096 D=128 bf16 non-causal;
# counters, and the warp-stall sampling by SASS instruction of the two new ones).
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/bwd; mkdir -p $L $OUT/dbs
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt; ncu --version | tail -1 >> $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/setup.log 2>&1 && ninja -C bf src/attnbench tests/gpu/gpu_check_bwd > $L/build.log 2>&1) || { tail -30 $L/build.log; exit 1; }
echo "built $(el) s"
gb=./bf/tests/gpu/gpu_check_bwd
timeout 60 $gb cuda_wgmma_bwd_deferexp > $L/check-deferexp.log 2>&1; c=$?
echo "check deferexp rc=$c $(el) s: $(grep -h ' cases' $L/check-deferexp.log | cut -c1-200)"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
(for t in memcheck synccheck; do timeout 120 "$cs" --tool $t --error-exitcode 3 $gb --small cuda_wgmma_bwd_deferexp > $L/$t-deferexp.log 2>&1; echo "rc $?" >> $L/$t-deferexp.log; done
 timeout 200 "$cs" --tool racecheck --racecheck-report all --print-limit 200 --kernel-name kns=bwd_ws --error-exitcode 3 $gb --small cuda_wgmma_bwd_deferexp > $L/racecheck-deferexp.log 2>&1; echo "rc $?" >> $L/racecheck-deferexp.log) &
A=bf/src/attnbench
cp devscripts/hopper-bwd-wide.db $OUT/dbs/
if [ $c -eq 0 ]; then
  r=$(timeout 120 $A run experiments/hopper-bwd-deferexp.cfg --db $OUT/dbs/hopper-bwd-deferexp.db 2> $L/run-hopper-bwd-deferexp.log); echo "deferexp run=$r $(el) s"; tail -1 $L/run-hopper-bwd-deferexp.log
fi
r=$(timeout 120 $A run experiments/hopper-bwd-wide.cfg --db $OUT/dbs/hopper-bwd-wide.db 2> $L/run-hopper-bwd-wide-2.log); echo "wide run=$r $(el) s"; tail -1 $L/run-hopper-bwd-wide-2.log
wait
for f in $L/memcheck-* $L/synccheck-* $L/racecheck-*; do echo "$(basename $f): $(tail -1 $f); $(grep -E 'backward: [0-9]+ cases' $f | tail -1 | cut -c1-80); $(grep 'ERROR SUMMARY\|RACECHECK SUMMARY' $f | tail -1)"; done
[ -f $OUT/dbs/hopper-bwd-deferexp.db ] && $A report 1 --db $OUT/dbs/hopper-bwd-deferexp.db --chain -o $L/hopper-bwd-deferexp-run1.md --no-plots > /dev/null 2>&1; grep -A5 "^Predicted speedups" $L/hopper-bwd-deferexp-run1.md | tail -3
$A report 2 --db $OUT/dbs/hopper-bwd-wide.db --chain -o $L/hopper-bwd-wide-run2.md --no-plots > /dev/null 2>&1; grep -A7 "^Predicted speedups" $L/hopper-bwd-wide-run2.md | tail -4
P=$L/prof; mkdir -p $P
M=gpu__time_duration.sum,smsp__cycles_elapsed.avg,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_gmma.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio,sm__cycles_elapsed.avg.per_second,lts__t_sectors_srcunit_tex_op_red.sum
for v in lsevec expfirst dqwide; do
  timeout 100 ncu --clock-control none --kernel-name regex:bwd_ws --launch-skip 5 --launch-count 3 --metrics "$M" --csv --page raw \
    $gb --time 4,16,4096,128,0,bf16,bwd cuda_wgmma_bwd_$v > $P/ncu-$v.csv 2> $P/ncu-$v.err; echo "ncu $v rc=$? $(el) s"
done
for v in expfirst dqwide; do
  timeout 150 ncu --clock-control none --kernel-name regex:bwd_ws --launch-skip 5 --launch-count 1 --section SourceCounters --section WarpStateStats --import-source no -o $P/$v \
    $gb --time 4,16,4096,128,0,bf16,bwd cuda_wgmma_bwd_$v > $P/src-$v.log 2>&1; echo "source $v rc=$? $(el) s"
  ncu --import $P/$v.ncu-rep --page source --csv --print-source sass > $P/$v-sass.csv 2> /dev/null; rm -f $P/$v.ncu-rep
done
cd $OUT && tar czf bwd.tgz bwd && rm -rf bwd && tar czf dbs.tgz dbs && rm -rf dbs; echo "done $(el) s"
