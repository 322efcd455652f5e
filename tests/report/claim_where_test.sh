#!/bin/sh
# claim_where_test.sh AB: claims of `expect` restricted by `where` to the
# configurations with given axis values: one pair (cpu_flash against the
# baseline) with a predicted range per S is judged as two parts, each named
# with its `where` in the conclusion's tables and the JSON, and each
# configuration's comparison shows the range of the claim covering it. The
# ranges are set so that the outcome does not depend on the host's speed
# ([0.001, 1000] holds whatever the timings, [1000, 2000] cannot: the CI of
# an estimate near 1 lies wholly below it). A `where` naming no axis of a
# configuration, a value of the wrong type, or values no configuration of
# the sweep has, is refused with the file and line, before any database is
# made.
set -u
AB=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$tmp" || exit 1
cat >c.cfg <<CFG
name = "claim-where";
variants = ( "cpu_reference", "cpu_flash" );
baseline = "cpu_reference";
sweep = { B = 1; H = 2; S = [48, 64]; D = 16; causal = false; dtype = "fp32"; };
warmup = 1; samples = 12; round_size = 3;
expect = ( { variant = "cpu_flash"; speedup = [0.001, 1000.0]; where = { S = 48; causal = false; }; },
           { variant = "cpu_flash"; speedup = [1000.0, 2000.0]; where = { S = 64; pass = "fwd"; }; } );
CFG
"$AB" run c.cfg --db c.db >run.out 2>run.err || { cat run.err; fail "run"; }
"$AB" report 1 --db c.db -o r.md --no-plots >/dev/null 2>err.txt || { cat err.txt; fail "report"; }
"$AB" report 1 --db c.db --json -o r.json >/dev/null 2>&1 || fail "report --json"
grep -Eq '^\| cpu_flash \| cpu_reference \| .*\| 0\.001–1000\.000× \| inside \|$' r.md ||
    fail "S = 48's comparison does not show the range of the claim covering it"
grep -Eq '^\| cpu_flash \| cpu_reference \| .*\| 1000\.000–2000\.000× \| below, CI outside \|$' r.md ||
    fail "S = 64's comparison does not show the range of the claim covering it"
grep -Eq '^\| cpu_flash vs cpu_reference \(S = 48, causal = false\) \| 0\.001–1000\.000× \| 1 \| 0 \| 0 \| 0 \| .*\*\*held\*\* \|$' r.md ||
    { grep -A5 '^Predicted speedups' r.md; fail "the S = 48 part not judged held under its where"; }
grep -Eq '^\| cpu_flash vs cpu_reference \(S = 64, pass = fwd\) \| 1000\.000–2000\.000× \| 0 \| 1 \| 0 \| 1 \| .*\*\*did not hold\*\* \|$' r.md ||
    fail "the S = 64 part not judged did not hold under its where"
grep -Eq '^Overall: of 2 judged parts, 1 held, 1 did not hold' r.md || fail "the overall tally"
tr -d ' \n' <r.json | grep -q '"where":"S=48,causal=false","predicted":{"lo":0.001,"hi":1000.0,"inside":1' ||
    fail "the JSON lacks the S = 48 part's where"
tr -d ' \n' <r.json | grep -q '"where":"S=64,pass=fwd","predicted":{"lo":1000.0,"hi":2000.0,"inside":0' ||
    fail "the JSON lacks the S = 64 part's where"
refused() { # refused NAME FROM TO MESSAGE: c.cfg with FROM replaced by TO is refused at NAME.cfg:7
    sed "s/$2/$3/" c.cfg >"$1.cfg"
    "$AB" run "$1.cfg" --db "$1.db" >/dev/null 2>"$1.err" && fail "$1: accepted"
    grep -q "^attnbench: $1.cfg:7: expect: $4" "$1.err" || { cat "$1.err"; fail "$1: not refused at $1.cfg:7"; }
    [ -e "$1.db" ] && fail "$1: a refused experiment left a database"
    return 0
}
refused axis 'where = { S = 64; pass' 'where = { Q = 64; pass' "where: unknown axis 'Q'"
refused type 'pass = "fwd"' 'pass = 3' 'where: pass must be a string'
refused causal 'S = 64; pass = "fwd"' 'causal = 2' 'where: causal must be true or false'
refused group 'where = { S = 64; pass = "fwd"; }' 'where = ( 64 )' 'where must be a group'
refused nowhere 'S = 64; pass = "fwd"' 'S = 96; pass = "fwd"' "where covers none of the experiment's 2 configurations"
echo "ok: two claims of one pair split by where, each judged as its own part (held, did not hold), shown per configuration and in the JSON; five bad wheres refused at their line"
