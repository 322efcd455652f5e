#!/bin/bash
# hopper_bwd.sh: one GPU-machine session for the Hopper backward rungs
# (cuda_wgmma_bwd, cuda_wgmma_bwd_ws, cuda_wgmma_bwd_owndq,
# cuda_wgmma_bwd_heads, cuda_wgmma_bwd_overlap, cuda_wgmma_bwd_bulkdq,
# cuda_wgmma_bwd_loadwarp); a
# manual script,
# not a meson test. Steps, each
# appending to a log in OUTDIR and a line to OUTDIR/summary.txt:
#   build     meson setup + ninja of attnbench, gpu_check_bwd (sm_90a only)
#             in build-gpu-bwd, unless PREBUILT=DIR holds attnbench.gz and
#             gpu_check_bwd.gz built elsewhere from the same tree
#   check     gpu_check_bwd RUNGS (the GPU suite's backward cases: every
#             dtype, D 64/128, causal or not, S in 1..1025, GQA, S_kv != S)
#   time      gpu_check_bwd --time at B=4 H=16 S=4096 (D 128 and 64, bf16,
#             causal and not) and the Llama 3 8B shape, for
#             cuda_mma_bwd_pipeline, the rungs and cudnn_sdpa
#   sanitize  compute-sanitizer memcheck, racecheck, synccheck over
#             gpu_check_bwd --small RUNGS (B = 1, S = 17, 200, GQA, S_kv != S;
#             racecheck leaves the reference's kernels out)
#   ncu       Nsight Compute (clocks left alone) of the main kernel of
#             cuda_mma_bwd_pipeline and of the rungs at B=4 H=16 S=4096 D=128
#             bf16 non-causal (NCU_SHAPE= another, in --time's syntax)
#   exp       when every rung passed its check: attnbench run
#             experiments/hopper-bwd-ladder.cfg, hopper-bwd-llama3-8b.cfg and
#             hopper-bwd-ladder-fp16.cfg (EXPS= to choose) into
#             OUTDIR/hopper-bwd.db (DB_NAME= another file name), reports
#             with --chain
# TIME_ALSO= names variants the time step adds to the rungs that passed;
# NCU_RUNGS= the variants to profile (default cuda_mma_bwd_pipeline and the
# rungs that passed).
# Steps after `check` are skipped once the script has run longer than
# DEADLINE_S seconds (default 450).
# Usage (repository root, GPU machine, after `source .deps/env.sh`):
#   bash tests/gpu/hopper_bwd.sh OUTDIR [STEP...]      (default: all steps)
set -u
out=${1:?usage: hopper_bwd.sh OUTDIR [STEP...]}
shift
steps=" ${*:-build check time sanitize ncu exp} "
mkdir -p "$out"
b=build-gpu-bwd
gc=./$b/tests/gpu/gpu_check_bwd
ab=./$b/src/attnbench
rungs=${RUNGS:-cuda_wgmma_bwd cuda_wgmma_bwd_ws cuda_wgmma_bwd_owndq cuda_wgmma_bwd_heads cuda_wgmma_bwd_overlap cuda_wgmma_bwd_bulkdq cuda_wgmma_bwd_loadwarp}
deadline=${DEADLINE_S:-450}
sum=$out/summary.txt
has() { case "$steps" in *" $1 "*) return 0 ;; esac; return 1; }
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
stamp() { echo "[$(el) s] $*" | tee -a "$sum"; }
late() { [ "$(el)" -ge "$1" ] && { stamp "skipped $2: $(el) s elapsed"; return 0; }; return 1; }

if has build && [ -n "${PREBUILT:-}" ] && [ -f "$PREBUILT/attnbench.gz" ]; then
    mkdir -p $b/src $b/tests/gpu
    gunzip -c "$PREBUILT/attnbench.gz" >$ab && gunzip -c "$PREBUILT/gpu_check_bwd.gz" >$gc &&
        chmod +x $ab $gc && $ab variants >"$out/build.log" 2>&1
    rc=$?
    stamp "prebuilt binaries rc=$rc"
    [ $rc -eq 0 ] && steps=${steps/ build / }
