#!/bin/sh
# run.sh MAIN_DIR BRANCH_DIR OUT: builds main's code and this branch's (one
# folder each, same options), then, back to back on this GPU: the
# experiment prefill.cfg with main's build (before.db) then this branch's
# (after.db), their reports, and one.sh's single-configuration runs
# (one-before.db, one-after.db). Each report ends with "Where the time went".
M=$1 W=$2 OUT=$3
here=$(cd "$(dirname "$0")" && pwd)
( cd "$M" && meson setup b -Dbuildtype=release -Dgpu_targets=90a >/dev/null && ninja -C b >"$OUT/build-main.log" 2>&1 ) &
( cd "$W" && meson setup b -Dbuildtype=release -Dgpu_targets=90a >/dev/null && ninja -C b >"$OUT/build-branch.log" 2>&1 ) &
wait
[ -x "$M/b/src/attnbench" ] || { tail -30 "$OUT/build-main.log"; exit 1; }
[ -x "$W/b/src/attnbench" ] || { tail -30 "$OUT/build-branch.log"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u
cd "$W"
# the new kernels' tests first (gpu_inputs: device vs host bit for bit;
# the tiled reference against the CPU oracle); memcheck over both at the end
timeout 120 b/tests/gpu/gpu_inputs | tail -4
timeout 120 b/tests/gpu/gpu_check --reference | grep -v " ok$" | tail -6
"$M/b/src/attnbench" run "$here/prefill.cfg" --db "$OUT/before.db" 2>"$OUT/before.log"; echo "before: exit $?"
"$W/b/src/attnbench" run "$here/prefill.cfg" --db "$OUT/after.db" 2>"$OUT/after.log"; echo "after: exit $?"
"$M/b/src/attnbench" report 1 --db "$OUT/before.db" >"$OUT/before.md" 2>&1
"$W/b/src/attnbench" report 1 --db "$OUT/after.db" >"$OUT/after.md" 2>&1
sh "$here/one.sh" "$M/b/src/attnbench" "$OUT/one-before.db"
sh "$here/one.sh" "$W/b/src/attnbench" "$OUT/one-after.db"
for f in one-before one-after; do
  echo "$f:"; sqlite3 "$OUT/$f.db" "SELECT r.id, m.S, printf('total %.2f s, inputs %.3f s, checks %.3f s, timed %.3f s', w.total_s, w.inputs_s, w.check_s, w.timed_s) FROM run_walltime w JOIN runs r ON r.id = w.run_id JOIN measurements m ON m.run_id = r.id"
done
for f in before after; do
  echo "== $f"; sed -n '/Where the time went/,/^## /p' "$OUT/$f.md" | head -30
  sqlite3 "$OUT/$f.db" "SELECT variant, S, status, checked, printf('%.3g', max_abs_err), printf('%.3g', tolerance) FROM measurements ORDER BY S, variant"
done
cs=/usr/local/cuda/bin/compute-sanitizer
timeout 60 $cs --tool memcheck b/tests/gpu/gpu_inputs 2>&1 | tail -2
timeout 90 $cs --tool memcheck b/tests/gpu/gpu_check cuda_mma 17 200 2>&1 | tail -3
