#!/bin/sh
# protocol2_test.sh AB SRC: protocol-2 external variants inside a run, with
# the plain-sh fake adapter (fake_adapter2.sh), CPU only:
#  1. a good adapter: one process for the whole run (not one per
#     configuration), its samples taken in the same rounds as the native
#     variant's (every round of cpu_flash has the adapter's samples too), its
#     check figures and environment stored, compared paired over rounds in
#     the report (no ‡);
#  2. an adapter that refuses one configuration: that measurement is an
#     error with the adapter's message, the same process measures the next;
#  3. an adapter that dies inside the rounds: that measurement is an error,
#     the next configuration starts a new process, the native variant and
#     the run survive;
#  4. a protocol-1 adapter in the same run still works;
#  5. device buffers are not offered with `ipc = false;`, nor without a GPU;
#  6. shapes ahead (PROTOCOL.md "Shapes ahead"): an adapter whose hello says
#     ahead=1 gets one `ahead` line per configuration its capabilities
#     admit, all before its first `config`, with that configuration's
#     fields; one whose hello does not say it gets none, nor one that
#     does not run the first configuration.
set -u
AB=$1 SRC=$2
fake="$SRC/tests/external/fake_adapter2.sh"
fake1="$SRC/tests/external/fake_adapter.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
count() { sqlite3 "$1" "$2"; }
cat >p2.cfg <<CFG
name = "p2";
variants = ( "cpu_flash",
  { name = "ext2_good"; command = "FAKE2_LOG=$tmp/good.log sh $fake"; protocol = 2; timeout = 10.0; ipc = false; },
  { name = "ext2_refuse"; command = "FAKE2_LOG=$tmp/refuse.log FAKE2_ERROR_S=17 sh $fake"; protocol = 2; },
  { name = "ext2_die"; command = "FAKE2_LOG=$tmp/die.log FAKE2_DIE_TAKE=3 sh $fake"; protocol = 2; },
  { name = "ext1_good"; command = "sh $fake1 good"; } );
baseline = "ext2_good";
sweep = { B = 1; H = 1; S = [16, 17, 18]; D = 8; dtype = "fp32"; };
warmup = 1; samples = 12; round_size = 2;
# no GPU-time budget: on a machine with a GPU the adapters' samples are GPU
# time (their outputs are checked there) and the budget would grow the
# blocks, so the counts below hold on either machine
min_time = 0;
CFG
"$AB" run p2.cfg --db p.db >/dev/null 2>log.txt; rc=$?
[ $rc = 3 ] || { cat log.txt; fail "run: exit $rc, want 3 (failing adapters stored)"; }
[ "$(count p.db "SELECT status FROM runs")" = complete ] || fail "run not complete"
# 1. one process, interleaved
[ "$(cut -d' ' -f1 good.log | sort -u | wc -l)" = 1 ] || fail "good adapter: $(cut -d' ' -f1 good.log | sort -u | wc -l) processes, expected 1"
[ "$(grep -c ' config ' good.log)" = 3 ] || fail "good adapter told $(grep -c ' config ' good.log) configurations, expected 3"
[ "$(grep -c ' take 2' good.log)" = 18 ] || fail "good adapter: $(grep -c ' take 2' good.log) take requests, expected 6 rounds x 3 configurations"
grep -q ' quit' good.log || fail "good adapter never told to quit"
[ "$(count p.db "SELECT count(*) FROM measurements WHERE variant = 'ext2_good' AND status = 'ok' AND external = 1 AND json_extract(adapter_env, '$.fake') = 2 AND rows_checked = S AND checked = 1")" = 3 ] ||
  fail "good adapter's measurements not stored with their check figures and environment"
rounds_native=$(count p.db "SELECT group_concat(r) FROM (SELECT DISTINCT s.round AS r FROM samples s JOIN measurements m ON m.id = s.measurement_id WHERE m.variant = 'cpu_flash' AND m.S = 16 ORDER BY r)")
rounds_ext=$(count p.db "SELECT group_concat(r) FROM (SELECT DISTINCT s.round AS r FROM samples s JOIN measurements m ON m.id = s.measurement_id WHERE m.variant = 'ext2_good' AND m.S = 16 ORDER BY r)")
[ "$rounds_ext" = "0,1,2,3,4,5" ] && [ "$rounds_ext" = "$rounds_native" ] ||
  fail "adapter samples not in the native variant's rounds: $rounds_ext vs $rounds_native"
# device buffers (PROTOCOL.md "Device buffers"): never offered with ipc =
# false; without a GPU (no buffers) offered to nobody
grep -q ' start ATTNBENCH_IPC=unset' good.log || fail "ipc = false, yet offered: $(grep start good.log)"
if ! { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; }; then
  ! grep -q 'ATTNBENCH_IPC=1' refuse.log die.log || fail "device buffers offered without a GPU"
