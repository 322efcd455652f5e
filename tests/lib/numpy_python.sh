# tests/lib/numpy_python.sh: sourced by the tests that run the adapter
# kit's numpy framework (". "$SRC/tests/lib/numpy_python.sh""): sets PY to
# the first of python3 and /usr/bin/python3 that imports numpy, or skips
# the test (exit 77, meson's "skipped") when neither does.
PY=""
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "skipped: no python3 with numpy"; exit 77; }
