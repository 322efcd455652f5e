#!/bin/sh
# tests/hostile/hostile_test.sh: hostile inputs from a table. Usage:
#   hostile_test.sh inputs ATTNBENCH TABLE [SURFACE]
#     every line of TABLE (tests/hostile/inputs.txt; its header says the
#     fields) whose surface is SURFACE (all without), each in a fresh folder
#     with the fixtures below; a line passes when attnbench exits as the
#     line expects, within 60 s (timeout(1) judges "never returns"), with its
#     message matching the line's pattern, and never with a signal.
#   hostile_test.sh intervals ATTNBENCH SOURCE_ROOT
#     one interval per median: show and report --json print the same 95% CI
#     for every measurement, and stats names each interval by its method,
#     with the order-statistic interval of 1..10 at 95% known by hand.
#   hostile_test.sh help-options ATTNBENCH SOURCE_ROOT
#     every option a command's parser (src/cli/cmd_*.c) accepts is in its
#     `attnbench help`; the taskset examples of README.md and docs/ name
#     CPUs a 2-CPU machine has (0 and 1).
# Exit 0 pass, 1 fail, 77 skipped.
set -u
case_name=$1; AB=$2; ARG=$3; SURFACE=${4:-}
export OMP_NUM_THREADS=1 AB
tmp=$(mktemp -d); trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v sqlite3 >/dev/null 2>&1 || { echo "skipped: no sqlite3"; exit 77; }
command -v timeout >/dev/null 2>&1 || { echo "skipped: no timeout(1)"; exit 77; }

# helpers for the table's commands
cat >helpers.sh <<'EOF'
N='name = "x";'
V='variants = ["cpu_flash"];'
SW='sweep = { S = 16; D = 8; dtype = "fp32"; };'
cfg() { f=$1; shift; printf '%s\n' "$@" >"$f"; }
# adapter COMMAND: ad.cfg runs cpu_flash and the external variant "ext",
# protocol 1, whose program is COMMAND (in ad.sh), timeout 3 s
adapter() {
  printf '%s\n' "$1" >ad.sh
  cfg ad.cfg 'name = "ad";' \
    "variants = (\"cpu_flash\", { name = \"ext\"; command = \"sh $PWD/ad.sh\"; timeout = 3.0; });" \
    'sweep = { S = 16; D = 8; dtype = "fp32"; };' 'samples = 5;' 'warmup = 0;'
}
EOF

fixtures() {
  cat >a.cfg <<'CFG'
name = "tiny";
variants = ["cpu_reference", "cpu_flash"];
sweep = { B = 1; H = 1; S = [16, 17]; D = 8; dtype = "fp32"; };
warmup = 0;
samples = 6;
round_size = 3;
CFG
  "$AB" run a.cfg --db a.db >/dev/null 2>run.log || { cat run.log >&2; fail "the fixture run failed"; }
  "$AB" export 1 --db a.db -o ok.json || fail "the fixture export failed"
  printf '1\n2\n3\n4\n' >s.txt
}

