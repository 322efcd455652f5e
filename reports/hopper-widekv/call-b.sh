#!/bin/bash
# GPU call B (same warm machine as call A, within its 30 s idle window):
# FlashAttention-4 installed from the two wheel halves, then
# experiments/fa3-grid-desciter.cfg (the new rungs, their previous rungs,
# cuDNN, FA4 in one run) and its --chain report, then one Nsight Compute
# launch each of cuda_wgmma_wgskip, cuda_wgmma_widekv and FA4 at two long
# non-causal shapes (D = 128 and 64, S = 16384, bf16).
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT)
L=$OUT/b; mkdir -p $L
[ -f /root/fa4half00 ] && [ -x bf/src/attnbench ] || { echo "call A's machine is gone"; exit 1; }
cat /root/fa4half00 .fa4/b/fa4half01 > /root/fa4.tar && mkdir -p /root/whl && tar xf /root/fa4.tar -C /root/whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site /root/whl/*.whl > $L/pip.log 2>&1 || { tail $L/pip.log; exit 1; }
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
python3 -m pip list 2>/dev/null | grep -i -E "flash|cutlass|^torch " > $L/versions.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $L/versions.txt; date -u >> $L/versions.txt
echo "installed $(el) s"
A=bf/src/attnbench; db=$OUT/fa3-grid-desciter.db
r=$(timeout 300 $A run experiments/fa3-grid-desciter.cfg --db $db 2> $L/run.log); echo "run=$r rc=$? $(el) s"; tail -2 $L/run.log
$A report 1 --chain --db $db -o $OUT/fa3-grid-desciter-run1.md > $L/report.log 2>&1
M=gpu__time_duration.sum,sm__cycles_active.avg,smsp__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed_pipe_xu.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_alu.sum,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
for sh in 1,16,16384,128,0,bf16 1,16,16384,64,0,bf16; do
  [ $(el) -lt 480 ] || break
  for v in cuda_wgmma_widekv cuda_wgmma_desciter; do
    echo "==== $v $sh" >> $L/ncu.log
    timeout 60 ncu --metrics $M -k regex:wgmma_persist_fwd --launch-skip 5 --launch-count 1 bf/tests/gpu/gpu_check --time $sh $v >> $L/ncu.log 2>&1
  done
  IFS=, read B H S D C T <<< "$sh"
  echo "==== fa4 $sh" >> $L/ncu.log
  timeout 90 ncu --metrics $M -k regex:[Ff]lash --launch-skip 1 --launch-count 1 python3 devscripts/fa4_one.py $B $H $S $D $C $T 3 >> $L/ncu.log 2>&1
  echo "ncu $sh $(el) s"
done
cd $OUT && tar czf b.tgz b && rm -rf b; echo "done $(el) s"
