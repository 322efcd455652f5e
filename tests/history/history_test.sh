#!/bin/sh
# tests/history/history_test.sh: runs across databases and time: merge
# idempotence, export -> import round trip, regression detection by
# `compare`, change points by `history`, the read-only `query`, and the
# `runs` filters. Usage: history_test.sh CASE ATTNBENCH
# Each case runs in a fresh temporary directory on databases made by tiny CPU
# experiments (as tests/cli does); synthetic series are made from them with
# sqlite3(1) (deterministic samples, new uuids and dates) and moved with
# attnbench's own merge/import. Exit 0 pass, 1 fail, 77 skipped.
set -u
case_name=$1; AB=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v sqlite3 >/dev/null 2>&1 || { echo "skipped: no sqlite3"; exit 77; }
q() { sqlite3 "$1" "$2"; }

tiny_cfg() { # file, seed
  cat >"$1" <<CFG
name = "tiny";
hypothesis = "cpu_flash and cpu_reference compute the same attention.";
variants = ["cpu_reference", "cpu_flash"];
baseline = "cpu_reference";
sweep = { B = 1; H = 2; S = [16, 33]; D = 8; causal = [false, true]; dtype = "fp32"; };
warmup = 1;
samples = 24;
round_size = 2;
seed = $2;
CFG
}
tiny_run() { # db, seed
  tiny_cfg "t$2.cfg" "$2"
  "$AB" run "t$2.cfg" --db "$1" >/dev/null 2>run.log || { cat run.log >&2; fail "tiny run into $1 failed"; }
}
counts() { # db: rows of every table, one line
  for t in runs environments experiments measurements samples clock_blocks timer_floor; do
    printf '%s=%s ' "$t" "$(q "$1" "SELECT count(*) FROM $t")"
  done
}
# every sample of the runs whose uuid is listed in table-less form, by identity
dump() { # db, uuid
  q "$1" "SELECT r.uuid, x.hash, v.hash, m.variant, m.B, m.H, m.S, m.D, m.causal, m.dtype, m.status,
                 s.idx, printf('%.17g', s.ms), s.round, printf('%.17g', s.t_s), s.throttled
          FROM samples s JOIN measurements m ON m.id = s.measurement_id JOIN runs r ON r.id = m.run_id
          JOIN experiments x ON x.id = r.experiment_id JOIN environments v ON v.id = r.environment_id
          WHERE r.uuid = '$2' ORDER BY m.variant, m.S, m.causal, s.idx"
}
# A base run with deterministic samples: per measurement a level, 24 values
# spread over 1.1% around it (no CPU timing noise in what compare sees), in
# 12 rounds: enough for compare's paired test over rounds to reach p < 0.05
# after Holm over the 8 pairs (3 rounds could not: 2/2^3 = 0.25).
base_db() { # db
  tiny_run "$1" 7
  q "$1" "UPDATE samples SET ms = (0.5 + 0.1 * measurement_id) * (1 + 0.001 * ((idx * 7) % 12)), throttled = 0"
}
# derived run: a copy of run 1 of SRC with a new uuid and date, the samples
# of VARIANT scaled by FACTOR, into DEST by export -> sqlite3 edit -> import
derive() { # src, dest, uuid, date, variant, factor
  rm -f d.db d.json
  "$AB" export 1 --db "$1" -o base.json || fail "export failed"
  "$AB" import base.json --db d.db >/dev/null || fail "import into d.db failed"
  q d.db "UPDATE runs SET uuid = '$3', started_at = '$4';
          UPDATE samples SET ms = ms * $6 WHERE measurement_id IN
            (SELECT id FROM measurements WHERE variant = '$5')"
  "$AB" export 1 --db d.db -o d.json || fail "export of the edited run failed"
  "$AB" import d.json --db "$2" >/dev/null || fail "import of the edited run failed"
}