case $case_name in
inputs)
  [ -f "$ARG" ] || fail "no table $ARG"
  fixtures
  mkdir fix && mv a.cfg a.db ok.json s.txt helpers.sh fix/
  n=0; bad=0; tab=$(printf '\t')
  while IFS="$tab" read -r id surface expect pattern found command; do
    case $id in '#'*|'') continue ;; esac
    [ -z "$SURFACE" ] || [ "$surface" = "$SURFACE" ] || continue
    n=$((n + 1))
    rm -rf case; mkdir case; cp fix/* case/
    ( cd case && . ./helpers.sh && timeout 60 sh -c ". ./helpers.sh; $command" >out.txt 2>err.txt; echo $? >rc.txt )
    rc=$(cat case/rc.txt)
    why=""
    case $rc in
      124) why="did not return within 60 s" ;;
      12[5-9]|1[3-9][0-9]|2[0-9][0-9]) why="ended by a signal or worse (exit $rc)" ;;
    esac
    if [ -z "$why" ]; then
      case $expect in
        err)
          if [ "$rc" = 0 ] || [ "$rc" -gt 3 ]; then why="exit $rc, expected an error (1-3)"
          elif ! grep -Eq -- "$pattern" case/err.txt; then why="stderr lacks /$pattern/"
          elif [ "$(wc -l <case/err.txt)" -gt 3 ]; then why="more than 3 lines on stderr"
          fi ;;
        ok)
          if [ "$rc" != 0 ]; then why="exit $rc, expected 0"
          elif ! grep -Eq -- "$pattern" case/out.txt; then why="stdout lacks /$pattern/"
          fi ;;
        rc3)
          if [ "$rc" != 3 ]; then why="exit $rc, expected 3"
          elif ! grep -Eq -- "$pattern" case/out.txt; then why="stdout lacks /$pattern/"
          fi ;;
        *) why="unknown expectation '$expect'" ;;
      esac
    fi
    if [ -n "$why" ]; then
      bad=$((bad + 1))
      echo "FAIL $id ($surface): $why" >&2
      sed 's/^/    stderr: /' case/err.txt | head -n 4 >&2
      sed 's/^/    stdout: /' case/out.txt | head -n 4 >&2
    else
      echo "ok   $id: $(head -n 1 case/err.txt | cut -c1-150)"
    fi
  done <"$ARG"
  [ "$n" -gt 0 ] || fail "no line of $ARG${SURFACE:+ with surface $SURFACE}"
  [ "$bad" = 0 ] || fail "$bad of $n hostile inputs misbehaved"
  echo "ok: $n hostile inputs${SURFACE:+ ($SURFACE)}"
  ;;

intervals)
  fixtures
  # show's CI column against report --json's median_ci, per measurement
  "$AB" show 1 --db a.db >show.txt || fail "show failed"
  "$AB" report 1 --db a.db --json -o r.json || fail "report --json failed"
  # show: "  VARIANT  ok  N  MEDIAN  [LO, HI]..." under each configuration title,
  # printed to 4 significant digits (src/core/units.c, ab_fmt_ms)
  awk '/^B=/ { cfg = $0 } /^  cpu_/ && $2 == "ok" { gsub(/[\[\],]/, " "); printf "%s|%s %s %s\n", cfg, $1, $5, $6 }' \
    show.txt | sort >show_ci.txt
  [ "$(wc -l <show_ci.txt)" = 4 ] || { cat show.txt >&2; fail "show: not 4 measurements with a CI"; }
  # the JSON's intervals, read with sqlite3's json functions (no jq needed)
  sqlite3 :memory: "SELECT 'B=1 H=1 S=' || json_extract(v.value, '$.config.S') || ' D=8 non-causal fp32' || '|' ||
      json_extract(v.value, '$.variant') || ' ' || printf('%.17g', json_extract(v.value, '$.median_ci[0]')) || ' ' ||
      printf('%.17g', json_extract(v.value, '$.median_ci[1]'))
    FROM json_each(readfile('r.json'), '$.variants') v" | sort >json_ci.txt
  # the same interval: each end within show's rounding (4 significant digits)
  paste -d'#' show_ci.txt json_ci.txt | awk -F'#' '{
      split($1, a, "|"); split($2, b, "|"); split(a[2], x, " "); split(b[2], y, " ")
      if (a[1] != b[1] || x[1] != y[1]) { print "row mismatch: " $0; bad = 1; next }
      for (k = 2; k <= 3; k++) { d = x[k] - y[k]; if (d < 0) d = -d; if (d > 1e-3 * y[k]) { print "differs: " $0; bad = 1 } }
    } END { exit bad }' >&2 || fail "show and report --json print different CIs"
  grep -q 'as report gives them: a cluster bootstrap over rounds' show.txt || fail "show does not name its interval"
  [ "$(sqlite3 :memory: "SELECT DISTINCT json_extract(v.value, '$.median_ci_method') FROM json_each(readfile('r.json'), '$.variants') v")" = \
    "cluster bootstrap over rounds" ] || fail "report --json: not the cluster bootstrap over rounds"
  echo "ok: show and report --json give the same 4 intervals"
  # stats: 1..10 is below 30 samples: the order-statistic interval. At 95%,
  # k = 2 (2 P(Bin(10, 1/2) <= 1) = 22/1024 <= 0.05 < 2 P(<= 2) = 112/1024),
  # so [x_(2), x_(9)] = [2, 9] (Conover 1999 sec. 3.2; binomial sums by hand)
  seq 1 10 >ten.txt; seq 1 40 >forty.txt
  "$AB" stats ten.txt forty.txt >st.txt || fail "stats failed"
  grep -q '95% median CIs: A order statistics (distribution-free), B BCa bootstrap' st.txt ||
    { cat st.txt >&2; fail "stats does not name each interval by its method"; }
  awk '$1 == "A" && $7 == "[2," && $8 == "9]" { ok = 1 } END { exit !ok }' st.txt ||
    { cat st.txt >&2; fail "stats: the order-statistic interval of 1..10 is not [2, 9]"; }
  "$AB" stats ten.txt forty.txt --json >st.json || fail "stats --json failed"
  [ "$(sqlite3 :memory: "SELECT json_extract(readfile('st.json'), '$.a.median_ci_method') || '|' ||
        json_extract(readfile('st.json'), '$.b.median_ci_method')")" = \
    "order statistics (distribution-free)|BCa bootstrap" ] || { cat st.json >&2; fail "stats --json: methods"; }
  echo "ok: stats names the order-statistic interval (1..10: [2, 9]) and the bootstrap"
  ;;

help-options)
  n=0
  for f in "$ARG"/src/cli/cmd_*.c; do
    cmds=$(sed -n 's/^int cmd_\([a-z]*\)(int argc.*/\1/p' "$f")
    [ -n "$cmds" ] || continue
    for o in $(grep -o '"--[a-z][a-z-]*"' "$f" | tr -d '"' | sort -u); do
      found=0
      for c in $cmds; do "$AB" help "$c" 2>/dev/null | grep -q -- "$o" && found=1; done
      [ $found = 1 ] || fail "$(basename "$f"): $o is accepted but not in 'attnbench help' of $cmds"
      n=$((n + 1))
    done
  done
  [ "$n" -gt 40 ] || fail "only $n options found in $ARG/src/cli"
  echo "ok: $n options, each in its command's help"
  # taskset -c LIST in the README and the method documents beside it
  # (docs/): CPUs 0 and 1 only (CI and many laptops have 2)
  for md in "$ARG/README.md" "$ARG"/docs/*.md; do
    for l in $(grep -o 'taskset -c [0-9,-]*' "$md" | awk '{print $3}'); do
      for c in $(echo "$l" | tr ',-' '  '); do
        [ "$c" -le 1 ] || fail "$md: 'taskset -c $l' names CPU $c, absent on a 2-CPU machine"
      done
    done
  done
  echo "ok: the taskset examples of README.md and docs/ run on 2 CPUs"
  ;;

*) fail "unknown case $case_name" ;;
esac
