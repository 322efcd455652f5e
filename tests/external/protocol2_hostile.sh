#!/bin/sh
# protocol2_hostile.sh AB: protocol-2 adapters that break the protocol in
# ways protocol 1 refuses, or that stop reading their stdin; each must end as
# a stored error with the reason, never hang attnbench, and the run go on.
#  1. an adapter that answers without reading its stdin: attnbench's
#     requests fill the pipe (64 KiB on Linux, about 9,400 `take 2` lines)
#     and the next write must time out (timeout = 3 s), not block forever;
#  2. an `env` line that is not JSON (protocol 1: "invalid JSON");
#  3. a sample line cut by a NUL byte ("sample 0.5<NUL>junk").
# Expected values: the shell's $?, timeout(1) (exit 124: attnbench hung),
# sqlite3(1) on the stored rows.
set -u
AB=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
q() { sqlite3 h.db "$1"; }
check='check max_abs_err=0 mean_abs_err=0 rel_l2_err=0 plain_max_abs_err=0 nonfinite=0'

# 1. answers 12,000 takes in advance, then sleeps: never reads stdin
cat >deaf.sh <<SH
#!/bin/sh
printf '%s\nready\n' '$check'
i=0
while [ \$i -lt 12000 ]; do printf 'sample 0.5\nsample 0.5\ndone\n'; i=\$((i + 1)); done
exec sleep 600
SH
# 2. broken env JSON; 3. a NUL in a sample line
cat >badenv.sh <<SH
#!/bin/sh
while read -r cmd rest; do
  case \$cmd in
  config) printf 'env {broken\n%s\nready\n' '$check' ;;
  take) i=0; while [ \$i -lt \$rest ]; do echo 'sample 0.5'; i=\$((i + 1)); done; echo done ;;
  quit) exit 0 ;;
  esac
done
SH
cat >nul.sh <<SH
#!/bin/sh
while read -r cmd rest; do
  case \$cmd in
  config) printf '%s\nready\n' '$check' ;;
  take) i=0; while [ \$i -lt \$rest ]; do printf 'sample 0.5\000junk\n'; i=\$((i + 1)); done; echo done ;;
  quit) exit 0 ;;
  esac
done
SH
cat >h.cfg <<CFG
name = "p2h";
variants = ( { name = "badenv"; command = "sh $tmp/badenv.sh"; protocol = 2; timeout = 3.0; },
  { name = "deaf"; command = "sh $tmp/deaf.sh"; protocol = 2; timeout = 3.0; },
  { name = "nul"; command = "sh $tmp/nul.sh"; protocol = 2; timeout = 3.0; } );
sweep = { B = 1; H = 1; S = 16; D = 8; dtype = "fp32"; };
warmup = 0; samples = 30000; round_size = 2;
CFG
start=$(date +%s)
timeout 120 "$AB" run h.cfg --db h.db >out.txt 2>err.txt; rc=$?
took=$(($(date +%s) - start))
[ $rc != 124 ] || fail "attnbench hung (killed by timeout after 120 s)"
[ $rc != 0 ] || fail "a run whose every measurement errored exited 0"
[ "$(q "SELECT status FROM runs")" = failed ] || fail "the run is $(q "SELECT status FROM runs"), not failed"
deaf=$(q "SELECT status || ': ' || coalesce(message, '') FROM measurements WHERE variant = 'deaf'")
echo "$deaf" | grep -q "^error: external variant deaf: timed out after 3 s writing a request (the adapter stopped reading its stdin)" ||
  fail "deaf adapter: '$deaf'"
env=$(q "SELECT status || ': ' || coalesce(message, '') FROM measurements WHERE variant = 'badenv'")
echo "$env" | grep -q "^error: external variant badenv: env line: invalid JSON" || fail "broken env JSON: '$env'"
nul=$(q "SELECT status || ': ' || coalesce(message, '') FROM measurements WHERE variant = 'nul'")
echo "$nul" | grep -q "^error: external variant nul: a stdout line holds a NUL byte" || fail "NUL in a line: '$nul'"
pgrep -f "$tmp/deaf.sh" >/dev/null && fail "the deaf adapter outlived the run"
echo "ok: deaf adapter timed out writing (run took $took s), broken env and NUL refused as in protocol 1"