case $case_name in
merge-idempotent)
  tiny_run a.db 1   # the same experiment file everywhere: one experiment row
  tiny_run b.db 1
  tiny_run b.db 1
  # some samples and clock blocks flagged throttled (a CPU run has none):
  # the flags are part of what merge must copy
  q b.db "UPDATE samples SET throttled = (idx % 3 = 1); UPDATE clock_blocks SET throttled = (round % 2)"
  nthr=$(q b.db "SELECT count(*) FROM samples WHERE throttled")
  [ "$nthr" -gt 0 ] || fail "no sample flagged throttled in b.db"
  ca=$(counts a.db); cb=$(counts b.db)
  out=$("$AB" merge b.db --db a.db) || fail "merge failed"
  echo "$out" | grep -q "merged 2 runs, 0 already present" || fail "first merge said: $out"
  [ "$(q a.db "SELECT count(*) FROM samples WHERE throttled")" = "$nthr" ] ||
    fail "throttled samples: $nthr in b.db, $(q a.db "SELECT count(*) FROM samples WHERE throttled") merged into a.db"
  [ "$(q a.db "SELECT count(*) FROM clock_blocks WHERE throttled")" = "$(q b.db "SELECT count(*) FROM clock_blocks WHERE throttled")" ] ||
    fail "throttled clock blocks not carried over by merge"
  after1=$(counts a.db)
  for t in runs measurements samples clock_blocks timer_floor; do
    na=$(echo "$ca" | tr ' ' '\n' | sed -n "s/^$t=//p"); nb=$(echo "$cb" | tr ' ' '\n' | sed -n "s/^$t=//p")
    n1=$(echo "$after1" | tr ' ' '\n' | sed -n "s/^$t=//p")
    [ "$n1" = $((na + nb)) ] || fail "$t: $na + $nb merged into $n1 rows"
  done
  [ "$(q a.db "SELECT count(*) FROM experiments")" = 1 ] || fail "the shared experiment was duplicated"
  [ "$(q a.db "SELECT count(*) FROM environments")" = 1 ] || fail "the shared environment was duplicated"
  out=$("$AB" merge b.db --db a.db) || fail "second merge failed"
  echo "$out" | grep -q "merged 0 runs, 2 already present" || fail "second merge said: $out"
  [ "$(counts a.db)" = "$after1" ] || fail "second merge changed row counts: $after1 -> $(counts a.db)"
  for u in $(q b.db "SELECT uuid FROM runs"); do
    dump b.db "$u" >from_b.txt; dump a.db "$u" >in_a.txt
    [ -s from_b.txt ] || fail "no samples dumped for $u"
    cmp -s from_b.txt in_a.txt || fail "samples of run $u differ after merging"
  done
  # the other way round changes nothing twice; a database merged into
  # itself is refused at once (it would wait on its own write lock)
  "$AB" merge a.db --db b.db >/dev/null || fail "merge back failed"
  [ "$(q b.db "SELECT group_concat(uuid) FROM (SELECT uuid FROM runs ORDER BY uuid)")" = \
    "$(q a.db "SELECT group_concat(uuid) FROM (SELECT uuid FROM runs ORDER BY uuid)")" ] || fail "run sets differ after merging both ways"
  if "$AB" merge a.db --db a.db >/dev/null 2>err.txt; then fail "merging a database into itself succeeded"; fi
  grep -q "a.db is the database itself" err.txt || fail "self-merge: $(cat err.txt)"
  [ "$(counts a.db)" = "$after1" ] || fail "self-merge changed row counts"
  # a file that is not a database is refused and a.db is unchanged
  echo "not a database" >bad.db
  if "$AB" merge bad.db --db a.db >/dev/null 2>err.txt; then fail "merging a non-database succeeded"; fi
  [ "$(counts a.db)" = "$after1" ] || fail "a failed merge changed row counts"
  echo "ok: $after1"
  ;;
export-import-roundtrip)
  tiny_run a.db 1
  tiny_run a.db 2
  "$AB" export 1 2 --db a.db -o e1.json || fail "export failed"
  out=$("$AB" import e1.json --db n.db) || fail "import failed"
  echo "$out" | grep -q "imported 2 runs, 0 already present" || fail "import said: $out"
  c1=$(counts n.db)
  out=$("$AB" import e1.json --db n.db) || fail "second import failed"
  echo "$out" | grep -q "imported 0 runs, 2 already present" || fail "second import said: $out"
  [ "$(counts n.db)" = "$c1" ] || fail "second import changed row counts"
  [ "$(counts n.db)" = "$(counts a.db)" ] || fail "row counts differ: $(counts a.db) vs $(counts n.db)"
  "$AB" export 1 2 --db n.db -o e2.json || fail "export of the import failed"
  cmp -s e1.json e2.json || fail "export -> import -> export is not the identity"
  "$AB" export 1 2 --db a.db --format csv -o c1.csv && "$AB" export 1 2 --db n.db --format csv -o c2.csv || fail "csv export failed"
  cmp -s c1.csv c2.csv || fail "CSV exports differ"
  [ "$(wc -l <c1.csv)" = $(( $(q a.db "SELECT count(*) FROM samples") + 1 )) ] || fail "CSV is not one row per sample"
  for u in $(q a.db "SELECT uuid FROM runs"); do
    dump a.db "$u" >x.txt; dump n.db "$u" >y.txt
    cmp -s x.txt y.txt || fail "samples of $u differ after the round trip"
  done
  # a broken file imports nothing
  head -c 2000 e1.json >cut.json
  if "$AB" import cut.json --db n.db >/dev/null 2>&1; then fail "a truncated export imported"; fi
  [ "$(counts n.db)" = "$c1" ] || fail "a failed import changed row counts"
  echo "ok: $c1"
  ;;