fi
# 2. refusal: error for S=17 only, same process
[ "$(count p.db "SELECT S || ':' || status FROM measurements WHERE variant = 'ext2_refuse' ORDER BY S" | tr '\n' ' ')" = "16:ok 17:error 18:ok " ] ||
  fail "refusal: $(count p.db "SELECT S || ':' || status FROM measurements WHERE variant = 'ext2_refuse' ORDER BY S" | tr '\n' ' ')"
count p.db "SELECT message FROM measurements WHERE variant = 'ext2_refuse' AND S = 17" | grep -q "adapter reported: S=17 is not supported" || fail "refusal message lost"
[ "$(cut -d' ' -f1 refuse.log | sort -u | wc -l)" = 1 ] || fail "refusing adapter restarted"
# 3. death at the 3rd take of its process: S=16 errors, S=17 a new process dies again, S=18 too
[ "$(count p.db "SELECT count(*) FROM measurements WHERE variant = 'ext2_die' AND status = 'error' AND message LIKE '%closed its stdout%' AND stderr_text LIKE '%dying at take 3%'")" = 3 ] ||
  fail "death not stored as errors with stderr: $(count p.db "SELECT S, status, message FROM measurements WHERE variant = 'ext2_die'")"
[ "$(cut -d' ' -f1 die.log | sort -u | wc -l)" = 3 ] || fail "dead adapter not restarted per configuration"
[ "$(count p.db "SELECT count(*) FROM measurements WHERE variant = 'cpu_flash' AND status = 'ok'")" = 3 ] || fail "native measurements lost"
# 4. protocol 1 beside it
[ "$(count p.db "SELECT count(*) FROM measurements WHERE variant = 'ext1_good' AND status = 'ok'")" = 3 ] || fail "protocol-1 adapter broken"
# the report pairs the protocol-2 baseline over rounds, the protocol-1 one not
"$AB" report 1 --db p.db -o r.md --no-plots >/dev/null || fail "report failed"
grep '^| cpu_flash |' r.md | grep -q '‡' && fail "cpu_flash vs ext2_good not paired over rounds"
grep '^| ext1_good (ext) |' r.md | grep -q '× \[.*\] ‡' || fail "protocol-1 comparison not marked i.i.d."
# 6. shapes ahead: ahead=1 and causal=0 (the causal configurations left
# out), against a hello without ahead
cat >ahead.cfg <<CFG
name = "p2-ahead";
variants = ( "cpu_flash",
  { name = "ext2_ahead"; command = "FAKE2_LOG=$tmp/ahead.log FAKE2_HELLO='ipc=0 ahead=1 causal=0' sh $fake"; protocol = 2; },
  { name = "ext2_noahead"; command = "FAKE2_LOG=$tmp/noahead.log FAKE2_HELLO='ipc=0' sh $fake"; protocol = 2; },
  { name = "ext2_late"; command = "FAKE2_LOG=$tmp/late.log FAKE2_HELLO='ipc=0 ahead=1 causal=1' sh $fake"; protocol = 2; } );
sweep = { B = 1; H = 2; S = [16, 33]; D = 8; dtype = "fp32"; causal = [false, true]; };
warmup = 1; samples = 4; round_size = 2;
CFG
"$AB" run ahead.cfg --db a.db >/dev/null 2>alog.txt || { cat alog.txt; fail "ahead run failed"; }
[ "$(grep -c ' ahead ' ahead.log)" = 2 ] || fail "ahead=1: $(grep -c ' ahead ' ahead.log) ahead lines, want 2 (the non-causal configurations)"
[ "$(grep -n ' config \| ahead ' ahead.log | head -2 | grep -c ' ahead ')" = 2 ] || fail "ahead lines not all before the first config: $(cat ahead.log)"
grep ' ahead ' ahead.log | grep -v 'causal=0' && fail "a causal shape sent ahead"
[ "$(grep ' ahead ' ahead.log | sed 's/.* ahead //' | sort | tr '\n' ';')" = "$(grep ' config ' ahead.log | sed 's/.* config //' | sort | tr '\n' ';')" ] ||
  fail "the shapes sent ahead are not the configurations asked: $(cat ahead.log)"
! grep -q ' ahead ' noahead.log || fail "ahead lines sent to an adapter without ahead=1"
# an adapter that does not run the first configuration would make its
# ahead calls while the first configuration is timed: it gets none
! grep -q ' ahead ' late.log || fail "ahead lines sent to an adapter that skips the first configuration"
grep -q 'ext2_ahead: 2 shapes sent ahead' alog.txt || fail "the run does not say what it sent ahead"
[ "$(count a.db "SELECT count(*) FROM measurements WHERE status = 'ok'")" = 12 ] ||
  fail "ahead run: $(count a.db "SELECT count(*) FROM measurements WHERE status = 'ok'") of 12 measurements ok"
echo "ok: protocol 2 adapters interleaved, one process per run, failures contained; shapes ahead to ahead=1 only"
