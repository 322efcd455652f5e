#!/bin/sh
# tests/cli/cli_test.sh: end-to-end tests of the attnbench command line.
# Usage: cli_test.sh CASE ATTNBENCH SOURCE_ROOT
# Each case runs in a fresh temporary directory and exits 0 (pass), 1 (fail)
# or 77 (skipped). Expected values are computed independently of attnbench:
# medians by sort(1) over the samples that sqlite3(1) reads from the database.
set -u
case_name=$1; AB=$2; SRC=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }

# runs attnbench expecting failure; checks the message on stderr
expect_error() { # pattern, args...
  pat=$1; shift
  if "$AB" "$@" >out.txt 2>err.txt; then fail "'attnbench $*' succeeded; expected an error"; fi
  grep -q -- "$pat" err.txt || { cat err.txt >&2; fail "stderr of 'attnbench $*' lacks '$pat'"; }
  [ "$(wc -l <err.txt)" -le 3 ] || { cat err.txt >&2; fail "more than one message for '$*'"; }
  echo "ok: $* -> $(head -n 1 err.txt)"
}

small_cfg() { # name, extra settings
  cat >"$1" <<CFG
name = "tiny";
hypothesis = "cpu_flash and cpu_reference compute the same attention.";
variants = ["cpu_reference", "cpu_flash"];
baseline = "cpu_reference";
sweep = { B = 1; H = 2; S = [16, 33]; D = 8; causal = [false, true]; dtype = "fp32"; };
warmup = 1;
samples = 12;
round_size = 4;
seed = 7;
$2
CFG
}

count() { sqlite3 "$1" "$2"; }

# The interrupt test (cases interrupt and interrupt-loaded).
interrupt_case() {
  # Waits for the event it needs (two finished measurements in the database),
  # however long a loaded machine takes to get there, instead of a fixed
  # number of polls; meson's timeout bounds it. One thread (threads = 1), so
  # the samples do not wait on a busy scheduler for an OpenMP team, and a
  # run long enough (64 configurations) that it is still going when SIGINT
  # arrives.
  cat >slow.cfg <<CFG
name = "slow";
variants = ["cpu_reference", "cpu_flash"];
sweep = { B = 1; H = 1; S = [64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79,
                             80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95,
                             96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111,
                             112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127];
          D = 16; dtype = "fp32"; };
warmup = 0;
samples = 1000;
round_size = 50;
threads = 1;
CFG
  "$AB" run slow.cfg --db int.db >id.txt 2>log.txt &
  pid=$!
  # (sqlite3 only once attnbench has created the file: sqlite3 would create an empty one)
  while [ ! -s int.db ] || [ "$(sqlite3 int.db "SELECT count(*) FROM measurements WHERE status = 'ok'" 2>/dev/null || echo 0)" -lt 2 ]; do
    kill -0 $pid 2>/dev/null || { cat log.txt >&2; fail "the run ended before two measurements were stored"; }
    sleep 0.05
  done
  kill -INT $pid
  wait $pid; rc=$?
  [ $rc = 130 ] || { cat log.txt >&2; fail "exit status $rc after SIGINT, expected 130 (did the run finish first?)"; }
  [ "$(count int.db "SELECT status FROM runs")" = interrupted ] || fail "run not marked interrupted"
  kept=$(count int.db "SELECT count(*) FROM measurements WHERE status = 'ok'")
  [ "$kept" -ge 2 ] || fail "finished measurements lost ($kept kept)"
  [ "$(count int.db "SELECT count(*) FROM samples")" = $((kept * 1000)) ] || fail "samples of finished measurements incomplete"
  echo "ok: interrupted, $kept measurements kept"
}

case $case_name in
experiment-errors)
  small_cfg good.cfg ""
  "$AB" run good.cfg --db keep.db >/dev/null 2>&1 || fail "good experiment did not run"
  before=$(count keep.db "SELECT count(*) FROM samples")
  [ "$before" -gt 0 ] || fail "no samples stored"
  expect_error "missing.cfg: cannot read experiment file" run missing.cfg --db keep.db
  printf 'name = "x";\nvariants = ["cpu_flash"];\nsweep = { S = 1;\n' >syntax.cfg
  expect_error "syntax.cfg:4: syntax error" run syntax.cfg --db keep.db
  printf 'name = "x";\nvariants = ["cpu_flash"];\nsweep = {\n  S = [128, -4];\n};\n' >neg.cfg
  expect_error "neg.cfg:4: S must be a list of positive integers" run neg.cfg --db keep.db
  printf 'name = "x";\nvariants = ["cpu_flash", "warp_magic"];\nsweep = { S = 8; };\n' >unknown.cfg
  expect_error "unknown.cfg:2: unknown variant 'warp_magic'" run unknown.cfg --db keep.db
  printf 'name = "x";\nvariants = ["cpu_flash"];\nsweep = { S = 8; dtype = "fp16"; };\n' >pair.cfg
  expect_error "cpu_flash: dtype fp16 not supported" run pair.cfg --db keep.db
  printf 'name = "x";\nvariants = ["cpu_flash"];\nsweep = { S = 8; dtype = "fp64"; };\n' >dtype.cfg
  expect_error "dtype.cfg:3: dtype must be a dtype" run dtype.cfg --db keep.db
  printf 'variants = ["cpu_flash"];\nsweep = { S = 8; };\n' >noname.cfg
  expect_error "missing required field 'name'" run noname.cfg --db keep.db
  printf 'name = "x";\nvariants = ["cpu_flash"];\nbaseline = "cpu_reference";\nsweep = { S = 8; };\n' >base.cfg
  expect_error "base.cfg:3: baseline 'cpu_reference' is not one of" run base.cfg --db keep.db
  printf 'name = "x";\nvariants = ["cpu_flash"];\nsweep = { S = 8; };\nsamples = 0;\n' >samples.cfg
  expect_error "samples.cfg:4: samples must be an integer" run samples.cfg --db keep.db
  printf 'name = "x";\nvariants = ( "cpu_flash",\n  { name = "e"; command = "true"; protocol = 2; layout = "nhwc"; } );\nsweep = { S = 8; };\n' >layout.cfg
  expect_error 'layout.cfg:3: layout must be "bhsd"' run layout.cfg --db keep.db
  printf 'name = "x";\nvariants = ( "cpu_flash",\n  { name = "e"; command = "true"; ipc = false; } );\nsweep = { S = 8; };\n' >ipc1.cfg
  expect_error "ipc1.cfg:3: ipc applies to protocol-2 variants" run ipc1.cfg --db keep.db
  # the GPU-time budget (docs/measurement.md, Sampling in GPU time): each field named
  printf 'name = "x";\nvariants = ["cpu_flash"];\nsweep = { S = 8; };\nmin_time = -0.5;\n' >mint.cfg
  expect_error "mint.cfg:4: min_time must be a number in \\[0, 3600\\]" run mint.cfg --db keep.db
  printf 'name = "x";\nvariants = ["cpu_flash"];\nsweep = { S = 8; };\nmin_time = 0.5;\nmax_time = 0.1;\n' >maxt.cfg
  expect_error "maxt.cfg:5: max_time must be 0 (no cap) or >= min_time" run maxt.cfg --db keep.db
  printf 'name = "x";\nvariants = ["cpu_flash"];\nsweep = { S = 8; };\nmin_time = "long";\n' >mins.cfg
  expect_error "mins.cfg:4: min_time must be a number" run mins.cfg --db keep.db
  printf 'name = "x";\nvariants = ["cpu_flash"];\nsweep = { S = 8; };\nsamples = 30;\nmax_samples = 20;\n' >maxs.cfg
  expect_error "maxs.cfg:5: max_samples must be >= samples" run maxs.cfg --db keep.db
  printf 'name = "x";\nvariants = ["cpu_flash"];\nsweep = { S = 8; };\nmax_samples = 20;\nstopping = { target_rel_ci = 0.1; };\n' >maxs2.cfg
  expect_error "maxs2.cfg:4: max_samples: with .stopping. the cap is stopping's max_samples" run maxs2.cfg --db keep.db
  expect_error "--min-time: 'soon' is not a number of seconds" run good.cfg --db keep.db --min-time soon
  expect_error "--max-time: 0.01 s is below min_time" run good.cfg --db keep.db --min-time 0.5 --max-time 0.01
  expect_error "--min-time: '5000' is not a number of seconds in \\[0, 3600\\]" run good.cfg --db keep.db --min-time 5000
  after=$(count keep.db "SELECT count(*) FROM samples")
  [ "$before" = "$after" ] || fail "stored samples changed: $before -> $after"
  runs=$(count keep.db "SELECT count(*) FROM runs")
  [ "$runs" = 1 ] || fail "refused experiments created runs ($runs)"
  ;;
