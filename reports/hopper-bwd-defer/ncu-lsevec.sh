#!/bin/bash
# Nsight Compute of the backward's main kernel, B=4 H=16 S=4096 D=128 bf16
# non-causal: counters of cuda_wgmma_bwd_lsevec, cuda_wgmma_bwd_defer and
# cudnn_sdpa; warp-stall sampling by SASS instruction of lsevec (source page).
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/prof; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt; ncu --version | tail -1 >> $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build.log 2>&1 && ninja -C bf tests/gpu/gpu_check_bwd >> $L/build.log 2>&1) || { tail -20 $L/build.log; exit 1; }
echo "built $(el) s"
M=gpu__time_duration.sum,smsp__cycles_elapsed.avg,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_gmma.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio,sm__cycles_elapsed.avg.per_second
for v in cudnn_sdpa cuda_wgmma_bwd_defer cuda_wgmma_bwd_lsevec; do
  timeout 150 ncu --clock-control none --launch-skip 40 --launch-count 6 --metrics "$M" --csv --page raw \
    ./bf/tests/gpu/gpu_check_bwd --time 4,16,4096,128,0,bf16,bwd $v > $L/ncu-$v.csv 2> $L/ncu-$v.err
  echo "$v rc=$? $(el) s"
done
timeout 240 ncu --clock-control none --kernel-name regex:bwd_ws --launch-skip 5 --launch-count 1 --section SourceCounters --section WarpStateStats --import-source no -o $L/lsevec \
  ./bf/tests/gpu/gpu_check_bwd --time 4,16,4096,128,0,bf16,bwd cuda_wgmma_bwd_lsevec > $L/src.log 2>&1; echo "source rc=$? $(el) s"
ncu --import $L/lsevec.ncu-rep --page source --csv --print-source sass > $L/lsevec-sass.csv 2> $L/sass.err; echo "sass rc=$? $(wc -l < $L/lsevec-sass.csv) lines"
ncu --import $L/lsevec.ncu-rep --page details --csv > $L/lsevec-details.csv 2>&1
head -3 $L/lsevec-sass.csv | cut -c1-600
cd $OUT && tar czf prof.tgz prof && rm -rf prof; echo "done $(el) s"
