#!/usr/bin/env python3
"""kit_preload_test.py: the adapter kit's preload (adapters/attnbench_adapter.py
run(preload=...)) runs once, after the hello and the framework's runner are
made and before the first request is read, and its time is said on stderr;
and fa4.py (adapters/examples/fa4.py), where flash-attn-4 is not installed,
answers the first call with the one-line "not installed" error rather than
failing at start-up. No GPU, torch or numpy: the runner is a stand-in.
Usage: kit_preload_test.py ADAPTERS_DIR
"""
import io
import os
import sys

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, os.path.join(sys.argv[1], "examples"))
import attnbench_adapter as kit  # noqa: E402

failures = 0
events = []


def expect(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + what, file=sys.stderr)


class Runner:
    """Stands in for TorchRunner: records when it is made."""
    def __init__(self, fn, context=None, layout="bhsd"):
        events.append("runner")

    def env(self):
        return {}

    def release(self):
        events.append("release")


class Out(io.StringIO):
    def write(self, s):
        if s.startswith("hello"):
            events.append("hello")
        return io.StringIO.write(self, s)


class In(io.StringIO):
    def __iter__(self):
        events.append("read")
        return io.StringIO.__iter__(self)


kit.TorchRunner = Runner
os.environ.update(ATTNBENCH_PROTOCOL="2", ATTNBENCH_HELLO="1")
old = sys.stdin, sys.stdout, sys.stderr
sys.stdin, sys.stdout, sys.stderr = In("quit\n"), Out(), io.StringIO()
try:
    kit.run(lambda q, k, v, c, s: q, framework="torch", preload=lambda: events.append("preload"))
finally:
    err = sys.stderr.getvalue()
    sys.stdin, sys.stdout, sys.stderr = old
expect(events == ["hello", "runner", "preload", "read", "release"],
       "order hello, runner, preload, first read, release: got %r" % events)
expect("attnbench_adapter: preload" in err and " ms" in err, "preload time on stderr: %r" % err)

# fa4.py without flash-attn-4: load() keeps the ImportError, the call reports it
import fa4  # noqa: E402
have_fa4 = True
try:
    import flash_attn.cute  # noqa: F401
except ImportError:
    have_fa4 = False
if not have_fa4:
    fa4.load()
    try:
        fa4.attention(None, None, None, False, 1.0)
        expect(False, "fa4.attention without the package raised nothing")
    except kit.AdapterError as e:
        expect("not installed" in str(e) and "\n" not in str(e), "fa4's error line: %s" % e)

print("kit preload: %d failures" % failures)
sys.exit(1 if failures else 0)