bad-database)
  small_cfg good.cfg ""
  echo "this is not a database, just text that must survive" >notdb.db
  cp notdb.db orig.txt
  expect_error "notdb.db: not an attnbench database" run good.cfg --db notdb.db
  cmp -s notdb.db orig.txt || fail "the non-database file was modified"
  mkdir ro && chmod 555 ro
  if [ "$(id -u)" != 0 ]; then
    expect_error "ro/x.db: cannot create the database: the directory 'ro' is not writable" run good.cfg --db ro/x.db
  fi
  expect_error "no such database" runs --db absent.db
  "$AB" run good.cfg --db ok.db >/dev/null 2>&1 || fail "run into ok.db failed"
  expect_error "no run 99 in the database" report 99 --db ok.db -o r.md
  [ ! -e r.md ] || fail "a failed report left a file behind"
  ;;
cpu-end-to-end)
  small_cfg e2e.cfg ""
  run=$("$AB" run e2e.cfg --db e2e.db 2>log.txt) || { cat log.txt >&2; fail "run failed"; }
  [ "$run" = 1 ] || fail "run id '$run', expected 1"
  [ "$(count e2e.db "SELECT status FROM runs WHERE id = 1")" = complete ] || fail "run not complete"
  [ "$(count e2e.db "SELECT count(*) FROM measurements WHERE status = 'ok'")" = 8 ] || fail "expected 8 ok measurements"
  [ "$(count e2e.db "SELECT count(DISTINCT n) FROM (SELECT count(*) AS n FROM samples GROUP BY measurement_id)")" = 1 ] || fail "sample counts differ"
  [ "$(count e2e.db "SELECT count(*) FROM samples")" = 96 ] || fail "expected 8 x 12 samples"
  "$AB" report 1 --db e2e.db -o report.md >/dev/null || fail "report failed"
  # every median in the report equals the median of the stored samples
  # (computed here with sqlite3 + sort + awk, not by attnbench)
  for id in $(count e2e.db "SELECT id FROM measurements ORDER BY id"); do
    med=$(count e2e.db "SELECT ms FROM samples WHERE measurement_id = $id" | sort -g |
          awk '{ v[NR] = $1 } END { if (NR % 2) m = v[(NR + 1) / 2]; else m = (v[NR / 2] + v[NR / 2 + 1]) / 2;
                 d = 4; for (a = m; a < 0.1 && d < 9; a *= 10) d++;   # 4 significant digits below 0.1 ms
                 printf sprintf("%%.%df", d), m }')
    var=$(count e2e.db "SELECT variant FROM measurements WHERE id = $id")
    cfg=$(count e2e.db "SELECT 'B=' || B || ' H=' || H || ' S=' || S || ' D=' || D || ' ' || CASE causal WHEN 1 THEN 'causal' ELSE 'non-causal' END || ' ' || dtype FROM measurements WHERE id = $id")
    awk -v cfg="### $cfg" -v var="| $var |" -v med="| $med |" '
      $0 == cfg { inside = 1; next } /^### / { inside = 0 }
      inside && index($0, var) == 1 && index($0, med) { found = 1 }
      END { exit !found }' report.md || fail "report lacks median $med for $var at $cfg"
  done
  grep -q "## Correctness" report.md || fail "no correctness section"
  grep -q "attnbench run e2e.cfg" report.md || fail "no reproduce command"
  # the same database gives the same report, byte for byte
  # (under the same name, which the names of its plots follow; the plots too)
  mkdir again
  "$AB" report 1 --db e2e.db -o again/report.md >/dev/null && cmp report.md again/report.md || fail "report not reproducible"
  for img in report-*.svg; do
    [ -f "$img" ] || continue
    cmp -s "$img" "again/$img" || fail "plot $img not reproducible"
  done
  "$AB" runs --db e2e.db | grep -q "tiny" || fail "runs does not list the run"
  ;;
interrupt)
  interrupt_case
  ;;
interrupt-loaded)
  # the same on a loaded machine (it once failed under load with "0
  # kept"): two busy loops compete for the cores while it runs
  sh -c 'while :; do :; done' & hog1=$!
  sh -c 'while :; do :; done' & hog2=$!
  trap 'kill $hog1 $hog2 2>/dev/null; rm -rf "$tmp"' EXIT
  interrupt_case
  ;;
committed-list)
  # a user's report beside the committed ones (what .ci/quickstart used to
  # write into reports/) broke the regeneration test; only files git tracks
  # are committed evidence: tools/regenerate-reports asks that every
  # tracked generated report be in reports/regenerate.tsv, and names no
  # untracked one. Without .git (the GPU machine's copy) it takes them all.
  command -v git >/dev/null 2>&1 || { echo "skipped: no git"; exit 77; }
  command -v gnuplot >/dev/null 2>&1 || { echo "skipped: no gnuplot (tools/regenerate-reports needs it)"; exit 77; }
  mkdir repo repo/reports repo/tools && cd repo || exit 1
  cp "$SRC/tools/regenerate-reports" tools/
  git init -q . && git config user.email t@example.com && git config user.name t
  printf '# report\tdatabase\tcommand\n' >reports/regenerate.tsv
  hdr='<!-- written by `attnbench report 1`; every number below is read from the database `a.db` and recomputed with fixed seeds -->'
  printf '# study\n\n%s\n' "$hdr" >reports/study-run1.md && echo notes >reports/notes.md
  git add reports tools && git commit -qm x
  printf '# mine\n\n%s\n' "$hdr" >reports/quickstart-cpu-run2.md
  cd .. || exit 1
  repo/tools/regenerate-reports --check "$AB" "$PWD/repo" >out.txt 2>&1 && fail "a committed report missing from the list passed"
  grep -q "reports/study-run1.md: a generated report not in reports/regenerate.tsv" out.txt ||
    { cat out.txt >&2; fail "the committed report missing from the list is not named"; }
  ! grep -q quickstart-cpu-run2 out.txt || fail "a user's untracked report is taken for evidence"
  rm -rf repo/.git
  repo/tools/regenerate-reports --check "$AB" "$PWD/repo" >out.txt 2>&1
  [ "$(grep -c "a generated report not in" out.txt)" = 2 ] || { cat out.txt >&2; fail "without .git every report is listed"; }
  # .ci/quickstart writes to results/, which git ignores
  git -C "$SRC" rev-parse >/dev/null 2>&1 || { echo "skipped: source is not a git checkout"; exit 77; }
  git -c safe.directory='*' -C "$SRC" check-ignore -q results/quickstart-cpu-run1.md ||
    fail "results/ is not ignored by git"
  grep -q 'results/' "$SRC/.ci/quickstart" || fail ".ci/quickstart does not write to results/"
  echo "ok: only tracked reports are committed evidence; results/ ignored"
  ;;
