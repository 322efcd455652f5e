#!/bin/sh
# tests/faults/faults_test.sh: hostile inputs, faults, signals and
# races, one case per finding of the issue (numbers in the case comments).
# Usage: faults_test.sh CASE ATTNBENCH SOURCE_ROOT [FAILWRITE.so]
# Each case runs in a fresh temporary directory and exits 0 (pass), 1 (fail)
# or 77 (skipped). Expected values come from outside attnbench: sqlite3(1)
# counts and checks the database, cmp(1) compares files, the shell's $? is
# the exit status, and the configurations expected are counted by hand from
# the experiment files below.
set -u
# one thread for the OpenMP reference: CPU timings here need no speed, and
# spinning OpenMP threads crawl on a shared 2-core machine
export OMP_NUM_THREADS=1
case_name=$1; AB=$2; SRC=$3; SHIM=${4:-}
tmp=$(mktemp -d); trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

# attnbench expected to fail with pattern in its (at most 3-line) stderr
expect_error() { # pattern, args...
  pat=$1; shift
  if "$AB" "$@" >out.txt 2>err.txt; then fail "'attnbench $*' succeeded; expected an error"; fi
  grep -q -- "$pat" err.txt || { cat err.txt >&2; fail "stderr of 'attnbench $*' lacks '$pat'"; }
  [ "$(wc -l <err.txt)" -le 3 ] || { cat err.txt >&2; fail "more than one message for '$*'"; }
  ok "$* -> $(head -n 1 err.txt)"
}
q() { sqlite3 "$@"; }
# Linux signal numbers (signal(7); POSIX sh's kill -l does not map names to numbers)
signum() { case $1 in HUP) echo 1 ;; INT) echo 2 ;; QUIT) echo 3 ;; KILL) echo 9 ;; USR1) echo 10 ;; USR2) echo 12 ;; PIPE) echo 13 ;; ALRM) echo 14 ;; TERM) echo 15 ;; esac; }

# a small CPU experiment: 2 configurations x 2 variants = 4 measurements of
# 6 samples each
small_cfg() { # file, extra
  cat >"$1" <<CFG
name = "tiny";
variants = ["cpu_reference", "cpu_flash"];
sweep = { B = 1; H = 1; S = [16, 17]; D = 8; dtype = "fp32"; };
warmup = 0;
samples = 6;
round_size = 3;
$2
CFG
}
# a slower one for signals: 6 configurations x 2 variants = 12 measurements
# of 200 samples
slow_cfg() {
  cat >"$1" <<CFG
name = "slow";
variants = ["cpu_reference", "cpu_flash"];
sweep = { B = 1; H = 2; S = [48, 49, 50, 51, 52, 53]; D = 16; dtype = "fp32"; };
warmup = 0;
samples = 200;
round_size = 50;
CFG
}
# waits until db has at least $2 measurements (at most 60 s)
wait_measurements() {
  i=0
  while [ "$(q "$1" "SELECT count(*) FROM measurements" 2>/dev/null || echo 0)" -lt "$2" ] && [ $i -lt 600 ]; do
    sleep 0.1; i=$((i + 1))
  done
}
# The invariant of every fault: the database is intact, and a run's stored
# status tells the truth: 'complete' only with every measurement whole; any
# other run is 'failed', 'interrupted' or shown 'abandoned' (its process is
# gone); every 'ok' measurement has all its samples. Args: db, expected
# measurements of a complete run, samples per measurement.
check_truth() {
  db=$1; want=$2; per=$3
  [ -s "$db" ] || return 0   # failed before the database existed
  ic=$(q "$db" "PRAGMA integrity_check" 2>&1)
  [ "$ic" = ok ] || fail "integrity_check of $db: $ic"
  q "$db" "SELECT count(*) FROM sqlite_master WHERE name = 'runs'" | grep -qx 1 || return 0
  bad=$(q "$db" "SELECT count(*) FROM measurements m WHERE m.status = 'ok' AND
    (SELECT count(*) FROM samples s WHERE s.measurement_id = m.id) != $per")
  [ "$bad" = 0 ] || fail "$bad ok measurements with a partial set of samples"
  for id in $(q "$db" "SELECT id FROM runs"); do
    cst=$(q "$db" "SELECT status FROM runs WHERE id = $id")
    cn=$(q "$db" "SELECT count(*) FROM measurements WHERE run_id = $id")
    case $cst in
      complete) [ "$cn" = "$want" ] || fail "run $id complete with $cn of $want measurements" ;;
      failed|interrupted) ;;
      running)
        shown=$("$AB" runs --db "$db" --json 2>/dev/null | tr -d ' \n' | grep -o "\"id\":$id,[^}]*" | grep -o '"status":"[a-z]*"')
        [ "$shown" = '"status":"abandoned"' ] || fail "run $id left 'running' and shown as $shown" ;;
      *) fail "run $id has status $cst" ;;
    esac
  done
}

case $case_name in

overflow) # finding 1: B*H*S*D overflow, memory
  for axes in "B = 16777216; H = 16777216; S = 65536; D = 1;" \
              "B = 16777216; H = 16777216; S = 16; D = 4096;" \
              "B = 16777216; H = 16777216; S = 16777216; D = 16777216;"; do
    printf 'name = "x";\nvariants = ["cpu_flash"];\nsweep = { %s dtype = "fp32"; };\n' "$axes" >big.cfg
    expect_error "big.cfg:3: configuration B=16777216 H=16777216 .*overflows 64-bit sizes" run big.cfg --db o.db
  done
  printf 'name = "x";\nvariants = ["cpu_flash"];\nsweep = { B = 1024; H = 64; S = 65536; D = 64; dtype = "fp32"; };\n' >mem.cfg
  expect_error "needs 4096.00 GiB of host memory for Q, K, V, O" run mem.cfg --db o.db
  [ ! -e o.db ] || [ "$(q o.db "SELECT count(*) FROM runs")" = 0 ] || fail "a refused experiment stored a run"
  ;;

clobber) # finding 2: the user's files and the database
  small_cfg e.cfg ""
  "$AB" run e.cfg --db r.db >/dev/null 2>&1 || fail "run failed"
  echo "my notes" >notes.txt; cp notes.txt notes.orig
  expect_error "no run 999" report 999 --db r.db -o notes.txt
  cmp -s notes.txt notes.orig || fail "report 999 -o notes.txt changed or removed notes.txt"
  cp r.db r.orig
  expect_error "refusing to write over the database r.db" report 1 --db r.db -o r.db
  expect_error "refusing to write over the database r.db" export 1 --db r.db -o r.db
  ln -s r.db alias.db
  expect_error "refusing to write over the database alias.db" export 1 --db r.db -o alias.db
  cp r.db other.db
  expect_error "other.db: it is an SQLite database" export 1 --db r.db -o other.db
  cmp -s r.db r.orig || fail "the database file changed"
  [ "$(q r.db "SELECT count(*) FROM samples")" = 24 ] || fail "samples lost"
  # a failed export leaves the previous file as it was, and no temporary file
  "$AB" export 1 --db r.db -o x.json >/dev/null 2>&1 || fail "export failed"
  cp x.json x.orig
  expect_error "no run" export 1 7 --db r.db -o x.json
  cmp -s x.json x.orig || fail "a failed export changed x.json"
  [ "$(ls -a | grep -c '^\.x\.json\.')" = 0 ] || fail "a temporary file was left behind"
  "$AB" report 1 --db r.db -o rep.md --no-plots >/dev/null 2>&1 && [ -s rep.md ] || fail "report not written"
  ok "nothing clobbered"
  ;;

concurrent) # finding 3: four first runs, four imports at once on new databases
  small_cfg e.cfg ""
  for trial in 1 2; do
    rm -f n.db n.db-wal n.db-shm
    for i in 1 2 3 4; do ( "$AB" run e.cfg --db n.db >/dev/null 2>err$i.txt; echo $? >rc$i ) & done
    wait
    for i in 1 2 3 4; do [ "$(cat rc$i)" = 0 ] || { cat err$i.txt >&2; fail "concurrent run $i exited $(cat rc$i)"; }; done
    [ "$(q n.db "SELECT count(*) FROM runs WHERE status = 'complete'")" = 4 ] || fail "not 4 complete runs"
    [ "$(q n.db "PRAGMA user_version")" = "$(q n.db "PRAGMA user_version")" ] || true
  done
  ok "4 concurrent first runs complete (twice)"
  "$AB" export 1 2 3 --db n.db -o three.json >/dev/null || fail "export failed"
  for trial in 1 2; do
    rm -f m.db m.db-wal m.db-shm
    for i in 1 2 3 4; do ( "$AB" import three.json --db m.db >out$i.txt 2>err$i.txt; echo $? >rc$i ) & done
    wait
    for i in 1 2 3 4; do [ "$(cat rc$i)" = 0 ] || { cat err$i.txt >&2; fail "concurrent import $i exited $(cat rc$i)"; }; done
    [ "$(q m.db "SELECT count(*) FROM runs")" = 3 ] || fail "not 3 runs after 4 imports"
    [ "$(cat out*.txt | grep -c 'imported 3 runs, 0 already present')" = 1 ] || { cat out*.txt >&2; fail "not exactly one import added the runs"; }
    [ "$(cat out*.txt | grep -c 'imported 0 runs, 3 already present')" = 3 ] || fail "the others did not say 'already present'"
    [ "$(q m.db "SELECT count(*) FROM samples")" = "$(q n.db "SELECT count(*) FROM samples s JOIN measurements m ON m.id = s.measurement_id WHERE m.run_id <= 3")" ] || fail "samples differ"
  done
  ok "4 concurrent imports: one adds, three find them present (twice)"
  # and a merge alongside an import of the same runs
  rm -f m.db*
  ( "$AB" merge n.db --db m.db >mo.txt 2>me.txt; echo $? >mrc ) &
  ( "$AB" import three.json --db m.db >io.txt 2>ie.txt; echo $? >irc ) &
  wait
  [ "$(cat mrc)" = 0 ] && [ "$(cat irc)" = 0 ] || { cat me.txt ie.txt >&2; fail "merge + import at once failed"; }
  [ "$(q m.db "SELECT count(*) FROM runs")" = 4 ] || fail "merge + import: not 4 runs"
  ok "merge and import at once"
  ;;

