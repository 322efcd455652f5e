#!/bin/bash
# Nsight Compute (clocks left alone) of every kernel one backward call
# launches, cuDNN's fused backward against cuda_wgmma_bwd_headsplit and
# cuda_wgmma_bwd_fullsplit, at B=4 H=16 S=4096 D=128 bf16 non-causal and
# at D=64: launch shape, registers, shared memory, tensor pipe, issue,
# stalls, memory traffic.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/prof; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build.log 2>&1 && ninja -C bf tests/gpu/gpu_check_bwd >> $L/build.log 2>&1) || { tail -20 $L/build.log; exit 1; }
echo "built $(el) s"
M=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_gmma.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio,sm__cycles_elapsed.avg.per_second
for d in 128 64; do
  for v in cudnn_sdpa cuda_wgmma_bwd_headsplit cuda_wgmma_bwd_fullsplit; do
    timeout 150 ncu --clock-control none --launch-skip 40 --launch-count 6 --metrics "$M" --csv --page raw \
      ./bf/tests/gpu/gpu_check_bwd --time 4,16,4096,$d,0,bf16,bwd $v > $L/ncu-$v-d$d.csv 2> $L/ncu-$v-d$d.err
    echo "$v D=$d rc=$? $(el) s"
  done
done
for d in 128 64; do for v in cudnn_sdpa cuda_wgmma_bwd_headsplit; do ./bf/tests/gpu/gpu_check_bwd --time 4,16,4096,$d,0,bf16,bwd $v; done; done > $L/time.txt 2>&1; cat $L/time.txt
cd $OUT && tar czf prof.tgz prof && rm -rf prof
