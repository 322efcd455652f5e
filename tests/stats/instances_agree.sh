#!/bin/sh
# instances_agree.sh: on the same samples, `attnbench stats` with an
# instance column ("MS ROUND INSTANCE") gives what `report --json` gives for
# a comparison of variants measured as several instances (src/analysis/
# instances.h: Welch's t of the per-instance levels on Hsu's df): the same
# speedup, interval and p to 9 significant digits, and the same verdict.
# The runs are stored GPU runs with the default 4 instances per variant
# (reports/instances-default/shipped-default/, an H200); the samples are
# read from the database with sqlite3, every comparison of the runs given.
# Usage: instances_agree.sh ATTNBENCH DATABASE RUN...
AB=$1 DB=$2
shift 2
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "skipped: no sqlite3"; exit 77; }
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
cp "$DB" "$T/r.db" || fail "cannot copy $DB"
same() { # A B: equal to 9 significant digits
  awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a);
    exit !(d <= 1e-9 * m + 1e-15) }'
}
n=0
for run in "$@"; do
  "$AB" report "$run" --db "$T/r.db" --json -o "$T/r.json" >/dev/null || fail "run $run: report --json failed"
  # each comparison: candidate, baseline, B of its configuration, speedup, lo, hi, p, verdict
  python3 - "$T/r.json" >"$T/cmps.txt" <<'PY' || fail "run $run: cannot read the report"
import json, sys
for c in json.load(open(sys.argv[1]))["comparisons"]:
    print(c["variant"], c["baseline"], c["config"]["B"], repr(c["speedup"]), repr(c["speedup_ci"][0]),
          repr(c["speedup_ci"][1]), repr(c["p"]), c["verdict"].split(" (")[0].replace(" ", "_"),
          c["method"].split(":")[0].replace(" ", "_"))
PY
  while read -r cand base B rr rlo rhi rp rv rm; do
    [ "$rm" = by_instance ] || fail "run $run $cand B=$B: report's method is '$rm', not by instance"
    for v in "$cand" "$base"; do
      sqlite3 -separator ' ' "$T/r.db" "SELECT printf('%.17g', s.ms), s.round,
        substr(m.variant, length('$v') + 2) FROM samples s JOIN measurements m ON m.id = s.measurement_id
        WHERE m.run_id = $run AND m.B = $B AND m.variant LIKE '$v#%' AND m.status = 'ok'
        AND s.throttled = 0 ORDER BY m.variant, s.idx" >"$T/$v.txt"
    done
    "$AB" stats "$T/$cand.txt" "$T/$base.txt" --json >"$T/s.json" || fail "run $run $cand B=$B: stats failed"
    set -- $(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(repr(d["speedup"]["ratio"]), repr(d["speedup"]["lo"]), repr(d["speedup"]["hi"]), repr(d["p"]),
      d["verdict"].replace(" ", "_"), d["method"].split(":")[0].replace(" ", "_"))' "$T/s.json")
    [ "$6" = by_instance ] || fail "run $run $cand B=$B: stats did not compare by instance ($6)"
    for pair in "speedup $1 $rr" "lo $2 $rlo" "hi $3 $rhi" "p $4 $rp"; do
      set -- $pair
      same "$2" "$3" || fail "run $run $cand B=$B: $1: stats $2, report --json $3"
    done
    sv=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$T/s.json")
    case "$rv" in faster|slower) rw=$rv ;; *) rw=none ;; esac
    case "$sv" in faster|slower) sw=$sv ;; *) sw=none ;; esac
    [ "$sw" = "$rw" ] || fail "run $run $cand B=$B: stats says $sw, report $rw"
    n=$((n + 1))
  done <"$T/cmps.txt"
done
[ "$n" -ge 2 ] || fail "only $n comparisons checked"
echo "ok: $n comparisons by instance: stats with an instance column = report --json"