readme-by-hand)
  # the README's commands as written. Runs the README's CPU
  # "by hand" block (between its by-hand-cpu markers) twice, in a copy of
  # the experiments, with ./attnbench standing for the built binary.
  awk '/<!-- by-hand-cpu/ { on = 1; next } /<!-- end by-hand-cpu/ { on = 0 } on && !/^```/' \
    "$SRC/README.md" >block.sh
  [ -s block.sh ] || fail "README has no by-hand-cpu block"
  ! grep -q 'cuda\|seed-000' block.sh || fail "the CPU block runs a CUDA experiment"
  printf '#!/bin/sh\nexec "%s" "$@"\n' "$AB" >attnbench && chmod +x attnbench
  cp -r "$SRC/experiments" .
  for pass in 1 2; do
    env -u ATTNBENCH_DB sh -e block.sh >out$pass.txt 2>err$pass.txt ||
      { cat err$pass.txt >&2; fail "pass $pass of the README block failed"; }
    [ -f "results/quickstart-cpu-run$pass.md" ] || fail "pass $pass: no results/quickstart-cpu-run$pass.md"
    grep -qx "results/quickstart-cpu-run$pass.md" out$pass.txt || fail "pass $pass: report path not printed"
  done
  [ ! -e reports ] || fail "the by-hand block wrote into reports/"
  grep -q '^## Conclusion' results/quickstart-cpu-run2.md || fail "report without conclusion"
  # every attnbench command in the shell blocks of the README and of the
  # method documents beside it (docs/) names a runnable file (a block that
  # first puts the checkout on PATH may call plain attnbench)
  ls "$SRC"/docs/*.md >/dev/null 2>&1 || fail "no method documents in $SRC/docs"
  for md in "$SRC/README.md" "$SRC"/docs/*.md; do
    awk '/^```sh/ { on = 1; n = 0; onpath = 0; next }
         /^```/ && on { if (!onpath) for (i = 1; i <= n; i++) print b[i]; on = 0; next }
         on { b[++n] = $0; if ($0 ~ /^export PATH=/) onpath = 1 }' "$md" |
      grep -E '(^|[;(|&] *|\$\()attnbench ' | sed "s|^|$md: |" >>bare.txt || true
  done
  [ ! -s bare.txt ] || { cat bare.txt >&2; fail "shell blocks call a bare 'attnbench' (not on PATH)"; }
  # the README's Python example is the code of
  # examples/python/notebook_compare.py, which python-frontdoor runs
  awk '/^```python/ { n++; on = (n == 1); next } /^```/ { on = 0 } on' "$SRC/README.md" >readme-py.txt
  grep -v '^#' "$SRC/examples/python/notebook_compare.py" >example-py.txt
  [ -s readme-py.txt ] || fail "README has no Python example"
  cmp -s readme-py.txt example-py.txt ||
    { diff readme-py.txt example-py.txt >&2; fail "README's Python example differs from examples/python/notebook_compare.py"; }
  echo "ok: the README's by-hand block runs as written, twice; its Python example is the tested one"
  ;;
ci-deps-git)
  # .ci/deps did not install git, so fingerprints said "commit
  # unknown". Here every other tool is present (stubs) and git is not: the
  # apt-get it runs (a stub that records its arguments) must be asked for git.
  mkdir bin
  for t in meson ninja cc sqlite3 gnuplot clang pgrep; do printf '#!/bin/sh\nexit 0\n' >bin/$t; done
  printf '#!/bin/sh\nexit 0\n' >bin/pkg-config
  printf '#!/bin/sh\necho "$*" >>%s/apt.txt\n' "$PWD" >bin/apt-get
  printf '#!/bin/sh\nexec "$@"\n' >bin/sudo
  chmod +x bin/*
  ln -s "$(command -v id)" bin/id
  PATH="$PWD/bin" /bin/sh "$SRC/.ci/deps" 2>deps.txt || { cat deps.txt >&2; fail ".ci/deps failed"; }
  grep -q 'install.* git' apt.txt || { cat apt.txt >&2; fail ".ci/deps did not install git"; }
  # and with git present it asks for nothing
  rm -f apt.txt && printf '#!/bin/sh\nexit 0\n' >bin/git && chmod +x bin/git
  PATH="$PWD/bin" /bin/sh "$SRC/.ci/deps" 2>deps.txt || fail ".ci/deps failed with everything present"
  [ ! -e apt.txt ] || fail "apt-get ran with everything present"
  echo "ok: .ci/deps installs git when it is missing"
  ;;
ci-enable-universe)
  # A debootstrap'ed Ubuntu 24.04 root enables only 'main', where GSL,
  # libconfig, gnuplot, meson, ninja and clang are missing, so .ci/deps
  # failed there. .ci/enable-universe must append 'universe' to Ubuntu's
  # entries in both formats of sources.list(5) and leave other repositories
  # alone. Expected files written by hand from sources.list(5).
  printf '%s\n' '# a one-line file' \
    'deb http://archive.ubuntu.com/ubuntu noble main' \
    'deb-src http://archive.ubuntu.com/ubuntu noble main restricted  ' \
    'deb [signed-by=/k.gpg] https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2404/x86_64/ /' \
    'deb http://ppa.launchpad.net/x/y/ubuntu noble mainline' >one.list
  printf '%s\n' '# a one-line file' \
    'deb http://archive.ubuntu.com/ubuntu noble main universe' \
    'deb-src http://archive.ubuntu.com/ubuntu noble main restricted universe' \
    'deb [signed-by=/k.gpg] https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2404/x86_64/ /' \
    'deb http://ppa.launchpad.net/x/y/ubuntu noble mainline' >one.want
  printf '%s\n' 'Types: deb' 'URIs: http://archive.ubuntu.com/ubuntu/' \
    'Suites: noble noble-updates' 'Components: main restricted' \
    'Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg' >u.sources
  sed 's/^Components: main restricted$/Components: main restricted universe/' u.sources >u.want
  grep -q '^Components: main restricted universe$' u.want || fail "fixture: u.want has no universe"
  "$SRC/.ci/enable-universe" u.sources one.list 2>eu.txt || { cat eu.txt >&2; fail ".ci/enable-universe failed"; }
  cmp one.list one.want || { diff one.want one.list >&2; fail "one-line entries not extended as sources.list(5) says"; }
  cmp u.sources u.want || { diff u.want u.sources >&2; fail "deb822 Components not extended"; }
  grep -q 'one.list' eu.txt && grep -q 'u.sources' eu.txt || { cat eu.txt >&2; fail "it did not say which files it changed"; }
  # again: already on, nothing changes, nothing said
  "$SRC/.ci/enable-universe" u.sources one.list 2>eu.txt || fail "a second run failed"
  cmp one.list one.want && cmp u.sources u.want || fail "a second run changed the files"
  [ ! -s eu.txt ] || { cat eu.txt >&2; fail "a second run said something"; }
  # universe in one file is enough: the other is left as it was
  printf 'deb http://archive.ubuntu.com/ubuntu noble main\n' >main.list
  cp main.list main.before
  "$SRC/.ci/enable-universe" u.sources main.list || fail "failed with universe already on"
  cmp main.list main.before || fail "changed a file although universe was on elsewhere"
  # nothing to extend (only a third-party repository): exit 1, file untouched
  printf 'deb https://example.org/repo stable contrib\n' >other.list
  cp other.list other.before
  if "$SRC/.ci/enable-universe" other.list 2>/dev/null; then fail "exit 0 with no Ubuntu entry to extend"; fi
  cmp other.list other.before || fail "a file with no Ubuntu entry was changed"
  echo "ok: .ci/enable-universe turns on universe in both source formats, and only there"
  ;;
skip-reasons)
  # GPU skips showed only "exit status 77"; .ci/run prints each
  # skip's reason from meson's log (this one in meson 1.x's format, with
  # gpu_check's message)
  cat >testlog.txt <<'LOG'
==================================== 1/2 =====================================
test:         attnbench:gpu / gpu-cuda_naive
result:       exit status 77
----------------------------------- stdout -----------------------------------
skipped: no CUDA device (no CUDA-capable device is detected)
==================================== 2/2 =====================================
test:         attnbench:cli / cli-no-gpu
result:       exit status 0
----------------------------------- stdout -----------------------------------
ok: run gpu.cfg --db g.db -> attnbench: needs a CUDA device
LOG
  "$SRC/.ci/skip-reasons" testlog.txt >reasons.txt || fail ".ci/skip-reasons failed"
  [ "$(cat reasons.txt)" = "SKIP attnbench:gpu / gpu-cuda_naive: skipped: no CUDA device (no CUDA-capable device is detected)" ] ||
    { cat reasons.txt >&2; fail "unexpected skip reasons"; }
  grep -q 'skip-reasons' "$SRC/.ci/run" || fail ".ci/run does not print skip reasons"
  echo "ok: skip reasons printed"
  ;;
env-run-hash)
  # `attnbench env` and a run on the same machine gave different
  # hashes (the run added its timing mode). The machine's hash is the same;
  # the run's settings are stored apart.
  small_cfg h.cfg ""
  "$AB" run h.cfg --db h.db >/dev/null 2>&1 || fail "run failed"
  env_hash=$("$AB" env | sed -n 's/^ *"hash": "\([0-9a-f]*\)".*/\1/p')
  run_hash=$(count h.db "SELECT v.hash FROM runs r JOIN environments v ON v.id = r.environment_id")
  [ -n "$env_hash" ] && [ "$env_hash" = "$run_hash" ] || fail "env hash '$env_hash', run's '$run_hash'"
  [ "$(count h.db "SELECT json_extract(fingerprint, '\$.settings.timing_mode') IS NULL FROM environments")" = 1 ] ||
    fail "the timing mode is in the machine's fingerprint"
  [ "$(count h.db "SELECT json_extract(run_settings, '\$.timing_mode') || ' ' || json_extract(run_settings, '\$.threads') FROM runs")" = "host 1" ] ||
    fail "run settings: $(count h.db "SELECT run_settings FROM runs")"
  [ "$(count h.db "SELECT json_array_length(run_settings, '\$.load_avg') || json_array_length(run_settings, '\$.load_avg_end') || (json_extract(run_settings, '\$.affinity_cpus') > 0) FROM runs")" = 331 ] ||
    fail "load average or affinity missing: $(count h.db "SELECT run_settings FROM runs")"
  "$AB" show 1 --db h.db | grep -q '"threads": 1' || fail "show does not print the run settings"
  echo "ok: env and run share hash $env_hash; settings stored with the run"
  ;;
