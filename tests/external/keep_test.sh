#!/bin/sh
# keep_test.sh AB SRC: kept adapters (src/run/ext_keep.h, adapters/PROTOCOL.md
# "Kept adapters") with the adapter kit's numpy framework, on the CPU:
#  1. run --keep-adapters 30: the adapter stays after the run (its process,
#     its socket), the run's settings say keep_adapters_s;
#  2. the next run is handed to it: its stderr says "session 2 of pid P",
#     P the pid the first run's stderr gave, and its measurements pass;
#  3. after the adapter's file changes, the next run starts a new process
#     and the old one leaves;
#  4. with --keep-adapters 0 (and with ATTNBENCH_KEEP_ADAPTERS=0) a run
#     starts its own process, which ends with the run;
#  5. a kept adapter that hangs in a later run is killed at the variant's
#     timeout like a child (the run stores the error and ends);
#  6. idle longer than its limit, a kept adapter leaves and removes its
#     socket;
#  7. `attnbench adapters` lists a kept adapter by its pid, --stop ends it
#     and removes its socket, and a socket nothing listens on is "stale";
#  8. with neither --keep-adapters nor ATTNBENCH_KEEP_ADAPTERS the adapter
#     stays for 300 s (the default; the settings say "default", stderr
#     says so and how to end it); ATTNBENCH_KEEP_ADAPTERS=20 keeps it
#     for 20 s, --keep-adapters overrides it; a value that is not seconds
#     is refused with a message naming the variable, nothing stored.
# meson runs every test with ATTNBENCH_KEEP_ADAPTERS=0 (tests/meson.build);
# this one unsets it where it tests the default.
# Skips (77) when no python3 with numpy is found.
set -u
AB=$1 SRC=$2
. "$SRC/tests/lib/numpy_python.sh" # PY, or skipped
tmp=$(mktemp -d) || exit 1
export XDG_RUNTIME_DIR="$tmp/run"   # the kept adapters' sockets, this test's alone
mkdir -m 700 "$XDG_RUNTIME_DIR"
trap 'pkill -KILL -f "$tmp/adapter.py" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
q() { sqlite3 "$tmp/k.db" "$1"; }
alive() { pgrep -f "$tmp/adapter.py" >/dev/null 2>&1; }
pid_of() { q "SELECT stderr_text FROM measurements WHERE run_id = $1 AND variant = 'numpy_p2' LIMIT 1" |
    sed -n 's/.*(pid \([0-9]*\)).*/\1/p; s/.*session [0-9]* of pid \([0-9]*\).*/\1/p' | head -1; }

cat >"$tmp/adapter.py" <<PYEOF
import os, sys, time
sys.path.insert(0, "$SRC/adapters")
import numpy as np
import attnbench_adapter

def attention(q, k, v, causal, scale):
    if os.path.exists("$tmp/hang"):
        time.sleep(60)
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * np.float32(scale)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return np.matmul(p / p.sum(axis=-1, keepdims=True), v)

attnbench_adapter.main(attention, framework="numpy")
PYEOF
cat >"$tmp/k.cfg" <<CFG
name = "keep";
variants = ( "cpu_flash",
  { name = "numpy_p2"; command = "$PY $tmp/adapter.py"; protocol = 2; timeout = 5.0; } );
baseline = "cpu_flash";
sweep = { B = 1; H = 2; S = [24, 33]; D = 16; causal = false; dtype = "fp32"; };
warmup = 1; samples = 4; round_size = 2;
CFG
cd "$tmp" || exit 1
ok_count() { q "SELECT count(*) FROM measurements WHERE run_id = $1 AND variant = 'numpy_p2' AND status = 'ok'"; }

# 1. kept after its run
"$AB" run k.cfg --db k.db --keep-adapters 30 >/dev/null 2>r1.err || { cat r1.err; fail "run 1 failed"; }
[ "$(ok_count 1)" = 2 ] || fail "run 1: numpy_p2 not ok: $(q "SELECT status, message FROM measurements")"
p1=$(pid_of 1)
[ -n "$p1" ] || fail "run 1: no pid in the kit's stderr"
alive || fail "run 1: the adapter did not stay"
ls "$XDG_RUNTIME_DIR"/attnbench/adapter-*.sock >/dev/null 2>&1 || fail "run 1: no socket"
[ "$(q "SELECT json_extract(run_settings, '\$.keep_adapters_s') FROM runs WHERE id = 1")" = 30.0 ] ||
    fail "run 1: keep_adapters_s not in the run's settings"

