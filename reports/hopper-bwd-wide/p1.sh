#!/bin/bash
# Nsight Compute of cuDNN's fused backward main kernel against lsevec's
# (B=4 H=16 S=4096 D=128 bf16 non-causal): SASS with its execution counts
# and stall samples for both, memory-workload tables (L2 traffic by op).
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/prof; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt; ncu --version | tail -1 >> $L/gpu.txt
(meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build.log 2>&1 && ninja -C bf tests/gpu/gpu_check_bwd >> $L/build.log 2>&1) || { tail -20 $L/build.log; exit 1; }
echo "built $(el) s"
A="4,16,4096,128,0,bf16,bwd"
for v in cudnn_sdpa:regex:flash_bprop cuda_wgmma_bwd_lsevec:regex:bwd_ws; do
  n=${v%%:*}; k=${v#*:}
  timeout 200 ncu --clock-control none --kernel-name $k --launch-skip 5 --launch-count 1 \
    --section SourceCounters --section WarpStateStats --section MemoryWorkloadAnalysis_Tables --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy --section SpeedOfLight \
    --metrics lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_red.sum,lts__t_sectors_srcunit_tex_op_atom.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_bytes.sum,smsp__inst_executed_op_global_red.sum,l1tex__t_requests_pipe_lsu_mem_global_op_red.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__cycles_elapsed.avg.per_second \
    --import-source no -o $L/$n ./bf/tests/gpu/gpu_check_bwd --time $A $n > $L/$n.log 2>&1; echo "$n rc=$? $(el) s"
  ncu --import $L/$n.ncu-rep --page source --csv --print-source sass > $L/$n-sass.csv 2> $L/$n-sass.err
  ncu --import $L/$n.ncu-rep --page details --csv > $L/$n-details.csv 2>&1
  ncu --import $L/$n.ncu-rep --page raw --csv > $L/$n-raw.csv 2>&1
  echo "$n sass $(wc -l < $L/$n-sass.csv) lines"
done
grep -h "lts__t_sectors_srcunit_tex_op\|lts__t_bytes.sum\|op_global_red\|op_red.sum\|dram__bytes" $L/*-details.csv | cut -c1-200 | head -40
cd $OUT && tar czf prof.tgz prof && rm -rf prof; echo "done $(el) s"