tuning)
  # AB_TUNE changes cuda_mma_pipeline's tiles; it was recorded
  # nowhere, so runs with different tiles looked like one environment. Set,
  # it is in the fingerprint (another environment hash), the run settings
  # and the report; unset, the fingerprint has no such key (old hashes hold).
  small_cfg t.cfg ""
  "$AB" run t.cfg --db t.db >/dev/null 2>&1 || fail "untuned run failed"
  AB_TUNE=3 "$AB" run t.cfg --db t.db >/dev/null 2>&1 || fail "tuned run failed"
  [ "$(count t.db "SELECT count(DISTINCT environment_id) FROM runs")" = 2 ] ||
    fail "AB_TUNE=3 and unset share one environment"
  [ "$(count t.db "SELECT group_concat(coalesce(json_extract(v.fingerprint, '\$.settings.AB_TUNE'), '-'), ' ') FROM runs r JOIN environments v ON v.id = r.environment_id ORDER BY r.id")" = "- 3" ] ||
    fail "fingerprints: $(count t.db "SELECT fingerprint FROM environments")"
  [ "$(count t.db "SELECT json_extract(run_settings, '\$.environment.AB_TUNE') FROM runs WHERE id = 2")" = 3 ] ||
    fail "run settings: $(count t.db "SELECT run_settings FROM runs WHERE id = 2")"
  env_plain=$("$AB" env | sed -n 's/^ *"hash": "\([0-9a-f]*\)".*/\1/p')
  env_tuned=$(AB_TUNE=3 "$AB" env | sed -n 's/^ *"hash": "\([0-9a-f]*\)".*/\1/p')
  [ -n "$env_plain" ] && [ "$env_plain" != "$env_tuned" ] || fail "attnbench env: '$env_plain' '$env_tuned'"
  "$AB" report 2 --db t.db -o t2.md >/dev/null 2>&1 || fail "report 2 failed"
  grep -q '^| tuning | AB_TUNE=3: ' t2.md || fail "report 2 has no tuning row"
  "$AB" report 1 --db t.db -o t1.md >/dev/null 2>&1 || fail "report 1 failed"
  ! grep -q '^| tuning |' t1.md || fail "the untuned run's report has a tuning row"
  # the launch hold turned off (ATTNBENCH_HOLD=0) is a method change: it is
  # recorded like AB_TUNE and named in the report
  ATTNBENCH_HOLD=0 "$AB" run t.cfg --db t.db >/dev/null 2>&1 || fail "run without the hold failed"
  [ "$(count t.db "SELECT json_extract(run_settings, '\$.environment.ATTNBENCH_HOLD') FROM runs WHERE id = 3")" = 0 ] ||
    fail "run settings: $(count t.db "SELECT run_settings FROM runs WHERE id = 3")"
  [ "$(count t.db "SELECT count(DISTINCT environment_id) FROM runs")" = 3 ] ||
    fail "ATTNBENCH_HOLD=0 shares an environment with a held run"
  "$AB" report 3 --db t.db -o t3.md >/dev/null 2>&1 || fail "report 3 failed"
  grep -q '^| launch hold | ATTNBENCH_HOLD=0: off' t3.md || fail "report 3 has no launch hold row"
  ! grep -q '^| launch hold |' t1.md || fail "a held run's report has a launch hold row"
  echo "ok: AB_TUNE=3 and ATTNBENCH_HOLD=0 recorded in the fingerprint, the run settings and the report"
  ;;
rounds-warning)
  # too few rounds for any verdict of the family: warned before sampling.
  # Expected counts by hand: 2 variants x 4 configurations = a family of 4;
  # the exact signed-rank test of n rounds gives p >= 2^(1-n), Holm times 4,
  # so 4 * 2^(1-n) < 0.05 needs n >= 8 (4 * 2^-7 = 0.031, 4 * 2^-6 = 0.0625);
  # at alpha 0.01, n >= 10 (4 * 2^-9 = 0.0078, 4 * 2^-8 = 0.0156).
  small_cfg few.cfg ""
  "$AB" run few.cfg --db r.db >/dev/null 2>log.txt || { cat log.txt >&2; fail "run failed"; }
  grep -q "warning: 3 rounds per measurement (samples 12 / round_size 4) cannot reach a verdict in a family of 4 comparisons at alpha 0.05.*use at least 8 rounds (samples >= 32)" log.txt ||
    { cat log.txt >&2; fail "no warning naming 8 rounds"; }
  sed 's/^samples = 12;/samples = 32;/' few.cfg >enough.cfg
  "$AB" run enough.cfg --db r.db >/dev/null 2>log2.txt || { cat log2.txt >&2; fail "run failed"; }
  ! grep -q "rounds per measurement" log2.txt || { cat log2.txt >&2; fail "warned at 8 rounds"; }
  sed 's/^samples = 12;/samples = 32;\nalpha = 0.01;/' few.cfg >strict.cfg
  "$AB" run strict.cfg --db r.db >/dev/null 2>log3.txt || { cat log3.txt >&2; fail "run failed"; }
  grep -q "use at least 10 rounds (samples >= 40)" log3.txt || { cat log3.txt >&2; fail "alpha 0.01: no warning naming 10 rounds"; }
  # with instances the comparison is Welch's t on the instance means, whose
  # p has no floor: the same 3 rounds are not warned about
  small_cfg fewinst.cfg "instances = 2;"
  "$AB" run fewinst.cfg --db r.db >/dev/null 2>log4.txt || { cat log4.txt >&2; fail "run failed"; }
  ! grep -q "rounds per measurement" log4.txt || { cat log4.txt >&2; fail "warned with instances"; }
  # the README's first command runs experiments/quickstart-cpu.cfg: its report
  # must be able to reach a verdict (a family of 2 variants x 4
  # configurations = 4, so >= 8 rounds, as counted above), never the warning
  cp "$SRC/experiments/quickstart-cpu.cfg" qs.cfg
  "$AB" run qs.cfg --db q.db >/dev/null 2>log5.txt || { cat log5.txt >&2; fail "quickstart run failed"; }
  ! grep -q "rounds per measurement" log5.txt || { cat log5.txt >&2; fail "the quickstart experiment cannot reach a verdict"; }
  echo "ok: rounds too few for the family warned (8 at alpha 0.05, 10 at 0.01), not with instances; the quickstart can reach a verdict"
  ;;
