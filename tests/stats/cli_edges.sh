#!/bin/sh
# cli_edges.sh: `attnbench stats` on its input edges, each a
# clear error naming the file and line (or the sample), or the exact answer:
#   1e300 (sums and ratios overflow), 1e-400 (read as 0 by strtod: underflow),
#   a sample A whose median is 0, and 3 x 0.01 v 3 x 0.02 ms (exact p = 0.1,
#   worked by hand in test_mw_exact.c: 2 of the C(6,3) = 20 splits).
# Usage: cli_edges.sh ATTNBENCH
AB=$1
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_error() { # pattern, args...
  pat=$1; shift
  if "$AB" "$@" >out.txt 2>err.txt; then fail "'attnbench $*' succeeded; expected an error"; fi
  grep -q -- "$pat" err.txt || { cat err.txt >&2; fail "stderr of 'attnbench $*' lacks '$pat'"; }
  [ "$(wc -l <err.txt)" -le 2 ] || { cat err.txt >&2; fail "more than one message for '$*'"; }
  echo "ok: $* -> $(head -n 1 err.txt)"
}
printf '1\n2\n3\n' >ok.txt
printf '1\n1e300\n3\n' >big.txt
printf '1\n2\n1e-400\n' >tiny.txt
printf '0\n0\n0\n1\n' >zero.txt
printf '0.01\n0.01\n0.01\n' >a3.txt
printf '0.02\n0.02\n0.02\n' >b3.txt
expect_error "big.txt:2: out of range" stats big.txt ok.txt
expect_error "tiny.txt:3: underflows" stats ok.txt tiny.txt
expect_error "zero.txt (sample A): median latency of A is 0" stats zero.txt ok.txt
"$AB" stats a3.txt b3.txt --json >j.json || fail "stats a3 b3 failed"
grep -q '"p": 0.1,' j.json || { cat j.json >&2; fail "3 x 0.01 v 3 x 0.02: p is not 0.1"; }
grep -q '"method": "exact permutation"' j.json || fail "method not reported"
grep -q '"verdict": "no significant difference"' j.json || fail "verdict at p = 0.1"
echo "ok: 3 x 0.01 v 3 x 0.02 -> p 0.1 (exact permutation), no significant difference"
