"""frontdoor.py: attnbench.compare, one call from Python (a script or a
notebook) to attnbench's verdict on attention functions.

    import attnbench
    r = attnbench.compare({"mine": attention}, shapes=[dict(B=1, H=2, S=128, D=64)],
                          baseline="cpu_flash", framework="numpy")
    r.verdicts, r.failed, r.report

It writes an experiment file (experiments' syntax, docs/experiments.md), runs the attnbench executable on it (`attnbench run`, then
`attnbench report` in markdown and JSON), stores everything in the database
`db` like any run, and returns a Result built from the JSON report.

Each function in `kernels` is an external variant of protocol 2
(adapters/PROTOCOL.md) served from this process: its command is relay.py,
which connects back to a Unix socket this call listens on and passes the
protocol's lines through, while the adapter kit (attnbench_adapter:
inputs, warm-up, timing, output for attnbench's own check, device buffers
through CUDA IPC for framework="torch") runs the function here. So a
function defined in a notebook cell is measured as it is, with no module
path, and its samples are taken inside attnbench's interleaved rounds. A
string names a built-in variant or another experiment entry by name
("cpu_flash", "cudnn_sdpa"); a dict is an experiment entry of its own
(`{"library": "./libmine.so"}`, `{"command": "python3 x.py", "protocol": 2}`).
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

from . import kit

HERE = os.path.dirname(os.path.abspath(__file__))
AXES = ("B", "H", "S", "D", "H_kv", "S_kv")


class CompareError(Exception):
    """attnbench could not run the comparison (not: a kernel failed its check;
    that is in Result.failed)."""


class Result:
    """What attnbench.compare returns.

    verdicts: one dict per comparison of the report (its JSON's
      "comparisons": variant, baseline, config, speedup (baseline median /
      variant median), speedup_ci, p_adjusted, verdict);
    variants: one dict per (variant, configuration) (status "ok", "failed"
      or "error", median_ms, median_ci, n, rounds, message);
    failed: {variant: message} of every measurement that failed its
      correctness check or could not run (status other than "ok");
    report, report_json: paths of the markdown and JSON reports;
    db, run: the database and the run id (`attnbench show RUN`);
    ok: True when every measurement passed its check and ran."""

    def __init__(self, run, db, report, report_json, data, failed, stderr):
        self.run, self.db, self.report, self.report_json = run, db, report, report_json
        self.verdicts = data.get("comparisons", [])
        self.variants = data.get("variants", [])
        self.failed = failed
        self.stderr = stderr
        self.ok = not failed

    def __repr__(self):
        lines = ["attnbench run %d (%s): report %s" % (self.run, self.db, self.report)]
        for c in self.verdicts:
            sp = c.get("speedup")
            lines.append("  %-16s vs %-16s %s: %s%s" % (
                c["variant"], c["baseline"], _config_str(c.get("config", {})), c["verdict"],
                "" if sp is None else " (%.3gx)" % sp))
        for name, why in self.failed.items():
            lines.append("  %-16s FAILED: %s" % (name, why))
        return "\n".join(lines)


def _variant_name(stored):
    """The variant a user named: V for its instance V#k (`instances`), else
    the stored name as it is."""
    base, sep, k = stored.rpartition("#")
    return base if sep and base and k.isdigit() else stored


def _config_str(c):
    s = "B=%s H=%s S=%s D=%s" % (c.get("B"), c.get("H"), c.get("S"), c.get("D"))
    for k in ("H_kv", "S_kv"):
        if k in c and c[k] != c.get(k[0]):
            s += " %s=%s" % (k, c[k])
    return s + (" causal" if c.get("causal") else "") + " " + str(c.get("dtype", ""))


def find_attnbench(exe=None):
    """The attnbench executable: exe, else $ATTNBENCH_EXE, else `attnbench`
    on PATH (meson install), else a build folder of the checkout this
    package lies in (build/, builddir/). Raises CompareError when none."""
    root = os.path.dirname(os.path.dirname(HERE))
    for cand in (exe, os.environ.get("ATTNBENCH_EXE"), shutil.which("attnbench"),
                 os.path.join(root, "build", "attnbench"),
                 os.path.join(root, "builddir", "attnbench")):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return os.path.abspath(cand)
    raise CompareError("no attnbench executable: pass exe=, set ATTNBENCH_EXE, put it on PATH "
                       "(meson install) or build the checkout into build/")


def _q(s):
    return json.dumps(str(s))  # a libconfig string: double quotes, backslash escapes


def _value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, str):
        return _q(v)
    return repr(v)


class _Served:
    """One function served on a Unix socket to relay.py: each connection
    (one adapter process of attnbench's) runs the kit's protocol-2 loop."""

    def __init__(self, name, fn, framework, layout, path):
        self.name, self.fn, self.framework, self.layout = name, fn, framework, layout
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(4)
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return  # closed
            self._serve(conn)

    def _serve(self, conn):
        with conn, conn.makefile("r") as inp, conn.makefile("w") as out:
            try:
                env = json.loads(inp.readline() or "{}")
                kit_serve(self.fn, self.framework, self.layout, env, inp, out,
                          describe=self.name)
            except Exception as e:  # reported to attnbench on the protocol's error line
                try:
                    out.write("error %s: %s\n" % (type(e).__name__, " ".join(str(e).split())[:300]))
                    out.flush()
                except OSError:
                    pass

    def close(self):
        try:
            self.sock.close()
        finally:
            if os.path.exists(self.path):
                os.unlink(self.path)


_env_lock = threading.Lock()


class _EnvRunner:
    """The kit's runner with attnbench's per-process settings of the relay
    (ATTNBENCH_OUTPUT, ATTNBENCH_HOLD) in os.environ while it prepares and
    times: attnbench sends one request at a time, so the process-wide
    environment is this connection's for the request's duration."""

    def __init__(self, runner, env):
        self.runner, self.env = runner, env

    def _with_env(self, f, *a):
        with _env_lock:
            keys = [k for k in self.env if k.startswith("ATTNBENCH_")]
            saved = {k: os.environ.get(k) for k in keys}
            os.environ.update({k: self.env[k] for k in keys})
            try:
                return f(*a)
            finally:
                for k, v in saved.items():
                    if v is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = v

    def prepare(self, cfg, describe):
        return self._with_env(self.runner.prepare, cfg, describe)

    def time(self, call, cfg):
        return self._with_env(self.runner.time, call, cfg)

    def release(self):
        self.runner.release()

    def recover(self):
        self.runner.recover()


class _RefCountedCudart:
    """The kit's Cudart shared by every function this process serves: CUDA
    refuses a second cudaIpcOpenMemHandle of one handle in a process, and
    attnbench shares one set of buffers per configuration with all its
    variants, so the runners of two served functions open each handle once
    between them (counted; closed when the last one lets go)."""

    def __init__(self):
        self.real, self.by_handle, self.by_ptr = None, {}, {}
        self.lock = threading.Lock()

    def open(self, handle):
        with self.lock:
            if handle in self.by_handle:
                ptr, n = self.by_handle[handle]
                self.by_handle[handle] = (ptr, n + 1)
                return ptr
            if self.real is None:
                self.real = kit.Cudart()
            ptr = self.real.open(handle)
            self.by_handle[handle] = (ptr, 1)
            self.by_ptr[ptr] = handle
            return ptr

    def close(self, ptr):
        with self.lock:
            handle = self.by_ptr.get(ptr)
            if handle is None:
                return 0
            p, n = self.by_handle[handle]
            if n > 1:
                self.by_handle[handle] = (p, n - 1)
                return 0
            del self.by_handle[handle], self.by_ptr[ptr]
            return self.real.close(ptr)


_shared_cudart = _RefCountedCudart()


def _function_identity(fn):
    """The function's name and the SHA-256 of its source (inspect), for the
    version line, so that the report says which code produced the numbers
    even for a function typed into a notebook cell."""
    import hashlib
    import inspect
    out = {"function": getattr(fn, "__qualname__", None) or repr(fn)}
    try:
        out["function_sha256"] = hashlib.sha256(inspect.getsource(fn).encode()).hexdigest()
    except (OSError, TypeError):
        out["function_sha256"] = None  # a builtin or a C extension: no Python source
    return out


def kit_serve(fn, framework, layout, env, inp, out, describe="the function", caps=None):
    """Protocol 2 for fn on the streams inp/out with the relay's environment
    `env` (a dict): the hello when attnbench asked for one, then the kit's
    request loop (attnbench_adapter.serve)."""
    if env.get("ATTNBENCH_PROTOCOL") != "2":
        raise kit.AdapterError("ATTNBENCH_PROTOCOL is %r; attnbench.compare serves protocol 2"
                               % env.get("ATTNBENCH_PROTOCOL"))
    if kit.hello_wanted(env):
        out.write(kit.hello_line(framework, layout, caps, env) + "\n")
        out.flush()
    if framework == "torch":
        runner = kit.TorchRunner(fn, None, layout, cudart=_shared_cudart)
    elif framework == "numpy":
        runner = kit.NumpyRunner(fn, None, layout)
    else:
        raise kit.AdapterError("framework %r is not torch or numpy" % framework)
    fields = runner.env()
    fields["served_by"] = "attnbench.compare (in-process, relay.py)"
    fields.update(_function_identity(fn))
    # the function runs in this process, with this process's threads (the
    # experiment's `threads` reached only the relay's environment)
    fields["threads"] = "the caller's process (OMP_NUM_THREADS=%s there)" % os.environ.get(
        "OMP_NUM_THREADS", "unset")
    kit.serve(_EnvRunner(runner, env), json.dumps(fields, sort_keys=True), describe, inp, out)


def compare(kernels, shapes, baseline=None, framework="numpy", dtype="fp32", causal=False,
            rounds=10, round_size=5, warmup=2, seed=42, timing="hot", threads=1, layout="bhsd",
            db="attnbench.db", name="compare", hypothesis=None, expect=None, timeout=300.0,
            exe=None, workdir=None, verbose=False):
    """Compares attention functions (and built-in variants) in one attnbench
    run; returns a Result.

    kernels: {name: fn | "builtin_variant" | {experiment entry}}; fn(q, k,
      v, causal, scale) -> o with q [B, H, S, D] and k, v [B, H_kv, S_kv, D]
      (layout="bshd": [B, S, H, D]) as the adapter kit passes them.
    shapes: a dict or a list of dicts of B, H, S, D (and H_kv, S_kv).
    baseline: the name every other is compared with (default the first).
    framework: "numpy" (host arrays, host wall clock; the default) or
      "torch" (CUDA tensors in the dtype, CUDA events, attnbench's device
      buffers). Served functions run in this process, with its threads.
    dtype, causal: a value or a list of values (the sweep's axes).
    rounds x round_size samples per measurement, after `warmup` calls;
      timing "cold", "hot" or "graph"; threads: the experiment's `threads`
      (OpenMP threads of the CPU variants, OMP_NUM_THREADS of adapters).
    db: the SQLite database (created when absent; other runs kept).
    expect: claims, e.g. [{"variant": "mine", "verdict": "faster"}].
    workdir: where the experiment file and reports go (default a new
      folder under the system's temporary folder).
    Raises CompareError when attnbench cannot run (bad experiment, no
    executable, a database error); a function that fails attnbench's
    check is not an exception: it is in Result.failed, and said so on
    stderr."""
    exe = find_attnbench(exe)
    if isinstance(shapes, dict):
        shapes = [shapes]
    if not shapes or not kernels:
        raise CompareError("compare needs at least one kernel and one shape")
    names = list(kernels)
    baseline = baseline or names[0]
    if baseline not in kernels:
        raise CompareError("baseline %r is not one of the kernels %s" % (baseline, names))
    if framework not in ("numpy", "torch"):
        raise CompareError("framework %r is not numpy or torch" % (framework,))
    workdir = os.path.abspath(workdir or tempfile.mkdtemp(prefix="attnbench-compare-"))
    os.makedirs(workdir, exist_ok=True)
    db = os.path.abspath(db)
    sockdir = tempfile.mkdtemp(prefix="ab-sock-")  # short: a socket path is at most 107 bytes
    served, entries = [], []
    try:
        for i, (vname, k) in enumerate(kernels.items()):
            if callable(k):
                path = os.path.join(sockdir, "%d.sock" % i)
                served.append(_Served(vname, k, framework, layout, path))
                cmd = "%s %s %s" % (sys.executable, os.path.join(HERE, "relay.py"), path)
                entries.append("{ name = %s; command = %s; protocol = 2; timeout = %s; }"
                               % (_q(vname), _q(cmd), repr(float(timeout))))
            elif isinstance(k, str):
                entries.append(_q(k) if k == vname else
                               "{ name = %s; variant = %s; }" % (_q(vname), _q(k)))
            elif isinstance(k, dict):
                fields = "".join(" %s = %s;" % (key, _value(v)) for key, v in k.items())
                entries.append("{ name = %s;%s }" % (_q(vname), fields))
            else:
                raise CompareError("kernel %r: a function, a variant name or an entry dict"
                                   % vname)
        configs = []
        for sh in shapes:
            bad = [key for key in sh if key not in AXES + ("causal", "dtype")]
            if bad:
                raise CompareError("shape %r: unknown axis %s (B, H, S, D, H_kv, S_kv)"
                                   % (sh, bad[0]))
            configs.append("{ " + " ".join("%s = %s;" % (key, _value(v))
                                            for key, v in sh.items()) + " }")
        text = ["# written by attnbench.compare (python/attnbench/frontdoor.py)",
                "name = %s;" % _q(name),
                "hypothesis = %s;" % _q(hypothesis or "%s compared with %s" % (
                    ", ".join(n for n in names if n != baseline), baseline)),
                "variants = ( %s );" % ",\n  ".join(entries),
                "baseline = %s;" % _q(baseline),
                "sweep = { causal = %s; dtype = %s; };" % (_value(causal), _value(dtype)),
                "configs = ( %s );" % ",\n  ".join(configs),
                "warmup = %d; samples = %d; round_size = %d; seed = %d;"
                % (warmup, rounds * round_size, round_size, seed),
                "timing = %s; threads = %d;" % (_q(timing), threads)]
        if expect:
            text.append("expect = ( %s );" % ", ".join(
                "{ " + " ".join("%s = %s;" % (key, _value(v)) for key, v in c.items()) + " }"
                for c in expect))
        cfg = os.path.join(workdir, name + ".cfg")
        with open(cfg, "w") as f:
            f.write("\n".join(text) + "\n")
        p = subprocess.run([exe, "run", cfg, "--db", db], cwd=workdir, capture_output=True,
                           text=True)
        if verbose:
            sys.stderr.write(p.stderr)
        lines = p.stdout.split()
        if p.returncode not in (0, 3) or not lines:
            raise CompareError("attnbench run %s exited %d: %s" % (
                cfg, p.returncode, p.stderr.strip()[-2000:]))
        run = int(lines[-1])
    finally:
        for s in served:
            s.close()
        shutil.rmtree(sockdir, ignore_errors=True)
    md = os.path.join(workdir, "%s-run%d.md" % (name, run))
    js = os.path.join(workdir, "%s-run%d.json" % (name, run))
    for extra, path in (([], md), (["--json"], js)):
        r = subprocess.run([exe, "report", str(run), "--db", db, "-o", path] + extra,
                           cwd=workdir, capture_output=True, text=True)
        if r.returncode != 0:
            raise CompareError("attnbench report %d exited %d: %s"
                               % (run, r.returncode, r.stderr.strip()[-2000:]))
    with open(js) as f:
        data = json.load(f)
    failed = {}
    for v in data.get("variants", []):
        if v.get("status") != "ok":
            why = "%s (%s)" % (v.get("message") or v.get("status"), _config_str(v.get("config", {})))
            name = _variant_name(v["variant"])
            failed[name] = failed.get(name, why)
    res = Result(run, db, md, js, data, failed, p.stderr)
    for n, why in failed.items():
        sys.stderr.write("attnbench.compare: %s FAILED: %s\n" % (n, why))
    return res