instances)
  # instances = 3: each variant runs as 3 instances (V#1..V#3), interleaved
  # in the same rounds, and the report compares the variants over their
  # instances (Welch's t on per-instance means); one instance: the report
  # says the instance variance is not measured. Plugins cannot be copied.
  small_cfg inst.cfg "instances = 3;"
  "$AB" run inst.cfg --db i.db >/dev/null 2>log.txt || { cat log.txt >&2; fail "run failed"; }
  [ "$(count i.db "SELECT group_concat(DISTINCT variant) FROM (SELECT variant FROM measurements ORDER BY variant)")" = "cpu_flash#1,cpu_flash#2,cpu_flash#3,cpu_reference#1,cpu_reference#2,cpu_reference#3" ] ||
    fail "instances stored as $(count i.db "SELECT group_concat(DISTINCT variant) FROM measurements")"
  # every instance sampled in every round
  [ "$(count i.db "SELECT count(DISTINCT m.variant) FROM samples s JOIN measurements m ON m.id = s.measurement_id WHERE s.round = 1 AND m.S = 16 AND m.causal = 0")" = 6 ] ||
    fail "not every instance in round 1"
  "$AB" report 1 --db i.db --json -o r.json >/dev/null || fail "report --json failed"
  [ "$(grep -c '"method": "by instance' r.json)" = 4 ] || fail "not 4 comparisons by instance"
  grep -q '"variant": "cpu_flash",' r.json || fail "the comparison does not name the variant"
  [ "$(tr -d ' \n' <r.json | grep -o '"instances":\[3,3\]' | wc -l)" = 4 ] || fail "instances not [3, 3] in 4 comparisons"
  "$AB" report 1 --db i.db --no-plots -o r.md >/dev/null || fail "report failed"
  grep -q "^Instances: each variant ran as 3 instances" r.md || fail "markdown: no instance method"
  grep -q "^cpu_flash against cpu_reference by instance (3 and 3 instances" r.md || fail "markdown: no variance components"
  small_cfg one.cfg ""
  "$AB" run one.cfg --db i.db >/dev/null 2>&1 || fail "one-instance run failed"
  "$AB" report 2 --db i.db --no-plots -o o.md >/dev/null || fail "report 2 failed"
  grep -q "^Instance variance: not measured" o.md || fail "one instance: variance not said to be unmeasured"
  "$AB" report 2 --db i.db --json -o o.json >/dev/null || fail "report 2 --json failed"
  grep -q '"instance_variance": "not measured (one instance per variant)"' o.json || fail "JSON: not said unmeasured"
  echo "ok: 3 instances compared by instance; one instance: variance not measured"
  ;;
instances-across-runs)
  # A variant run as instances (V#1..V#3) is the variant V wherever a user
  # names it: compare lines a run with instances up with a run without
  # them and judges them by instance (marked i); history gives one point
  # per run; show lists V#k under V with a row for V; runs --variant V
  # finds the run; the report's conclusion names V. The speedup and its
  # interval of one pair are recomputed here from the stored samples
  # (sqlite3, awk): each instance's level the mean over its rounds of the
  # log median of the round's samples after the first; the 3-instance run's
  # levels against the single instance's, t = (l_1 - mean) / (s sqrt(1 +
  # 1/3)) on 2 df, t_{2,0.975} = 4.302652729911275 (Student's table).
  small_cfg inst.cfg "instances = 3;"
  "$AB" run inst.cfg --db x.db >/dev/null 2>&1 || fail "instances run failed"
  small_cfg one.cfg ""
  "$AB" run one.cfg --db x.db >/dev/null 2>&1 || fail "one-instance run failed"
  "$AB" compare 2 1 --within-run --db x.db >c.txt 2>&1 || { cat c.txt >&2; fail "compare failed"; }
  grep -q '^8 (variant, configuration) pairs compared\.' c.txt || { cat c.txt >&2; fail "compare: not 8 pairs compared (instances not matched to the variant)"; }
  ! grep -q 'not measured in B' c.txt || { cat c.txt >&2; fail "compare: a variant left out"; }
  [ "$(grep -c '(1|3) .*\] i ' c.txt)" = 8 ] || { cat c.txt >&2; fail "compare: not 8 pairs by instance (1|3)"; }
  grep -q '^instances: 8 pairs had several instances' c.txt || fail "compare: the instance method not said"
  settled_levels() { # RUN VARIANT-LIKE: one level per instance
    sqlite3 -separator ' ' x.db "SELECT m.variant, s.round, s.ms FROM samples s JOIN measurements m
      ON m.id = s.measurement_id WHERE m.run_id = $1 AND m.variant LIKE '$2' AND m.S = 16
      AND m.causal = 0 ORDER BY m.variant, s.round, s.idx" |
    awk '{ k = $1 SUBSEP $2; if (!(k in seen)) { seen[k] = 1; order[++no] = k; inst[k] = $1; n[k] = 0; next }
           v[k, ++n[k]] = $3 }
         END { for (i = 1; i <= no; i++) { k = order[i]; m = n[k]
                 for (j = 1; j <= m; j++) w[j] = v[k, j]
                 for (j = 2; j <= m; j++) { x = w[j]; for (q = j - 1; q >= 1 && w[q] > x; q--) w[q + 1] = w[q]; w[q + 1] = x }
                 med = (m % 2) ? w[(m + 1) / 2] : (w[m / 2] + w[m / 2 + 1]) / 2
                 sum[inst[k]] += log(med); cnt[inst[k]]++ }
               for (x in sum) printf "%.17g\n", sum[x] / cnt[x] }'
  }
  settled_levels 1 'cpu_flash#%' >l3.txt
  settled_levels 2 'cpu_flash' >l1.txt
  [ "$(wc -l <l3.txt)" = 3 ] && [ "$(wc -l <l1.txt)" = 1 ] || fail "levels: $(wc -l <l3.txt) and $(wc -l <l1.txt)"
  want=$(cat l3.txt l1.txt | awk 'NR <= 3 { l[NR] = $1; s += $1 } NR == 4 { one = $1 }
    END { m = s / 3; for (i = 1; i <= 3; i++) ss += (l[i] - m) ^ 2; sd = sqrt(ss / 2)
          se = sd * sqrt(1 + 1 / 3); d = one - m; q = 4.302652729911275
          printf "%.3fx [%.3f, %.3f]", exp(d), exp(d - q * se), exp(d + q * se) }')
  row=$(grep '^B=1 H=2 S=16 D=8 non-causal fp32 *cpu_flash ' c.txt)
  case "$row" in *"$want i "*) ;; *) fail "compare: cpu_flash row lacks '$want': $row" ;; esac
  "$AB" history cpu_flash --config 1,2,16,8,noncausal,fp32 --db x.db >h.txt 2>&1 || { cat h.txt >&2; fail "history failed"; }
  grep -q ': 2 runs,' h.txt || { cat h.txt >&2; fail "history: the run with instances left out"; }
  grep -q ' 36 x3 ' h.txt || { cat h.txt >&2; fail "history: the instances not one point (36 samples, 3 instances)"; }
  "$AB" show 1 --db x.db >s.txt 2>&1 || fail "show failed"
  grep -q '^  cpu_flash (3 inst.) *ok *36 ' s.txt || { cat s.txt >&2; fail "show: no row for cpu_flash over its instances"; }
  [ "$("$AB" runs --variant cpu_flash --db x.db | tail -n +2 | wc -l)" = 2 ] || fail "runs --variant: the run with instances left out"
  # the report's conclusion names the part by its variants, not instance #1
  "$AB" report 1 --db x.db --no-plots -o r1.md >/dev/null || fail "report failed"
  grep -q '^| cpu_flash vs cpu_reference | ' r1.md || { grep ' vs ' r1.md >&2; fail "conclusion: the part is not named cpu_flash vs cpu_reference"; }
  echo "ok: instances matched as their variant by compare (by instance, $want), history, show, runs"
  ;;
