#!/bin/bash
# wgmma_ladder.sh: one GPU-machine session for the Hopper rungs (cuda_wgmma,
# cuda_wgmma_tma, cuda_wgmma_ws, cuda_wgmma_pingpong, cuda_wgmma_persistent);
# a manual script, not a meson test. Steps,
# each appending to a log in OUTDIR and a line to OUTDIR/summary.txt:
#   build     meson setup + ninja of attnbench and gpu_check in build-gpu-wg
#             (sm_90a only)
#   check     gpu_check RUNG (the GPU suite's cases: S in 1..2049, fp16/bf16,
#             D 64/128, causal or not); rungs that fail are left out of the
#             experiments below
#   time      gpu_check --time at the headline B=4 H=16 S=4096 D=128 (fp16
#             non-causal and causal, bf16 non-causal) for cuda_mma_pipeline,
#             the rungs and cudnn_sdpa
#   sanitize  compute-sanitizer memcheck and racecheck of each rung at
#             S = 17, 113 (partial tiles)
#   exp128    attnbench run experiments/hopper-d128.cfg into OUTDIR/hopper.db
#   ncu       Nsight Compute (clocks left alone) of the last passing rung and
#             cudnn_sdpa at the headline shape: duration, tensor-pipe (GMMA)
#             activity, issue-slot use, warp stall reasons, shared traffic
#   exp64     attnbench run experiments/hopper-d64.cfg into the same database
# Steps after `check` are skipped once the script has run longer than
# DEADLINE_S seconds (default 540), so the call ends inside its limit.
# PREBUILT=DIR: try DIR/attnbench.gz and DIR/gpu_check.gz (built elsewhere
# from the same tree) before building here.
# Usage (repository root, GPU machine, after `source .deps/env.sh`):
#   bash tests/gpu/wgmma_ladder.sh OUTDIR [STEP...]      (default: all steps)
set -u
out=${1:?usage: wgmma_ladder.sh OUTDIR [STEP...]}
shift
steps=" ${*:-build check time sanitize exp128 exp64 ncu} "
mkdir -p "$out"
b=build-gpu-wg
gc=./$b/tests/gpu/gpu_check
ab=./$b/src/attnbench
rungs=${RUNGS:-cuda_wgmma cuda_wgmma_tma cuda_wgmma_ws cuda_wgmma_pingpong cuda_wgmma_persistent}
deadline=${DEADLINE_S:-540}
sum=$out/summary.txt
has() { case "$steps" in *" $1 "*) return 0 ;; esac; return 1; }
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
stamp() { echo "[$(el) s] $*" | tee -a "$sum"; }
late() { [ "$(el)" -ge "$1" ] && { stamp "skipped $2: $(el) s elapsed"; return 0; }; return 1; }

if has build && [ -n "${PREBUILT:-}" ] && [ -f "$PREBUILT/attnbench.gz" ]; then
    # binaries built on the workstation (same sources, sm_90a), tried first
    mkdir -p $b/src $b/tests/gpu
    gunzip -c "$PREBUILT/attnbench.gz" >$ab && gunzip -c "$PREBUILT/gpu_check.gz" >$gc &&
        chmod +x $ab $gc && $ab variants >"$out/build.log" 2>&1 && $gc --time 1,1,64,64,0,fp16 cuda_wgmma >>"$out/build.log" 2>&1
    rc=$?
    stamp "prebuilt binaries rc=$rc"
    [ $rc -eq 0 ] && steps=${steps/ build / }
fi
if has build; then
    { meson setup $b -Dgpu_targets=90a -Dbuildtype=release && ninja -C $b src/attnbench tests/gpu/gpu_check; } >"$out/build.log" 2>&1
    rc=$?
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
        --format=csv >>"$out/build.log" 2>&1
    stamp "build rc=$rc $(grep -A1 '^name' "$out/build.log" | tail -1)"
    [ $rc -eq 0 ] || { tail -60 "$out/build.log"; exit 1; }
fi

passed=""
if has check; then
    for r in $rungs; do
        timeout 150 $gc $r >"$out/check-$r.log" 2>&1
        rc=$?
        stamp "check $r rc=$rc: $(grep -c ' ok$' "$out/check-$r.log") ok, $(grep -c FAIL "$out/check-$r.log") FAIL"
        [ $rc -eq 0 ] && passed="$passed $r"
    done
    cat "$out"/check-*.log >"$out/check.log"