regression)
  base_db a.db
  derive a.db a.db 00000000-0000-4000-8000-00000000510e 2030-01-02T00:00:00Z cpu_flash 1.10
  derive a.db a.db 00000000-0000-4000-8000-00000000face 2030-01-03T00:00:00Z cpu_flash 1.0
  derive a.db a.db 00000000-0000-4000-8000-0000000000ab 2030-01-04T00:00:00Z cpu_flash 1.003
  [ "$(q a.db "SELECT count(*) FROM runs")" = 4 ] || fail "expected 4 runs"
  "$AB" compare 1 2 --db a.db --fail-on-regression >slow.txt; rc=$?
  [ $rc = 3 ] || { cat slow.txt >&2; fail "compare of a 10% slower run exited $rc, expected 3"; }
  [ "$(grep -c 'cpu_flash .*REGRESSED' slow.txt)" = 4 ] || { cat slow.txt >&2; fail "expected cpu_flash regressed in 4 configurations"; }
  grep 'cpu_reference' slow.txt | grep -q REGRESSED && fail "cpu_reference flagged"
  grep -q '+10.00%' slow.txt || fail "the change is not +10.00%"
  grep -q "identical environments" slow.txt || fail "environment difference reported for one environment"
  "$AB" compare 1 2 --db a.db >/dev/null || fail "without --fail-on-regression the exit status must be 0"
  "$AB" compare 2 1 --db a.db --fail-on-regression >fast.txt || fail "the reverse comparison is not a regression"
  [ "$(grep -c 'cpu_flash .*improved' fast.txt)" = 4 ] || { cat fast.txt >&2; fail "the reverse comparison is not improved x4"; }
  for r in 3 4; do
    "$AB" compare 1 $r --db a.db --fail-on-regression >same.txt || { cat same.txt >&2; fail "unchanged rerun $r flagged (exit $?)"; }
    grep -q "0 improved, 0 regressed, 8 unchanged" same.txt || { cat same.txt >&2; fail "unchanged rerun $r: not 8 unchanged"; }
  done
  # a practical threshold above the change hides it; uuid prefixes name runs
  "$AB" compare 1 00000000-0000-4000-8000-00000000510e --db a.db --practical 0.2 --fail-on-regression >/dev/null || fail "--practical 0.2 still flags a 10% change"
  # an environment change is reported first
  q a.db "INSERT INTO environments(hash, fingerprint) SELECT 'feedfeedfeedfeed', json_set(fingerprint, '$.build.commit', 'abcdef123456') FROM environments LIMIT 1;
          UPDATE runs SET environment_id = (SELECT id FROM environments WHERE hash = 'feedfeedfeedfeed') WHERE id = 3"
  "$AB" compare 1 3 --db a.db | grep -q 'build.commit: ".*" -> "abcdef123456"' || fail "environment difference not reported"
  echo "ok"
  ;;
history-changepoint)
  base_db a.db
  # 8 runs in time order; cpu_flash 15% slower from the 5th on, with 0.2%
  # run-to-run wobble; cpu_reference unchanged but for the wobble
  for i in 1 2 3 4 5 6 7 8; do
    f=$(awk -v i=$i 'BEGIN { printf "%.4f", (i >= 5 ? 1.15 : 1.0) * (1 + 0.002 * ((i * 3) % 4)) }')
    derive a.db h.db "00000000-0000-4000-8000-00000000000$i" "2030-02-0${i}T00:00:00Z" cpu_flash "$f"
  done
  q h.db "UPDATE runs SET started_at = '2030-02-09T00:00:00Z' WHERE uuid = '00000000-0000-4000-8000-000000000007'" # time order, not id order
  "$AB" history cpu_flash --config 1,2,33,8,causal,fp32 --db h.db >h.txt || fail "history failed"
  [ "$(grep -c '<- change point' h.txt)" = 1 ] || { cat h.txt >&2; fail "expected one change point"; }
  grep -q '^ *5 .*<- change point' h.txt || { cat h.txt >&2; fail "the change point is not at run 5"; }
  grep -q 'run 5 .*+1[45]\.[0-9]*% (SLOWER)' h.txt || { cat h.txt >&2; fail "the step is not +14-16% SLOWER"; }
  [ "$(sed -n '11p' h.txt | awk '{ print $1 }')" = 7 ] || { cat h.txt >&2; fail "runs are not in time order"; }
  "$AB" history cpu_reference --config 1,2,33,8,causal,fp32 --db h.db >r.txt || fail "history failed"
  grep -q "none: one level" r.txt || { cat r.txt >&2; fail "a change point in an unchanged series"; }
  # a configuration pattern that matches two series is refused
  if "$AB" history cpu_flash --config 1,2,33,8 --db h.db >/dev/null 2>err.txt; then fail "an ambiguous --config was accepted"; fi
  grep -q "matches several configurations" err.txt || fail "ambiguity message: $(cat err.txt)"
  if command -v gnuplot >/dev/null 2>&1; then
    "$AB" history cpu_flash --config 1,2,33,8,causal,fp32 --db h.db --plot h.svg >/dev/null || fail "history --plot failed"
    grep -q '<svg' h.svg || fail "no SVG written"
  fi
  echo "ok"
  ;;