threads)
  # OMP_NUM_THREADS changed the numbers 2-15x, yet compare said
  # "identical environments". threads is a run setting, recorded and diffed.
  small_cfg t1.cfg "threads = 1;"
  small_cfg t2.cfg "threads = 2;"
  OMP_NUM_THREADS=4 "$AB" run t1.cfg --db t.db >/dev/null 2>&1 || fail "threads = 1 run failed"
  "$AB" run t2.cfg --db t.db >/dev/null 2>&1 || fail "threads = 2 run failed"
  if [ "$(count t.db "SELECT json_extract(run_settings, '\$.openmp') FROM runs WHERE id = 1")" = 1 ]; then
    [ "$(count t.db "SELECT group_concat(json_extract(run_settings, '\$.threads'), ' ') FROM runs")" = "1 2" ] ||
      fail "threads recorded as $(count t.db "SELECT group_concat(json_extract(run_settings, '\$.threads'), ' ') FROM runs")"
    [ "$(count t.db "SELECT json_extract(run_settings, '\$.environment.OMP_NUM_THREADS') FROM runs WHERE id = 1")" = 4 ] ||
      fail "OMP_NUM_THREADS not recorded"
    "$AB" compare 1 2 --db t.db >cmp.txt 2>&1 || { cat cmp.txt >&2; fail "compare failed"; }
    grep -q 'run.threads: 1 -> 2' cmp.txt || { cat cmp.txt >&2; fail "compare does not name the thread count"; }
    ! grep -q 'identical environments' cmp.txt || fail "compare calls different thread counts identical"
  else
    echo "(this build has no OpenMP: one thread either way)"
  fi
  small_cfg bad.cfg "threads = -3;"
  expect_error "bad.cfg:10: threads must be an integer" run bad.cfg --db t.db
  echo "ok: threads set by the experiment, recorded, compared"
  ;;
cpu-report)
  # a CPU report printed TFLOP/s 0.00, GB/s 0, "device memory",
  # no warning for bimodal samples and no conclusion. Samples are made
  # deterministic here (sqlite3 UPDATE) so the verdicts, and therefore the
  # conclusion, are known in advance: cpu_flash at 1 ms against
  # cpu_reference at 2 ms is faster in every configuration.
  small_cfg fast.cfg 'expect = ( { variant = "cpu_flash"; verdict = "faster"; } );'
  small_cfg slow.cfg 'expect = ( { variant = "cpu_flash"; than = "cpu_reference"; verdict = "slower"; } );'
  # the unit of inference is the round: 24 rounds of one sample each, so that
  # a paired test over rounds can reach alpha after Holm (3 rounds cannot)
  sed -i 's/^samples = 12;/samples = 24;/; s/^round_size = 4;/round_size = 1;/' fast.cfg slow.cfg
  "$AB" run fast.cfg --db c.db >/dev/null 2>&1 && "$AB" run slow.cfg --db c.db >/dev/null 2>&1 || fail "runs failed"
  sqlite3 c.db "UPDATE samples SET ms = (CASE (SELECT variant FROM measurements m WHERE m.id = samples.measurement_id)
                  WHEN 'cpu_flash' THEN 1.0 ELSE 2.0 END) + (idx % 5) * 0.001"
  "$AB" report 1 --db c.db -o r1.md --no-plots >/dev/null || fail "report failed"
  "$AB" report 2 --db c.db -o r2.md --no-plots >/dev/null || fail "report failed"
  grep -q '| MFLOP/s | MB/s |' r1.md || fail "rates not in MFLOP/s and MB/s: $(grep '^| variant' r1.md | head -1)"
  # report --json's TFLOP/s against FLOPs / median: FLOPs 4*B*H*S^2*D, halved
  # when causal (README), over the median of the stored samples (Python's
  # statistics.median of what sqlite3 reads), TFLOP/s = FLOP / (ms * 1e9)
  "$AB" report 1 --db c.db --json -o r1.json >/dev/null || fail "report --json failed"
  sqlite3 -separator ' ' c.db "SELECT m.variant, m.B, m.H, m.S, m.D, m.causal, s.ms FROM samples s
                               JOIN measurements m ON m.id = s.measurement_id WHERE m.run_id = 1" >tf.txt
  python3 - r1.json tf.txt <<'PY' || fail "report --json's tflops is not FLOPs / (median ms * 1e9)"
import json, statistics, sys
samples = {}
for line in open(sys.argv[2]):
    v, B, H, S, D, causal, ms = line.split()
    samples.setdefault((v, int(B), int(H), int(S), int(D), int(causal)), []).append(float(ms))
seen = 0
for m in json.load(open(sys.argv[1]))["variants"]:
    c = m["config"]
    key = (m["variant"], c["B"], c["H"], c["S"], c["D"], int(c["causal"]))
    flops = 4.0 * c["B"] * c["H"] * c["S"] ** 2 * c["D"] / (2 if c["causal"] else 1)
    want = flops / (statistics.median(samples[key]) * 1e9)
    if abs(m["tflops"] - want) > 1e-9 * want:
        sys.exit(f"{key}: tflops {m['tflops']}, expected {want}")
    seen += 1