else
    passed=" $rungs"
fi

if has time && ! late $((deadline - 200)) time; then
    for sh in 4,16,4096,128,0,fp16 4,16,4096,128,1,fp16 4,16,4096,128,0,bf16; do
        timeout 60 $gc --time $sh cuda_mma_pipeline $passed cudnn_sdpa >>"$out/time.log" 2>&1
    done
    stamp "time done"
fi

if has sanitize && ! late $((deadline - 240)) sanitize; then
    for r in $rungs; do
        timeout 60 compute-sanitizer --tool memcheck $gc $r 17 113 >>"$out/sanitize.log" 2>&1
        stamp "memcheck $r rc=$? $(grep -c 'ERROR SUMMARY: 0 errors' "$out/sanitize.log") clean summaries so far"
        timeout 60 compute-sanitizer --tool racecheck $gc $r 113 >>"$out/sanitize.log" 2>&1
        stamp "racecheck $r rc=$? $(grep -c 'RACECHECK SUMMARY: 0 hazards' "$out/sanitize.log") clean summaries so far"
    done
fi

# an experiment file without the rungs that failed the check
filtered() {
    local cfg=$1 dst=$out/$(basename "$1")
    cp "$cfg" "$dst"
    for r in $rungs; do
        case " $passed " in *" $r "*) ;; *) sed -i "s/\"$r\",[ ]*//" "$dst" ;; esac
    done
    echo "$dst"
}
run_exp() {
    local cfg
    cfg=$(filtered "$1")
    timeout $((deadline - $(el))) $ab run "$cfg" --db "$out/hopper.db" >"$out/$2.log" 2>&1
    stamp "$2 rc=$? run id $(tail -1 "$out/$2.log")"
}
if has exp128 && ! late $((deadline - 200)) exp128; then run_exp experiments/hopper-d128.cfg exp128; fi

if has ncu && ! late $((deadline - 45)) ncu; then
    best=$(echo $passed | awk '{print $NF}')
    avail=$(ncu --query-metrics --chip gh100 2>/dev/null | awk '{print $1}')
    M=""
    for m in gpu__time_duration.sum sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active \
        sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active \
        sm__inst_executed_pipe_tensor_op_gmma.sum smsp__issue_active.avg.pct_of_peak_sustained_active \
        sm__warps_active.avg.pct_of_peak_sustained_active l1tex__data_pipe_lsu_wavefronts_mem_shared.sum \
        dram__bytes_read.sum lts__t_bytes.sum \
        smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio \
        smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio \
        smsp__average_warps_issue_stalled_wait_per_issue_active.ratio \
        smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio \
        smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio \
        smsp__average_warps_issue_stalled_membar_per_issue_active.ratio \
        smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio \
        smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio \
        smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio \
        smsp__average_warps_issue_stalled_selected_per_issue_active.ratio; do
        echo "$avail" | grep -qx "${m%%.*}" && M="$M${M:+,}$m"
    done
    echo "metrics: $M" >>"$out/ncu.log"
    for r in $best cudnn_sdpa; do
        timeout 40 ncu --clock-control none --launch-skip 5 --launch-count 1 \
            --metrics "$M" $gc --time 4,16,4096,128,0,fp16 $r >>"$out/ncu.log" 2>&1
        stamp "ncu $r rc=$?"
    done
fi

if has exp64 && ! late $((deadline - 70)) exp64; then run_exp experiments/hopper-d64.cfg exp64; fi

echo "==== summary"
cat "$sum"
echo "==== failures"
grep -h FAIL "$out"/check-*.log 2>/dev/null | head -20
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$out/sanitize.log" 2>/dev/null | sort | uniq -c
echo "==== ncu"
grep -hE "^  [a-z_]+__|==PROF==|wgmma|sdpa|cudnn" "$out/ncu.log" 2>/dev/null | grep -v "^==PROF== Connected" | sed -E 's/ +/ /g' | head -60
echo "==== timings"
grep -h '^time' "$out/time.log" 2>/dev/null | sed -E 's/ +/ /g; s/\(min [^)]*\) //; s/ ws=.*//'
exit 0