signals) # finding 4: SIGHUP, SIGQUIT, SIGPIPE end a run like SIGINT; SIGTERM exits 143
  slow_cfg s.cfg
  for sig in HUP QUIT TERM INT; do
    rm -f s.db*
    "$AB" run s.cfg --db s.db >/dev/null 2>log.txt &
    pid=$!
    wait_measurements s.db 2
    kill -$sig $pid; wait $pid; rc=$?
    want=$((128 + $(signum $sig)))
    [ $rc = $want ] || { cat log.txt >&2; fail "SIG$sig: exit $rc, expected $want"; }
    [ "$(q s.db "SELECT status FROM runs")" = interrupted ] || fail "SIG$sig: run not interrupted"
    [ "$(q s.db "SELECT count(*) FROM measurements")" -ge 2 ] || fail "SIG$sig: measurements lost"
    check_truth s.db 12 200
    ok "SIG$sig: exit $rc, interrupted, measurements kept"
  done
  # SIGPIPE: stderr into a pipe that closes
  rm -f s.db*
  ( "$AB" run s.cfg --db s.db 2>&1 >/dev/null; echo $? >rc.txt ) | head -n 2 >/dev/null
  sleep 0.2
  rc=$(cat rc.txt)
  [ "$rc" = 141 ] || fail "SIGPIPE: exit $rc, expected 141"
  [ "$(q s.db "SELECT status FROM runs")" = interrupted ] || fail "SIGPIPE: run not interrupted"
  ok "SIGPIPE: exit 141, interrupted"
  ;;

resume) # finding 4: SIGKILL leaves an abandoned run; resume completes it, nothing lost or doubled
  slow_cfg s.cfg
  "$AB" run s.cfg --db k.db >/dev/null 2>log.txt &
  pid=$!
  wait_measurements k.db 3
  kill -KILL $pid; wait $pid
  before=$(q k.db "SELECT count(*) FROM measurements")
  q k.db "SELECT m.variant, m.S, count(s.idx), sum(s.ms) FROM measurements m JOIN samples s ON s.measurement_id = m.id GROUP BY m.id ORDER BY m.id" >kept.txt
  "$AB" runs --db k.db | grep -q ' abandoned ' || fail "runs does not show the killed run abandoned"
  "$AB" show 1 --db k.db | grep -q 'status abandoned' || fail "show does not say abandoned"
  "$AB" report 1 --db k.db -o k.md --no-plots >/dev/null 2>&1 || fail "report of an abandoned run failed"
  grep -q 'status \*\*abandoned\*\*' k.md || fail "report does not say abandoned"
  "$AB" merge k.db --db other.db >m.txt 2>&1 || fail "merge failed"
  grep -q 'merged 1 run' m.txt || fail "the abandoned run was not merged: $(cat m.txt)"
  "$AB" resume 1 --db k.db >/dev/null 2>r.txt || { cat r.txt >&2; fail "resume failed"; }
  [ "$(q k.db "SELECT status FROM runs WHERE id = 1")" = complete ] || fail "resumed run not complete"
  [ "$(q k.db "SELECT count(*) FROM measurements")" = 12 ] || fail "not 12 measurements after resume"
  [ "$(q k.db "SELECT count(*) FROM (SELECT 1 FROM measurements GROUP BY variant, S HAVING count(*) > 1)")" = 0 ] || fail "a measurement doubled"
  [ "$(q k.db "SELECT count(*) FROM samples")" = 2400 ] || fail "samples: $(q k.db "SELECT count(*) FROM samples") != 12 x 200"
  q k.db "SELECT m.variant, m.S, count(s.idx), sum(s.ms) FROM measurements m JOIN samples s ON s.measurement_id = m.id GROUP BY m.id ORDER BY m.id LIMIT $before" >after.txt
  cmp -s kept.txt after.txt || fail "measurements taken before the kill changed"
  check_truth k.db 12 200
  "$AB" resume 1 --db k.db >/dev/null 2>r2.txt && grep -q "nothing to resume" r2.txt || fail "resume of a complete run"
  ok "SIGKILL after $before measurements: abandoned, merged, resumed to 12, none doubled"
  ;;

resume-exclusive) # resume is exclusive per run: two resumes of one abandoned run, a --force of a live one
  slow_cfg s.cfg
  "$AB" run s.cfg --db k.db >/dev/null 2>log.txt &
  pid=$!
  wait_measurements k.db 3
  kill -KILL $pid; wait $pid
  # two resumes started together: one measures, the other is refused (or,
  # started after the first finished, finds nothing to resume); never both
  "$AB" resume 1 --db k.db >o1.txt 2>e1.txt & p1=$!
  "$AB" resume 1 --db k.db >o2.txt 2>e2.txt & p2=$!
  wait $p1; r1=$?; wait $p2; r2=$?
  cat e1.txt e2.txt >e.txt
  grep -q "UNIQUE constraint" e.txt && { cat e.txt >&2; fail "a resume failed on a raw UNIQUE constraint"; }
  [ "$(q k.db "SELECT status FROM runs WHERE id = 1")" = complete ] || { cat e.txt >&2; fail "two resumes left the run $(q k.db "SELECT status FROM runs WHERE id = 1")"; }
  [ "$(q k.db "SELECT count(*) FROM measurements")" = 12 ] || fail "not 12 measurements after two resumes"
  [ "$(q k.db "SELECT count(*) FROM samples")" = 2400 ] || fail "samples: $(q k.db "SELECT count(*) FROM samples") != 12 x 200"
  if [ $r1 = 0 ] && [ $r2 = 0 ]; then
    grep -q "nothing to resume" e.txt || { cat e.txt >&2; fail "both resumes exited 0 and neither found the run complete"; }
  else
    [ $((r1 + r2)) = 1 ] || { cat e.txt >&2; fail "resumes exited $r1 and $r2; expected one 0 and one 1"; }
    grep -q "resume: run 1 is still running (process [0-9]* on this host)" e.txt || { cat e.txt >&2; fail "the refused resume does not say who holds the run"; }
  fi
  # --force of a run whose process is alive on this host: refused, the run
  # goes on and completes on its own
  "$AB" run s.cfg --db f.db >/dev/null 2>log2.txt &
  pid=$!
  wait_measurements f.db 3
  if "$AB" resume 1 --force --db f.db >/dev/null 2>ef.txt; then kill $pid; fail "resume --force of a live run measured it too"; fi
  grep -q "resume: run 1 is still running (process $pid on this host)" ef.txt || { cat ef.txt >&2; kill $pid; fail "resume --force of a live run: wrong message"; }
  wait $pid || fail "the run exited $? after a refused resume --force"
  [ "$(q f.db "SELECT status || ' ' || (SELECT count(*) FROM measurements) FROM runs")" = "complete 12" ] || fail "the live run did not complete alone"
  check_truth k.db 12 200
  check_truth f.db 12 200
  ok "two resumes: exits $r1/$r2, one measured; --force of a live run refused"
  ;;

