#!/bin/sh
# latency_digits.sh AB: latencies print with at least three significant
# digits in every range. A CPU run of a one-element attention (B=H=S=D=1,
# about a microsecond a call) and a larger one (about a millisecond)
# is reported in markdown and JSON; every median and CI bound of the
# markdown results table must hold at least 4 significant digits and be
# the JSON's full-precision value (17 digits, jansson) rounded to the
# decimals it prints (within half a unit of its last digit, checked by
# Python's float arithmetic, not by attnbench's formatter). Before
# the fixed "%.4f", a 1.39 us median printed as 0.0014 (two digits). Skips
# (77) without python3.
set -u
AB=$1
command -v python3 >/dev/null 2>&1 || { echo "skipped: no python3"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$tmp" || exit 1
cat >d.cfg <<CFG
name = "digits";
variants = ["cpu_flash", "cpu_reference"];
sweep = { causal = false; dtype = "fp32"; };
configs = ( { B = 1; H = 1; S = 1; D = 1; }, { B = 1; H = 2; S = 192; D = 64; } );
warmup = 1; samples = 12; round_size = 3;
CFG
"$AB" run d.cfg --db d.db >run.out 2>run.err || { cat run.err; fail "run"; }
"$AB" report 1 --db d.db -o r.md >/dev/null 2>&1 && "$AB" report 1 --db d.db --json -o r.json >/dev/null 2>&1 ||
    fail "report"
python3 - r.md r.json <<'PY' || fail "markdown medians and CIs are not the JSON's to 4 significant digits"
import json, re, sys
md = open(sys.argv[1]).read().splitlines()
js = json.load(open(sys.argv[2]))
def sig(cell):  # significant digits printed
    d = cell.lstrip("+-").replace(".", "").lstrip("0")
    return len(d)
seen = 0
for v in js["variants"]:
    c = v["config"]
    title = "### B=%d H=%d S=%d D=%d" % (c["B"], c["H"], c["S"], c["D"])
    start = next(i for i, l in enumerate(md) if l.startswith(title))
    row = next(l for l in md[start:] if l.startswith("| %s |" % v["variant"]))
    cells = [x.strip() for x in row.split("|")[1:-1]]
    med = cells[3]
    lo, hi = re.match(r"\[(\S+), (\S+)\]", cells[4]).groups()
    for printed, exact in ((med, v["median_ms"]), (lo, v["median_ci"][0]), (hi, v["median_ci"][1])):
        dec = len(printed.split(".")[1]) if "." in printed else 0
        if sig(printed) < 4 or abs(float(printed) - exact) > 0.5 * 10 ** -dec * (1 + 1e-9):
            print("%s %s: printed %s, JSON %r" % (v["variant"], title, printed, exact))
            sys.exit(1)
        seen += 1
if seen != 12:
    print("compared %d cells, expected 12" % seen)
    sys.exit(1)
if min(v["median_ms"] for v in js["variants"]) >= 0.01:
    print("no median under 10 us (where 4 decimals of ms give 2 digits): the test lost its point")
    sys.exit(1)
PY
echo "ok: every median and CI bound printed to at least 4 significant digits, microsecond ones included"
