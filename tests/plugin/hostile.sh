#!/bin/sh
# hostile.sh CASE AB LIB: one plugin that attacks attnbench (hostile_plugins.c)
# run beside cpu_flash; attnbench must neither crash, hang nor report a false
# success: the hostile variant is stored 'error' with the reason, cpu_flash
# is measured ok, the run is complete, the exit status 0 and the run id
# printed. Expected values: sqlite3(1) counts, the shell's $? and timeout(1)
# (exit 124 when it had to kill: attnbench hung).
#   count    a table claiming 1,000,000 rows: refused at load, naming the library
#   crash2   SIGSEGV on the second call (after the probe's)
#   overrun  writes 256 floats past O
#   exit     exit(0) in setup
#   hang     run never returns, SIGTERM ignored (deadline 3 s)
#   resume   the library replaced between a killed run and its resume
set -u
case_name=$1 AB=$2 LIB=$3
export OMP_NUM_THREADS=1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*"; [ -f err.txt ] && sed 's/^/  stderr: /' err.txt | tail -n 20; exit 1; }
q() { sqlite3 h.db "$1"; }
cfg() { # extra settings
  cat >h.cfg <<CFG
name = "hostile";
variants = ( "cpu_flash", { name = "hostile"; library = "$LIB"; } );
baseline = "cpu_flash";
sweep = { B = 1; H = 2; S = [32, 48]; D = 16; dtype = "fp32"; };
warmup = 1; samples = 12; round_size = 3;
${1:-}
CFG
}
# runs h.cfg; the hostile variant must be an error whose message matches $1
expect_isolated() {
  pattern=$1
  timeout 120 "$AB" run "${CFG:-h.cfg}" --db h.db >out.txt 2>err.txt; rc=$?
  [ $rc != 124 ] || fail "$case_name: attnbench hung (killed by timeout after 120 s)"
  [ $rc = 3 ] || fail "$case_name: exit $rc, expected 3 (complete; the hostile plugin stored as an error)"
  [ "$(cat out.txt)" = 1 ] || fail "$case_name: run id not printed (stdout '$(cat out.txt)')"
  [ "$(q "SELECT status FROM runs")" = complete ] || fail "$case_name: run $(q "SELECT status FROM runs")"
  [ "$(q "SELECT count(*) FROM measurements WHERE variant = 'cpu_flash' AND status = 'ok'")" = 2 ] ||
    fail "$case_name: cpu_flash not measured ok twice"
  [ "$(q "SELECT count(*) FROM measurements WHERE variant = 'hostile' AND status = 'error'")" = 2 ] ||
    fail "$case_name: hostile stored as $(q "SELECT group_concat(status || ': ' || coalesce(message, ''), ' | ') FROM measurements WHERE variant = 'hostile'")"
  msg=$(q "SELECT message FROM measurements WHERE variant = 'hostile' LIMIT 1")
  echo "$msg" | grep -q -- "$pattern" || fail "$case_name: message '$msg' lacks '$pattern'"
  echo "ok: $case_name: stored error '$msg'; cpu_flash ok, run complete, exit 0"
}

case $case_name in
count)
  cfg
  expect_isolated "$LIB: its table claims 1000000 variants"
  ;;
crash2)
  cfg
  expect_isolated "$LIB: variant 'hostile': plugin killed by SIGSEGV in run"
  ;;
overrun)
  cfg
  expect_isolated "$LIB: variant 'hostile': plugin wrote past the end of O"
  ;;
exit)
  cfg
  expect_isolated "$LIB: variant 'hostile': plugin called exit(0) in setup"
  ;;
hang)
  # timeout = 3 s per call; the worker ignores SIGTERM, is SIGKILLed
  # the file's path (unique to this test) names this test's processes for pgrep
  CFG=$tmp/hang.cfg
  sed_cfg() { cat >"$CFG" <<CFG
name = "hostile";
variants = ( "cpu_flash", { name = "hostile"; library = "$LIB"; timeout = 3.0; } );
baseline = "cpu_flash";
sweep = { B = 1; H = 2; S = [32, 48]; D = 16; dtype = "fp32"; };
warmup = 1; samples = 12; round_size = 3;
CFG
  }
  sed_cfg
  start=$(date +%s)
  expect_isolated "$LIB: variant 'hostile': plugin exceeded its 3 s deadline in run"
  took=$(($(date +%s) - start))
  [ $took -le 60 ] || fail "hang: the run took $took s with two 3 s deadlines"
  pgrep -f "$CFG" >/dev/null && fail "hang: a worker outlived the run"
  # attnbench killed while a worker hangs: the worker dies with it (PR_SET_PDEATHSIG)
  rm -f h.db*
  sed -i 's/timeout = 3.0/timeout = 600.0/' "$CFG"
  "$AB" run "$CFG" --db h.db >/dev/null 2>err.txt &
  pid=$!
  i=0
  while ! pgrep -P $pid >/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
  pgrep -P $pid >/dev/null || fail "hang: no worker process seen"
  sleep 1
  kill -KILL $pid; wait $pid 2>/dev/null
  sleep 0.5
  pgrep -f "$CFG" >/dev/null && fail "hang: the worker kept running after attnbench was killed"
  echo "ok: hang: the worker died with attnbench"
  ;;
