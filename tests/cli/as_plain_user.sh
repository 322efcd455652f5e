#!/bin/sh
# as_plain_user.sh CASE ATTNBENCH SOURCE_ROOT: runs cli_test.sh CASE as a
# user without root's rights (CI runs as root, where permission checks never
# fail): directly when not root, else as 'nobody' through setpriv(1).
# When 'nobody' cannot read the build (a checkout under a private home
# directory, as in a fresh root's /root), copies of the program and the
# script run from a temporary directory. Skipped (77) when root cannot drop
# to 'nobody' here.
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" != 0 ] && exec sh "$here/cli_test.sh" "$@"
command -v setpriv >/dev/null 2>&1 || { echo "skipped: no setpriv to drop root"; exit 77; }
id nobody >/dev/null 2>&1 || { echo "skipped: no user 'nobody'"; exit 77; }
run() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups env TMPDIR=/tmp HOME=/tmp "$@"; }
run test -x "$2" -a -r "$here/cli_test.sh" && exec_run=1 || exec_run=0
[ "$exec_run" = 1 ] && { run sh "$here/cli_test.sh" "$@"; exit $?; }
# a checkout under a private home (/root/attnbench): 'nobody' runs copies of
# the program and the script from a directory of its own reach (the
# bad-database case needs nothing else of the checkout)
copy=$(mktemp -d) || exit 1
chmod 755 "$copy"
cp "$2" "$copy/attnbench" && cp "$here/cli_test.sh" "$copy/cli_test.sh" || { rm -rf "$copy"; exit 1; }
if ! run test -x "$copy/attnbench" -a -r "$copy/cli_test.sh"; then
  rm -rf "$copy"; echo "skipped: 'nobody' cannot reach $2, $here or $copy"; exit 77
fi
case_name=$1; shift 2
run sh "$copy/cli_test.sh" "$case_name" "$copy/attnbench" "$@"
rc=$?
rm -rf "$copy"
exit $rc
