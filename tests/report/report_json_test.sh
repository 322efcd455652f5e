#!/bin/sh
# report_json_test.sh AB CHECK SRC: writes the markdown and the JSON report
# of runs of the committed database (a calibration run: paired comparisons
# over rounds; a ladder run with --chain and protocol-1 PyTorch baselines:
# i.i.d. comparisons) and checks with md_json_check that both carry the
# same numbers.
set -u
AB=$1 CHECK=$2 SRC=$3
db="$SRC/reports/seeds-and-ladders/attnbench.db"
[ -f "$db" ] || { echo "skipped: no committed database"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cp "$db" "$tmp/copy.db"
echo '{"attnbench_export": 1, "runs": []}' >"$tmp/none.json"
"$AB" import "$tmp/none.json" --db "$tmp/copy.db" >/dev/null || { echo "FAIL: migrating the copy"; exit 1; }
for args in "3" "9 --chain" "6"; do
  run=${args%% *}
  # shellcheck disable=SC2086
  "$AB" report $args --db "$tmp/copy.db" --no-plots -o "$tmp/r$run.md" >/dev/null || { echo "FAIL: report $args"; exit 1; }
  # shellcheck disable=SC2086
  "$AB" report $args --db "$tmp/copy.db" --json -o "$tmp/r$run.json" >/dev/null || { echo "FAIL: report $args --json"; exit 1; }
  "$CHECK" "$tmp/r$run.md" "$tmp/r$run.json" || { echo "FAIL: run $run: JSON and markdown differ"; exit 1; }
  # every section of the markdown is in the JSON: the conclusion (the same
  # overall outcome), the run record, fingerprint, settings, calibration,
  # wall time, check coverage, timer floor and clocks
  for key in conclusion run_record fingerprint settings calibration wall_time check_coverage \
             timer_floor clocks aa_calibration_table; do
    grep -q "^ \"$key\": " "$tmp/r$run.json" || { echo "FAIL: run $run: JSON has no $key"; exit 1; }
  done
  md_overall=$(sed -n 's/.*The hypothesis: \*\*\(.*\)\*\*\..*/\1/p' "$tmp/r$run.md")
  [ -n "$md_overall" ] || md_overall=$(grep -q "^Overall: \*\*not judged\*\*" "$tmp/r$run.md" && echo "not judged")
  grep -q "^  \"overall\": \"$md_overall\"" "$tmp/r$run.json" ||
    { echo "FAIL: run $run: the JSON conclusion is not the markdown's ($md_overall)"; exit 1; }
done
echo "ok"
