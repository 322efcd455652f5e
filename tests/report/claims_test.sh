#!/bin/sh
# claims_test.sh AB: a claim against another variant than the baseline
# (`expect = ( { variant = "cpu_reference"; than = "flash_b"; ... } )`) is
# judged and listed: the report adds cpu_reference against flash_b to its
# family in every configuration (a row in each configuration's table of
# claimed comparisons, an entry in the JSON's comparisons), and the
# conclusion has the part "cpu_reference vs flash_b" with the claim
# "slower" and an outcome. Before, the report compared only against the
# baseline and the claim vanished. What the verdict is does not matter
# here (the host may be busy), only that the claim is judged.
set -u
AB=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$tmp" || exit 1
cat >c.cfg <<CFG
name = "claims";
variants = ( "cpu_flash", "cpu_reference", { name = "flash_b"; variant = "cpu_flash"; } );
baseline = "cpu_flash";
sweep = { B = 1; H = 2; S = [48, 64]; D = 16; causal = false; dtype = "fp32"; };
warmup = 1; samples = 24; round_size = 3;
expect = ( { variant = "cpu_reference"; than = "flash_b"; verdict = "slower"; } );
CFG
"$AB" run c.cfg --db c.db >run.out 2>run.err || { cat run.err; fail "run"; }
"$AB" report 1 --db c.db -o r.md >/dev/null 2>&1 || fail "report"
"$AB" report 1 --db c.db --json -o r.json >/dev/null 2>&1 || fail "report --json"
[ "$(grep -c '^The claims against other variants than cpu_flash' r.md)" = 2 ] || fail "no claimed-comparison table per configuration"
[ "$(grep -Ec '^\| cpu_reference \| flash_b \| [0-9.]+× \[' r.md)" = 2 ] || fail "cpu_reference vs flash_b not listed twice"
grep -Eq '^\| cpu_reference vs flash_b \| slower \| [0-9]+ \| [0-9]+ \| [0-9]+ \| 0 \| [0-9]+ \| \*\*(held|did not hold|inconclusive)' r.md ||
    { grep -A8 '^| part' r.md; fail "the claim is not judged in the conclusion"; }
[ "$(tr -d ' \n' <r.json | grep -o '"variant":"cpu_reference","baseline":"flash_b"' | wc -l)" = 2 ] ||
    fail "the JSON lacks the two claimed comparisons"
echo "ok: the claim against flash_b judged, listed per configuration and in the JSON"
