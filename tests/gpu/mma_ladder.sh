#!/bin/bash
# mma_ladder.sh: one GPU-machine session for the tensor-core rungs
# (cuda_mma, cuda_mma_swizzle, cuda_mma_pipeline); a manual script, not a
# meson test. Steps, each appending to a log in OUTDIR and a line to
# OUTDIR/summary.txt:
#   build     meson setup + ninja tests/gpu/gpu_check in build-gpu-mma (sm_90a)
#   check     gpu_check RUNG for the three rungs (the GPU suite's cases)
#   time      gpu_check --time for the three rungs on the headline shapes,
#             then PyTorch SDPA's flash backend on the same shapes in the same
#             run (tests/gpu/sdpa_flash_time.py)
#   tunecheck every tile candidate of cuda_mma_pipeline (AB_TUNE=0..10)
#             through gpu_check at partial-tile lengths (fp16: bf16 is built
#             for the table's entries only), so no candidate is timed unchecked
#   tune      every candidate per (D, causal) shape, fp16: the data behind
#             cuda_mma_pipeline's tuning table
#   race      compute-sanitizer racecheck of the mbarrier candidates
#   ncu       shared-memory wavefronts and bank conflicts (ld, ldsm, st) and
#             tensor-pipe activity of each rung at one shape (Nsight Compute,
#             clocks left alone)
#   sanitize  compute-sanitizer memcheck (all rungs) and racecheck (pipeline)
#             on partial-tile lengths
# Usage (repository root, GPU machine, after `source .deps/env.sh`):
#   bash tests/gpu/mma_ladder.sh OUTDIR [STEP...]      (default: all steps)
set -u
out=${1:?usage: mma_ladder.sh OUTDIR [STEP...]}
shift
steps=" ${*:-build check time tunecheck tune ncu sanitize race} "
mkdir -p "$out"
b=build-gpu-mma
gc=./$b/tests/gpu/gpu_check
rungs=${RUNGS:-cuda_mma cuda_mma_swizzle cuda_mma_pipeline}
sum=$out/summary.txt
has() { case "$steps" in *" $1 "*) return 0 ;; esac; return 1; }
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a "$sum"; }

# shapes: the two headlines (brief: H200 FA2 341 TFLOP/s at the first; seed
# 004's B=32 H=8 S=512 D=64), their causal and bf16 forms, D=64 at length
TIME_SHAPES="4,16,4096,128,0,fp16 4,16,4096,128,0,bf16 4,16,4096,128,1,fp16
32,8,512,64,0,fp16 32,8,512,64,1,fp16 4,32,4096,64,0,fp16 4,32,4096,64,1,fp16"
TUNE_SHAPES="4,16,4096,128,0,fp16 4,16,4096,128,1,fp16 32,8,512,64,0,fp16
4,32,4096,64,0,fp16 4,32,4096,64,1,fp16"
NCAND=11
MBAR_CANDS="8 9 10"

if has build; then
    { meson setup $b -Dgpu_targets=90a && ninja -C $b tests/gpu/gpu_check; } >"$out/build.log" 2>&1
    rc=$?
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
        --format=csv >>"$out/build.log" 2>&1
    stamp "build rc=$rc"
    [ $rc -eq 0 ] || { tail -60 "$out/build.log"; exit 1; }
fi

pipe_ok=1
if has check; then
    for r in $rungs; do
        $gc $r >>"$out/check.log" 2>&1
        rc=$?
        stamp "check $r rc=$rc: $(grep -c ' ok$' "$out/check.log") ok lines so far, $(grep -c FAIL "$out/check.log") FAIL"
        [ $r = cuda_mma_pipeline ] && [ $rc -ne 0 ] && pipe_ok=0
    done
fi

if has time; then
    for sh in $TIME_SHAPES; do
        $gc --time $sh $rungs >>"$out/time.log" 2>&1
    done
    python3 tests/gpu/sdpa_flash_time.py $TIME_SHAPES >>"$out/time.log" 2>&1
    stamp "time done"
fi

if has tunecheck; then
    for c in $(seq 0 $((NCAND - 1))); do
        AB_TUNE=$c timeout 60 $gc cuda_mma_pipeline 17 113 1025 >"$out/tc.tmp" 2>&1
        echo "cand=$c rc=$? fp16 ok $(grep -c 'fp16.* ok$' "$out/tc.tmp") FAIL $(grep -c 'fp16.*FAIL' "$out/tc.tmp")" >>"$out/tunecheck.log"
        grep 'fp16.*FAIL' "$out/tc.tmp" >>"$out/tunecheck.log"
    done
    rm -f "$out/tc.tmp"
    stamp "tunecheck done"
fi

if has tune && [ $pipe_ok -eq 1 ]; then
    for sh in $TUNE_SHAPES; do
        for c in $(seq 0 $((NCAND - 1))); do
            AB_TUNE=$c timeout 60 $gc --time $sh cuda_mma_pipeline 2>&1 | grep '^time' |
                sed "s/^time cuda_mma_pipeline /tune cand=$c /" >>"$out/tune.log"
        done
    done
    stamp "tune done"
fi

if has ncu; then
    avail=$(ncu --query-metrics --chip gh100 2>/dev/null | awk '{print $1}')
    M=gpu__time_duration.sum
    for m in l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld \
        l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm \
        l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st \
        smsp__inst_executed_op_ldsm; do
        echo "$avail" | grep -qx $m && M="$M,$m.sum"
    done
    for m in sm__pipe_tensor_op_hmma_cycles_active sm__warps_active; do
        echo "$avail" | grep -qx $m && M="$M,$m.avg.pct_of_peak_sustained_active"
    done
    echo "metrics: $M" >>"$out/ncu.log"
    for r in $rungs; do
        timeout 120 ncu --clock-control none --launch-skip 5 --launch-count 1 -k 'regex:mma_fwd|pipe_fwd' \
            --metrics "$M" $gc --time 4,16,1024,128,0,fp16 $r >>"$out/ncu.log" 2>&1
        stamp "ncu $r rc=$?"
    done
fi

if has sanitize; then
    for r in $rungs; do
        timeout 100 compute-sanitizer --tool memcheck $gc $r 17 113 >>"$out/sanitize.log" 2>&1
        stamp "memcheck $r rc=$? $(grep -c 'ERROR SUMMARY: 0 errors' "$out/sanitize.log") clean summaries so far"
    done
    timeout 120 compute-sanitizer --tool racecheck $gc cuda_mma_pipeline 113 >>"$out/sanitize.log" 2>&1
    stamp "racecheck cuda_mma_pipeline rc=$? $(grep -c 'RACECHECK SUMMARY: 0 hazards' "$out/sanitize.log") clean"
fi

if has race; then
    for c in $MBAR_CANDS; do
        AB_TUNE=$c timeout 100 compute-sanitizer --tool racecheck $gc cuda_mma_pipeline 113 >>"$out/sanitize.log" 2>&1
        stamp "racecheck cand=$c rc=$? $(grep -c 'RACECHECK SUMMARY: 0 hazards' "$out/sanitize.log") clean so far"
    done
fi

echo "==== summary"
cat "$sum"
echo "==== failures"
grep FAIL "$out/check.log" 2>/dev/null | head -20
echo "==== timings"
grep -h '^time' "$out/time.log" 2>/dev/null | sed -E 's/ +/ /g; s/\(min [^)]*\) //'
echo "==== tunecheck"
cat "$out/tunecheck.log" 2>/dev/null
echo "==== tune"
sed -E 's/ +/ /g; s/\(min [^)]*\) //' "$out/tune.log" 2>/dev/null
exit 0