corrupt) # finding 5: a damaged database is an error naming the file; a removed one fails the run
  small_cfg e.cfg ""
  "$AB" run e.cfg --db c.db >/dev/null 2>&1 && "$AB" run e.cfg --db c.db >/dev/null 2>&1 || fail "runs failed"
  q c.db "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
  size=$(wc -c <c.db)
  # 3 KB of bytes from a fixed seed (awk's rand) over the middle of the file
  awk 'BEGIN { srand(14); for (i = 0; i < 3072; i++) printf "%c", 1 + int(rand() * 254) }' >junk.bin
  dd if=junk.bin of=c.db bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
  for cmd in "show 1" "report 1 -o c.md" "compare 1 2" "export 1 -o c.json"; do
    # shellcheck disable=SC2086
    if "$AB" $cmd --db c.db >out.txt 2>err.txt; then fail "'$cmd' on a damaged database exited 0"; fi
    grep -q "c.db: the database is damaged\|c.db.*malformed" err.txt || { cat err.txt >&2; fail "'$cmd': no message naming c.db"; }
  done
  [ ! -e c.md ] && [ ! -e c.json ] || fail "a report or export was written from a damaged database"
  ok "damaged database: show, report, compare, export fail naming c.db"
  # the database removed, or replaced, during a run
  slow_cfg s.cfg
  for how in remove replace; do
    rm -f d.db*
    "$AB" run s.cfg --db d.db >id.txt 2>log.txt &
    pid=$!
    wait_measurements d.db 1
    if [ $how = remove ]; then rm -f d.db d.db-wal d.db-shm; else cp d.db d2.db; mv d2.db d.db; fi
    wait $pid; rc=$?
    [ $rc != 0 ] || fail "$how: the run exited 0"
    grep -q "d.db: the database file was \(removed\|replaced\)" log.txt || { cat log.txt >&2; fail "$how: no message"; }
    ok "database ${how}d during a run: exit $rc, $(grep -o 'the database file was [a-z]*' log.txt | head -n 1)"
  done
  ;;

typos) # finding 6: a strict schema
  base='name = "x";\nvariants = ["cpu_flash"];\n'
  sw='sweep = { S = 16; D = 8; dtype = "fp32"; };\n'
  printf "${base}sample = 3;\n$sw" >a.cfg
  expect_error "unknown key 'sample' at a.cfg:3; did you mean 'samples'?" run a.cfg --db t.db
  printf "${base}basline = \"cpu_flash\";\n$sw" >b.cfg
  expect_error "unknown key 'basline' at b.cfg:3; did you mean 'baseline'?" run b.cfg --db t.db
  printf "${base}rounds = 0;\n$sw" >c.cfg
  expect_error "unknown key 'rounds' at c.cfg:3" run c.cfg --db t.db
  printf "${base}sweep = { S = 16;\n  Dd = 8; };\n" >d.cfg
  expect_error "unknown key 'Dd' in sweep at d.cfg:4; did you mean 'D'?" run d.cfg --db t.db
  printf "${base}bogus_key = 1;\n$sw" >e.cfg
  expect_error "unknown key 'bogus_key' at e.cfg:3" run e.cfg --db t.db
  printf "${base}sweep = { S = 0; };\n" >f.cfg
  expect_error "f.cfg:3: S must be a list of positive integers" run f.cfg --db t.db
  printf "${base}samples = 0;\n$sw" >g.cfg
  expect_error "g.cfg:3: samples must be an integer" run g.cfg --db t.db
  printf "${base}stopping = { min_sample = 5; };\n$sw" >h.cfg
  expect_error "unknown key 'min_sample' in stopping at h.cfg:3; did you mean 'min_samples'?" run h.cfg --db t.db
  printf 'name = "x";\nvariants = ( { name = "e"; comand = "true"; } );\n'"$sw" >i.cfg
  expect_error "unknown key 'comand' in a variant at i.cfg:2; did you mean 'command'?" run i.cfg --db t.db
  [ ! -e t.db ] || [ "$(q t.db "SELECT count(*) FROM runs")" = 0 ] || fail "a refused experiment ran"
  ;;

import) # finding 7: import validates every field, all or nothing
  small_cfg e.cfg ""
  "$AB" run e.cfg --db a.db >/dev/null 2>&1 || fail "run failed"
  "$AB" export 1 --db a.db -o good.json || fail "export failed"
  "$AB" import good.json --db keep.db >/dev/null || fail "import of a good export failed"
  before=$(q keep.db "SELECT count(*) FROM samples")
  # each edit (with sed on the compact JSON) must be refused, naming the field
  for edit in 's/"ms":[0-9.e+-]*/"ms":"abc"/2' 's/"ms":[0-9.e+-]*/"ms":-5/3' 's/"ms":[0-9.e+-]*/"ms":1e308/1' \
              's/"S":16/"S":-1/' 's/"B":1,/"B":0,/' 's/"dtype":"fp32"/"dtype":"fp64"/' \
              's/"status":"ok"/"status":"great"/' 's/"B":1,/"B":16777216,/;s/"H":1,/"H":16777216,/;s/"S":16,/"S":65536,/' \
              's/"uuid":"[^"]*"/"uuid":"x"/'; do
    sed "$edit" good.json >bad.json
    cmp -s bad.json good.json && fail "edit '$edit' changed nothing"
    sed 's/"uuid":"[0-9a-f]/"uuid":"e/' bad.json >bad2.json   # another uuid, so it would be new
    expect_error "import: bad2.json: runs\[0\]\..*nothing imported" import bad2.json --db keep.db
  done
  [ "$(q keep.db "SELECT count(*) FROM samples")" = "$before" ] || fail "a refused import wrote samples"
  [ "$(q keep.db "SELECT count(*) FROM runs")" = 1 ] || fail "a refused import wrote a run"
  # two runs, the second bad: neither is imported
  "$AB" run e.cfg --db a.db >/dev/null 2>&1 || fail "second run failed"
  "$AB" export 1 2 --db a.db -o two.json || fail "export failed"
  sed 's/\(.*\)"ms":[0-9.e+-]*/\1"ms":"abc"/' two.json >twobad.json   # the last sample: run 2
  expect_error "nothing imported" import twobad.json --db new.db
  [ ! -e new.db ] || [ "$(q new.db "SELECT count(*) FROM runs")" = 0 ] || fail "part of a bad file was imported"
  ;;

exit-codes) # finding 8: output errors, all-failed runs, SIGTERM
  [ -w /dev/full ] || { echo "skipped: no /dev/full"; exit 77; }
  small_cfg e.cfg ""
  "$AB" run e.cfg --db x.db >/dev/null 2>&1 || fail "run failed"
  "$AB" run e.cfg --db x.db >/dev/null 2>&1 || fail "run failed"
  for cmd in "export 1" "runs" "show 1" "compare 1 2" "run e.cfg" "query SELECT\ 1"; do
    # shellcheck disable=SC2086
    if eval "\"\$AB\" $cmd --db x.db" >/dev/full 2>err.txt; then fail "'$cmd' > /dev/full exited 0"; fi
    grep -q "No space left on device" err.txt || { cat err.txt >&2; fail "'$cmd' > /dev/full: no reason given"; }
  done
  ok "export, runs, show, compare, run, query > /dev/full exit non-zero"
  printf 'name = "x";\nvariants = ( { name = "broken"; command = "exit 3"; timeout = 5.0; } );\nsweep = { S = 16; D = 8; dtype = "fp32"; };\nsamples = 3;\n' >broken.cfg
  "$AB" run broken.cfg --db b.db >/dev/null 2>err.txt && fail "a run with no ok measurement exited 0"
  grep -q "run 1: no measurement succeeded" err.txt || { cat err.txt >&2; fail "no message for a run with no ok measurement"; }
  [ "$(q b.db "SELECT status FROM runs")" = failed ] || fail "a run with no ok measurement is not 'failed'"
  ok "a run whose every measurement errored: failed, exit non-zero"
  ;;

hangs) # finding 9: huge sweeps, endless files, a gnuplot that hangs
  v=$(awk 'BEGIN { for (i = 1; i <= 64; i++) printf "%s%d", (i > 1 ? ", " : ""), i }')
  printf 'name = "x";\nvariants = ["cpu_flash"];\nsweep = { B = [%s]; H = [%s]; S = [%s]; D = [%s]; dtype = "fp32"; };\n' "$v" "$v" "$v" "$v" >huge.cfg
  start=$(date +%s)
  expect_error "huge.cfg:3: the sweep has 16777216 configurations" run huge.cfg --db h.db
  expect_error "/dev/zero: not a regular file" run /dev/zero --db h.db
  [ $(($(date +%s) - start)) -le 10 ] || fail "refusals took more than 10 s"
  printf 'name = "x";\nvariants = ["cpu_flash"];\nsweep = { S = 16; D = 8; dtype = "fp32"; };\nsamples = 3;\n' >one.cfg
  "$AB" run one.cfg --db g.db >/dev/null 2>&1 || fail "run failed"
  cat >hang.sh <<'SH'