fi
if has build; then
    { meson setup $b -Dgpu_targets=90a -Dbuildtype=release && ninja -C $b src/attnbench tests/gpu/gpu_check_bwd; } >"$out/build.log" 2>&1
    rc=$?
    stamp "build rc=$rc"
    [ $rc -eq 0 ] || { tail -60 "$out/build.log"; exit 1; }
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv >>"$out/build.log" 2>&1
stamp "gpu: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"

passed=""
if has check; then
    for r in $rungs; do
        timeout 240 $gc $r >"$out/check-$r.log" 2>&1
        rc=$?
        stamp "check $r rc=$rc: $(tail -1 "$out/check-$r.log")"
        grep -E "FAIL|error" "$out/check-$r.log" | head -8
        [ $rc -eq 0 ] && passed="$passed $r"
    done
else
    passed=$rungs
fi

if has time && ! late $((deadline - 90)) time; then
    for sh in 4,16,4096,128,0,bf16,bwd 4,16,4096,128,1,bf16,bwd 4,16,4096,64,0,bf16,bwd \
        4,16,4096,64,1,bf16,bwd 1,32,4096,128,1,bf16,bwd,8,4096; do
        timeout 60 $gc --time $sh cuda_mma_bwd_pipeline ${TIME_ALSO:-} $passed cudnn_sdpa >>"$out/time.log" 2>&1
    done
    stamp "time done"
    cat "$out/time.log"
fi

if has sanitize; then
    for tool in memcheck racecheck synccheck; do
        for r in $passed; do
            late $((deadline - 60)) "$tool $r" && break 2
            extra=
            # racecheck: the float64 reference's kernels (*_tiles), which
            # the check runs, left uninstrumented: with them no --small run
            # of the load-warp rungs finished in 280 s; without them one takes
            # 32 s on an H200 (reports/hopper-bwd-fullsplit/, racecheck logs)
            [ $tool = racecheck ] && extra="--racecheck-report all --kernel-name-exclude kns=_tiles"
            timeout 90 compute-sanitizer --tool $tool $extra --error-exitcode 3 \
                $gc --small $r >"$out/$tool-$r.log" 2>&1
            rc=$?
            stamp "$tool $r rc=$rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$tool-$r.log" | tail -1); $(grep -E 'cases' "$out/$tool-$r.log" | tail -1)"
        done
    done
fi

if has ncu && ! late $((deadline - 60)) ncu; then
    M=gpu__time_duration.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,lts__t_bytes.sum,dram__bytes_read.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
    for r in ${NCU_RUNGS:-cuda_mma_bwd_pipeline $passed}; do
        timeout 60 ncu --clock-control none -k "regex:^bwd_(main|ws|owndq)$" --launch-skip 3 --launch-count 1 \
            --metrics "$M" $gc --time ${NCU_SHAPE:-4,16,4096,128,0,bf16,bwd} $r >>"$out/ncu.log" 2>&1
        stamp "ncu $r rc=$?"
    done
    grep -E "bwd_main|__" "$out/ncu.log" | sed -E 's/ +/ /g' | head -40
fi

if has exp && [ "$(echo $passed)" != "$(echo $rungs)" ]; then
    stamp "skipped exp: not every rung passed its check"
elif has exp && ! late $((deadline - 200)) exp; then
    db=$out/${DB_NAME:-hopper-bwd.db}
    for cfg in ${EXPS:-experiments/hopper-bwd-ladder.cfg experiments/hopper-bwd-llama3-8b.cfg experiments/hopper-bwd-ladder-fp16.cfg}; do
        late $((deadline - 40)) "$cfg" && break
        n=$(basename $cfg .cfg)
        timeout $((deadline - $(el) - 20)) $ab run $cfg --db $db >"$out/$n.id" 2>"$out/$n.log"
        rc=$?
        id=$(grep -E '^[0-9]+$' "$out/$n.id" | tail -1)
        stamp "exp $n rc=$rc run=${id:-?}"
        [ -n "$id" ] && $ab report $id --chain --db $db -o "$out/$n-run$id.md" >>"$out/$n.log" 2>&1
    done
fi
stamp "end"