sys.exit(0 if seen == 8 else f"{seen} measurements in the JSON report, expected 8")
PY
  # the rate columns found by their headers (the table's layout may change)
  awk -F'|' '/^## Results/ { on = 1 } /^## Summary/ { on = 0 }
             on && /^\| variant/ { for (i = 1; i <= NF; i++) { if ($i ~ /FLOP\/s/) fc = i; if ($i ~ /B\/s/) bc = i } }
             on && /^\| cpu_/ && (!fc || !bc || $fc + 0 == 0 || $bc + 0 == 0) { bad = 1 } END { exit bad }' r1.md ||
    fail "a rate cell prints zero"
  grep -q 'peak = host memory' r1.md || fail "CPU variants' memory called device memory"
  grep -q '^| CPU threads, affinity, load | 1 OpenMP thread' r1.md || fail "no threads row"
  [ "$(grep '^## ' r1.md | tail -1)" = "## Conclusion" ] || fail "the report does not end with its conclusion"
  grep -q '^| cpu_flash vs cpu_reference | faster | 4 | 0 | 0 | 0 | 0 | \*\*held\*\* |' r1.md ||
    { sed -n '/^## Conclusion/,$p' r1.md >&2; fail "claim faster not held"; }
  grep -q 'The hypothesis: \*\*held\*\*' r1.md || fail "overall not held"
  grep -q '^| cpu_flash vs cpu_reference | slower | 4 | 0 | 0 | 0 | 0 | \*\*did not hold\*\* |' r2.md ||
    fail "claim slower not contradicted"
  grep -q 'every measurement.s p90/p10 is within 1.5' r1.md || fail "a spread warning on tight samples"
  # one configuration identical (no difference), one measurement bimodal
  sqlite3 c.db "UPDATE samples SET ms = 2.0 + (idx % 5) * 0.001 WHERE measurement_id IN
                  (SELECT id FROM measurements WHERE run_id = 1 AND S = 16 AND causal = 0)"
  sqlite3 c.db "UPDATE samples SET ms = ms * 20 WHERE idx % 2 = 0 AND measurement_id =
                  (SELECT id FROM measurements WHERE run_id = 1 AND S = 33 AND causal = 1 AND variant = 'cpu_reference')"
  "$AB" report 1 --db c.db -o r3.md --no-plots >/dev/null || fail "report failed"
  grep -q '^| cpu_flash vs cpu_reference | faster | 3 | 0 | 1 | 0 | 1 | \*\*inconclusive\*\* |' r3.md ||
    { sed -n '/^## Conclusion/,$p' r3.md >&2; fail "one tie: not inconclusive"; }
  grep -q '^- cpu_reference, B=1 H=2 S=33 D=8 causal fp32: .*\*\*bimodal\*\*' r3.md ||
    { sed -n '/^## Conclusion/,$p' r3.md >&2; fail "bimodal samples not flagged"; }
  # one configuration contradicting the claim (cpu_flash at 3 ms there, the
  # baseline at 2 ms): the claim did not hold, however many others agree
  sqlite3 c.db "UPDATE samples SET ms = (CASE (SELECT variant FROM measurements m WHERE m.id = samples.measurement_id)
                  WHEN 'cpu_flash' THEN 3.0 ELSE 2.0 END) + (idx % 5) * 0.001 WHERE measurement_id IN
                  (SELECT id FROM measurements WHERE run_id = 1 AND S = 16 AND causal = 0)"
  "$AB" report 1 --db c.db -o r4.md --no-plots >/dev/null || fail "report failed"
  grep -q '^| cpu_flash vs cpu_reference | faster | 3 | 1 | 0 | 0 | 1 | \*\*did not hold\*\* |' r4.md ||
    { sed -n '/^## Conclusion/,$p' r4.md >&2; fail "one contradicting configuration: not 'did not hold'"; }
  # a bad claim is refused before anything runs, naming file, line and field
  small_cfg badx.cfg 'expect = ( { variant = "cpu_flash"; verdict = "quicker"; } );'
  expect_error 'badx.cfg:10: expect: verdict must be' run badx.cfg --db c.db
  small_cfg badv.cfg 'expect = ( { variant = "warp_magic"; verdict = "faster"; } );'
  expect_error 'badv.cfg:10: expect: variant must name' run badv.cfg --db c.db
  [ "$(count c.db "SELECT count(*) FROM runs")" = 2 ] || fail "a refused experiment created a run"
  echo "ok: units, host memory, threads row, spread warning, conclusion held / did not hold / inconclusive"
  ;;
no-gpu)
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    echo "skipped: a GPU is present"; exit 77
  fi
  printf 'name = "x";\nvariants = ["cuda_naive"];\nsweep = { S = 64; };\n' >gpu.cfg
  if "$AB" variants | grep -A1 '^cuda_naive' | grep -q 'not built'; then
    expect_error "cuda_naive: not built" run gpu.cfg --db g.db
  else
    expect_error "needs a CUDA device" run gpu.cfg --db g.db
  fi
  [ ! -e g.db ] || [ "$(count g.db "SELECT count(*) FROM runs")" = 0 ] || fail "a run was stored"
  ;;
adaptive)
  # the stopping rule: reasons recorded, counts within bounds
  small_cfg conv.cfg 'stopping = { target_rel_ci = 0.5; min_samples = 8; max_samples = 400; budget_s = 30.0; };'
  "$AB" run conv.cfg --db a.db >/dev/null 2>&1 || fail "adaptive run failed"
  [ "$(count a.db "SELECT count(*) FROM measurements WHERE stop_reason = 'converged'")" = 8 ] ||
    fail "a +-50% target should converge everywhere: $(count a.db "SELECT group_concat(stop_reason) FROM measurements")"
  [ "$(count a.db "SELECT min(n) >= 8 FROM (SELECT count(*) AS n FROM samples GROUP BY measurement_id)")" = 1 ] ||
    fail "stopped below min_samples"
  small_cfg max.cfg 'stopping = { target_rel_ci = 0.00001; min_samples = 8; max_samples = 12; budget_s = 30.0; };'
  "$AB" run max.cfg --db m.db >/dev/null 2>&1 || fail "max run failed"
  [ "$(count m.db "SELECT count(*) FROM measurements WHERE stop_reason = 'max_samples'")" = 8 ] ||
    fail "an unreachable target must stop at max_samples"
  [ "$(count m.db "SELECT max(n) FROM (SELECT count(*) AS n FROM samples GROUP BY measurement_id)")" = 12 ] ||
    fail "more than max_samples taken"
  small_cfg bud.cfg 'stopping = { target_rel_ci = 0.00001; min_samples = 8; max_samples = 100000; budget_s = 0.001; };'
  "$AB" run bud.cfg --db b.db >/dev/null 2>&1 || fail "budget run failed"
  [ "$(count b.db "SELECT count(*) FROM measurements WHERE stop_reason = 'budget'")" = 8 ] ||
    fail "a 1 ms budget must stop on the budget"
  echo "ok: converged, max_samples and budget stops"
  ;;
interleave)
  # rounds: every variant sampled in every round; the order reproducible from the seed
  cat >il.cfg <<CFG
name = "il";
variants = ( "cpu_reference", "cpu_flash", { name = "flash2"; variant = "cpu_flash"; } );
sweep = { B = 1; H = 1; S = [8, 9]; D = 8; dtype = "fp32"; };
warmup = 0; samples = 20; round_size = 4; seed = 11;
CFG
  order() { count "$1" "SELECT group_concat(v, ' ') FROM (SELECT m.variant AS v FROM samples s JOIN measurements m ON m.id = s.measurement_id GROUP BY s.measurement_id, s.round ORDER BY min(s.t_s))"; }
  "$AB" run il.cfg --db i1.db >/dev/null 2>&1 && "$AB" run il.cfg --db i2.db >/dev/null 2>&1 || fail "runs failed"
  [ "$(count i1.db "SELECT count(*) FROM (SELECT m.S, s.round, count(DISTINCT m.variant) AS nv FROM samples s JOIN measurements m ON m.id = s.measurement_id GROUP BY m.S, s.round) WHERE nv != 3")" = 0 ] ||
    fail "a round missed a variant"
  [ "$(count i1.db "SELECT count(DISTINCT round) FROM samples")" = 5 ] || fail "expected 5 rounds of 4 samples"
  o1=$(order i1.db); o2=$(order i2.db)
  [ "$o1" = "$o2" ] || fail "same seed, different order: $o1 / $o2"
  sed 's/seed = 11/seed = 12/' il.cfg >il2.cfg
  "$AB" run il2.cfg --db i3.db >/dev/null 2>&1 || fail "run failed"
  [ "$(order i3.db)" != "$o1" ] || fail "another seed gave the same order"
  echo "ok: every variant in every round; order reproducible from the seed"
  ;;
external-run)
  # external variants inside a run: a good adapter stored like a native
  # variant (marked external, its environment kept), a crash and a hang
  # stored as errors with their stderr, and nothing else lost
  fake="$SRC/tests/external/fake_adapter.sh"
  cat >ext.cfg <<CFG
name = "ext";
variants = ( "cpu_flash",
  { name = "ext_good"; command = "sh $fake good"; },
  { name = "ext_crash"; command = "sh $fake crash"; },
  { name = "ext_hang"; command = "sh $fake hang"; timeout = 1.0; } );