#!/bin/sh
case "${1:-}" in --version) echo "gnuplot 5.4 patchlevel 4"; exit 0 ;; esac
cat >/dev/null; sleep 300
SH
  chmod +x hang.sh
  mkdir out
  start=$(date +%s)
  ATTNBENCH_GNUPLOT=$tmp/hang.sh ATTNBENCH_GNUPLOT_TIMEOUT=2 "$AB" report 1 --db g.db -o out/r.md >/dev/null 2>err.txt
  took=$(($(date +%s) - start))
  [ $took -le 30 ] || fail "report with a hanging gnuplot took $took s"
  grep -q "did not finish within 2 s" err.txt || { cat err.txt >&2; fail "no timeout message"; }
  [ "$(ls out | grep -c svg)" = 0 ] || fail "an image was left by a killed gnuplot: $(ls out)"
  [ "$(ls -a out | grep -c '^\.')" = 2 ] || fail "temporary files left: $(ls -a out)"
  pgrep -f "$tmp/hang.sh" >/dev/null && fail "the hung gnuplot is still running"
  ok "hanging gnuplot killed after 2 s (report took $took s), no image left"
  # a failed baseline: one line, no 0-byte SVG
  if command -v gnuplot >/dev/null; then
    printf 'name = "bl";\nvariants = ( { name = "broken"; command = "exit 3"; timeout = 5.0; }, "cpu_flash" );\nbaseline = "broken";\nsweep = { S = [16, 32]; D = 8; dtype = "fp32"; };\nsamples = 3;\n' >bl.cfg
    "$AB" run bl.cfg --db bl.db >/dev/null 2>&1
    mkdir bl
    "$AB" report 1 --db bl.db -o bl/r.md >/dev/null 2>err.txt || { cat err.txt >&2; fail "report of a run with a failed baseline failed"; }
    grep -q "The baseline \`broken\` has no successful measurement" bl/r.md || fail "the report does not say the baseline is missing"
    [ "$(grep -c 'baseline' err.txt)" = 1 ] || { cat err.txt >&2; fail "not one line about the baseline on stderr"; }
    for f in bl/*.svg; do [ -s "$f" ] || fail "empty image $f"; done
    ok "missing baseline said in one line, no empty image"
  fi
  ;;

messages) # finding 10: unclear or wrong messages
  small_cfg e.cfg ""
  expect_error "an empty database path (--db '')" runs --db ''
  expect_error "an empty database path" run e.cfg --db=
  mkdir adir
  expect_error "adir: is a directory, not an experiment file" run adir --db m.db
  printf 'name = "x";\0variants = ["nothing"];\n' >nul.cfg
  expect_error "nul.cfg: NUL byte at offset 11" run nul.cfg --db m.db
  "$AB" run e.cfg --db m.db >/dev/null 2>&1 || fail "run failed"
  cp m.db new.db; q new.db "PRAGMA user_version = 99"
  expect_error "schema version 99 is newer than this attnbench understands.*use a newer attnbench" runs --db new.db
  grep -q "read-write once" err.txt && fail "a newer schema still says 'open it read-write once'"
  # query: control characters escaped (no terminal escapes reach the terminal)
  "$AB" query "SELECT 'a' || char(27) || '[31mred' || char(7) AS t" --db m.db >qo.txt || fail "query failed"
  grep -q 'a\\x1b\[31mred\\x07' qo.txt || { cat -v qo.txt >&2; fail "query did not escape control characters"; }
  [ "$(tr -d '\n' <qo.txt | tr -d '[:print:]' | wc -c)" = 0 ] || fail "query printed control characters"
  # read-only directories: needs a user who cannot write there
  if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
  elif [ "$(id -u)" != 0 ]; then
    as_nobody() { "$@"; }
  else
    echo "skipped: read-only directory checks (root without setpriv)"; exit 0
  fi
  chmod 755 "$tmp"; chmod 644 e.cfg
  if ! as_nobody "$AB" help >/dev/null 2>&1; then
    echo "skipped: read-only directory checks (the unprivileged user cannot run $AB)"; exit 0
  fi
  mkdir ro; cp m.db ro/; chmod 555 ro; chmod 644 ro/*
  AB0=$AB
  # no -wal beside it: everything is in the file, and it is read
  as_nobody "$AB0" runs --db ro/m.db >out.txt 2>err.txt || { cat err.txt >&2; fail "runs of a database in a read-only directory failed"; }
  grep -q ' tiny ' out.txt || fail "runs in a read-only directory lists nothing"
  ok "runs of a database in a read-only directory (no -wal) reads it"
  # a -wal left beside it (by a writer that crashed): refused, saying why
  chmod 755 ro; : >ro/m.db-wal; chmod 555 ro
  as_nobody "$AB0" runs --db ro/m.db >out.txt 2>err.txt && fail "runs with an unreadable WAL succeeded"
  grep -q "ro/m.db: cannot read the database: the directory 'ro' is not writable" err.txt || { cat err.txt >&2; fail "read-only directory: unclear message"; }
  grep -q "not an attnbench database" err.txt && fail "read-only directory still says 'not an attnbench database'"
  ok "runs in a read-only directory with a -wal -> $(cat err.txt)"
  (cd ro && as_nobody "$AB0" run ../e.cfg --db fresh.db >/dev/null 2>../err.txt) && fail "run in a read-only directory succeeded"
  grep -q "fresh.db: cannot create the database: the directory '.' is not writable" err.txt || { cat err.txt >&2; fail "unwritable directory: unclear message"; }
  ok "run in a read-only working directory -> $(cat err.txt)"
  (cd ro && as_nobody "$AB0" report 1 --db ../m.db >/dev/null 2>../err.txt) && fail "report in a read-only directory succeeded"
  grep -q "report: cannot create the directory reports/ for reports/tiny-run1.md: Permission denied" err.txt || { cat err.txt >&2; fail "report in an unwritable directory: unclear message"; }
  ok "report in a read-only working directory -> $(cat err.txt)"
  ;;

fault-inject) # disk full and I/O errors at each write point of a run, an import, a merge
  [ -n "$SHIM" ] && [ -f "$SHIM" ] || { echo "skipped: no failwrite shim"; exit 77; }
  small_cfg e.cfg ""
  # count the writes of a clean run (into a new database)
  FAILWRITE_COUNT=$tmp/count.txt LD_PRELOAD=$SHIM "$AB" run e.cfg --db clean.db >/dev/null 2>&1 || fail "clean run failed"
  total=$(cat count.txt)
  [ "$total" -gt 5 ] || fail "the shim saw only $total writes (is it loaded?)"
  # every write point up to 40, then every k-th: persistent ENOSPC, one EIO
  points=$(awk -v t="$total" 'BEGIN { s = t > 40 ? int(t / 40) : 1; for (i = 1; i <= t; i += (i < 40 ? 1 : s)) print i }')
  n=0; nfail=0; nbad=0
  for k in $points; do
    for mode in full once; do
      rm -f f.db f.db-wal f.db-shm
      if [ $mode = full ]; then
        FAILWRITE_AFTER=$k LD_PRELOAD=$SHIM "$AB" run e.cfg --db f.db >out.txt 2>err.txt; rc=$?
      else
        FAILWRITE_AFTER=$k FAILWRITE_ONCE=1 FAILWRITE_ERRNO=EIO LD_PRELOAD=$SHIM "$AB" run e.cfg --db f.db >out.txt 2>err.txt; rc=$?
      fi
      check_truth f.db 4 6
      st=$(q f.db "SELECT status FROM runs" 2>/dev/null)
      # exit 0 only with a complete run; a complete run only with exit 0
      if [ $rc = 0 ] && [ "$st" != complete ]; then fail "write $k ($mode): exit 0 with status '$st'"; fi
      if [ $rc != 0 ] && [ "$st" = complete ]; then
        # the status was written, then a later write (closing) failed: allowed only with a message
        [ -s err.txt ] || fail "write $k ($mode): exit $rc with a complete run and no message"
      fi
      [ $rc = 0 ] || [ -s err.txt ] || fail "write $k ($mode): exit $rc without a message"
      n=$((n + 1)); [ $rc = 0 ] || nfail=$((nfail + 1))
      case $st in complete) ;; *) nbad=$((nbad + 1)) ;; esac
    done
  done
  [ $nfail -gt 0 ] && [ $nbad -gt 0 ] || fail "no fault made a run fail ($nfail exits, $nbad unfinished): is the shim working?"
  ok "run: $n faults at $(echo $points | wc -w) of $total write points ($nfail failed, $nbad runs not complete), the status always true"
  # import and merge: all or nothing per file / per run
  "$AB" run e.cfg --db clean.db >/dev/null 2>&1 || fail "second clean run failed"
  "$AB" export 1 2 --db clean.db -o two.json || fail "export failed"
  for k in 1 2 3 5 8 13 21 34; do
    rm -f i.db*
    "$AB" run e.cfg --db i.db >/dev/null 2>&1   # an existing database with one run
    FAILWRITE_AFTER=$k LD_PRELOAD=$SHIM "$AB" import two.json --db i.db >/dev/null 2>err.txt; rc=$?
    runs=$(q i.db "SELECT count(*) FROM runs")
    [ "$(q i.db "PRAGMA integrity_check")" = ok ] || fail "import, write $k: database damaged"
    if [ $rc = 0 ]; then [ "$runs" = 3 ] || fail "import, write $k: exit 0 with $runs runs"; 
    else [ "$runs" = 1 ] || fail "import, write $k: failed import left $runs runs (all or nothing)"; fi
    rm -f g.db*; "$AB" run e.cfg --db g.db >/dev/null 2>&1
    FAILWRITE_AFTER=$k LD_PRELOAD=$SHIM "$AB" merge clean.db --db g.db >/dev/null 2>err.txt; rc=$?
    [ "$(q g.db "PRAGMA integrity_check")" = ok ] || fail "merge, write $k: database damaged"
    check_truth g.db 4 6
    [ $rc = 0 ] || [ -s err.txt ] || fail "merge, write $k: failed without a message"
  done
  ok "import and merge under write faults: whole runs or none, databases intact"
  ;;

random-signals) # signals at random points: the status always tells the truth
  slow_cfg s.cfg
  # a fixed list of (signal, delay in tenths of a second), drawn once with awk's rand
  awk 'BEGIN { srand(1414); split("INT TERM HUP QUIT KILL PIPE", s, " ");
               for (i = 0; i < 8; i++) print s[1 + int(rand() * 6)], 1 + int(rand() * 20) }' >plan.txt
  while read -r sig tenths; do
    rm -f r.db*
    "$AB" run s.cfg --db r.db >/dev/null 2>log.txt &
    pid=$!
    sleep "$(echo "$tenths" | awk '{ print $1 / 10 }')"
    kill -$sig $pid 2>/dev/null; wait $pid; rc=$?
    check_truth r.db 12 200
    st=$(q r.db "SELECT status FROM runs" 2>/dev/null || echo none)
    case $sig:$st in
      # complete: finished before the signal (exit 0), or the signal came
      # after the status was stored, while the process was exiting
      *:complete) [ $rc = 0 ] || [ $rc = $((128 + $(signum $sig))) ] || fail "$sig after ${tenths}/10 s: complete but exit $rc" ;;
      KILL:*) ;;
      *:interrupted) [ $rc = $((128 + $(signum $sig))) ] || fail "$sig: interrupted, exit $rc" ;;
      *:none) ;;  # killed before the run existed
      *:) ;;      # killed after the database was created, before the run's row (seen under load)
      *:running) ;; # died before its handlers were set: shown abandoned (check_truth)
      *) fail "$sig after ${tenths}/10 s: status $st, exit $rc" ;;
    esac
    [ $rc -ge 128 ] && "$AB" resume 1 --db r.db >/dev/null 2>&1 && { check_truth r.db 12 200; [ "$(q r.db "SELECT status FROM runs")" = complete ] || fail "resume after $sig did not complete"; }
    echo "  $sig after $tenths/10 s: exit $rc, status $st; resumed: $(q r.db "SELECT status FROM runs" 2>/dev/null)"
  done <plan.txt
  ok "8 random signals: status true each time, resumed to complete"
  ;;

arguments) # every argument checked, one line each; options never swallowed; syntax errors say what was expected; names escaped
  small_cfg e.cfg ""
  "$AB" run e.cfg --db a.db >/dev/null 2>&1 || fail "run failed"
  # expected messages: the usage of `attnbench help run/report/...`
  expect_error "run: --shard must be K/N" run e.cfg --shard "1/2 junk" --db a.db
  expect_error "run: --shard must be K/N" run e.cfg --shard " 1/2" --db a.db
  expect_error "run: --devices must be 'all' or CUDA device indices" run e.cfg --devices "0,1x" --db a.db
  expect_error "run: --devices must be 'all' or CUDA device indices" run e.cfg --devices " 0" --db a.db
  expect_error "report: --baseline needs a value" report 1 --baseline --db x.db
  [ ! -e x.db ] || fail "report took '--db' as the baseline and 'x.db' as ... something"
  expect_error "report: -o needs a value" report 1 -o --db a.db
  expect_error "compare: missing value for '--practical'" compare 1 1 --practical --db a.db
  expect_error "stats: --alpha: missing value" stats --alpha --json a b
  expect_error "report: RUN must be a run id, not '1x'" report 1x --db a.db
  expect_error "resume: RUN must be a run id, not '99999999999999999999'" resume 99999999999999999999 --db a.db
  expect_error "resume: RUN must be a run id, not '+1'" resume +1 --db a.db
  expect_error "calibrate: --pairs must be a whole number between 1 and 50, not '3x'" calibrate e.cfg --pairs 3x --db a.db
  expect_error "status: --plan must be a number of parts" status e.cfg --plan " 2" --db a.db
  ATTNBENCH_DB= expect_error "ATTNBENCH_DB is set but empty" runs
  [ "$(ATTNBENCH_DB= "$AB" runs --db a.db | grep -c ' tiny ')" = 1 ] || fail "--db did not win over an empty ATTNBENCH_DB"
  "$AB" export 1 -o - --db a.db | grep -q '"attnbench_export"' || fail "'-o -' is a value, not a missing one"
  # libconfig's "syntax error: syntax error", said with what was expected (lines counted by hand)
  sw='sweep = { S = 16; D = 8; dtype = "fp32"; };\n'
  printf 'name = "x";\nvariants = ["cpu_flash"];\nsamples 3;\n'"$sw" >eq.cfg
  expect_error "eq.cfg:3: syntax error: expected '=' after 'samples'" run eq.cfg --db t.db
  printf 'name = "x;\nvariants = ["cpu_flash"];\n'"$sw" >str.cfg
  expect_error "str.cfg:1: syntax error: unterminated string (the '\"' at column 8" run str.cfg --db t.db
  printf 'name = "x";\nvariants = ["cpu_flash",\n  ];\n'"$sw" >comma.cfg
  expect_error "comma.cfg:2: syntax error: trailing comma before '\]'" run comma.cfg --db t.db
  printf 'name = "x";\nvariants = ( { name = "e"; command = "true"; }, );\n'"$sw" >comma2.cfg
  expect_error "comma2.cfg:2: syntax error: trailing comma before ')'" run comma2.cfg --db t.db
  printf 'name = "x";\nvariants = ["cpu_flash"];\nsweep = { S = 16;\n' >open.cfg
  expect_error "open.cfg:4: syntax error: the file ends inside the '{' opened at line 3" run open.cfg --db t.db
  # control characters: refused in a new experiment's names; escaped where stored ones are printed
  printf 'name = "x\\x1b[31m";\nvariants = ["cpu_flash"];\n'"$sw" >ctl.cfg
  expect_error "ctl.cfg:1: name 'x\\\\x1b\[31m' holds a control character" run ctl.cfg --db t.db
  printf 'name = "x";\nvariants = ("cpu_flash", { name = "e\\x07"; command = "true"; });\n'"$sw" >ctl2.cfg
  expect_error "ctl2.cfg:2: variant name 'e\\\\x07' holds a control character" run ctl2.cfg --db t.db
  [ ! -e t.db ] || [ "$(q t.db "SELECT count(*) FROM runs")" = 0 ] || fail "a refused experiment ran"
  cp a.db z.db
  q z.db "UPDATE measurements SET variant = 'cpu' || char(27) || '[31mflash' WHERE variant = 'cpu_flash';
          UPDATE experiments SET name = 'ti' || char(27) || ']0;pwn' || char(7),
            definition = replace(replace(definition, 'cpu_flash', 'cpu' || char(27) || '[31mflash'),
                                 '\"tiny\"', '\"ti' || char(27) || ']0;pwn' || char(7) || '\"');"
  "$AB" runs --db z.db >o1.txt || fail "runs failed"
  "$AB" show 1 --db z.db >o2.txt || fail "show failed"
  "$AB" report 1 --db z.db -o - --no-plots >o3.txt 2>/dev/null || fail "report failed"
  for f in o1.txt o2.txt o3.txt; do
    # C0 controls and DEL other than newline and tab (UTF-8 text such as an em dash is fine)
    [ "$(tr -d '\n\t' <$f | LC_ALL=C tr -dc '\000-\037\177' | wc -c)" = 0 ] || { cat -v $f >&2; fail "$f: a control character printed raw"; }
  done
  grep -q 'ti\\x1b\]0;pwn\\x07' o1.txt || fail "runs: the name is not shown escaped"
  grep -q 'cpu\\x1b\[31mflash' o2.txt || fail "show: the variant is not shown escaped"
  grep -q 'cpu\\x1b\[31mflash' o3.txt || fail "report: the variant is not shown escaped"
  ok "names with control characters escaped by runs, show and report"
  # help lists every option of report (its parser in src/cli/cmd_report.c)
  for opt in --baseline --chain --by-clock --json --no-plots -o --db; do
    "$AB" help report | grep -q -- "$opt" || fail "help report does not list $opt"
  done
  ok "help report lists every option"
  ;;

inputs) # a FIFO nobody writes to, a device: refused at once with one line, never waited on
  small_cfg e.cfg ""
  mkfifo fifo || { echo "skipped: no mkfifo"; exit 77; }
  printf '1\n2\n3\n' >s.txt
  start=$(date +%s)
  # timeout(1) is the independent judge of "never returns": exit 124 when it had to kill
  for args in "run fifo --db i.db" "import fifo --db i.db" "stats fifo s.txt" "stats s.txt fifo" "calibrate fifo --db i.db"; do
    # shellcheck disable=SC2086
    timeout 20 "$AB" $args >out.txt 2>err.txt; rc=$?
    [ $rc != 124 ] || fail "'attnbench $args' on a FIFO did not return within 20 s"
    [ $rc != 0 ] || fail "'attnbench $args' on a FIFO exited 0"
    grep -q "fifo: .*not a regular file" err.txt || { cat err.txt >&2; fail "'$args': no message naming the FIFO"; }
    [ "$(wc -l <err.txt)" = 1 ] || { cat err.txt >&2; fail "'$args': more than one line"; }
    ok "$args -> $(cat err.txt)"
  done
  timeout 20 "$AB" stats /dev/zero s.txt >out.txt 2>err.txt; rc=$?
  [ $rc != 124 ] && [ $rc != 0 ] || fail "stats /dev/zero: exit $rc"
  grep -q "/dev/zero: is a character device, not a regular file" err.txt || { cat err.txt >&2; fail "stats /dev/zero: no message"; }
  expect_error "/dev/zero: not a regular file" run /dev/zero --db i.db
  [ $(($(date +%s) - start)) -le 30 ] || fail "refusals took more than 30 s"
  [ ! -e i.db ] || [ "$(q i.db "SELECT count(*) FROM runs")" = 0 ] || fail "a refused input stored a run"
  # stdin is still read (an export piped in)
  "$AB" run e.cfg --db a.db >/dev/null 2>&1 || fail "run failed"
  "$AB" export 1 --db a.db | "$AB" import - --db b.db >out.txt || fail "import - failed"
  grep -q "imported 1 run" out.txt || fail "import - did not import"
  ;;

signals-more) # every terminating signal and a closed stderr mark the run; --devices passes a stop on; SIGCHLD ignored by the parent
  slow_cfg s.cfg
  for sig in USR1 USR2 ALRM; do
    rm -f u.db*
    "$AB" run s.cfg --db u.db >/dev/null 2>log.txt &
    pid=$!
    wait_measurements u.db 1
    kill -$sig $pid; wait $pid; rc=$?
    want=$((128 + $(signum $sig)))
    [ $rc = $want ] || { cat log.txt >&2; fail "SIG$sig: exit $rc, expected $want"; }
    [ "$(q u.db "SELECT status FROM runs")" = interrupted ] || fail "SIG$sig: run $(q u.db "SELECT status FROM runs"), not interrupted"
    check_truth u.db 12 200
    ok "SIG$sig: exit $rc, interrupted"
  done
  # stderr a pipe whose reader is gone before the first line: EPIPE, never a run left 'running'
  rm -f p.db*
  ( "$AB" run s.cfg --db p.db 2>&1 >/dev/null; echo $? >rc.txt ) | true
  sleep 0.5
  rc=$(cat rc.txt)
  st=$(q p.db "SELECT status FROM runs")
  [ "$rc" = 141 ] || fail "closed stderr: exit $rc, expected 141"
  [ "$st" = interrupted ] || fail "closed stderr: run $st, not interrupted"
  check_truth p.db 12 200
  ok "stderr closed from the start: exit 141, run interrupted"
  # --devices: SIGTERM at several points while the workers start; never lost
  # (each worker's share, about 3 ms a call of cpu_reference at S ~ 200,
  # takes well over the last kill's 0.5 s, so a "complete" worker can only
  # be one that missed the signal)
  cat >many.cfg <<CFG
name = "many";
variants = ["cpu_reference", "cpu_flash"];
sweep = { B = 1; H = 2; S = [192, 193, 194, 195, 196, 197, 198, 199]; D = 32; dtype = "fp32"; };
warmup = 0;
samples = 200;
round_size = 50;
CFG
  for tenths in 0 1 2 3 5; do
    rm -f d.db*
    "$AB" run "$tmp/many.cfg" --devices 0,0,0,0,0,0,0,0 --db d.db >/dev/null 2>dlog.txt &
    pid=$!
    sleep "$(echo "$tenths" | awk '{ print $1 / 10 }')"
    kill -TERM $pid; wait $pid; rc=$?
    [ $rc != 0 ] || { cat dlog.txt >&2; fail "--devices, SIGTERM after $tenths/10 s: exit 0"; }
    sleep 0.2
    pgrep -f "$tmp/many.cfg --shard" >/dev/null && fail "--devices, SIGTERM after $tenths/10 s: a worker is still running"
    n=$(q d.db "SELECT count(*) FROM runs WHERE status = 'complete'" 2>/dev/null || echo 0)
    [ "$n" = 0 ] || fail "--devices, SIGTERM after $tenths/10 s: $n workers ran to completion"
    check_truth d.db 16 200
    echo "  SIGTERM after $tenths/10 s: exit $rc, runs: $(q d.db "SELECT group_concat(status) FROM runs" 2>/dev/null)"
  done
  ok "--devices: SIGTERM while starting workers is passed on (exit non-zero, no worker left)"
  # started with SIGCHLD ignored (inherited SIG_IGN): adapters still waited for
  if command -v python3 >/dev/null; then
    cat >adapter.sh <<'SH'
#!/bin/sh
i=0
while [ $i -lt "$ATTNBENCH_SAMPLES" ]; do echo "sample 0.5"; i=$((i + 1)); done
echo "check max_abs_err=0 mean_abs_err=0 rel_l2_err=0 plain_max_abs_err=0 nonfinite=0"
SH
    chmod +x adapter.sh
    printf 'name = "c";\nvariants = ( "cpu_flash", { name = "ext"; command = "%s/adapter.sh"; timeout = 20.0; } );\nsweep = { S = 16; D = 8; dtype = "fp32"; };\nsamples = 3;\nwarmup = 0;\n' "$tmp" >c.cfg
    timeout 60 python3 -c 'import os, signal, sys; signal.signal(signal.SIGCHLD, signal.SIG_IGN); os.execv(sys.argv[1], sys.argv[1:])' \
      "$AB" run c.cfg --db c.db >/dev/null 2>clog.txt; rc=$?
    [ $rc = 0 ] || { cat clog.txt >&2; fail "SIGCHLD ignored: exit $rc"; }
    [ "$(q c.db "SELECT status FROM measurements WHERE variant = 'ext'")" = ok ] ||
      fail "SIGCHLD ignored: the adapter's measurement is $(q c.db "SELECT status || ': ' || message FROM measurements WHERE variant = 'ext'")"
    ok "started with SIGCHLD ignored: the adapter was waited for, measurement ok"
  fi
  ;;

reads-never-write) # a command that reads never changes the file, even one of an older schema
  old="$SRC/reports/seeds-and-ladders/attnbench.db"
  [ -f "$old" ] || { echo "skipped: no committed database"; exit 77; }
  cp "$old" o.db
  # the version stored in the file's header (sqlite3(1), read-only)
  v0=$(q -readonly o.db "PRAGMA user_version")
  [ "$v0" -lt "$(q -readonly "$SRC/reports/hold/hold-ab.db" "PRAGMA user_version")" ] ||
    { echo "skipped: reports/seeds-and-ladders/attnbench.db is not older than the newest committed schema"; exit 77; }
  sum0=$(sha256sum <o.db)
  # the experiment of runs 11-13 as stored (sqlite3's writefile: the exact text)
  q -readonly o.db "SELECT writefile('rd.cfg', definition) FROM experiments x JOIN runs r ON r.experiment_id = x.id WHERE r.id = 11" >/dev/null
  n=0
  while read -r cmd; do
    # shellcheck disable=SC2086
    eval "\"\$AB\" $cmd --db o.db" >out.txt 2>err.txt || { cat err.txt >&2; fail "'$cmd' on a schema-$v0 database failed"; }
    [ -s out.txt ] || [ -s r.md ] || fail "'$cmd' printed nothing"
    [ "$(sha256sum <o.db)" = "$sum0" ] || fail "'$cmd' changed the database file"
    n=$((n + 1))
  done <<'CMDS'
query "SELECT count(*) FROM runs"
runs
runs --json
show 11
report 11 -o r.md --no-plots
report 11 --json -o -
compare 11 12
history cuda_mma_pipeline --config 4,16,2048,128,causal,fp16
status rd.cfg
export 11
export 11 --format csv
CMDS
  [ "$(q -readonly o.db "PRAGMA user_version")" = "$v0" ] || fail "the schema version changed"
  "$AB" runs --db o.db | grep -q '^ *13  regress-demo ' || fail "runs does not list run 13 (regress-demo)"
  # query on an older schema refuses writes as on a current one
  expect_error "query: refused" query "DELETE FROM samples" --db o.db
  expect_error "query: refused" query "PRAGMA user_version = 11" --db o.db
  [ "$(sha256sum <o.db)" = "$sum0" ] || fail "a refused query changed the database file"
  ok "$n read commands on a schema-$v0 database: all succeed, the file unchanged (sha256)"
  ;;

output-not-database) # no output path names a database or its -journal, -wal, -shm files
  small_cfg e.cfg ""
  "$AB" run e.cfg --db r.db >/dev/null 2>&1 && "$AB" run e.cfg --db r.db >/dev/null 2>&1 || fail "runs failed"
  cp r.db other.db
  q r.db "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
  cp r.db r.orig
  mkdir sub
  # a WAL header and a rollback-journal header (sqlite.org/fileformat2.html),
  # under names SQLite would not look for
  printf '\067\177\006\202\000\055\342\030' >wal.bin
  printf '\331\325\005\371\040\241\143\327' >journal.bin
  cp wal.bin wal.orig; cp journal.bin journal.orig
  while read -r pat cmd; do
    rm -f out.txt
    # shellcheck disable=SC2086
    expect_error "$pat" $cmd
  done <<'CMDS'
write-ahead.log.of.the.database.r.db report 1 --json -o r.db-wal --db r.db
shared-memory.index.of.the.database.r.db report 1 -o r.db-shm --no-plots --db r.db
rollback.journal.of.the.database.r.db export 1 -o r.db-journal --db r.db
rollback.journal.of.the.database.r.db export 1 --format csv -o sub/../r.db-journal --db r.db
refusing.to.write.over.the.database export 1 -o sub/../r.db --db r.db
refusing.to.write.over.the.database report 1 -o ./r.db --no-plots --db r.db
write-ahead.log.of.the.database.r.db history cpu_flash --config 1,1,16,8,noncausal,fp32 --plot r.db-wal --db r.db
write-ahead.log.of.the.SQLite.database.other.db export 1 -o other.db-wal --db r.db
shared-memory.index.of.the.SQLite.database.other.db report 1 --json -o other.db-shm --db r.db
it.is.an.SQLite.database report 1 -o other.db --no-plots --db r.db
it.is.an.SQLite.write-ahead.log export 1 -o wal.bin --db r.db
it.is.an.SQLite.rollback.journal report 1 --json -o journal.bin --db r.db
CMDS
  for f in r.db-journal other.db-wal other.db-shm; do [ ! -e "$f" ] || fail "$f was created"; done
  [ ! -s r.db-wal ] || fail "r.db-wal has content"
  cmp -s wal.bin wal.orig && cmp -s journal.bin journal.orig || fail "a refused target was changed"
  cmp -s r.db r.orig || fail "the database file changed"
  [ "$(q r.db "PRAGMA integrity_check")" = ok ] || fail "the database is damaged"
  [ "$(q r.db "SELECT count(*) FROM samples")" = 48 ] || fail "samples lost"
  # ordinary names beside the database are still written
  "$AB" export 1 -o r.db.json --db r.db >/dev/null 2>&1 && [ -s r.db.json ] || fail "export -o r.db.json was refused"
  ok "12 output paths naming a database, its companions or SQLite files refused; the database intact"
  ;;

negative-schema) # a negative PRAGMA user_version: every command refuses it in one line
  small_cfg e.cfg ""
  "$AB" run e.cfg --db g.db >/dev/null 2>&1 && "$AB" run e.cfg --db g.db >/dev/null 2>&1 || fail "runs failed"
  "$AB" export 1 --db g.db -o one.json >/dev/null || fail "export failed"
  cp g.db n.db
  q n.db "PRAGMA user_version = -3"
  q n.db "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
  cp n.db n.orig
  n=0
  while read -r cmd; do
    # shellcheck disable=SC2086
    expect_error "n.db: schema version -3 (PRAGMA user_version) is not one attnbench writes" $cmd --db n.db
    n=$((n + 1))
  done <<'CMDS'
runs
show 1
report 1 -o r.md --no-plots
compare 1 2
export 1
query SELECT(1)
history cpu_flash --config 1,1,16,8,noncausal,fp32
status e.cfg
run e.cfg
import one.json
resume 1
merge g.db
CMDS
  expect_error "merge: n.db: schema version -3 (PRAGMA user_version) is not one attnbench writes" merge n.db --db m.db
  cmp -s n.db n.orig || fail "a refused command changed the database"
  [ ! -e r.md ] || fail "a report was written"
  ok "$n commands on a database with user_version -3 refuse it, and merge of it"
  ;;

corrupt-pages) # two middle pages of random bytes: every command that reads fails naming the file
  for src in "$SRC/reports/hold/hold-ab.db" "$SRC/reports/seeds-and-ladders/attnbench.db"; do
    [ -f "$src" ] || { echo "skipped: no committed database $src"; exit 77; }
    rm -f c.db c.db-wal c.db-shm c.md
    cp "$src" c.db
    q -readonly c.db "SELECT writefile('c.cfg', definition) FROM experiments WHERE id = 1" >/dev/null
    ps=$(q -readonly c.db "PRAGMA page_size"); pc=$(q -readonly c.db "PRAGMA page_count")
    # 2 pages of bytes from a fixed seed (awk's rand) over pages pc/2 and pc/2 + 1
    LC_ALL=C awk -v n=$((2 * ps)) 'BEGIN { srand(1414); for (i = 0; i < n; i++) printf "%c", int(rand() * 256) }' >junk.bin
    [ "$(wc -c <junk.bin)" = $((2 * ps)) ] || fail "junk.bin is not 2 pages"
    dd if=junk.bin of=c.db bs="$ps" seek=$((pc / 2)) conv=notrunc 2>/dev/null
    # the damage as SQLite itself sees it
    [ "$(q -readonly c.db "PRAGMA quick_check" 2>&1)" != ok ] || fail "the bytes did not damage $src"
    sum0=$(sha256sum <c.db)
    n=0
    while read -r cmd; do
      # shellcheck disable=SC2086
      expect_error "c.db: the database is damaged" $cmd --db c.db
      n=$((n + 1))
    done <<'CMDS'
runs
runs --json
show 1
report 1 -o c.md --no-plots
compare 1 2
history cublas_standard --config 8,8,512,64,noncausal,fp16
status c.cfg
export 1 -o c.json
export 1 --format csv
query SELECT(1)
CMDS
    expect_error "merge: c.db: the database is damaged" merge c.db --db m.db
    [ ! -e c.md ] && [ ! -e c.json ] || fail "a report or export was written from a damaged database"
    [ "$(sha256sum <c.db)" = "$sum0" ] || fail "a command changed the damaged file"
    ok "$(basename "$src") with pages $((pc / 2))-$((pc / 2 + 1)) of $pc overwritten: $n read commands and merge fail naming c.db"
  done
  ;;

experiment-identity) # the hash ignores comments and whitespace; @include is stored expanded
  small_cfg e.cfg ""
  "$AB" run e.cfg --db x.db >/dev/null 2>&1 || fail "run failed"
  # the same experiment, commented and re-indented
  { echo "# notes on this experiment"; echo "/* a block"; echo "   comment */";
    sed 's/ = /   =   /; s/;$/;   \/\/ trailing/' e.cfg; echo; echo "  # the end"; } >e2.cfg
  cmp -s e.cfg e2.cfg && fail "e2.cfg is e.cfg"
  "$AB" status e2.cfg --db x.db >st.txt 2>&1 || { cat st.txt >&2; fail "status of the commented copy exited non-zero"; }
  grep -q "no run of this experiment" st.txt && fail "status of the commented copy finds no run"
  grep -q "1 of 1 parts complete" st.txt || { cat st.txt >&2; fail "status of the commented copy: not complete"; }
  h1=$("$AB" status e.cfg --db x.db | sed -n 's/.*hash \([0-9a-f]*\)).*/\1/p')
  h2=$(sed -n 's/.*hash \([0-9a-f]*\)).*/\1/p' st.txt)
  [ -n "$h1" ] && [ "$h1" = "$h2" ] || fail "hashes differ: $h1 $h2"
  # a real change (the sample count) is another experiment; '#' inside a string is text
  sed 's/samples = 6;/samples = 7;/' e.cfg >e3.cfg
  "$AB" status e3.cfg --db x.db >st3.txt 2>&1; [ $? = 3 ] && grep -q "no run of this experiment" st3.txt || fail "a changed experiment matched"
  sed 's/name = "tiny";/name = "tiny # 1";/' e.cfg >e4.cfg
  "$AB" status e4.cfg --db x.db >st4.txt 2>&1; [ $? = 3 ] || fail "a '#' inside a string was read as a comment"
  ok "a commented, re-indented copy has the run's hash ($h1); a changed one does not"
  # runs stored under the older hash (FNV-1a of the file's bytes): the
  # committed two-GPU split, found from its file with a comment added
  if [ -f "$SRC/reports/two-gpus/two-gpus.db" ] && [ -f "$SRC/experiments/two-gpus.cfg" ]; then
    cp "$SRC/reports/two-gpus/two-gpus.db" two.db
    { cat "$SRC/experiments/two-gpus.cfg"; echo "# rerun on 2 GPUs"; } >two.cfg
    "$AB" status two.cfg --db two.db >st.txt 2>&1 || { cat st.txt >&2; fail "status of the committed split with a comment added"; }
    grep -q "2 of 2 parts complete" st.txt || { cat st.txt >&2; fail "the committed split's parts not found"; }
    ok "the committed two-GPU split (stored under the older hash) found from its file with a comment"
  fi
  # @include: the run stores the expanded text; resume measures the stored sweep
  mkdir sub
  printf 'sweep = { B = 1; H = 2; S = [48, 49, 50, 51, 52, 53]; D = 16; dtype = "fp32"; };\n' >sub/sweep.inc
  printf 'name = "inc";\nvariants = ["cpu_reference", "cpu_flash"];\n@include "sweep.inc"\nwarmup = 0;\nsamples = 200;\nround_size = 50;\n' >sub/inc.cfg
  "$AB" run sub/inc.cfg --db i.db >/dev/null 2>log.txt &
  pid=$!
  wait_measurements i.db 2
  kill -INT $pid; wait $pid
  [ "$(q i.db "SELECT status FROM runs")" = interrupted ] || { cat log.txt >&2; fail "the include run was not interrupted"; }
  q i.db "SELECT definition FROM experiments" >def.txt
  grep -q "@include" def.txt && fail "the stored definition still has @include"
  grep -q "S = \[48, 49, 50, 51, 52, 53\]" def.txt || fail "the stored definition lacks the included sweep"
  printf 'sweep = { B = 1; H = 2; S = [64, 65]; D = 16; dtype = "fp32"; };\n' >sub/sweep.inc
  "$AB" resume 1 --db i.db >/dev/null 2>r.txt || { cat r.txt >&2; fail "resume failed"; }
  [ "$(q i.db "SELECT status FROM runs")" = complete ] || fail "the resumed run is not complete"
  # the stored sweep: 6 S values x 2 variants, none of the new file's
  [ "$(q i.db "SELECT count(*) FROM measurements")" = 12 ] || fail "not 12 measurements after resume"
  [ "$(q i.db "SELECT group_concat(S) FROM (SELECT DISTINCT S FROM measurements ORDER BY S)")" = "48,49,50,51,52,53" ] ||
    fail "resume measured another sweep: $(q i.db "SELECT DISTINCT S FROM measurements")"
  ok "@include stored expanded; resume after the included file changed measured the stored sweep"
  ;;

