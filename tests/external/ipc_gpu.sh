#!/bin/sh
# ipc_gpu.sh AB SRC: the device buffers of protocol 2 on a GPU
# (adapters/PROTOCOL.md "Device buffers"; skipped, status 77, without a CUDA
# device, sqlite3 or PyTorch with CUDA). One run, fp16 and bf16, causal and
# not, K/V heads 4 and 2, B=4 H=8 S=2048 (where a host check would sample
# rows, so rows_checked = B*H*S means the device checked every row):
#  1. torch_sdpa (the kit, layout bhsd) in hot and graph timing: maps
#     attnbench's buffers (the kit says so on stderr), answers `check
#     device`, passes the device check over every row, rotates as many
#     input sets as the native variant;
#  2. an SDPA function taking [B,S,H,D] (layout bshd): passes, so the
#     transposes into and out of its layout are right;
#  3. torch_sdpa with `ipc = false;`: the file route as before (no mapping,
#     one input set), passes;
#  4. a native GPU variant beside them passes;
#  5. an adapter writing O = 0 into the shared buffer fails the check, in
#     both layouts;
#  6. backward passes (bwd, fwd+bwd; B=2 H=4 S=512): torch_sdpa maps
#     attnbench's Q, K, V, dO, writes dQ, dK, dV into its buffers and passes
#     the device gradient check; the [B,S,H,D] adapter is not offered them
#     (backward buffers are [B,H,S,D] only) and passes on its own inputs;
#     the native backward beside them passes.
set -u
AB=$1 SRC=$2
command -v sqlite3 >/dev/null 2>&1 || { echo "skipped: no sqlite3"; exit 77; }
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 ||
  { echo "skipped: no GPU"; exit 77; }