# 2. the next run is handed to it
"$AB" run k.cfg --db k.db --keep-adapters 30 >/dev/null 2>r2.err || { cat r2.err; fail "run 2 failed"; }
[ "$(ok_count 2)" = 2 ] || fail "run 2: numpy_p2 not ok"
q "SELECT stderr_text FROM measurements WHERE run_id = 2 AND variant = 'numpy_p2'" |
    grep -q "kept from an earlier run: session 2 of pid $p1," || fail "run 2 was not handed to pid $p1"

# 3. its file changed: a new process, the old one gone
sleep 1.1; touch adapter.py
"$AB" run k.cfg --db k.db --keep-adapters 30 >/dev/null 2>r3.err || { cat r3.err; fail "run 3 failed"; }
p3=$(pid_of 3)
[ -n "$p3" ] && [ "$p3" != "$p1" ] || fail "run 3 used pid $p3 after the adapter changed (was $p1)"
q "SELECT stderr_text FROM measurements WHERE run_id = 3 AND variant = 'numpy_p2'" |
    grep -q "kept from an earlier run" && fail "run 3 says kept"
kill -0 "$p1" 2>/dev/null && fail "the stale adapter $p1 did not leave"

# 4. --keep-adapters 0: its own process, ended with the run
"$AB" run k.cfg --db k.db --keep-adapters 0 >/dev/null 2>r4.err || { cat r4.err; fail "run 4 failed"; }
p4=$(pid_of 4)
[ -n "$p4" ] && [ "$p4" != "$p3" ] || fail "run 4 (no keeping) used the kept adapter $p3"
kill -0 "$p4" 2>/dev/null && fail "run 4's adapter $p4 outlived its run"
kill -0 "$p3" 2>/dev/null || fail "the kept adapter $p3 left during a run that did not use it"

# 5. a kept adapter that hangs is killed at the timeout
touch hang
"$AB" run k.cfg --db k.db --keep-adapters 30 >/dev/null 2>r5.err
[ "$(q "SELECT count(*) FROM measurements WHERE run_id = 5 AND variant = 'numpy_p2' AND status = 'error'")" -ge 1 ] ||
    fail "run 5: the hung adapter's measurement is not an error: $(q "SELECT status, message FROM measurements WHERE run_id = 5")"
sleep 0.5
kill -0 "$p3" 2>/dev/null && fail "the hung kept adapter $p3 was not killed"
rm -f hang

# 6. idle past its limit: gone, socket removed
"$AB" run k.cfg --db k.db --keep-adapters 1 >/dev/null 2>r6.err || { cat r6.err; fail "run 6 failed"; }
alive || fail "run 6: the adapter did not stay"
sleep 2.5
alive && fail "the adapter stayed past its idle limit of 1 s"
ls "$XDG_RUNTIME_DIR"/attnbench/adapter-*.sock >/dev/null 2>&1 && fail "the idle adapter left its socket"

# 7. listed, stopped; a stale socket named so
"$AB" run k.cfg --db k.db --keep-adapters 30 >/dev/null 2>r7.err || { cat r7.err; fail "run 7 failed"; }
p7=$(pid_of 7)
"$AB" adapters >ad.out 2>&1 || fail "adapters failed: $(cat ad.out)"
grep -q "^pid $p7 " ad.out || fail "adapters does not list pid $p7: $(cat ad.out)"
"$AB" adapters --stop >ad2.out 2>&1 || fail "adapters --stop failed"
sleep 0.5
kill -0 "$p7" 2>/dev/null && fail "adapters --stop left $p7 running"
ls "$XDG_RUNTIME_DIR"/attnbench/adapter-*.sock >/dev/null 2>&1 && fail "adapters --stop left the socket"
"$PY" -c "import socket; s = socket.socket(socket.AF_UNIX); s.bind('$XDG_RUNTIME_DIR/attnbench/adapter-0000000000000000.sock')"
"$AB" adapters | grep -q "^stale " || fail "a socket nothing listens on is not called stale"
# 8. the default and the environment's setting
n_runs() { q "SELECT count(*) FROM runs"; }
keep_of() { q "SELECT json_extract(run_settings, '\$.keep_adapters_s') || ' ' || json_extract(run_settings, '\$.keep_adapters_from') FROM runs WHERE id = $1"; }
runs0=$(n_runs)
ATTNBENCH_KEEP_ADAPTERS=soon "$AB" run k.cfg --db k.db >/dev/null 2>r8a.err &&
    fail "ATTNBENCH_KEEP_ADAPTERS=soon was accepted"
