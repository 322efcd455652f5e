#!/bin/bash
# Nsight Compute (SpeedOfLight, compute and memory workload, warp state,
# scheduler and instruction statistics, SASS with execution counts) of the
# fastest own backward against cuDNN's fused backward main kernel on one
# GPU: cuda_wgmma_bwd_dqtma at D = 128, cuda_wgmma_bwd_dqearly at D = 64
# (B=4 H=16 S=4096 bf16 non-causal, the worst part of the grid).
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/prof; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt; ncu --version | tail -1 >> $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build.log 2>&1 && ninja -C bf tests/gpu/gpu_check_bwd >> $L/build.log 2>&1) || { tail -20 $L/build.log; exit 1; }
echo "built $(el) s"
for c in "128:cudnn_sdpa:regex:flash_bprop" "128:cuda_wgmma_bwd_dqtma:regex:bwd_ws" "64:cudnn_sdpa:regex:flash_bprop" "64:cuda_wgmma_bwd_dqearly:regex:bwd_ws"; do
  d=${c%%:*}; r=${c#*:}; n=${r%%:*}; k=${r#*:}; o=$n-d$d
  timeout 240 ncu --clock-control none --kernel-name $k --launch-skip 5 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section WarpStateStats --section SchedulerStats --section InstructionStats --section SourceCounters --section LaunchStats --section Occupancy \
    --metrics sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_red.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum \
    --import-source no -o $L/$o ./bf/tests/gpu/gpu_check_bwd --time 4,16,4096,$d,0,bf16,bwd $n > $L/$o.log 2>&1; echo "$o rc=$? $(el) s"
  ncu --import $L/$o.ncu-rep --page raw --csv > $L/$o-raw.csv 2>&1
  ncu --import $L/$o.ncu-rep --page source --csv --print-source sass > $L/$o-sass.csv 2> $L/$o-sass.err
done
cd $OUT && tar czf prof.tgz prof && rm -rf prof; echo "done $(el) s"