python3 -c 'import torch, numpy; assert torch.cuda.is_available()' 2>/dev/null ||
  { echo "skipped: no PyTorch with CUDA (and numpy)"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
q() { sqlite3 ipc.db "$1"; }
cat >ipc.cfg <<CFG
name = "ipc-gpu";
variants = ( "cuda_mma",
  { name = "sdpa_ipc"; command = "python3 $SRC/adapters/torch_sdpa.py"; protocol = 2; timeout = 300.0; },
  { name = "sdpa_ipc_graph"; command = "python3 $SRC/adapters/torch_sdpa.py"; protocol = 2; timing = "graph"; timeout = 300.0; },
  { name = "sdpa_bshd"; command = "python3 $SRC/tests/external/sdpa_bshd_adapter.py"; protocol = 2; layout = "bshd"; timeout = 300.0; },
  { name = "sdpa_file"; command = "python3 $SRC/adapters/torch_sdpa.py"; protocol = 2; ipc = false; timeout = 300.0; },
  { name = "zeros"; command = "python3 $SRC/tests/external/zeros_adapter.py"; protocol = 2; timeout = 300.0; },
  { name = "zeros_bshd"; command = "python3 $SRC/tests/external/zeros_adapter.py bshd"; protocol = 2; timeout = 300.0; } );
sweep = { B = 4; H = 8; S = 2048; D = 64; dtype = ["fp16", "bf16"]; causal = [false, true]; H_kv = [8, 2]; };
skip_unsupported = true;
warmup = 2; samples = 8; round_size = 2; timing = "hot"; graph_k = 4;
CFG
"$AB" run ipc.cfg --db ipc.db >/dev/null 2>log.txt; rc=$?
[ $rc = 3 ] || { tail -30 log.txt; fail "run: exit $rc, want 3 (the zeros adapters fail their check)"; }
n=8 # configurations
rows=$((4 * 8 * 2048))
for v in sdpa_ipc sdpa_ipc_graph sdpa_bshd; do
  got=$(q "SELECT count(*) FROM measurements WHERE variant = '$v' AND status = 'ok' AND checked = 1 AND rows_checked = $rows AND stderr_text LIKE '%attnbench_adapter: ipc:%'")
  [ "$got" = $n ] || fail "$v: $got of $n measurements ok, device-checked over every row, mapped: $(q "SELECT dtype, causal, H_kv, status, rows_checked, message FROM measurements WHERE variant = '$v'")"
done
# shapes ahead (PROTOCOL.md "Shapes ahead"): the kit's hello says ahead=1,
# attnbench tells it the run's shapes, and the kit makes its first call of
# each before its first configuration (its stderr, kept with the
# measurements, says how long each took)
grep -q 'sdpa_ipc: 8 shapes sent ahead' log.txt || fail "the kit was not sent the 8 shapes ahead"
[ "$(q "SELECT count(*) FROM measurements WHERE variant = 'sdpa_ipc' AND stderr_text LIKE '%attnbench_adapter: ahead B=4 H=8 S=2048 D=64 causal=% ms%'")" -ge 1 ] ||
  fail "the kit did not make the shapes' first calls ahead"
[ "$(q "SELECT count(*) FROM measurements WHERE variant = 'sdpa_bshd' AND stderr_text LIKE '%layout bshd%'")" = $n ] ||
  fail "sdpa_bshd did not get [B,S,H,D] buffers"
# input sets: as many as the native variant rotates (hot), > 1 at this size
sets_native=$(q "SELECT DISTINCT input_sets FROM measurements WHERE variant = 'cuda_mma' AND status = 'ok' AND H_kv = 8")
sets_ipc=$(q "SELECT DISTINCT input_sets FROM measurements WHERE variant = 'sdpa_ipc' AND H_kv = 8")
[ -n "$sets_native" ] && [ "$sets_ipc" = "$sets_native" ] && [ "$sets_ipc" -gt 1 ] ||
  fail "input sets: sdpa_ipc '$sets_ipc', cuda_mma '$sets_native'"
# the file route still works and rotates nothing
[ "$(q "SELECT count(*) FROM measurements WHERE variant = 'sdpa_file' AND status = 'ok' AND input_sets = 1 AND stderr_text NOT LIKE '%attnbench_adapter: ipc:%'")" = $n ] ||
  fail "sdpa_file (ipc = false): $(q "SELECT status, input_sets, message FROM measurements WHERE variant = 'sdpa_file'")"
[ "$(q "SELECT count(*) FROM measurements WHERE variant = 'cuda_mma' AND status = 'ok'")" -ge 1 ] ||
  fail "the native variant: $(q "SELECT status, message FROM measurements WHERE variant = 'cuda_mma'")"
for v in zeros zeros_bshd; do
  [ "$(q "SELECT count(*) FROM measurements WHERE variant = '$v' AND status = 'failed' AND message LIKE '%check of the adapter''s output in its device buffer%'")" = $n ] ||
    fail "$v not failed by the device check: $(q "SELECT status, message FROM measurements WHERE variant = '$v'")"
done
# 6. backward passes
cat >bwd.cfg <<CFG
name = "ipc-gpu-bwd";
variants = ( "cuda_mma_bwd",
  { name = "sdpa_ipc"; command = "python3 $SRC/adapters/torch_sdpa.py"; protocol = 2; timeout = 300.0; },
  { name = "sdpa_ipc_graph"; command = "python3 $SRC/adapters/torch_sdpa.py"; protocol = 2; timing = "graph"; timeout = 300.0; },
  { name = "sdpa_bshd"; command = "python3 $SRC/tests/external/sdpa_bshd_adapter.py"; protocol = 2; timeout = 300.0; } );
sweep = { B = 2; H = 4; S = 512; D = 64; dtype = "fp16"; causal = [false, true]; pass = ["bwd", "fwd+bwd"]; };
warmup = 2; samples = 6; round_size = 2; timing = "hot"; graph_k = 2;
CFG
"$AB" run bwd.cfg --db ipc.db >/dev/null 2>>log.txt || { tail -30 log.txt; fail "backward run failed"; }
for v in sdpa_ipc sdpa_ipc_graph; do
  got=$(q "SELECT count(*) FROM measurements m JOIN runs r ON r.id = m.run_id WHERE r.id = (SELECT max(id) FROM runs) AND m.variant = '$v' AND m.status = 'ok' AND m.checked = 1 AND m.stderr_text LIKE '%attnbench_adapter: ipc: the %pass on attnbench''s buffers%'")
  [ "$got" = 4 ] || fail "backward $v: $got of 4 ok on the shared buffers: $(q "SELECT pass, causal, status, message FROM measurements WHERE variant = '$v' AND run_id = (SELECT max(id) FROM runs)")"
done
[ "$(q "SELECT count(*) FROM measurements WHERE run_id = (SELECT max(id) FROM runs) AND variant = 'sdpa_bshd' AND status = 'ok' AND stderr_text NOT LIKE '%attnbench_adapter: ipc:%'")" = 4 ] ||
  fail "backward sdpa_bshd (own inputs): $(q "SELECT pass, status, message FROM measurements WHERE variant = 'sdpa_bshd' AND run_id = (SELECT max(id) FROM runs)")"
[ "$(q "SELECT count(*) FROM measurements WHERE run_id = (SELECT max(id) FROM runs) AND variant = 'cuda_mma_bwd' AND status = 'ok'")" -ge 1 ] ||
  fail "the native backward: $(q "SELECT pass, status, message FROM measurements WHERE variant = 'cuda_mma_bwd' AND run_id = (SELECT max(id) FROM runs)")"
echo "ok: adapters on attnbench's device buffers checked on the device (every row), both layouts; a wrong O fails; backward passes too"
