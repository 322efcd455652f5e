#!/bin/sh
# newcomer.sh SRC: what a newcomer does first, in a fresh `git clone` of
# SRC's committed HEAD: the README's first command as its install block
# shows it (the block after the `newcomer` marker; its other command,
# .ci/run, is what CI itself runs, so it is checked to be there, not run
# again inside CI), then the README's first experiment as it shows it (the
# by-hand-cpu block), with the clone's own ./attnbench. Expected, from the
# README's own words: .ci/quickstart builds (./attnbench configures build/
# on first use), runs experiments/quickstart-cpu.cfg and prints the report's
# path, results/quickstart-cpu-run1.md, as its last line; that report
# judges the experiment (a verdict per comparison, a Conclusion); the
# by-hand block then prints results/quickstart-cpu-run2.md; and neither
# leaves a file git does not ignore (results/ is the user's, build/ the
# build's).
# The CPU path is taken (an nvidia-smi that sees no GPU comes first on
# PATH), so the test costs one CPU build of the clone. Nothing is
# installed: apt-get and sudo are stubs, and when .ci/deps finds a
# dependency missing the test skips (77) naming it. Skips (77) without git
# or when SRC is not a git checkout.
set -u
SRC=$1
fail() { echo "FAIL: $*"; exit 1; }
command -v git >/dev/null 2>&1 || { echo "skipped: no git"; exit 77; }
git -c safe.directory='*' -C "$SRC" rev-parse --verify -q HEAD >/dev/null ||
  { echo "skipped: $SRC is not a git checkout"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
printf '#!/bin/sh\nexit 9\n' >"$tmp/bin/nvidia-smi"
printf '#!/bin/sh\necho "$*" >>"%s/apt-get.txt"\nexit 1\n' "$tmp" >"$tmp/bin/apt-get"
printf '#!/bin/sh\nexec "$@"\n' >"$tmp/bin/sudo"
chmod +x "$tmp/bin/nvidia-smi" "$tmp/bin/apt-get" "$tmp/bin/sudo"
git -c safe.directory='*' clone -q "$SRC" "$tmp/clone" || fail "git clone $SRC failed"
cd "$tmp/clone" || exit 1
echo "newcomer: a fresh clone of $SRC at $(git rev-parse --short HEAD)"
export PATH="$tmp/bin:$PATH"
unset ATTNBENCH_DB ATTNBENCH_EXE CUDA_VISIBLE_DEVICES

# the README's install block: its lines, comments removed
awk '/<!-- newcomer/ { want = 1; next }
     want && /^```/ { if (on) exit; on = 1; next }
     on' README.md | sed 's/ *#.*//' >install.txt
grep -qx '.ci/quickstart' install.txt || { cat install.txt; fail "README's install block has no .ci/quickstart line"; }
grep -qx '.ci/run' install.txt || { cat install.txt; fail "README's install block has no .ci/run line"; }
first=$(head -n 1 install.txt)
[ "$first" = .ci/quickstart ] || fail "README's first command is '$first', not .ci/quickstart"
rm install.txt

# the first command, as written
sh -c "$first" >quickstart.out 2>quickstart.err
rc=$?
if [ $rc -ne 0 ] && [ -s "$tmp/apt-get.txt" ]; then
  echo "skipped: .ci/deps wanted to install packages this machine lacks: $(tr '\n' ' ' <"$tmp/apt-get.txt")"
  exit 77
fi
[ $rc -eq 0 ] || { tail -n 30 quickstart.err; fail "$first exited $rc"; }
[ -f build/build.ninja ] || fail "$first did not build into build/"
report=$(tail -n 1 quickstart.out)
[ "$report" = results/quickstart-cpu-run1.md ] ||
  { cat quickstart.out; fail "$first did not end with the report's path (last line: '$report')"; }
[ -f "$report" ] || fail "$first printed $report, which does not exist"
grep -q '^## Conclusion' "$report" || fail "$report has no Conclusion"
grep -Eq '\*\*(faster|slower|no significant difference)\*\*' "$report" || fail "$report has no verdict"
grep -q '^Overall: ' "$report" || fail "$report's Conclusion has no overall judgement"

# the first experiment, as the README shows it
awk '/<!-- by-hand-cpu/ { on = 1; next } /<!-- end by-hand-cpu/ { on = 0 } on && !/^```/' \
  README.md >"$tmp/first-experiment.sh"
[ -s "$tmp/first-experiment.sh" ] || fail "README has no by-hand-cpu block"
sh -e "$tmp/first-experiment.sh" >first.out 2>first.err ||
  { tail -n 30 first.err; fail "the README's first experiment failed"; }
grep -qx 'results/quickstart-cpu-run2.md' first.out ||
  { cat first.out; fail "the first experiment did not print its report's path"; }
grep -q '^## Conclusion' results/quickstart-cpu-run2.md || fail "the first experiment's report has no Conclusion"

# nothing but ignored files written into the checkout
rm quickstart.out quickstart.err first.out first.err
left=$(git status --porcelain)
[ -z "$left" ] || fail "the two commands left files git does not ignore: $left"
echo "ok: in a fresh clone, $first built and wrote $report; the first experiment wrote results/quickstart-cpu-run2.md"
