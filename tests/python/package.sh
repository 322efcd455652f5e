#!/bin/sh
# package.sh AB SRC: the Python package installs and works outside the
# checkout.
#  1. `pip install --no-build-isolation --no-deps --target SITE` of the
#     checkout's pyproject.toml (from a copy of the files pyproject.toml
#     names, so the build's setuptools leaves no build/ or *.egg-info in the
#     source tree): SITE then holds attnbench/ (frontdoor, relay, kit) and
#     attnbench_adapter.py;
#  2. from a folder outside the checkout, with only SITE on the path, an
#     adapter imports the kit (`import attnbench_adapter`, and
#     attnbench.kit is that same module) and attnbench.compare runs the
#     README's example to a verdict, the wrong kernel reported failed;
#  3. `meson install` puts the same files on the Python path under the
#     prefix (checked in the installed tree of a --destdir install).
# Skips (77) without python3 + numpy + pip + setuptools.
set -u
AB=$1 SRC=$2
PY=""
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy, setuptools, wheel' 2>/dev/null &&
       "$p" -m pip --version >/dev/null 2>&1; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "skipped: no python3 with numpy, setuptools, wheel and pip"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$tmp/src/adapters" "$tmp/away"
cp "$SRC/pyproject.toml" "$tmp/src/" && cp -r "$SRC/python" "$tmp/src/" &&
    cp "$SRC/adapters/attnbench_adapter.py" "$tmp/src/adapters/" || fail "copy"
"$PY" -m pip install --quiet --no-build-isolation --no-deps --no-index --target "$tmp/site" "$tmp/src" \
    >"$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log"; fail "pip install"; }
for f in attnbench/__init__.py attnbench/frontdoor.py attnbench/relay.py attnbench/kit.py attnbench_adapter.py; do
    [ -f "$tmp/site/$f" ] || fail "pip did not install $f"
done
cd "$tmp/away" || exit 1
PYTHONPATH=$tmp/site "$PY" -c "
import attnbench, attnbench_adapter, sys
assert attnbench.__file__.startswith('$tmp/site'), attnbench.__file__
assert attnbench_adapter.__file__.startswith('$tmp/site'), attnbench_adapter.__file__
assert attnbench.kit.hello_line is attnbench_adapter.hello_line
print('imports ok')" >imp.txt 2>&1 || { cat imp.txt; fail "imports outside the checkout"; }
ATTNBENCH_EXE=$AB PYTHONPATH=$tmp/site "$PY" "$SRC/examples/python/notebook_compare.py" >out.txt 2>err.txt ||
    { cat out.txt err.txt; fail "example with the installed package"; }
# any verdict the front door prints: an inconclusive comparison (a loaded
# host) reads "no significant difference", also a verdict
grep -Eq '^  mine +vs cpu_flash .*: (faster|slower|no difference|no significant difference|equivalent)' out.txt &&
    grep -Eq '^  wrong +FAILED' out.txt || { cat out.txt err.txt; fail "installed package: no verdict"; }
# meson install: the same files under the prefix's Python path
BUILD=$(dirname "$(dirname "$AB")")
if [ -f "$BUILD/build.ninja" ]; then
    meson install -C "$BUILD" --destdir "$tmp/dest" >"$tmp/mi.log" 2>&1 || { tail "$tmp/mi.log"; fail "meson install"; }
    for f in attnbench/frontdoor.py attnbench/relay.py attnbench_adapter.py; do
        find "$tmp/dest" -path "*-packages/$f" | grep -q . || fail "meson install did not install $f"
    done
fi
echo "ok: pip install from the checkout; the kit and attnbench.compare work outside it; meson install installs them"
