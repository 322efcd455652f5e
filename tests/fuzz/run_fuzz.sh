#!/bin/sh
# tests/fuzz/run_fuzz.sh: builds one libFuzzer harness with clang
# (-fsanitize=fuzzer,address,undefined) and runs it for a fixed time on a
# copy of its committed seed corpus (tests/fuzz/corpus/TARGET).
# Usage: run_fuzz.sh TARGET SOURCE_ROOT SECONDS
# Exit: 0 no crash, 1 a crash (the reproducer is printed), 77 skipped (no
# clang with libFuzzer here).
set -u
target=$1; SRC=$2; secs=$3
CLANG=${CLANG:-clang}
command -v "$CLANG" >/dev/null 2>&1 || { echo "skipped: no clang"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$tmp/probe.c"
"$CLANG" -fsanitize=fuzzer "$tmp/probe.c" -o "$tmp/probe" 2>/dev/null || { echo "skipped: $CLANG has no libFuzzer"; exit 77; }
for pc in libconfig jansson sqlite3 gsl; do
  pkg-config --exists $pc || { echo "skipped: pkg-config lacks $pc"; exit 77; }
done
inc="-I$SRC/src/core -I$SRC/src/run -I$SRC/src/cli -I$SRC/src/analysis -I$SRC/db -I$SRC/kernels -I$SRC/stats -I$SRC/include"
case $target in
  experiment) srcs="$SRC/src/run/experiment.c $SRC/src/run/exp_schema.c $SRC/src/run/exp_syntax.c $SRC/src/run/exp_include.c $SRC/src/core/exp_canon.c $SRC/src/run/plugin.c $SRC/src/core/util.c $SRC/src/core/shape.c $SRC/src/core/timing_modes.c"
              libs="$(pkg-config --cflags --libs libconfig jansson) -ldl" ;;
  import)     srcs="$SRC/db/transfer.c $SRC/db/import_check.c $SRC/src/core/util.c $SRC/src/core/exp_canon.c $SRC/db/store.c $SRC/db/schema.c $SRC/db/liveness.c $SRC/db/read.c $SRC/src/core/shape.c"
              libs="$(pkg-config --cflags --libs jansson sqlite3)" ;;
  stats)      # the comparison `stats` makes (src/analysis/pair.c and what it calls), not
              # the run analysis (run_analysis.c and its neighbours read run records)
              srcs="$SRC/src/cli/args.c $SRC/src/core/util.c $(ls "$SRC"/stats/*.c | grep -v bench_stats) $(for f in pair instances between_runs median_ci; do echo "$SRC/src/analysis/$f.c"; done)"
              libs="$(pkg-config --cflags --libs jansson gsl)" ;;
  *) echo "unknown fuzz target $target"; exit 1 ;;
esac
# shellcheck disable=SC2086
"$CLANG" -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=undefined $inc "$SRC/tests/fuzz/fuzz_$target.c" $srcs $libs -lm \
  -o "$tmp/fuzz" 2>"$tmp/cc.txt" || { cat "$tmp/cc.txt"; echo "FAIL: the harness does not build"; exit 1; }
mkdir "$tmp/corpus"
cp "$SRC/tests/fuzz/corpus/$target"/* "$tmp/corpus/" 2>/dev/null
cd "$tmp" || exit 1
LSAN_OPTIONS=suppressions=$SRC/tests/fuzz/lsan.supp \
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  ./fuzz -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -print_final_stats=1 corpus >log.txt 2>&1
rc=$?
grep -E "^(#[0-9]+ *DONE|stat::number_of_executed_units|stat::new_units_added)" log.txt
if [ $rc != 0 ]; then
  tail -n 60 log.txt
  for f in crash-* leak-* timeout-* oom-*; do
    [ -f "$f" ] && { echo "reproducer $f (base64):"; base64 "$f" | head -n 40; }
  done
  echo "FAIL: fuzz_$target found a crash (exit $rc)"
  exit 1
fi
echo "ok: fuzz_$target ran $secs s without a crash"
