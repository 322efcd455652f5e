#!/bin/sh
# chain_instances_test.sh AB: a ladder run with instances (instances = 3)
# reported with --chain compares each rung with the one before it over the
# instances (a table per configuration, as without instances), and a
# predicted speedup (`expect`'s `speedup = [lo, hi]`) is shown beside the
# estimate in that table, judged in the conclusion's table of predicted
# speedups and written to the JSON. The ranges are set so that the outcome
# does not depend on the host's speed: [0.001, 1000] holds whatever the
# timings (every estimate inside), [1000, 2000] cannot hold (the CI of an
# estimate near 1 lies wholly below it: did not hold). A range the wrong
# way round is refused with the file and line.
set -u
AB=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$tmp" || exit 1
cat >c.cfg <<CFG
name = "chain-instances";
variants = ( "cpu_reference", "cpu_flash", { name = "flash_b"; variant = "cpu_flash"; } );
baseline = "cpu_reference";
sweep = { B = 1; H = 2; S = [48, 64]; D = 16; causal = false; dtype = "fp32"; };
warmup = 1; samples = 24; round_size = 3; instances = 3;
expect = ( { variant = "cpu_flash"; speedup = [0.001, 1000.0]; },
           { variant = "flash_b"; than = "cpu_flash"; speedup = [1000.0, 2000.0]; } );
CFG
"$AB" run c.cfg --db c.db >run.out 2>run.err || { cat run.err; fail "run"; }
"$AB" report 1 --db c.db --chain -o r.md --no-plots >/dev/null 2>err.txt || { cat err.txt; fail "report"; }
"$AB" report 1 --db c.db --chain --json -o r.json >/dev/null 2>&1 || fail "report --json"
[ "$(grep -c '^Each rung against the one before it' r.md)" = 2 ] || fail "no chain table per configuration"
[ "$(grep -Ec '^\| flash_b#1 \| cpu_flash#1 \| [0-9.]+× \[.*\| 1000\.000–2000\.000× \| below, CI outside \|$' r.md)" = 2 ] ||
    { grep -A6 '^Each rung' r.md; fail "flash_b against the rung before it, with its prediction, not listed twice"; }
[ "$(grep -Ec '^\| cpu_flash#1 \| cpu_reference#1 \| [0-9.]+× \[.*\| 0\.001–1000\.000× \| inside \|$' r.md)" = 2 ] ||
    fail "cpu_flash's predicted speedup against the baseline not listed twice"
grep -Eq '^\| cpu_flash vs cpu_reference \| 0\.001–1000\.000× \| 2 \| 0 \| 0 \| 0 \| [0-9.]+× \([0-9.]+–[0-9.]+\) \| \*\*held\*\* \|$' r.md ||
    { grep -A6 '^Predicted speedups' r.md; fail "the held prediction not judged"; }
grep -Eq '^\| flash_b vs cpu_flash \| 1000\.000–2000\.000× \| 0 \| 2 \| 0 \| 2 \| .*\*\*did not hold\*\* \|$' r.md ||
    fail "the prediction that cannot hold not judged so"
grep -Eq '^Overall: of 2 judged parts, 1 held, 1 did not hold' r.md || fail "the overall tally"
[ "$(tr -d ' \n' <r.json | grep -o '"variant":"flash_b","baseline":"cpu_flash","predicted":\[1000\.0,2000\.0\],"estimate_vs_predicted":"below,CIoutside"' | wc -l)" = 2 ] ||
    fail "the JSON lacks the chain comparisons' predictions"
sed 's/speedup = \[1000.0, 2000.0\]/speedup = [2.0, 1.0]/' c.cfg >bad.cfg
"$AB" run bad.cfg --db bad.db >/dev/null 2>bad.err && fail "a range the wrong way round was accepted"
grep -q '^attnbench: bad.cfg:7: expect: speedup must be \[lo, hi\]' bad.err || { cat bad.err; fail "the refusal does not name bad.cfg:7"; }
[ -e bad.db ] && fail "a refused experiment left a database"
echo "ok: the chain by instance, the predictions shown, judged (held, did not hold) and in the JSON; a bad range refused at bad.cfg:7"