sweep = { B = 1; H = 1; S = [16, 17]; D = 8; dtype = "fp32"; };
warmup = 1; samples = 10;
CFG
  "$AB" run ext.cfg --db e.db >/dev/null 2>log.txt; rc=$?
  [ $rc = 3 ] || { cat log.txt >&2; fail "run with external variants: exit $rc, want 3 (failing adapters stored)"; }
  [ "$(count e.db "SELECT status FROM runs")" = complete ] || fail "run not complete"
  [ "$(count e.db "SELECT count(*) FROM measurements WHERE variant = 'cpu_flash' AND status = 'ok'")" = 2 ] || fail "native measurements lost"
  [ "$(count e.db "SELECT count(*) FROM measurements WHERE variant = 'ext_good' AND status = 'ok' AND external = 1 AND json_extract(adapter_env, '$.fake') = 1")" = 2 ] ||
    fail "good adapter not stored as an external measurement with its environment"
  [ "$(count e.db "SELECT count(*) FROM samples s JOIN measurements m ON m.id = s.measurement_id WHERE m.variant = 'ext_good'")" = 20 ] || fail "external samples missing"
  [ "$(count e.db "SELECT count(*) FROM measurements WHERE variant = 'ext_crash' AND status = 'error' AND length(stderr_text) > 1000 AND message LIKE '%status 3%'")" = 2 ] ||
    fail "crash not stored as an error with its stderr: $(count e.db "SELECT message FROM measurements WHERE variant = 'ext_crash'")"
  [ "$(count e.db "SELECT count(*) FROM measurements WHERE variant = 'ext_hang' AND status = 'error' AND message LIKE '%timed out%'")" = 2 ] ||
    fail "hang not stored as a timeout"
  "$AB" report 1 --db e.db -o r.md --no-plots >/dev/null || fail "report failed"
  grep -q '"fake": true' r.md || fail "the adapter's environment is not in the report"
  echo "ok: external variants stored, failures kept with stderr, nothing lost"
  ;;
stats-cli)
  "$AB" stats "$SRC/tests/stats/a.txt" "$SRC/tests/stats/b.txt" --json >out.json || fail "stats --json failed"
  "$JSON_EXPECT" out.json "$SRC/tests/stats/cli_expected.txt" || fail "stats values differ from scipy's"
  printf '0.1\nabc\n' >bad.txt
  expect_error "bad.txt:2" stats bad.txt "$SRC/tests/stats/b.txt"
  ;;
kv-shapes)
  # GQA (H_kv < H), MQA (H_kv = 1) and S != S_kv (decode S = 1,
  # S < S_kv, S > S_kv), causal and not, on the CPU variants: every
  # measurement passes the float64 check and stores H_kv and S_kv; the
  # report titles them; H_kv not dividing H is refused naming H_kv with
  # nothing stored.
  cat >kv.cfg <<'CFG'
name = "kv";
hypothesis = "cpu_flash computes grouped-query and S != S_kv attention as the float64 reference does.";
variants = ["cpu_reference", "cpu_flash"];
baseline = "cpu_reference";
sweep = { B = 2; H = 4; D = 16; causal = [false, true]; dtype = "fp32"; };
configs = ( { H_kv = [2, 1]; S = 1; S_kv = 37; }, { H_kv = 2; S = 5; S_kv = 19; },
            { H_kv = 1; S = 19; S_kv = 5; }, { H_kv = [4, 2]; S = 12; } );
warmup = 1;
samples = 8;
round_size = 4;
seed = 11;
CFG
  "$AB" run kv.cfg --db kv.db >ids.txt 2>err.txt || { cat err.txt >&2; fail "the kv run failed"; }
  total=$(count kv.db "SELECT count(*) FROM measurements")
  ok=$(count kv.db "SELECT count(*) FROM measurements WHERE status = 'ok' AND checked = 1")
  [ "$total" = 24 ] && [ "$ok" = 24 ] || fail "kv: $ok of $total measurements ok and checked (want 24 of 24)"
  [ "$(count kv.db "SELECT count(*) FROM measurements WHERE H_kv = 1 AND S = 19 AND S_kv = 5")" = 4 ] ||
    fail "kv: H_kv/S_kv not stored"
  [ "$(count kv.db "SELECT count(*) FROM measurements WHERE H_kv = H AND S_kv = S AND S = 12")" = 4 ] ||
    fail "kv: H_kv = H stored as H"
  # FLOPs of a decode row: every key visible, no halving (4 B H S S_kv D)
  [ "$(count kv.db "SELECT DISTINCT CAST(flops AS INTEGER) FROM measurements WHERE S = 1 AND H_kv = 2")" = $((4 * 2 * 4 * 1 * 37 * 16)) ] ||
    fail "kv: decode FLOPs"
  "$AB" report 1 --db kv.db -o kv.md --no-plots >/dev/null 2>&1 || fail "kv: report failed"
  grep -q "B=2 H=4 H_kv=1 S=19 S_kv=5 D=16 causal fp32" kv.md || fail "kv: report does not title H_kv/S_kv"
  # H_kv not dividing H: refused naming H_kv, nothing stored
  sed 's/H_kv = \[2, 1\]/H_kv = 3/' kv.cfg >bad.cfg
  expect_error "H_kv = 3 does not divide H = 4" run bad.cfg --db bad.db
  [ ! -s bad.db ] || [ "$(count bad.db "SELECT count(*) FROM measurements")" = 0 ] || fail "kv: bad.cfg stored rows"
  echo "ok: 24 GQA/MQA/S_kv measurements checked and stored; H_kv=3 refused"
  ;;
warmup-time)
  # The warm-up's time bound (docs/measurement.md "Warm-up bounded in
  # time"): 10 launches asked. cpu_reference at B=1 H=2 S=256 D=32 (float64,
  # 2 x 2 x 256 x 256 x 32 = 8.4 million multiply-adds a call, over 1 ms on
  # any CPU this runs on) with a 1 ms bound makes one, the first, which
  # already exceeds it; without a bound (warmup_time = 0) all 10; at S = 4
  # D = 2 (64 multiply-adds a call) the default 50 ms bound is never reached:
  # 10. The count made is read from the stored measurements.
  for t in 0.001 0; do
    cat >w$t.cfg <<CFG
name = "warm";
variants = ["cpu_reference"];
sweep = { B = 1; H = 2; S = 256; D = 32; dtype = "fp32"; };
warmup = 10; warmup_time = $t; samples = 4; round_size = 2;
CFG
    "$AB" run w$t.cfg --db w.db >/dev/null 2>log.txt || { cat log.txt >&2; fail "run with warmup_time = $t failed"; }
  done
  [ "$(count w.db "SELECT warmup FROM measurements WHERE run_id = 1")" = 1 ] ||
    fail "warmup_time = 0.001: $(count w.db "SELECT warmup FROM measurements WHERE run_id = 1") warm-up launches, want 1"
  [ "$(count w.db "SELECT warmup FROM measurements WHERE run_id = 2")" = 10 ] ||
    fail "warmup_time = 0: $(count w.db "SELECT warmup FROM measurements WHERE run_id = 2") warm-up launches, want 10"
  cat >small.cfg <<CFG
name = "warm-small";
variants = ["cpu_reference"];
sweep = { B = 1; H = 1; S = 4; D = 2; dtype = "fp32"; };
warmup = 10; samples = 4; round_size = 2;
CFG
  "$AB" run small.cfg --db w.db >/dev/null 2>log.txt || { cat log.txt >&2; fail "small run failed"; }
  [ "$(count w.db "SELECT warmup FROM measurements WHERE run_id = 3")" = 10 ] ||
    fail "a short call under the default bound: $(count w.db "SELECT warmup FROM measurements WHERE run_id = 3") warm-up launches, want 10"
  "$AB" report 1 --db w.db -o w.md --no-plots >/dev/null 2>&1 || fail "report failed"
  grep -q "warm-up 10 launches or 1 ms of them" w.md || fail "the report does not state the bound"
  sed 's/warmup_time = 0.001;/warmup_time = -1;/' w0.001.cfg >bad.cfg
  expect_error "warmup_time" run bad.cfg --db bad.db
  echo "ok: warm-up of 1 launch under a 1 ms bound, 10 without one and for a short call; bound reported; a negative bound refused"
  ;;
*)
  fail "unknown case $case_name"
  ;;
esac
exit 0