import-identity) # a uuid is one run's results: conflicts refused naming both, linear time
  small_cfg e.cfg ""
  "$AB" run e.cfg --db a.db >/dev/null 2>&1 || fail "run failed"
  "$AB" export 1 --db a.db -o one.json >/dev/null || fail "export failed"
  "$AB" import one.json --db b.db >/dev/null || fail "first import failed"
  "$AB" import one.json --db b.db >out.txt || fail "the same import again failed"
  grep -q "imported 0 runs, 1 already present" out.txt || fail "the same run again: $(cat out.txt)"
  uuid=$(q b.db "SELECT uuid FROM runs")
  cp b.db b.orig
  # the same uuid, one sample changed (the 2nd latency, with sed), or another status
  sed 's/"ms":[0-9.e+-]*/"ms":0.5/2' one.json >samples.json
  cmp -s samples.json one.json && fail "the sample edit changed nothing"
  sed 's/"status":"complete"/"status":"interrupted"/' one.json >status.json
  cmp -s status.json one.json && fail "the status edit changed nothing"
  expect_error "import: samples.json: runs\[0\] (uuid $uuid) is already in .*b.db as run 1 with other results (measurements\[0\] (cpu_reference) has other samples there" import samples.json --db b.db
  expect_error "import: status.json: runs\[0\] (uuid $uuid) is already in .*b.db as run 1 with other results (status 'complete' there, 'interrupted' in the file)" import status.json --db b.db
  cmp -s b.db b.orig || fail "a refused import changed the database"
  # one file, one uuid twice: the same run is imported once; two results refused
  "$AB" export 1 1 --db a.db -o twice.json >/dev/null || fail "export 1 1 failed"
  "$AB" import twice.json --db t.db >out.txt || fail "a file with the same run twice failed"
  grep -q "imported 1 run, 1 already present" out.txt || fail "the same run twice: $(cat out.txt)"
  sed 's/\(.*\)"ms":[0-9.e+-]*/\1"ms":0.5/' twice.json >conflict.json   # the last sample: the 2nd copy
  expect_error "import: conflict.json: runs\[1\].uuid: $uuid is also the uuid of runs\[0\], with other contents" import conflict.json --db c.db
  [ ! -e c.db ] || fail "a refused file created the database"
  ok "a uuid already present with other samples or status, or twice in one file with other contents, is refused naming both"
  # linear time: N runs of one tiny measurement each (the run object with
  # its uuid replaced, by sed and awk), 500 and 2000; a quadratic check
  # takes 16 times as long for 4 times the runs, a linear one 4 times
  printf 'name = "one";\nvariants = ["cpu_flash"];\nsweep = { S = 16; D = 8; dtype = "fp32"; };\nwarmup = 0;\nsamples = 3;\n' >one.cfg
  "$AB" run one.cfg --db o.db >/dev/null 2>&1 && "$AB" export 1 --db o.db -o tiny.json >/dev/null || fail "the tiny run failed"
  uuid=$(q o.db "SELECT uuid FROM runs")
  # the export is one line: {"attnbench_export":1,"runs":[RUN]MORE}
  sed 's/^{"attnbench_export":1,"runs":\[//; s/\][^]]*$//' tiny.json >run.txt
  sed 's/.*\]//' tiny.json >tail.txt
  gen() { # N file
    awk -v n="$1" -v u="$uuid" 'BEGIN { getline r <"run.txt"; getline t <"tail.txt";
      printf "{\"attnbench_export\":1,\"runs\":[";
      for (i = 1; i <= n; i++) { x = r; sub(u, sprintf("%08x-0000-4000-8000-%012x", i, i), x); printf "%s%s", (i > 1 ? "," : ""), x }
      print "]" t }' >"$2"
  }
  gen 500 n500.json; gen 2000 n2000.json
  t0=$(date +%s.%N); "$AB" import n500.json --db n500.db >/dev/null || fail "import of 500 runs failed"
  t1=$(date +%s.%N); "$AB" import n2000.json --db n2000.db >/dev/null || fail "import of 2000 runs failed"
  t2=$(date +%s.%N)
  [ "$(q n2000.db "SELECT count(*) FROM runs")" = 2000 ] || fail "not 2000 runs imported"
  ratio=$(echo "$t0 $t1 $t2" | awk '{ printf "%.1f", ($3 - $2) / ($2 - $1) }')
  awk -v r="$ratio" 'BEGIN { exit !(r < 8) }' || fail "2000 runs took $ratio times as long as 500 (linear: 4, quadratic: 16)"
  ok "import of 2000 runs took $ratio times as long as 500 ($(echo "$t1 $t2" | awk '{ printf "%.1f", $2 - $1 }') s)"
  ;;