grep -q "ATTNBENCH_KEEP_ADAPTERS='soon' is not a number of seconds" r8a.err ||
    fail "no message naming ATTNBENCH_KEEP_ADAPTERS: $(cat r8a.err)"
[ "$(n_runs)" = "$runs0" ] || fail "a refused ATTNBENCH_KEEP_ADAPTERS stored a run"
ATTNBENCH_KEEP_ADAPTERS=0 "$AB" run k.cfg --db k.db >/dev/null 2>r8b.err || { cat r8b.err; fail "run 8b failed"; }
r=$(n_runs); pb=$(pid_of "$r")
kill -0 "$pb" 2>/dev/null && fail "ATTNBENCH_KEEP_ADAPTERS=0: the adapter $pb outlived its run"
[ -z "$(q "SELECT json_extract(run_settings, '\$.keep_adapters_s') FROM runs WHERE id = $r")" ] ||
    fail "ATTNBENCH_KEEP_ADAPTERS=0: the settings say keep_adapters_s"
(unset ATTNBENCH_KEEP_ADAPTERS; "$AB" run k.cfg --db k.db >/dev/null 2>r8c.err) || { cat r8c.err; fail "run 8c failed"; }
r=$(n_runs); pc=$(pid_of "$r")
kill -0 "$pc" 2>/dev/null || fail "by default the adapter $pc did not stay"
[ "$(keep_of "$r")" = "300.0 default" ] ||
    fail "default: settings $(q "SELECT run_settings FROM runs WHERE id = $r")"
grep -q "numpy_p2: its adapter stays for the next run of this command, idle at most 300 s" r8c.err ||
    fail "default: stderr does not say the adapter stays: $(cat r8c.err)"
"$AB" report "$r" --db k.db >/dev/null 2>&1 || fail "report of run $r failed"
grep -q "| kept adapters | 300 s, the default" reports/keep-run$r.md ||
    fail "the report does not say the adapters were kept by default"
ATTNBENCH_KEEP_ADAPTERS=20 "$AB" run k.cfg --db k.db >/dev/null 2>r8d.err || { cat r8d.err; fail "run 8d failed"; }
r=$(n_runs)
[ "$(keep_of "$r")" = "20.0 ATTNBENCH_KEEP_ADAPTERS" ] ||
    fail "ATTNBENCH_KEEP_ADAPTERS=20: settings $(q "SELECT run_settings FROM runs WHERE id = $r")"
q "SELECT stderr_text FROM measurements WHERE run_id = $r AND variant = 'numpy_p2'" |
    grep -q "kept from an earlier run: session 2 of pid $pc," || fail "run $r was not handed the default-kept $pc"
ATTNBENCH_KEEP_ADAPTERS=20 "$AB" run k.cfg --db k.db --keep-adapters 7 >/dev/null 2>r8e.err || { cat r8e.err; fail "run 8e failed"; }
r=$(n_runs)
[ "$(keep_of "$r")" = "7.0 command line" ] ||
    fail "--keep-adapters 7 did not override the environment"
"$AB" adapters --stop >/dev/null 2>&1
sleep 0.5
kill -0 "$pc" 2>/dev/null && fail "adapters --stop left $pc running"

echo "ok: kept after a run and handed the next (pid $p1), replaced when its file changed, not used without --keep-adapters, killed when hung, gone when idle, listed and stopped by attnbench adapters; kept 300 s by default, ATTNBENCH_KEEP_ADAPTERS read and checked"
