#!/bin/sh
# as_plain_user.sh CASE ATTNBENCH SOURCE_ROOT: runs cli_test.sh CASE as a
# user without root's rights (CI runs as root, where permission checks never
# fail): directly when not root, else as 'nobody' through setpriv(1).
# Skipped (77) when root cannot drop to 'nobody' here or 'nobody' cannot
# read the build (a checkout under a private home directory).
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" != 0 ] && exec sh "$here/cli_test.sh" "$@"
command -v setpriv >/dev/null 2>&1 || { echo "skipped: no setpriv to drop root"; exit 77; }
id nobody >/dev/null 2>&1 || { echo "skipped: no user 'nobody'"; exit 77; }
run() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups env TMPDIR=/tmp HOME=/tmp "$@"; }
run test -x "$2" -a -r "$here/cli_test.sh" ||
  { echo "skipped: 'nobody' cannot reach $2 or $here"; exit 77; }
run sh "$here/cli_test.sh" "$@"
