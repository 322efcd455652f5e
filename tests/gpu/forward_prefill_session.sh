#!/bin/bash
# forward_prefill_session.sh: one GPU-machine session for new forward Hopper
# rungs against their previous rung and cudnn_sdpa at prefill shapes; a
# manual script, not a meson test. Steps, in this order, each appending to
# a log in OUTDIR and a line to OUTDIR/summary.txt; steps after `check`
# are skipped once the script has run longer than their share of
# DEADLINE_S (default 450 s; the experiments get what is left), so the call
# ends inside its limit:
#   build     meson setup + ninja of attnbench and gpu_check in build-gpu-fwd
#             (sm_90a only)
#   check     gpu_check NEW... (the GPU suite's cases, with its H_kv / S_kv
#             cases) and gpu_check --shape at five shapes with more query
#             tiles than SMs; a failure stops the script
#   time      gpu_check --time at TIME_SHAPES (default: Llama 3 8B prefill
#             shapes) for NEW..., PREV, cudnn_sdpa: a quick look before the
#             experiments
#   sanitize  compute-sanitizer memcheck (gpu_check --small), racecheck
#             (S in RACE_S, default 17 200; only the rungs also in RACE,
#             default all) and synccheck (gpu_check --small) of each rung in
#             SANITIZE (default NEW); for the last of them
#             also causal grouped-query shapes with more query tiles than SMs
#             (blocks walk several tiles) under memcheck and racecheck
#   ncu       Nsight Compute (clocks left alone) at each shape of NCU_SHAPES
#             (default the Llama 3 8B B = 4, S = 4096 shape, causal and not;
#             gpu_check --time's B,H,S,D,causal,dtype[,H_kv,S_kv]): PREV, each
#             NEW and cudnn_sdpa: duration, tensor pipe, issue slots, MUFU and
#             FMA pipes, L2 and DRAM bytes, L2 hit rate, stall reasons,
#             instructions
#   exp       attnbench run of each EXPERIMENTS file into OUTDIR/<name>.db
#             (a database already there gets the next run)
# Usage (repository root, GPU machine, after `source .deps/env.sh`):
#   NEW="cuda_wgmma_uniform cuda_wgmma_lookahead" PREV=cuda_wgmma_persistent \
#   EXPERIMENTS="experiments/a.cfg experiments/b.cfg" \
#   bash tests/gpu/forward_prefill_session.sh OUTDIR [STEP...]
# (CHECK, default NEW, are the rungs the check step runs; TIME_SHAPES,
# SANITIZE, RACE, RACE_S, NCU_SHAPES as above; SANITIZE_BY and NCU_BY, in
# seconds from the start, replace DEADLINE_S - 300 and DEADLINE_S - 100 as
# the latest start of those steps.)
set -u
out=${1:?usage: forward_prefill_session.sh OUTDIR [STEP...]}
shift
steps=" ${*:-build check time sanitize ncu exp} "
new=${NEW:?NEW=variant}
prev=${PREV:?PREV=variant}
exps=${EXPERIMENTS:-}
checked=${CHECK:-$new}
sanitized=${SANITIZE:-$new}
raced=${RACE:-$sanitized}
race_s=${RACE_S:-17 200}
time_shapes=${TIME_SHAPES:-16,32,1024,128,1,bf16,8,1024 8,32,2048,128,1,bf16,8,2048 4,32,4096,128,1,bf16,8,4096 1,32,16384,128,1,bf16,8,16384 4,32,4096,128,0,bf16,8,4096 8,16,2048,64,1,bf16}
ncu_shapes=${NCU_SHAPES:-4,32,4096,128,1,bf16,8,4096 4,32,4096,128,0,bf16,8,4096}
mkdir -p "$out"
b=build-gpu-fwd
gc=./$b/tests/gpu/gpu_check
ab=./$b/src/attnbench
deadline=${DEADLINE_S:-450}
sum=$out/summary.txt
has() { case "$steps" in *" $1 "*) return 0 ;; esac; return 1; }
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
stamp() { echo "[$(el) s] $*" | tee -a "$sum"; }
late() { [ "$(el)" -ge "$1" ] && { stamp "skipped $2: $(el) s elapsed"; return 0; }; return 1; }

if has build; then
    { meson setup $b -Dgpu_targets=90a -Dbuildtype=release && ninja -C $b src/attnbench tests/gpu/gpu_check; } >"$out/build.log" 2>&1
    rc=$?
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
        --format=csv >>"$out/build.log" 2>&1
    stamp "build rc=$rc $(grep -A1 '^name' "$out/build.log" | tail -1)"
    [ $rc -eq 0 ] || { tail -60 "$out/build.log"; exit 1; }
fi

