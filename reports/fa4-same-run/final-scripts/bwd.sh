#!/bin/bash
# bwd.sh (helper bwd, issue 32): the first GPU run of cuda_wgmma_bwd_loadwarp
# (merged main, build at ./bf, outputs under $OUT/bwd; about 60-80 s, capped at 88 s):
#   1. gpu_check_bwd cuda_wgmma_bwd_loadwarp (120 cases: bwd and fwd+bwd, GQA, S_kv != S)
#   2. compute-sanitizer memcheck, racecheck, synccheck over gpu_check_bwd --small
#   3. attnbench run experiments/hopper-bwd-loadwarp-quick.cfg into $OUT/bwd/hopper-bwd-loadwarp.db
#      (heads, overlap, loadwarp; D = 64 grid + D = 128 S = 4096) and its --chain report.
# To keep: $OUT/bwd/hopper-bwd-loadwarp.db -> reports/hopper-bwd/, the report
# -> reports/hopper-bwd/hopper-bwd-loadwarp-quick-run1.md and a regenerate.tsv line
# ("report 1 --chain --no-plots"), the logs -> reports/hopper-bwd/loadwarp-final-*.log.
# If step 1 or 2 fails: drop cuda_wgmma_bwd_loadwarp (its variants.def lines and file).
set -u
O=$OUT/bwd; mkdir -p "$O"
gc=./bf/tests/gpu/gpu_check_bwd; ab=./bf/src/attnbench; r=cuda_wgmma_bwd_loadwarp
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
t0=$(date +%s); left() { echo $((88 - ($(date +%s) - t0))); }
timeout 25 $gc $r >"$O/check.log" 2>&1; c=$?
s=""
for t in memcheck synccheck racecheck; do
    [ "$(left)" -gt 45 ] || { s="$s $t:skipped"; continue; }
    x=; [ $t = racecheck ] && x="--racecheck-report all"
    timeout 30 "$cs" --tool $t $x --error-exitcode 3 $gc --small $r >"$O/$t.log" 2>&1
    s="$s $t:rc=$?"
done
db=$O/hopper-bwd-loadwarp.db
if [ "$(left)" -gt 15 ]; then
    timeout $(( $(left) - 5 )) $ab run experiments/hopper-bwd-loadwarp-quick.cfg --db $db >"$O/run.id" 2>"$O/run.log"; e=$?
    $ab report 1 --chain --no-plots --db $db -o "$O/hopper-bwd-loadwarp-quick-run1.md" >>"$O/run.log" 2>&1
else e=skipped; fi
echo "bwd 1/5 check $r rc=$c: $(tail -1 "$O/check.log")"
echo "bwd 2/5 sanitizers$s ($(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' "$O"/*check.log | tr '\n' ' ' | cut -c1-150))"
echo "bwd 3/5 run hopper-bwd-loadwarp-quick rc=$e ($(( $(date +%s) - t0 )) s so far)"
echo "bwd 4/5 loadwarp/overlap D=64: $($ab query --db $db "SELECT printf('%.3f', exp(avg(ln(o.median_ms/l.median_ms)))) FROM measurement_summary l JOIN measurement_summary o USING (B,H,S,D,causal,dtype,pass) WHERE l.variant='$r' AND o.variant='cuda_wgmma_bwd_overlap' AND D=64" 2>&1 | grep -E '^ *[0-9.]+ *$' | head -1) (predicted 1.07-1.15)"
echo "bwd 5/5 loadwarp/heads D=64: $($ab query --db $db "SELECT printf('%.3f', exp(avg(ln(h.median_ms/l.median_ms)))) FROM measurement_summary l JOIN measurement_summary h USING (B,H,S,D,causal,dtype,pass) WHERE l.variant='$r' AND h.variant='cuda_wgmma_bwd_heads' AND D=64" 2>&1 | grep -E '^ *[0-9.]+ *$' | head -1) (predicted 1.00-1.08)"
