#!/bin/sh
# profile_ladder.sh: one Nsight Compute profile per rung of the kernel ladder
# at B=4, H=16, S=4096, D=128, fp16, non-causal (issue: "for every rung, one
# profile of the D=128, S=4096 configuration"): tensor-pipe utilisation,
# shared-memory bank conflicts, achieved occupancy, registers and local
# (spill) traffic. Clocks are left alone (--clock-control none).
# Usage (GPU machine): tests/gpu/profile_ladder.sh GPU_CHECK OUTDIR
set -u
gc=$1; out=$2
mkdir -p "$out"
metrics=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,\
sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
sm__warps_active.avg.pct_of_peak_sustained_active,\
launch__registers_per_thread,launch__occupancy_limit_registers,\
l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum,\
gpu__time_duration.sum,dram__bytes_read.sum
for v in cuda_naive cuda_fa1_rowwise cuda_fa2_warps cuda_split_kv cuda_mma cuda_mma_swizzle cuda_mma_pipeline cublas_standard cudnn_sdpa; do
  # skip the warm-up launches of gpu_check --time, profile the next launches
  # (one forward pass: 1 kernel, 2 for split_kv, 3 for naive/cublas)
  ncu --clock-control none --metrics "$metrics" --launch-skip 12 --launch-count 3 --csv \
    "$gc" --time 4,16,4096,128,0,fp16 "$v" >"$out/ncu-$v.csv" 2>"$out/ncu-$v.err" || echo "ncu $v failed"
done