if has check; then
    timeout 240 $gc $checked >"$out/check.log" 2>&1
    rc=$?
    stamp "check $checked rc=$rc: $(grep -c ' ok$' "$out/check.log") ok, $(grep -c FAIL "$out/check.log") FAIL; $(grep -h ' cases (' "$out/check.log" | tr '\n' ' ')"
    [ $rc -eq 0 ] || { grep FAIL "$out/check.log" | head -20; exit 1; }
    # the suite's shapes have fewer query tiles than SMs (each block runs one
    # tile); these have more, so blocks walk several tiles and claim ahead
    for sh in 2,64,520,128,1,bf16,8,520 2,64,520,128,0,fp16,8,600 2,48,1100,64,1,fp16,8,1100 \
        1,72,1000,128,1,bf16,1,1031 3,40,700,64,0,bf16,5,650; do
        timeout 60 $gc --shape $sh $checked >>"$out/check.log" 2>&1
        rc=$?
        stamp "check $checked $sh rc=$rc"
        [ $rc -eq 0 ] || { tail -5 "$out/check.log"; exit 1; }
    done
fi

if has time && ! late $((deadline - 300)) time; then
    for sh in $time_shapes; do
        timeout 60 $gc --time $sh $new $prev cudnn_sdpa >>"$out/time.log" 2>&1
    done
    stamp "time done"
fi

if has sanitize && ! late ${SANITIZE_BY:-$((deadline - 300))} sanitize; then
    for r in $sanitized; do
        timeout 60 compute-sanitizer --tool memcheck $gc --small $r >>"$out/sanitize.log" 2>&1
        stamp "memcheck $r small rc=$?"
        case " $raced " in
        *" $r "*)
            timeout 60 compute-sanitizer --tool racecheck $gc $r $race_s >>"$out/sanitize.log" 2>&1
            stamp "racecheck $r S=$race_s rc=$?"
            ;;
        esac
        timeout 60 compute-sanitizer --tool synccheck $gc --small $r >>"$out/sanitize.log" 2>&1
        stamp "synccheck $r small rc=$?"
    done
    r=${sanitized##* } # the last rung (the others' code is a subset of it): blocks walking several tiles
    timeout 40 compute-sanitizer --tool memcheck $gc --shape 2,64,520,128,1,bf16,8,520 $r >>"$out/sanitize.log" 2>&1
    stamp "memcheck $r 660 tiles rc=$?"
    timeout 90 compute-sanitizer --tool racecheck $gc --shape 1,48,300,128,1,bf16,8,300 $r >>"$out/sanitize.log" 2>&1
    stamp "racecheck $r 144 tiles rc=$?"
fi

if has ncu && ! late ${NCU_BY:-$((deadline - 100))} ncu; then
    avail=$(ncu --query-metrics --chip gh100 2>/dev/null | awk '{print $1}')
    M=""
    for m in gpu__time_duration.sum sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active \
        sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active \
        sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active \
        sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active \
        smsp__issue_active.avg.pct_of_peak_sustained_active sm__cycles_active.avg \
        dram__bytes_read.sum lts__t_bytes.sum lts__t_sector_hit_rate.pct \
        lts__t_sectors_srcunit_tex_op_read.sum lts__throughput.avg.pct_of_peak_sustained_elapsed \
        smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio \
        smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio \
        smsp__average_warps_issue_stalled_wait_per_issue_active.ratio \
        smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio \
        smsp__average_warps_issue_stalled_membar_per_issue_active.ratio \
        smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio \
        smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio \
        smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio \
        smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio \
        smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio \
        smsp__inst_executed.sum; do
        echo "$avail" | grep -qx "${m%%.*}" && M="$M${M:+,}$m"
    done
    echo "metrics: $M" >>"$out/ncu.log"
    for sh in $ncu_shapes; do
        for r in $prev $new cudnn_sdpa; do
            late $((deadline - 90)) "ncu $r $sh" && break 2
            echo "==== $r $sh" >>"$out/ncu.log"
            timeout 40 ncu --clock-control none --launch-skip 5 --launch-count 1 \
                --metrics "$M" $gc --time $sh $r >>"$out/ncu.log" 2>&1
            stamp "ncu $r $sh rc=$?"
        done
    done
fi

if has exp; then
    for cfg in $exps; do
        late $((deadline - 30)) "exp $cfg" && continue
        n=$(basename "$cfg" .cfg)
        timeout $((deadline - $(el))) $ab run "$cfg" --db "$out/$n.db" >"$out/run-$n.log" 2>&1
        stamp "exp $n rc=$? run id $(tail -1 "$out/run-$n.log")"
    done
fi

echo "==== summary"
cat "$sum"
echo "==== sanitizers"
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$out/sanitize.log" 2>/dev/null | sort | uniq -c
echo "==== ncu"
grep -hE "^====|^  [a-z_]+__" "$out/ncu.log" 2>/dev/null | sed -E 's/ +/ /g' | head -80
echo "==== timings"
grep -h '^time' "$out/time.log" 2>/dev/null | sed -E 's/ +/ /g; s/\(min [^)]*\) //; s/ ws=.*//'
exit 0