exit-inprocess|hang-inprocess)
  # ATTNBENCH_PLUGIN_WORKER=0: the calls run in attnbench's own process; exit()
  # there must not be a success, a hang must meet a deadline: the run is
  # marked failed and attnbench exits 1 with one line
  CFG=$tmp/inproc.cfg
  cat >"$CFG" <<CFG
name = "hostile";
variants = ( "cpu_flash", { name = "hostile"; library = "$LIB"; timeout = 2.0; } );
sweep = { B = 1; H = 2; S = [32, 48]; D = 16; dtype = "fp32"; };
warmup = 1; samples = 12; round_size = 3;
CFG
  start=$(date +%s)
  ATTNBENCH_PLUGIN_WORKER=0 timeout 120 "$AB" run "$CFG" --db h.db >out.txt 2>err.txt; rc=$?
  took=$(($(date +%s) - start))
  [ $rc != 124 ] || fail "$case_name: attnbench hung (killed by timeout after 120 s)"
  [ $rc = 1 ] || fail "$case_name: exit $rc, expected 1"
  [ "$(q "SELECT status FROM runs")" = failed ] || fail "$case_name: run $(q "SELECT status FROM runs"), not failed"
  if [ "$case_name" = exit-inprocess ]; then
    grep -q "exit() was called during run 1 (by a plugin?): the run is marked failed" err.txt || fail "exit-inprocess: no message"
  else
    grep -q "$LIB: variant 'hostile': plugin exceeded its 2 s deadline in setup, warm-up or check" err.txt || fail "hang-inprocess: no message"
    [ $took -le 60 ] || fail "hang-inprocess: took $took s with a 2 s deadline (x 4 calls)"
  fi
  "$AB" runs --db h.db | grep -q ' failed ' || fail "$case_name: runs does not show the run failed"
  echo "ok: $case_name: exit 1, run failed, $(grep -c . err.txt) lines on stderr, $took s"
  ;;
resume)
  # a correct plugin, copied so that it can be replaced between the kill and the resume
  cp "$LIB" lib.so
  LIB=$tmp/lib.so
  cat >h.cfg <<CFG
name = "hostile";
variants = ( "cpu_flash", { name = "hostile"; library = "$LIB"; } );
sweep = { B = 1; H = 2; S = [48, 49, 50, 51, 52, 53, 54, 55]; D = 16; dtype = "fp32"; };
warmup = 0; samples = 300; round_size = 50;
CFG
  "$AB" run h.cfg --db h.db >/dev/null 2>err.txt &
  pid=$!
  i=0
  while [ "$(q "SELECT count(*) FROM measurements WHERE variant = 'hostile'" 2>/dev/null || echo 0)" -lt 1 ] && [ $i -lt 600 ]; do
    sleep 0.1; i=$((i + 1))
  done
  kill -KILL $pid; wait $pid
  [ "$(q "SELECT status FROM runs")" = running ] || fail "resume: the run finished before it was killed"
  was=$(sha256sum lib.so | cut -d' ' -f1)
  cp lib.so lib.orig
  printf 'rebuilt' >>lib.so   # still a loadable library, another SHA-256
  now=$(sha256sum lib.so | cut -d' ' -f1)
  before=$(q "SELECT count(*) FROM measurements")
  "$AB" resume 1 --db h.db >out.txt 2>err.txt && fail "resume with a replaced library succeeded"
  if q "SELECT adapter_env FROM measurements WHERE variant = 'hostile' LIMIT 1" | grep -q '"sha256":null'; then
    echo "note: attnbench built without libcrypto: sizes compared"
    grep -q "plugin library $LIB of variant 'hostile' changed" err.txt || fail "resume: no message naming $LIB"
  else
    grep -q "plugin library $LIB of variant 'hostile' changed.*SHA-256 $was then, SHA-256 $now now" err.txt ||
      fail "resume: message lacks the library and both hashes ($was, $now)"
  fi
  [ "$(wc -l <err.txt)" = 1 ] || fail "resume: more than one line"
  [ "$(q "SELECT count(*) FROM measurements")" = "$before" ] || fail "the refused resume measured something"
  cp lib.orig lib.so
  "$AB" resume 1 --db h.db >out.txt 2>err.txt || fail "resume with the original library failed"
  [ "$(q "SELECT status FROM runs")" = complete ] || fail "resumed run not complete"
  [ "$(q "SELECT count(*) FROM measurements")" = 16 ] || fail "not 16 measurements after resume"
  echo "ok: resume refused a replaced plugin library (SHA-256 $was -> $now), completed with the original"
  ;;
*) fail "unknown case $case_name" ;;
esac
exit 0
