#!/bin/bash
# tests/gpu/decode_mma.sh BUILD OUTDIR [run]: the GPU side of the decode
# rung cuda_decode_mma in one pass, for a lent GPU machine (one call):
#   1. the GPU suite for cuda_decode_mma and cuda_decode_split_kv (every
#      dtype they take, D in {64, 128}, causal and not, the suite's S <= 32
#      and its H_kv < H / S_kv != S cases; gpu_check VARIANT...);
#   2. every configuration of experiments/llama3-8b-decode.cfg checked over
#      every row (gpu_check --shape), and a quick timing of the three
#      variants there (gpu_check --time; not a result: the run is);
#   3. compute-sanitizer memcheck and racecheck of cuda_decode_mma on small
#      shapes that reach each path: one split and several (the last-block
#      merge), one and two row halves, several row chunks, causal rows that
#      see no key, the last block's merge over many splits of 16 rows;
#   4. Nsight Compute of cuda_decode_mma's kernel (and cudnn_sdpa's) at
#      B = 1, S_kv = 64K and 128K, clocks left alone (NCU_VARIANTS: others);
#   5. with "run": the experiment itself (attnbench run), database
#      OUTDIR/llama3-8b-decode.db (copy the committed one there first to add
#      a run to it), when steps 1-2 passed.
# Logs: OUTDIR/{suite,shapes,time,sanitize,ncu,run}.log; summary printed last.
B=$1
O=$2
G=$B/tests/gpu/gpu_check
sum=$O/summary.txt
: >"$sum"
step() { # name log cmd...
    local name=$1 log=$2; shift 2
    local t0=$(date +%s)
    echo "==== $*" >>"$log"
    "$@" >>"$log" 2>&1
    local rc=$?
    echo "$name rc=$rc $(( $(date +%s) - t0 )) s" >>"$sum"
    return $rc
}
ok=1
step suite "$O/suite.log" "$G" cuda_decode_mma cuda_decode_split_kv || ok=0
shapes="1,32,1,128,1,bf16,8,4096 1,32,1,128,1,bf16,8,16384 1,32,1,128,1,bf16,8,32768
1,32,1,128,1,bf16,8,65536 1,32,1,128,1,bf16,8,131072 8,32,1,128,1,bf16,8,4096
8,32,1,128,1,bf16,8,16384 8,32,1,128,1,bf16,8,32768 64,32,1,128,1,bf16,8,4096
64,32,1,128,1,bf16,8,8192"
# the last block's merge over many splits (63 and 125) with 16-row chunks,
# D = 64 and 128
merge="1,16,1,64,1,fp16,1,4000 1,32,1,128,0,bf16,1,20000"
for s in $shapes $merge; do
    step "shape $s" "$O/shapes.log" "$G" --shape "$s" cuda_decode_mma cuda_decode_split_kv || ok=0
done
for s in $shapes; do
    "$G" --time "$s" cudnn_sdpa cuda_decode_split_kv cuda_decode_mma 2>&1 | grep '^time' >>"$O/time.log"
done
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
san() { # tool args...
    local tool=$1; shift
    local extra=
    [ "$tool" = racecheck ] && extra="--racecheck-report all"
    step "$tool $*" "$O/sanitize.log" timeout 120 "$cs" --tool "$tool" $extra --error-exitcode 3 \
        --print-limit 20 "$G" "$@"
}
for tool in memcheck racecheck; do
    san $tool --small cuda_decode_mma 1 17 32
    san $tool --shape 1,8,1,128,1,bf16,2,3000 cuda_decode_mma
    san $tool --shape 2,8,3,64,1,fp16,1,200 cuda_decode_mma
    san $tool --shape 1,4,2,128,1,fp16,4,1 cuda_decode_mma
    for s in $merge; do san $tool --shape "$s" cuda_decode_mma; done
done
grep -E "SUMMARY" "$O/sanitize.log" >>"$sum"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
metrics=dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,\
launch__registers_per_thread,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,\
smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,\
smsp__issue_active.avg.pct_of_peak_sustained_active,\
sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
for skv in 65536 131072; do
    for v in ${NCU_VARIANTS:-cuda_decode_mma cudnn_sdpa}; do
        echo "==== ncu $v B=1 S_kv=$skv" >>"$O/ncu.log"
        timeout 120 "$ncu" --clock-control none --metrics "$metrics" --launch-skip 5 --launch-count 1 \
            "$G" --time 1,32,1,128,1,bf16,8,$skv "$v" >>"$O/ncu.log" 2>&1
    done
done
echo "ncu rc=$?" >>"$sum"
if [ "${3:-}" = run ]; then
    if [ $ok = 1 ]; then
        step run "$O/run.log" "$B/src/attnbench" run experiments/llama3-8b-decode.cfg \
            --db "$O/llama3-8b-decode.db"
    else
        echo "run: not started (a check failed)" >>"$sum"
    fi
fi
grep -E "cases|failed" "$O/suite.log" >>"$sum"
grep -E "FAIL" "$O/shapes.log" | head >>"$sum"
cat "$sum"
cat "$O/time.log"
