#!/bin/sh
# cudnn_plans.sh AB: cuDNN's plans built ahead of a run and reused
# (kernels/cudnn_sdpa.cu's plan cache and cudnn_sdpa_prepare; the runner's
# prepare_ahead in src/run/runner.c). Skipped (77) without sqlite3, a GPU or
# a build with cuDNN. One experiment, cudnn_sdpa in 2 instances over 5
# shapes (forward fp16 and bf16, causal and not; a backward with H_kv < H):
#  1. default: the run's line says the plans of all 5 configurations were
#     built ahead; every setup (AB_CUDNN_SDPA_VERBOSE=1) took its plans
#     from the cache; every measurement ok and checked over every row;
#  2. ATTNBENCH_PREPARE_THREADS=0: nothing built ahead; each shape's first
#     setup builds its plans (5 setups say how many configs they tried)
#     and the second instance's takes them from the cache (5 say so); every
#     measurement ok;
#  3. the two runs' first measurement of cudnn_sdpa#1 carries the building
#     ahead: its setup time in run 1 is at least the others' (walltime
#     per variant, 'first' fixed cost) -- not checked: timing; the run's
#     report shows it.
set -u
AB=$1
command -v sqlite3 >/dev/null 2>&1 || { echo "skipped: no sqlite3"; exit 77; }
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 ||
  { echo "skipped: no GPU"; exit 77; }
"$AB" variants 2>/dev/null | grep -q '^cudnn_sdpa .*not built' &&
  { echo "skipped: cudnn_sdpa not built"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
cat >plans.cfg <<CFG
name = "cudnn-plans";
variants = ( "cudnn_sdpa" );
instances = 2;
configs = (
  { B = 2; H = 4; S = 512; D = 64; causal = false; dtype = "fp16"; },
  { B = 2; H = 4; S = 512; D = 64; causal = true; dtype = "fp16"; },
  { B = 1; H = 4; S = 1024; D = 128; causal = false; dtype = "bf16"; },
  { B = 1; H = 4; S = 1024; D = 128; causal = true; dtype = "bf16"; },
  { B = 1; H = 8; H_kv = 2; S = 512; D = 128; causal = true; dtype = "bf16"; pass = "bwd"; }
);
warmup = 2; samples = 8; round_size = 2; timing = "hot";
CFG
AB_CUDNN_SDPA_VERBOSE=1 "$AB" run plans.cfg --db p.db >/dev/null 2>log1.txt ||
  { tail -20 log1.txt; fail "run 1 failed"; }
grep -q 'cudnn_sdpa: plans of 5 of 5 configurations built ahead' log1.txt ||
  { grep -n 'built ahead' log1.txt; fail "run 1: not every plan built ahead"; }
setups=$(grep -c '^cudnn_sdpa: B=' log1.txt)
cached=$(grep '^cudnn_sdpa: B=' log1.txt | grep -c 'plans from the plan cache')
[ "$setups" = 10 ] && [ "$cached" = 10 ] ||
  fail "run 1: $cached of $setups setups took cached plans, want 10 of 10"
ok=$(sqlite3 p.db "SELECT count(*) FROM measurements WHERE run_id = 1 AND status = 'ok' AND checked = 1")
[ "$ok" = 10 ] || fail "run 1: $ok of 10 measurements ok and checked"
ATTNBENCH_PREPARE_THREADS=0 AB_CUDNN_SDPA_VERBOSE=1 "$AB" run plans.cfg --db p.db >/dev/null \
  2>log2.txt || { tail -20 log2.txt; fail "run 2 failed"; }
grep -q 'built ahead' log2.txt && fail "run 2: plans built ahead with ATTNBENCH_PREPARE_THREADS=0"
built=$(grep '^cudnn_sdpa: B=' log2.txt | grep -c 'config.* tried')
cached=$(grep '^cudnn_sdpa: B=' log2.txt | grep -c 'plans from the plan cache')
[ "$built" = 5 ] && [ "$cached" = 5 ] ||
  fail "run 2: $built setups built plans and $cached took cached ones, want 5 and 5"
ok=$(sqlite3 p.db "SELECT count(*) FROM measurements WHERE run_id = 2 AND status = 'ok' AND checked = 1")
[ "$ok" = 10 ] || fail "run 2: $ok of 10 measurements ok and checked"
echo "ok: 5 shapes x 2 instances, plans built ahead (run 1) and by the first setup (run 2)"