merge-safety) # merge keeps unfinished old runs, creates nothing for a missing file, refuses itself
  old="$SRC/reports/seeds-and-ladders/attnbench.db"
  [ -f "$old" ] || { echo "skipped: no committed database"; exit 77; }
  # a database from before liveness (schema 4) with an unfinished run
  cp "$old" pre.db
  [ "$(q pre.db "SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'boot_id'")" = 0 ] || fail "pre.db has liveness columns"
  q pre.db "UPDATE runs SET status = 'running', finished_at = NULL WHERE id = 13"
  n=$(q pre.db "SELECT count(*) FROM runs")
  "$AB" merge pre.db --db m.db >out.txt 2>err.txt || { cat err.txt >&2; fail "merge of a pre-liveness database failed"; }
  [ "$(q m.db "SELECT count(*) FROM runs")" = "$n" ] || fail "merge dropped a run: $(q m.db "SELECT count(*) FROM runs") of $n; $(cat out.txt)"
  u=$(q pre.db "SELECT uuid FROM runs WHERE id = 13")
  [ "$(q m.db "SELECT status FROM runs WHERE uuid = '$u'")" = running ] || fail "the unfinished run was not kept as it was"
  grep -q "run $u of pre.db is 'running' in a database from before liveness" err.txt || { cat err.txt >&2; fail "the unfinished run was not said"; }
  [ "$(q m.db "SELECT count(*) FROM samples s JOIN measurements m ON m.id = s.measurement_id JOIN runs r ON r.id = m.run_id WHERE r.uuid = '$u'")" = \
    "$(q pre.db "SELECT count(*) FROM samples s JOIN measurements m ON m.id = s.measurement_id WHERE m.run_id = 13")" ] || fail "the unfinished run's samples differ"
  ok "a pre-liveness unfinished run is merged as it is and said ($(grep -o 'merged [0-9]* runs[^,]*' out.txt))"
  # a missing OTHER: nothing created
  expect_error "merge: cannot read nosuch.db: No such file or directory" merge nosuch.db --db fresh.db
  [ ! -e fresh.db ] || fail "merge of a missing file created fresh.db"
  [ ! -e nosuch.db ] || fail "merge of a missing file created nosuch.db"
  echo "not a database" >text.db
  expect_error "merge: text.db is not an SQLite database" merge text.db --db fresh.db
  [ ! -e fresh.db ] || fail "merge of a text file created fresh.db"
  # OTHER is the database itself: refused at once, not after the lock's 60 s
  cp m.db m.orig
  start=$(date +%s)
  expect_error "merge: m.db is the database itself (--db m.db)" merge m.db --db m.db
  ln -s m.db alias.db
  expect_error "merge: alias.db is the database itself (--db m.db)" merge alias.db --db m.db
  [ $(($(date +%s) - start)) -le 5 ] || fail "refusing to merge a database into itself took more than 5 s"
  cmp -s m.db m.orig || fail "a refused merge changed the database"
  ok "merge: missing and non-SQLite files refused creating nothing; itself refused at once"
  ;;

*) fail "unknown case $case_name" ;;
esac
exit 0