query-readonly)
  tiny_run a.db 1
  sum() { cat a.db a.db-wal 2>/dev/null | cksum; }
  before=$(sum)
  for sql in "INSERT INTO runs(uuid) VALUES ('x')" "DELETE FROM samples" "DROP TABLE samples" \
             "UPDATE samples SET ms = 0" "ATTACH DATABASE 'other.db' AS o" "PRAGMA user_version = 9" \
             "PRAGMA journal_mode = DELETE" "CREATE TABLE t(x)" "SELECT 1; DELETE FROM samples" \
             "DETACH DATABASE main" "VACUUM"; do
    if "$AB" query "$sql" --db a.db >out.txt 2>err.txt; then fail "query accepted: $sql"; fi
    grep -Eq "refused|one statement" err.txt || fail "no clear refusal for '$sql': $(cat err.txt)"
  done
  [ ! -e other.db ] || fail "ATTACH created a file"
  [ "$(sum)" = "$before" ] || fail "the database changed"
  [ "$(q a.db "SELECT count(*) FROM samples")" = 192 ] || fail "samples lost"
  # reads work; the view's SQL median equals sort(1)'s median of the samples
  "$AB" query "SELECT variant, S, causal, n, median_ms FROM measurement_summary ORDER BY measurement_id" --db a.db >t.txt || fail "a SELECT was refused"
  [ "$(sed -n '2p' t.txt | tr -d ' -')" = "" ] || fail "no header rule"
  grep -q "(8 rows)" t.txt || fail "expected 8 rows"
  for id in $(q a.db "SELECT id FROM measurements"); do
    med=$(q a.db "SELECT ms FROM samples WHERE measurement_id = $id AND throttled = 0" | sort -g |
          awk '{ v[NR] = $1 } END { if (NR % 2) m = v[(NR + 1) / 2]; else m = (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.9g", m }')
    got=$(q a.db "SELECT printf('%.9g', median_ms) FROM measurement_summary WHERE measurement_id = $id")
    [ "$med" = "$got" ] || fail "measurement $id: view median $got, sort median $med"
  done
  "$AB" query "SELECT experiment, run_id FROM latest_runs" --db a.db | grep -q "tiny  *1" || fail "latest_runs"
  ;;
runs-filters)
  tiny_run a.db 1
  tiny_run a.db 2
  q a.db "UPDATE runs SET started_at = '2020-01-01T00:00:00Z' WHERE id = 1"
  n() { "$AB" runs --db a.db "$@" | tail -n +2 | wc -l; }
  [ "$(n)" = 2 ] || fail "runs lists $(n) runs"
  [ "$(n --variant cpu_flash)" = 2 ] || fail "--variant cpu_flash"
  [ "$(n --variant cuda_naive)" = 0 ] || fail "--variant cuda_naive"
  [ "$(n --gpu 'cpu ONLY')" = 2 ] || fail "--gpu is not a case-insensitive substring"
  [ "$(n --gpu H200)" = 0 ] || fail "--gpu H200"
  [ "$(n --since 2021-06-01)" = 1 ] || fail "--since"
  [ "$(n --experiment tiny)" = 2 ] || fail "--experiment"
  [ "$(n --experiment other)" = 0 ] || fail "--experiment other"
  c=$(q a.db "SELECT substr(json_extract(fingerprint, '$.build.commit'), 1, 4) FROM environments LIMIT 1")
  [ "$(n --commit "$c")" = 2 ] || fail "--commit $c"
  [ "$(n --commit zzzz)" = 0 ] || fail "--commit zzzz"
  "$AB" runs --db a.db --json --since 2021-06-01 | grep -c '"uuid"' | grep -qx 1 || fail "--json"
  if "$AB" runs --db a.db --since 2021/06/01 >/dev/null 2>&1; then fail "a bad date was accepted"; fi
  "$AB" show 1 --db a.db >s.txt || fail "show failed"
  grep -q "B=1 H=2 S=33 D=8 causal fp32" s.txt && grep -q "fingerprint" s.txt || fail "show lacks configurations or fingerprint"
  ;;
*)
  fail "unknown case $case_name"
  ;;
esac
exit 0
