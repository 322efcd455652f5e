#!/bin/bash
# fwd.sh (helper fwd, issue 33): the first GPU run of cuda_wgmma_wgskip and
# cuda_wgmma_softexp (merged main, build at ./bf, outputs under $OUT/fwd; about
# 50-70 s, capped at 88 s):
#   1. gpu_check cuda_wgmma_wgskip cuda_wgmma_softexp (the suite's cases, 56 with
#      H_kv < H or S_kv != S) and two D = 64 shapes whose last 192-row tile has
#      idle warpgroups and more query tiles than SMs; a failure skips step 2
#   2. attnbench run experiments/fa3-grid-wgskip.cfg (FA3 grid, 40 configurations:
#      softexp, wgskip, uniform, cudnn_sdpa) into $OUT/fwd/fa3-grid-wgskip.db and
#      its --chain report
#   3. with the time left: compute-sanitizer memcheck and synccheck (gpu_check --small)
#      of both rungs (racecheck: the lead's sanitizer step)
# To keep: $OUT/fwd/fa3-grid-wgskip.db -> reports/hopper-wgskip/, the report ->
# reports/hopper-wgskip/fa3-grid-wgskip-run1.md with a regenerate.tsv line
# ("report 1 --chain"), the logs -> reports/hopper-wgskip/final-*.log.
# If step 1 fails: drop cuda_wgmma_wgskip and cuda_wgmma_softexp from the FA4
# experiments (experiments/fa3-grid-fa4.cfg, llama3-8b-prefill-fa4.cfg).
set -u
O=$OUT/fwd; mkdir -p "$O"
gc=./bf/tests/gpu/gpu_check; ab=./bf/src/attnbench
R="cuda_wgmma_wgskip cuda_wgmma_softexp"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
t0=$(date +%s); left() { echo $((88 - ($(date +%s) - t0))); }
timeout 30 $gc $R >"$O/check.log" 2>&1; c=$?
for sh in 2,48,1100,64,1,fp16,8,1100 3,40,700,64,0,bf16,5,650; do
    [ $c -eq 0 ] || break
    timeout 15 $gc --shape $sh $R >>"$O/check.log" 2>&1; c=$?
done
db=$O/fa3-grid-wgskip.db; e=skipped
if [ $c -eq 0 ] && [ "$(left)" -gt 40 ]; then
    timeout $(( $(left) - 12 )) $ab run experiments/fa3-grid-wgskip.cfg --db $db >"$O/run.id" 2>"$O/run.log"; e=$?
    $ab report 1 --chain --db $db -o "$O/fa3-grid-wgskip-run1.md" >>"$O/run.log" 2>&1
fi
s=""
for r in $R; do for t in memcheck synccheck; do
    [ "$(left)" -gt 8 ] || { s="$s $t:skipped"; continue; }
    timeout $(( $(left) - 3 )) "$cs" --tool $t --error-exitcode 3 $gc --small $r >"$O/$t-$r.log" 2>&1
    s="$s ${r#cuda_wgmma_}-$t:rc=$?"
done; done
q() { $ab query --db $db "$1" 2>/dev/null | sed -n 3p | sed 's/ *$//'; }
J="JOIN measurement_summary b USING (B,H,S,D,causal,dtype,pass)"
rat() { # per S (geometric mean over dtypes) of median(b)/median(a), for D=$3 causal=$4
    q "SELECT group_concat(x, ' ') FROM (SELECT printf('%d:%.3f', S, exp(avg(ln(b.median_ms/a.median_ms)))) x FROM measurement_summary a $J WHERE a.variant='$1' AND b.variant='$2' AND D=$3 AND causal=$4 GROUP BY S ORDER BY S)"; }
gmr() { q "SELECT printf('%.3f', exp(avg(ln(b.median_ms/a.median_ms)))) FROM measurement_summary a $J WHERE a.variant='$1' AND b.variant='$2' AND $3"; }
echo "fwd 1/5 check $R rc=$c: $(grep -h ' cases (' "$O/check.log" | head -2 | tr '\n' ' ' | cut -c1-160); run fa3-grid-wgskip rc=$e ($(( $(date +%s) - t0 )) s); sanitizers$s"
echo "fwd 2/5 wgskip/uniform D=64 causal by S: $(rat cuda_wgmma_wgskip cuda_wgmma_uniform 64 1) (predicted 1.14-1.33, 1.05-1.11, 1.04-1.09, 1.01-1.03, 1.01-1.03)"
echo "fwd 3/5 wgskip/uniform D=64 non-causal: $(rat cuda_wgmma_wgskip cuda_wgmma_uniform 64 0) (predicted 1.06-1.12 at 1024, 1.01-1.03 at 2048-4096, within 1% after); D=128 gm $(gmr cuda_wgmma_wgskip cuda_wgmma_uniform 'D=128') (predicted within 1%)"
echo "fwd 4/5 softexp/wgskip gm: D=64 causal $(gmr cuda_wgmma_softexp cuda_wgmma_wgskip 'D=64 AND causal=1'), D=64 non-causal $(gmr cuda_wgmma_softexp cuda_wgmma_wgskip 'D=64 AND causal=0'), D=128 $(gmr cuda_wgmma_softexp cuda_wgmma_wgskip 'D=128') (predicted D=64 1.02-1.08 if MUFU binds, 0.95-1.0 if issue does; D=128 within 1%)"
echo "fwd 5/5 vs cudnn_sdpa, gm (min) over 40: uniform $(gmr cuda_wgmma_uniform cudnn_sdpa 1) ($(q "SELECT printf('%.3f', min(b.median_ms/a.median_ms)) FROM measurement_summary a $J WHERE a.variant='cuda_wgmma_uniform' AND b.variant='cudnn_sdpa'")), best own $(q "SELECT printf('%.3f (%.3f)', exp(avg(ln(b.median_ms/a.m))), min(b.median_ms/a.m)) FROM (SELECT B,H,S,D,causal,dtype,pass, min(median_ms) m FROM measurement_summary WHERE variant LIKE 'cuda_wgmma_%' GROUP BY B,H,S,D,causal,dtype,pass) a $J WHERE b.variant='cudnn_sdpa'")"
